'use strict'
// The editor commands when they cannot do their work: no editor or no answer
// yet, no agent, an unknown, failing or timed-out agent, an answer without a
// code block, an untrusted workspace (shown and logged, never thrown), and
// cancelling a step, against the stand-in `vscode` module of stand-in.js
// with the real native engine.
//   npm run compile && node --test test/

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { setup, state, reset, commands, channel, Uri, Document, editorOf, unsavedDocument, buffer } = require('./stand-in.js')

const { ws } = setup()

test('without an editor or an answer, the commands say what to do and do not throw', async () => {
  reset()
  await commands['radium.applyCode']()
  await commands['radium.sendSelection']()
  assert.deepEqual(state.info, [
    'Radium: no code block to apply; run "Radium: Send Selection to Agent" first',
    'Radium: open a file and select some code first',
  ])
  assert.deepEqual(state.errors, [])
})

test('errors: no agent, an unknown agent, a failing agent, a timed-out agent, no code block, an untrusted workspace: shown and logged, never thrown', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.agent': ' ' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /^Radium: no agent configured: set "radium.agent"/)
  assert.deepEqual(state.requests, [])

  reset({ settings: { 'radium.agent': 'nope' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /^Radium: unknown agent `nope`.*\[unknown_agent\]$/)
  assert.ok(channel.lines.some((l) => l.startsWith('error: unknown agent `nope`')))
  assert.ok(channel.lines.some((l) => /^request step nope \(vscode-step-\d+\): failed: unknown_agent in [\d.]+ ms$/.test(l)))
  assert.deepEqual(state.info, [])

  reset({ settings: { 'radium.agent': 'fails' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /the agent broke/)
  assert.match(state.errors[0], /\[agent_failed\]$/)
  assert.equal(doc.getText(), buffer)

  reset({ settings: { 'radium.agent': 'late' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /\[agent_timeout\]$/)
  assert.equal(doc.getText(), buffer)

  reset({ settings: { 'radium.agent': 'silent' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.deepEqual(state.warnings, ['Radium: silent answered without a code block (its answer is in the Radium output)'])
  assert.ok(channel.lines.some((l) => l.includes('no code here')))

  // Another workspace with the same agents, not trusted: the extension does not trust it.
  const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'radium-vscode-untrusted-')))
  try {
    fs.mkdirSync(path.join(other, '.radium'))
    fs.copyFileSync(path.join(ws, '.radium/agents.toml'), path.join(other, '.radium/agents.toml'))
    const folders = state.folders
    state.folders = [{ uri: Uri.file(other), name: 'other', index: 0 }]
    try {
      reset({ editor: editorOf(new Document(Uri.file(path.join(other, 'x.ts')), 'typescript', 'x\n'), [0, 0]) })
      await commands['radium.sendSelection']()
    } finally {
      state.folders = folders
    }
    assert.equal(state.errors.length, 1)
    assert.match(state.errors[0], /not trusted/)
    assert.equal(state.requests.filter((r) => r.req.command === 'trust').length, 0)
  } finally {
    fs.rmSync(other, { recursive: true, force: true })
  }
})

test('cancelling a step sends `cancel` with the step\'s id; the step ends as cancelled', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.agent': 'slow' }, editor: editorOf(doc, [3, 0], [3, 4]), cancelAfterMs: 100 })
  const started = Date.now()
  await commands['radium.sendSelection']()
  assert.ok(Date.now() - started < 450, 'the command returns at once on cancel')
  assert.deepEqual(state.errors, [])
  assert.deepEqual(state.info, [])
  const step = state.requests[0]
  const cancel = state.requests.find((r) => r.req.command === 'cancel')
  assert.deepEqual(cancel.req, { command: 'cancel', args: { id: step.req.id } })
  assert.ok(channel.lines.includes(`step slow: ${step.req.id} cancelled (1 request stopped)`), channel.lines.join('\n'))
  const late = await step.promise
  assert.equal(late.ok, false)
  assert.equal(late.code, 'cancelled')
  await new Promise((r) => setTimeout(r, 20))
  assert.deepEqual(state.info, [])
  assert.deepEqual(state.picks, [])
})
