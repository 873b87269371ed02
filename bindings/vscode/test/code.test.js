'use strict'
// Code intelligence's commands with the real engine and the scripted
// language server of tests/lsp (configured in the engine's RADIUM_HOME),
// against the stand-in `vscode` module of stand-in.js: Find References (the
// quick pick, the definition first, a column after an emoji in UTF-16 units,
// the pick opening the file there, an unsaved buffer's text, the syntax
// fallback's warning, a name that is not there) and Rename Symbol (the review
// of three files in the chat view, applied as one step and undone; unsaved
// and changed files refused; bad names; errors said, never thrown).
//   npm run compile && node --test test/

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { setup, api, state, reset, commands, openView, channel, editorOf, Document, Uri } = require('./stand-in.js')

const { ws } = setup()
const repo = path.resolve(__dirname, '..', '..', '..')
// The engine's RADIUM_HOME (stand-in.js: <ws>/.home): Python files go to the
// scripted server; TypeScript has none, so the syntax fallback answers.
fs.mkdirSync(path.join(ws, '.home'), { recursive: true })
fs.writeFileSync(
  path.join(ws, '.home/lsp.toml'),
  `[python]\ncommand = ["python3", ${JSON.stringify(path.join(repo, 'tests/lsp/scripted_server.py'))}]\n\n[typescript]\ndisabled = true\n`,
)
after(() => commands['radium.newChat']?.())

const abs = (name) => path.join(ws, name)
const disk = (name) => fs.readFileSync(abs(name), 'utf8')
const requestsOf = (command) => state.requests.filter((r) => r.req.command === command)
const references = () => commands['radium.code.references']()
const rename = () => commands['radium.code.rename']()

const APP = 'from util import total\n\nprint("😀", total)\n'
const UTIL = 'total = 1\n'
const MORE = 'from util import total\nx = total + 1\n'
// Only while a test looks for a name in a comment (the scripted server finds words anywhere).
const NOTES = '# total is counted here\n'

function files({ notes = false } = {}) {
  fs.writeFileSync(abs('app.py'), APP)
  fs.writeFileSync(abs('util.py'), UTIL)
  fs.writeFileSync(abs('more.py'), MORE)
  if (notes) fs.writeFileSync(abs('notes.py'), NOTES)
  else fs.rmSync(abs('notes.py'), { force: true })
}

/** An editor on a file (saved unless `text` is given) with the cursor at line, character (0-based). */
function editor(name, line, character, text) {
  const doc = new Document(Uri.file(abs(name)), 'python', text ?? disk(name), { isDirty: text !== undefined })
  return editorOf(doc, [line, character])
}

const noTrace = () => {
  for (const m of [...state.errors, ...state.warnings, ...state.info]) assert.ok(!/\n\s+at /.test(m), `no stack trace: ${m}`)
}

test('Find References: the quick pick lists the definition first, with file:line and the line; picking one opens it at the name, in UTF-16 columns', async () => {
  files()
  // The cursor inside `total` on the line with the emoji.
  reset({ editor: editor('app.py', 2, 14), pick: 2 })
  await references()
  assert.deepEqual([...state.errors, ...state.warnings], [])
  const [{ how, req }] = requestsOf('read-var')
  assert.equal(how, 'requestAsync', 'the extension host is not blocked')
  assert.deepEqual(req.args, { file: 'app.py', var: 'total', line: 3, column: 12 }, 'a saved file: no text sent; the column counts characters')
  assert.equal(state.picks.length, 1)
  const { options, items } = state.picks[0]
  assert.equal(options.title, 'Radium: 5 references of total in 3 files · lsp (python3)')
  assert.deepEqual(
    items.map((i) => [i.label, i.description, i.detail]),
    [
      ['$(symbol-variable) definition', 'util.py:1', 'total = 1'],
      ['$(references) reference', 'app.py:1', 'from util import total'],
      ['$(references) reference', 'app.py:3', 'print("😀", total)'],
      ['$(references) reference', 'more.py:1', 'from util import total'],
      ['$(references) reference', 'more.py:2', 'x = total + 1'],
    ],
    'the definition first',
  )
  // Picked: app.py line 3, `total` at the engine's column 12 (1-based, in characters), which is
  // VS Code's column 12 (0-based, in UTF-16 units): the emoji before it is two units.
  const opened = state.editor
  assert.equal(opened.document.uri.fsPath, abs('app.py'))
  assert.deepEqual([opened.selection.active.line, opened.selection.active.character], [2, 12])
  const line3 = opened.document.getText().split('\n')[2]
  assert.equal(line3.slice(opened.selection.active.character, opened.selection.active.character + 5), 'total', 'the cursor is on the name')
  assert.ok(channel.lines.includes('references: opened app.py:3:12'), channel.lines.join('\n'))

  // Picking the definition opens util.py; Escape opens nothing.
  reset({ editor: editor('more.py', 1, 6), pick: 0 })
  await references()
  assert.equal(state.editor.document.uri.fsPath, abs('util.py'))
  assert.deepEqual([state.editor.selection.active.line, state.editor.selection.active.character], [0, 0])
  const before = editor('more.py', 1, 6)
  reset({ editor: before })
  await references()
  assert.equal(state.picks.length, 1)
  assert.equal(state.editor, before, 'Escape: nothing opened')
  noTrace()
})

test('Find References: an unsaved buffer is searched as the editor shows it; the syntax fallback says it is not type-aware', async () => {
  files()
  const unsaved = `${APP}y = total * 2\n`
  reset({ editor: editor('app.py', 0, 19, unsaved) })
  await references()
  const [{ req }] = requestsOf('read-var')
  assert.deepEqual(req.args, { file: 'app.py', var: 'total', line: 1, column: 18, text: unsaved })
  const { options, items } = state.picks[0]
  assert.ok(items.some((i) => i.description === 'app.py:4' && i.detail === 'y = total * 2'), 'the unsaved line counts')
  assert.match(options.title, /^Radium: 6 references of total in 3 files · lsp \(python3\)$/)

  fs.writeFileSync(abs('calc.ts'), 'export const rate = 2\nexport const twice = rate * 2 // rate\n')
  reset({ editor: editorOf(new Document(Uri.file(abs('calc.ts')), 'typescript', disk('calc.ts'), { isDirty: false }), [1, 22]) })
  await references()
  const pick = state.picks[0]
  assert.equal(pick.options.title, 'Radium: 2 references of rate in 1 file · ⚠ syntax: not type-aware (no language server answered)')
  assert.deepEqual(pick.items.map((i) => [i.label, i.description]), [['$(symbol-variable) definition', 'calc.ts:1'], ['$(references) reference', 'calc.ts:2']])
  noTrace()
})

test('Find References: a name that is not there is a warning; no editor, no name under the cursor, an untitled buffer, a file outside the workspace: said', async () => {
  files({ notes: true })
  // `total` in a comment is not code.
  reset({ editor: editor('notes.py', 0, 4) })
  await references()
  assert.deepEqual(state.warnings, ['Radium: `total` is not at line 1, column 3 of `notes.py` (as code)'])
  assert.deepEqual([...state.errors, ...state.picks], [])

  reset({})
  await references()
  assert.deepEqual(state.info, ['Radium: open a file and put the cursor on a name first'])
  reset({ editor: editor('app.py', 1, 0) })
  await references()
  assert.deepEqual(state.info, ['Radium: no name under the cursor: put the cursor on one'])
  reset({ editor: editorOf(new Document(Uri.from({ scheme: 'untitled', path: 'Untitled-1' }), 'python', 'x = 1\n', { isUntitled: true }), [0, 0]) })
  await references()
  assert.deepEqual(state.info, ["Radium: save the file in the workspace first: names are looked up in the workspace's files"])
  assert.deepEqual(requestsOf('read-var'), [])

  const outside = path.join(fs.realpathSync(os.tmpdir()), `radium-outside-${process.pid}.py`)
  fs.writeFileSync(outside, 'secret = 1\n')
  try {
    reset({ editor: editorOf(new Document(Uri.file(outside), 'python', 'secret = 1\n', { isDirty: false }), [0, 2]) })
    await references()
    assert.equal(state.errors.length, 1)
    assert.match(state.errors[0], /^Radium: path `.*radium-outside-\d+\.py` is outside the project .*\[outside_project\]$/)
  } finally {
    fs.rmSync(outside, { force: true })
  }
  noTrace()
})

test('Rename Symbol: the new name asked, the rename of three files reviewed in the chat view, applied as one step; radium.undo takes it all back', async () => {
  files()
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  const from = v.posted.length
  reset({ editor: editor('app.py', 2, 13), input: 'amount' })
  await rename()
  assert.deepEqual([...state.errors, ...state.warnings], [])
  const [box] = state.inputBoxes
  assert.equal(box.title, 'Radium: rename `total` (line 3 of app.py)')
  assert.equal(box.value, 'total')
  const [{ how, req }] = requestsOf('modify-var')
  assert.equal(how, 'requestAsync')
  assert.deepEqual(req.args, { file: 'app.py', from: 'total', to: 'amount', line: 3, column: 12, apply: false })
  assert.deepEqual(state.info, ['Radium: review the rename `total` → `amount` in the chat view: app.py, more.py, util.py · lsp (python3)'])
  assert.ok(state.executed.some((e) => e.id === 'radium.chatView.focus'), 'the chat view is shown')
  const posted = v.posted.slice(from)
  assert.deepEqual(posted.filter((m) => m.type === 'notice').map((m) => m.message), ['rename `total` → `amount`: 5 edits in 3 files · lsp (python3)'])
  const review = posted.find((m) => m.type === 'review')
  assert.deepEqual(review.files.map((f) => [f.label, f.isNew, f.hunks.length]), [['app.py', false, 2], ['more.py', false, 1], ['util.py', false, 1]])
  assert.deepEqual([disk('app.py'), disk('util.py'), disk('more.py')], [APP, UTIL, MORE], 'nothing written before the review')

  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(disk('app.py'), 'from util import amount\n\nprint("😀", amount)\n')
  assert.equal(disk('util.py'), 'amount = 1\n')
  assert.equal(disk('more.py'), 'from util import amount\nx = amount + 1\n')
  assert.equal(v.posted.findLast((m) => m.type === 'review').summary, 'applied 4 of 4 hunk(s) to app.py, more.py, util.py · radium.undo takes it back')
  assert.equal(requestsOf('record').length, 1, 'one step')

  await commands['radium.undo']()
  assert.equal(state.info.at(-1), 'Radium: undid record of 3 files (app.py, more.py, util.py)')
  assert.deepEqual([disk('app.py'), disk('util.py'), disk('more.py')], [APP, UTIL, MORE])
  assert.deepEqual(state.errors, [])
  noTrace()
})

test('Rename Symbol: bad names are refused before the engine is asked; the same name and Escape do nothing', async () => {
  files()
  reset({ editor: editor('app.py', 0, 18), input: '1x-y' })
  await rename()
  assert.equal(state.inputBoxes[0].validateInput('1x-y'), '`1x-y` is not a name: use letters, digits and _ (not starting with a digit)')
  assert.equal(state.inputBoxes[0].validateInput(''), 'Type the new name')
  assert.equal(state.inputBoxes[0].validateInput('grand_total'), undefined)
  assert.equal(state.inputBoxes[0].validateInput('größe'), undefined, 'non-ASCII letters are identifier characters')
  assert.deepEqual(state.errors, ['Radium: not renamed: `1x-y` is not a name: use letters, digits and _ (not starting with a digit)'])
  reset({ editor: editor('app.py', 0, 18), input: 'total' })
  await rename()
  assert.deepEqual(state.info, ['Radium: `total` is already its name'])
  reset({ editor: editor('app.py', 0, 18), input: null })
  await rename()
  assert.deepEqual([...state.info, ...state.warnings, ...state.errors], [])
  assert.deepEqual(requestsOf('modify-var'), [])
  assert.deepEqual([disk('app.py'), disk('util.py'), disk('more.py')], [APP, UTIL, MORE])
  noTrace()
})

test('Rename Symbol: refused when the file, or another file it changes, has unsaved changes or changed on disk meanwhile; a name not there is a warning', async () => {
  files()
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  const from = v.posted.length
  reset({ editor: editor('app.py', 0, 18, `${APP}# edited\n`), input: 'amount' })
  await rename()
  assert.deepEqual(state.warnings, ['Radium: save app.py first: the rename is worked out from the files on disk'])
  assert.deepEqual([state.inputBoxes, requestsOf('modify-var')], [[], []], 'nothing asked')

  // util.py is open with unsaved changes in another editor.
  reset({ editor: editor('app.py', 0, 18), input: 'amount' })
  state.documents.push(new Document(Uri.file(abs('util.py')), 'python', 'total = 2\n'))
  await rename()
  assert.equal(requestsOf('modify-var').length, 1)
  assert.deepEqual(state.warnings, [
    'Radium: not renamed: util.py has unsaved changes; save and run Radium: Rename Symbol again (the rename is worked out from the files on disk)',
  ])

  // more.py changes on disk between the engine's answer and the review.
  reset({ editor: editor('app.py', 0, 18), input: 'amount' })
  const push = state.requests.push
  state.requests.push = function (r) {
    if (r.req.command === 'modify-var') r.promise.then(() => fs.writeFileSync(abs('more.py'), `${MORE}# saved elsewhere\n`))
    return push.call(this, r)
  }
  await rename()
  assert.deepEqual(state.warnings, [
    'Radium: not renamed: more.py changed on disk meanwhile; save and run Radium: Rename Symbol again (the rename is worked out from the files on disk)',
  ])
  assert.ok(!v.posted.slice(from).some((m) => m.type === 'review'), 'no review opened')
  assert.deepEqual([disk('app.py'), disk('util.py')], [APP, UTIL], 'nothing written')

  files({ notes: true })
  reset({ editor: editor('notes.py', 0, 4), input: 'amount' })
  await rename()
  assert.deepEqual(state.warnings, ['Radium: `total` is not at line 1, column 3 of `notes.py` (as code)'])
  files()
  assert.deepEqual(state.errors, [])
  noTrace()
})

test('Rename Symbol: a file the rename would remove (new_text null, here from an after_tool JS hook) is reported, not applied', async () => {
  files()
  // A user's after_tool hook (the extension's API) shapes modify-var's answer as a server's delete would.
  let removes = ['util.py']
  const hook = api().registerHook('rename-removes', 'after_tool', (ctx) => {
    for (const p of ctx.data.result.preview) if (removes.includes(p.path)) p.new_text = null
    return { data: ctx.data }
  }, { matcher: 'modify-var' })
  try {
    const v = openView('radium.chatView')
    await v.send({ type: 'ready' })
    const from = v.posted.length
    reset({ editor: editor('app.py', 0, 18), input: 'amount' })
    await rename()
    assert.deepEqual(state.errors, [])
    assert.deepEqual(state.warnings, [
      'Radium: review the rename `total` → `amount` in the chat view: app.py, more.py · lsp (python3). Not done: the rename also removes util.py, which a review cannot show.',
    ])
    const posted = v.posted.slice(from)
    assert.deepEqual(posted.filter((m) => m.type === 'notice').map((m) => m.message), [
      'rename `total` → `amount`: 5 edits in 2 files · lsp (python3)',
      'the rename also removes util.py, which a review cannot show: not done',
    ])
    const review = posted.find((m) => m.type === 'review')
    assert.deepEqual(review.files.map((f) => f.label), ['app.py', 'more.py'])
    await v.send({ type: 'review', id: review.id, action: 'rejectAll' })
    await v.send({ type: 'review', id: review.id, action: 'apply' })
    assert.deepEqual([disk('app.py'), disk('util.py'), disk('more.py')], [APP, UTIL, MORE])

    removes = ['app.py', 'more.py', 'util.py']
    reset({ editor: editor('app.py', 0, 18), input: 'amount' })
    await rename()
    assert.deepEqual(state.warnings, ['Radium: not renamed: the rename only removes app.py, more.py, util.py, which a review cannot show'])
    assert.ok(!v.posted.slice(from).some((m) => m.type === 'review' && m.id !== review.id), 'no second review')
    assert.ok(fs.existsSync(abs('util.py')), 'nothing removed')
  } finally {
    hook.dispose()
  }
  noTrace()
})

test('Rename Symbol: answered by the syntax fallback, the review opens with a warning that it is not type-aware', async () => {
  const calc = 'export const rate = 2\nexport const twice = rate * 2 // rate\n'
  fs.writeFileSync(abs('calc.ts'), calc)
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  const from = v.posted.length
  reset({ editor: editorOf(new Document(Uri.file(abs('calc.ts')), 'typescript', calc, { isDirty: false }), [0, 14]), input: 'ratio' })
  await rename()
  assert.deepEqual(state.info, [])
  assert.deepEqual(state.warnings, ['Radium: review the rename `rate` → `ratio` in the chat view: calc.ts · ⚠ syntax: not type-aware (no language server answered)'])
  const review = v.posted.slice(from).find((m) => m.type === 'review')
  assert.deepEqual(review.files.map((f) => f.hunks.map((h) => h.lines)), [[[
    '@@ -1,2 +1,2 @@',
    '-export const rate = 2',
    '-export const twice = rate * 2 // rate',
    '+export const ratio = 2',
    '+export const twice = ratio * 2 // rate',
  ]]], 'the comment is left alone')
  noTrace()
})
