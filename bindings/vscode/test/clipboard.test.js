'use strict'
// Clipboard mode's commands with the real engine, against the stand-in
// `vscode` module of stand-in.js (its env.clipboard is VS Code's clipboard):
// Copy Selection for a Chat (a saved file by its path, an unsaved and an
// untitled buffer by their text, the prompt, Escape, a file outside the
// workspace) and Apply Answer from Clipboard (an empty clipboard, no block,
// blocks without a path listed, an outside path and a cut block refused, a
// two-file answer reviewed per hunk, applied as one step and undone, a copy
// edited and applied back).
//   npm run compile && node --test test/

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { setup, state, reset, commands, openView, channel, editorOf, Document, Uri } = require('./stand-in.js')

const { ws } = setup()
after(() => commands['radium.newChat']?.())

const rel = (name) => path.join(ws, name)
const disk = (name) => (fs.existsSync(rel(name)) ? fs.readFileSync(rel(name), 'utf8') : null)
const requestsOf = (command) => state.requests.filter((r) => r.req.command === command)
const copy = () => commands['radium.clipboard.copySelection']()
const applyAnswer = () => commands['radium.clipboard.applyAnswer']()

const CALC = ['// calc', '', 'export function add(a: number, b: number) {', '  return a + b', '}', '', 'export const two = add(1, 1)', ''].join('\n')

function saved(name, text) {
  fs.mkdirSync(path.dirname(rel(name)), { recursive: true })
  fs.writeFileSync(rel(name), text)
  return new Document(Uri.file(rel(name)), 'typescript', text, { isDirty: false })
}

test('Copy Selection for a Chat: a saved file by its path, the selected lines with the lines around them and the prompt, on VS Code\'s clipboard', async () => {
  const doc = saved('src/calc.ts', CALC)
  reset({ editor: editorOf(doc, [2, 0], [5, 0]), input: 'why add?', clipboard: 'before' })
  await copy()
  assert.deepEqual(state.errors, [])
  const [{ how, req }] = requestsOf('clipboard-send')
  assert.equal(how, 'requestAsync')
  assert.deepEqual(req.args, { start_line: 3, end_line: 5, context_lines: 2, print: true, path: 'src/calc.ts', prompt: 'why add?' })
  assert.equal(
    state.clipboard,
    [
      'why add?',
      '',
      '`src/calc.ts`, lines 3-5:',
      '',
      '```typescript:src/calc.ts lines=3-5',
      'export function add(a: number, b: number) {',
      '  return a + b',
      '}',
      '```',
      '',
      'Answer with the new text of these lines in one code block that keeps the info string `typescript:src/calc.ts lines=3-5`.',
      '',
      'Around it (lines 1-7, for context only):',
      '',
      '```typescript',
      '// calc',
      '',
      '⋮ (lines 3-5, sent above)',
      '',
      'export const two = add(1, 1)',
      '```',
      '',
    ].join('\n'),
  )
  assert.deepEqual(state.info, ['Radium: Copied lines 3-5 of src/calc.ts for a chat'])
  assert.equal(state.inputBoxes.length, 1)
  assert.match(state.inputBoxes[0].title, /lines 3-5 of src\/calc\.ts/)
  assert.equal((await requestsOf('clipboard-send')[0].promise).data.copied, false, 'the engine left the system clipboard alone')

  // No prompt (Enter on an empty box), the cursor on one line, no context lines.
  reset({ editor: editorOf(doc, [3, 4]), settings: { 'radium.surroundingLines': 0 } })
  await copy()
  assert.equal(
    state.clipboard,
    '`src/calc.ts`, line 4:\n\n```typescript:src/calc.ts lines=4\n  return a + b\n```\n\nAnswer with the new text of these lines in one code block that keeps the info string `typescript:src/calc.ts lines=4`.\n',
  )
  assert.deepEqual(state.info, ['Radium: Copied line 4 of src/calc.ts for a chat'])
  assert.equal(requestsOf('clipboard-send')[0].req.args.prompt, undefined)
})

test('Copy Selection: an unsaved buffer is sent as its text with the path as label; an untitled one without a path; Escape copies nothing', async () => {
  fs.writeFileSync(rel('src/calc.ts'), 'export const onDisk = 1\n')
  const dirty = new Document(Uri.file(rel('src/calc.ts')), 'typescript', CALC)
  reset({ editor: editorOf(dirty, [2, 0], [4, 3]), settings: { 'radium.surroundingLines': 0 } })
  await copy()
  const { req } = requestsOf('clipboard-send')[0]
  assert.deepEqual(req.args, { start_line: 3, end_line: 5, context_lines: 0, print: true, text: CALC, path: 'src/calc.ts' })
  assert.equal(state.clipboard, '`src/calc.ts`, lines 3-5:\n\n```typescript:src/calc.ts\nexport function add(a: number, b: number) {\n  return a + b\n}\n```\n')

  const untitled = new Document(Uri.from({ scheme: 'untitled', path: 'Untitled-1' }), 'python', 'def f():\n    return 1\n', { isUntitled: true })
  // The whole text selected, to the start of the line after the last.
  reset({ editor: editorOf(untitled, [0, 0], [2, 0]) })
  await copy()
  assert.deepEqual(requestsOf('clipboard-send')[0].req.args, { start_line: 1, end_line: 2, context_lines: 2, print: true, text: 'def f():\n    return 1\n', language: 'python' })
  assert.equal(state.clipboard, '```python\ndef f():\n    return 1\n```\n')
  assert.deepEqual(state.info, ['Radium: Copied lines 1-2 of Untitled-1 for a chat'])

  reset({ editor: editorOf(dirty, [2, 0]), input: null, clipboard: 'kept' })
  await copy()
  assert.equal(state.clipboard, 'kept')
  assert.deepEqual(requestsOf('clipboard-send'), [])
  assert.deepEqual([...state.info, ...state.errors], [])
  assert.ok(channel.lines.includes('clipboard: copy cancelled'))
})

test('Copy Selection: no editor, an empty document, a file outside the workspace: said, never thrown', async () => {
  reset({})
  await copy()
  assert.deepEqual(state.info, ['Radium: open a file and select some code first'])
  reset({ editor: editorOf(new Document(Uri.file(rel('src/empty.ts')), 'typescript', ''), [0, 0]) })
  await copy()
  assert.deepEqual(state.info, ['Radium: the document is empty: nothing to copy'])

  const outside = path.join(fs.realpathSync(os.tmpdir()), `radium-outside-${process.pid}.ts`)
  fs.writeFileSync(outside, 'export const secret = 1\n')
  try {
    reset({ editor: editorOf(new Document(Uri.file(outside), 'typescript', 'export const secret = 2\n'), [0, 0]), clipboard: 'kept' })
    await copy()
    assert.equal(state.errors.length, 1)
    assert.match(state.errors[0], /^Radium: path `.*radium-outside-\d+\.ts` is outside the project .*\[outside_project\]$/)
    assert.ok(!state.errors[0].includes('    at '), 'no stack trace')
    assert.equal(state.clipboard, 'kept')
  } finally {
    fs.rmSync(outside, { force: true })
  }
})

test('Apply Answer from Clipboard: an empty clipboard and an answer without code are said; a clipboard VS Code cannot read is an error', async () => {
  reset({ clipboard: '  \n' })
  await applyAnswer()
  assert.deepEqual(state.info, ['Radium: the clipboard is empty: copy the chat\'s answer first'])
  assert.deepEqual(requestsOf('clipboard-receive'), [])
  reset({ clipboard: 'Sure, just rename it.' })
  await applyAnswer()
  assert.deepEqual(state.info, ['Radium: the clipboard\'s text has no code block'])
  assert.deepEqual(requestsOf('clipboard-receive').map((r) => r.req), [{ command: 'clipboard-receive', args: { text: 'Sure, just rename it.' } }])
  reset({ clipboard: () => { throw new Error('the clipboard is not available\n    at somewhere') } })
  await applyAnswer()
  assert.deepEqual(state.errors, ['Radium: the answer could not be applied: the clipboard is not available'])
})

test('Apply Answer: blocks without a path are listed, an outside path and a cut block are refused, nothing is guessed', async () => {
  fs.writeFileSync(rel('src/calc.ts'), CALC)
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  const from = v.posted.length
  const answer = [
    'Try this:',
    '```ts',
    'export const guess = 1',
    '```',
    'and',
    '```',
    'plain',
    'text',
    '```',
    '```ts:../escape.ts',
    'export const out = 1',
    '```',
    '```ts:src/cut.ts',
    'export const half =',
  ].join('\n')
  reset({ clipboard: answer })
  await applyAnswer()
  assert.deepEqual(state.info, [])
  assert.deepEqual(state.errors, [])
  assert.equal(state.warnings.length, 1)
  const w = state.warnings[0]
  assert.match(w, /^Radium: nothing to review\. 2 blocks without a path \(#1 ts, 1 line; #2, 2 lines\) are not applied/)
  assert.match(w, /not proposed: block #3 \(\.\.\/escape\.ts\) is refused: path `\.\.\/escape\.ts` is outside the project/)
  assert.match(w, /block #4 \(src\/cut\.ts\) is cut short \(its fence is not closed\)/)
  assert.ok(channel.lines.includes('clipboard: block #1 (ts, 1 line) has no path, not applied: export const guess = 1'), channel.lines.join('\n'))
  assert.ok(channel.lines.includes('clipboard: block #2 (no language, 2 lines) has no path, not applied: plain'))
  assert.ok(!v.posted.slice(from).some((m) => m.type === 'review'), 'no review')
  assert.ok(!fs.existsSync(path.join(ws, '..', 'escape.ts')) && !fs.existsSync(rel('src/cut.ts')))
  assert.equal(disk('src/calc.ts'), CALC)
  assert.deepEqual(requestsOf('clipboard-receive').map((r) => r.req.args.apply), [undefined], 'never applied by the engine')
})

const A = 'export const first = 1\n\nexport const middle = 0\n\nexport const last = 9\n'
const A2 = 'export const first = 100\n\nexport const middle = 0\n\nexport const last = 999\n'

test('Apply Answer: a two-file answer reviewed in the chat view, one hunk rejected, applied as one step with the no-path block listed; radium.undo takes it back', async () => {
  fs.writeFileSync(rel('src/a.ts'), A)
  fs.writeFileSync(rel('src/b.ts'), 'export const b = "old"\n')
  fs.rmSync(rel('src/fresh.ts'), { force: true })
  const a = new Document(Uri.file(rel('src/a.ts')), 'typescript', A, { isDirty: false })
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  const from = v.posted.length
  const answer = `Here you go.\n\n\`\`\`ts:src/a.ts\n${A2}\`\`\`\n\n\`src/b.ts\`:\n\`\`\`ts\nexport const b = "new"\n\`\`\`\n\nRun it with:\n\`\`\`sh\nnode b.js\n\`\`\`\n`
  reset({ editor: editorOf(a, [0, 0]), clipboard: answer })
  await applyAnswer()
  assert.deepEqual(state.errors, [])
  assert.deepEqual(state.info, [
    'Radium: the answer changes src/a.ts, src/b.ts: review it in the chat view. 1 block without a path (#3 sh, 1 line) is not applied: ask for whole files with their path (listed in the Radium output)',
  ])
  assert.ok(state.executed.some((e) => e.id === 'radium.chatView.focus'), 'the chat view is shown')
  const posted = v.posted.slice(from)
  assert.deepEqual(posted.filter((m) => m.type === 'notice').map((m) => m.message), [
    'answer from the clipboard: 3 code blocks',
    'block #3 has no path: not applied (node b.js)',
  ])
  const review = posted.find((m) => m.type === 'review')
  assert.deepEqual(review.files.map((f) => [f.label, f.isNew, f.hunks.length]), [['src/a.ts', false, 2], ['src/b.ts', false, 1]])

  for (const [file, hunk, action] of [[0, 0, 'accept'], [0, 1, 'reject'], [1, 0, 'accept']]) await v.send({ type: 'review', id: review.id, action, file, hunk })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const a1 = A.replace('first = 1', 'first = 100')
  assert.equal(disk('src/a.ts'), a1, 'saved, without the rejected hunk')
  assert.equal(disk('src/b.ts'), 'export const b = "new"\n')
  assert.equal(v.posted.findLast((m) => m.type === 'review').summary, 'applied 2 of 3 hunk(s) to src/a.ts, src/b.ts · radium.undo takes it back')
  const records = requestsOf('record')
  assert.equal(records.length, 1)
  assert.deepEqual(records[0].req.args.files, [
    { path: 'src/a.ts', old_text: A, new_text: a1 },
    { path: 'src/b.ts', old_text: 'export const b = "old"\n', new_text: 'export const b = "new"\n' },
  ])
  const recorded = await records[0].promise
  assert.equal(recorded.ok, true, JSON.stringify(recorded))
  assert.deepEqual(v.posted.at(-1), { type: 'write', path: 'src/a.ts, src/b.ts', tag: recorded.tag, by: 'review' })

  await commands['radium.undo']()
  assert.equal(state.info.at(-1), 'Radium: undid record of 2 files (src/a.ts, src/b.ts)')
  assert.equal(disk('src/a.ts'), A)
  assert.equal(disk('src/b.ts'), 'export const b = "old"\n')
  assert.equal(a.getText(), A, 'the open editor follows the disk')
  assert.deepEqual(state.errors, [])
})

test('Apply Answer: a copied file edited in the chat comes back as a one-hunk review; a block already in the file is said so', async () => {
  const doc = saved('src/calc.ts', CALC)
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  reset({ editor: editorOf(doc, [0, 0], [7, 0]) })
  await copy()
  assert.match(state.clipboard, /^`src\/calc\.ts`:\n\n```typescript:src\/calc\.ts\n/, 'the whole file: no lines around it')
  // The chat answers with the file, one line changed (and the whole copy, a code block among others).
  const answer = state.clipboard.replace('return a + b', 'return b + a')
  const from = v.posted.length
  reset({ editor: editorOf(doc, [0, 0]), clipboard: answer })
  await applyAnswer()
  assert.deepEqual(state.info, ['Radium: the answer changes src/calc.ts: review it in the chat view'])
  const review = v.posted.slice(from).find((m) => m.type === 'review')
  assert.deepEqual(review.files.map((f) => f.hunks.map((h) => h.lines)), [[['@@ -4,1 +4,1 @@', '-  return a + b', '+  return b + a']]])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(disk('src/calc.ts'), CALC.replace('return a + b', 'return b + a'))

  reset({ editor: editorOf(doc, [0, 0]), clipboard: answer })
  await applyAnswer()
  assert.deepEqual(state.info, ['Radium: nothing to review. src/calc.ts already has that text'])
})

test('Apply Answer: a block answering the copied lines reviews those lines only; a snippet named as the whole file is reviewed with a warning', async () => {
  const doc = saved('src/calc.ts', CALC)
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  let from = v.posted.length
  reset({ editor: editorOf(doc, [0, 0]), clipboard: 'Swapped:\n\n```typescript:src/calc.ts lines=4\n  return b + a\n```\n' })
  await applyAnswer()
  assert.deepEqual(state.info, ['Radium: the answer changes src/calc.ts: review it in the chat view'])
  let review = v.posted.slice(from).find((m) => m.type === 'review')
  assert.deepEqual(review.files.map((f) => f.hunks.map((h) => h.lines)), [[['@@ -4,1 +4,1 @@', '-  return a + b', '+  return b + a']]])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(disk('src/calc.ts'), CALC.replace('return a + b', 'return b + a'), 'line 4 replaced, the rest kept')

  fs.writeFileSync(rel('src/calc.ts'), CALC)
  from = v.posted.length
  reset({ editor: editorOf(doc, [0, 0]), clipboard: '```typescript:src/calc.ts\n  return b + a\n```\n' })
  await applyAnswer()
  assert.equal(state.warnings.length, 1, JSON.stringify(state))
  assert.match(state.warnings[0], /check: block #1 \(src\/calc\.ts\) would delete most of the file \(a snippet, not the whole file\?\)/)
  review = v.posted.slice(from).find((m) => m.type === 'review')
  assert.ok(review, 'reviewed: each hunk is the user\'s choice')
  assert.ok(v.posted.slice(from).some((m) => m.type === 'notice' && /^check: block #1/.test(m.message)))
  assert.equal(disk('src/calc.ts'), CALC, 'nothing written before an accept')
})
