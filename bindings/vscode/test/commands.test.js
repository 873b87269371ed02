'use strict'
// The editor commands on their good path: Send Selection to Agent (the
// unsaved buffer's context, the blocks offered), Apply Code Block with and
// without the diff preview, several blocks, and List Agents, against the
// stand-in `vscode` module of stand-in.js with the real native engine and the
// bundled example agent in a temporary, trusted workspace.
//   npm run compile && node --test test/

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const {
  setup, state, reset, commands, channel, provider, Position, Uri, Document,
  applied, editorOf, unsavedDocument, buffer, onDisk, reviewed, exampleAgent,
} = require('./stand-in.js')

const { ws } = setup()

test('Send Selection sends the unsaved buffer\'s context with requestAsync, offers the block; Apply (no preview) edits the buffer', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.previewBeforeApply': false }, editor: editorOf(doc, [2, 0], [5, 0]), pick: 0 })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.requests.length, 2)
  const { how, req } = state.requests[0]
  assert.equal(how, 'requestAsync')
  assert.match(req.id, /^vscode-step-\d+$/)
  assert.deepEqual(req, {
    command: 'step',
    id: req.id,
    args: {
      agent: 'example',
      prompt: '',
      context: {
        file_path: path.join(ws, 'src/main.ts'),
        language: 'typescript',
        selection: 'export function add(a: number, b: number) {\n  return a + b\n}',
        surrounding_lines: "import { readFileSync } from 'fs'\n\n---\n\nconsole.log(add(1, 2))",
        workspace: ws,
        selection_range: { start_line: 3, end_line: 5 },
      },
    },
  })
  assert.deepEqual(state.progress, [{ location: 15, title: 'Radium: asking example…', cancellable: true }])
  // The answer's block is offered at once (a single one too).
  assert.deepEqual(state.picks.map((p) => [p.labels, p.options.title]), [
    [['#1 [typescript] src/main.ts // reviewed by the example agent'], 'Radium: example answered with 1 code block'],
  ])
  assert.equal(channel.name, 'Radium')
  const log = channel.lines.join('\n')
  assert.match(log, /step example: 1 code block\(s\) in \d+ ms \(agent [\d.]+ ms, engine total [\d.]+ ms\)/)
  assert.match(log, /request step example \(vscode-step-\d+\): ok in [\d.]+ ms/)
  assert.match(log, /request apply: ok in [\d.]+ ms/)

  assert.deepEqual(state.executed, [], 'no preview')
  const apply = state.requests.find((r) => r.req.command === 'apply')
  assert.equal(apply.how, 'request')
  assert.deepEqual(apply.req.args, {
    content: '// reviewed by the example agent\nexport function add(a: number, b: number) {\n  return a + b\n}\n',
    text: buffer,
    start_line: 3,
    end_line: 5,
  })
  assert.equal(state.edits.length, 1)
  assert.equal(applied(buffer, state.edits[0]), reviewed)
  // Only the changed line is replaced (one edit, undone by one Ctrl+Z).
  assert.deepEqual(state.edits[0].edits.map((e) => [e.range.start, e.range.end, e.text]), [
    [new Position(2, 0), new Position(2, 0), '// reviewed by the example agent\n'],
  ])
  assert.equal(doc.getText(), reviewed)
  assert.equal(fs.readFileSync(doc.uri.fsPath, 'utf8'), onDisk, 'nothing is written to disk')
  assert.deepEqual(state.info, ['Radium: applied block #1 to main.ts'])

  // Apply Code Block offers the last answer again; Escape does nothing.
  reset({ editor: editorOf(doc, [0, 0]) })
  await commands['radium.applyCode']()
  assert.equal(state.picks.length, 1)
  assert.deepEqual(state.edits, [])
  assert.ok(channel.lines.includes('apply: no block picked'))
})

test('Apply with a preview: a diff against a radium-preview document, then Apply or Discard', async () => {
  const doc = unsavedDocument()
  reset({ editor: editorOf(doc, [2, 0], [5, 0]), pick: 0, answerPrompt: 'Discard' })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.executed.length, 1)
  assert.equal(state.closed, 1, 'the diff editor is closed')
  assert.deepEqual(state.edits, [], 'discarded: no edit')
  assert.equal(doc.getText(), buffer)

  state.answerPrompt = 'Apply'
  state.executed = []
  state.prompts = []
  await commands['radium.applyCode']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.executed.length, 1)
  const [left, right, title] = state.executed[0].args
  assert.equal(state.executed[0].id, 'vscode.diff')
  assert.equal(left, doc.uri)
  assert.equal(right.scheme, 'radium-preview')
  assert.equal(provider.scheme, 'radium-preview')
  assert.equal(provider.p.provideTextDocumentContent(right), reviewed)
  assert.equal(title, 'main.ts ↔ Radium block #1')
  assert.deepEqual(state.prompts, [
    { message: 'Radium: apply block #1 to main.ts (lines 3-5)?', rest: [{ modal: false }, 'Apply', 'Discard'] },
  ])
  assert.equal(state.closed, 2)
  assert.equal(state.edits.length, 1)
  assert.equal(applied(buffer, state.edits[0]), reviewed)
  assert.equal(doc.getText(), reviewed)
  assert.equal(state.shown.at(-1), doc.uri.toString(), 'the document is shown again')
})

test('several blocks: a quick pick chooses one; an untitled buffer is placed in the workspace', async () => {
  const doc = new Document(Uri.from({ scheme: 'untitled', path: 'Untitled-1' }), 'typescript', 'let a = 1\nlet b = 2\n', { isUntitled: true })
  reset({ settings: { 'radium.agent': 'two', 'radium.previewBeforeApply': false }, editor: editorOf(doc, [1, 3], [1, 3]), pick: 1 })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  const context = state.requests[0].req.args.context
  assert.equal(context.file_path, path.join(ws, 'untitled'))
  assert.equal(context.selection, 'let b = 2', 'an empty selection sends its line')
  assert.deepEqual(context.selection_range, { start_line: 2, end_line: 2 })
  assert.deepEqual(state.picks.map((p) => p.labels), [['#1 [ts] // first', '#2 [ts] src/other.ts // second']])
  assert.equal(doc.getText(), 'let a = 1\n// second\nlet b = 2\n')
  assert.deepEqual(state.info, ['Radium: applied block #2 to Untitled-1'])
})

test('List Agents lists the agents of the workspace; picking one makes it the agent', async () => {
  reset({ editor: editorOf(unsavedDocument(), [0, 0]), pick: 1 })
  await commands['radium.listAgents']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.requests[0].req.command, 'agents')
  const [pick] = state.picks
  assert.deepEqual(pick.items.map((i) => i.id), ['example', 'slow', 'fails', 'late', 'silent', 'scripted', 'two', 'editing'])
  assert.equal(pick.labels[0], '$(check) example')
  assert.equal(pick.items[0].description, exampleAgent)
  assert.deepEqual(state.updates, [{ key: 'radium.agent', value: 'slow', target: 1 }])
  assert.deepEqual(state.info, ['Radium: the agent is now slow'])
  assert.ok(channel.lines.some((l) => l.startsWith('agents: example (')))
})
