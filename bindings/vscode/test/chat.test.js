'use strict'
// The chat view's controller with the real engine and the real scripted ACP
// agent (examples/acp-agent/agent.mjs), against the stand-in `vscode`
// module: the messages the webview gets are what a user sees. A turn streams
// with the selection attached, a permission is answered (and one times out),
// the agent's write is undone, a slow turn is stopped, the answer's block is
// reviewed and applied to the moved selection, an edited selection is
// refused, and the errors are shown.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView, docListeners, editorOf, unsavedDocument, buffer, Document, Uri, docOptions, channel } = require('./stand-in.js')

const { ws } = setup()
// The last chat's session (and its agent) ends with the tests.
after(() => commands['radium.newChat']?.())

async function until(what, check, ms = 10000) {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const turnEnds = (v) => v.posted.filter((m) => m.type === 'turnEnd' || m.type === 'error')
async function turn(v, text) {
  const before = turnEnds(v).length
  const from = v.posted.length
  await v.send({ type: 'send', text })
  await until(`the end of "${text}"`, () => turnEnds(v).length > before)
  return v.posted.slice(from)
}
const textOf = (msgs) => msgs.filter((m) => m.type === 'text').map((m) => m.text).join('')

/** Types into the stand-in document: the text changes and the listeners hear it. */
function typeInto(doc, offset, deleted, text) {
  doc.text = doc.text.slice(0, offset) + text + doc.text.slice(offset + deleted)
  doc.isDirty = true
  doc.version++
  for (const fn of docListeners) fn({ document: doc, contentChanges: [{ rangeOffset: offset, rangeLength: deleted, text }] })
}

test('a chat turn: agents listed, selection attached, text streams, status bar, figures logged', async () => {
  const doc = unsavedDocument()
  reset({ editor: editorOf(doc, [2, 0], [5, 0]) })
  const v = openView('radium.chatView')
  assert.match(v.view.webview.html, /Content-Security-Policy/)
  await v.send({ type: 'ready' })
  const init = v.posted.find((m) => m.type === 'init')
  assert.ok(init.agents.includes('scripted') && init.agents.includes('example'), JSON.stringify(init))
  await v.send({ type: 'agent', agent: 'scripted' })
  await commands['radium.attachSelection']()
  assert.deepEqual(v.posted.at(-1), { type: 'chips', chips: [{ kind: 'selection', label: 'main.ts:3-5', changed: false }] })
  const msgs = await turn(v, 'hello there')
  assert.deepEqual(msgs.find((m) => m.type === 'user'), { type: 'user', text: 'hello there', chips: ['main.ts:3-5'] })
  const said = textOf(msgs)
  assert.ok(said.startsWith('You said: hello there'), said)
  assert.match(said, new RegExp(`Context: file://${path.join(ws, 'src/main.ts')}#L3-L5`))
  assert.deepEqual(msgs.filter((m) => m.type === 'busy').map((m) => m.busy), [true, false])
  assert.equal(msgs.find((m) => m.type === 'turnEnd').stopReason, 'end_turn')
  assert.deepEqual(state.statusBar, ['$(loading~spin) Radium: scripted is answering…'])
  assert.equal(state.statusItem.visible, false, 'hidden after the turn')
  const stats = msgs.find((m) => m.type === 'hostStats')
  // The chunks a host has not taken yet arrive joined: at least one, all the text.
  assert.ok(stats && stats.max >= 0 && stats.chunks >= 1 && stats.bytes >= Buffer.byteLength(said), JSON.stringify(stats))
  assert.match(require('./stand-in.js').channel.lines.join('\n'), /chat: turn ended \(end_turn\): \d+ ms, \d+ text chunk\(s\) in \d+ view message\(s\), event-loop delay p50/)
  assert.deepEqual(state.errors, [])
})

test('permissions: allowed once (the write lands and Undo takes it back), and unanswered ones time out as rejected', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  const from = v.posted.length
  await v.send({ type: 'send', text: 'write src/notes.txt from chat' })
  const perm = await until('the permission prompt', () => v.posted.slice(from).find((m) => m.type === 'permission'))
  assert.equal(perm.title, 'Write ' + path.join(ws, 'src/notes.txt'))
  assert.deepEqual(perm.diffs, [{ path: 'src/notes.txt', lines: ['@@ -1,0 +1,1 @@', '+from chat'] }])
  await v.send({ type: 'permission', id: perm.id, choice: 'once' })
  await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))
  const after = v.posted.slice(from)
  assert.deepEqual(after.find((m) => m.type === 'decided'), { type: 'decided', id: after.find((m) => m.type === 'decided').id, allowed: true, by: 'door', reason: after.find((m) => m.type === 'decided').reason })
  const write = after.find((m) => m.type === 'write')
  assert.equal(write.path, 'src/notes.txt')
  assert.equal(fs.readFileSync(path.join(ws, 'src/notes.txt'), 'utf8'), 'from chat\n')
  await v.send({ type: 'undo', tag: write.tag })
  assert.ok(!fs.existsSync(path.join(ws, 'src/notes.txt')), 'undo removed the created file')
  assert.match(state.info.at(-1), /^Radium: undid create \(/)

  // Nobody answers: the agent's permission_timeout (2 s here) rejects it.
  const msgs = await turn(v, 'write src/late.txt never')
  assert.ok(msgs.some((m) => m.type === 'permission'))
  const decided = msgs.find((m) => m.type === 'decided')
  assert.equal(decided.allowed, false)
  assert.equal(decided.by, 'timeout')
  assert.ok(!fs.existsSync(path.join(ws, 'src/late.txt')))
  assert.match(textOf(msgs), /I was not allowed to write/)
})

test('permissions: the buttons decide by the option\'s kind, whatever its id (an agent\'s `allow` id on its Reject option rejects)', async () => {
  // The unruly agent's options: id `allow` of kind reject_once, id `reject` of kind allow_once.
  const unruly = path.resolve(__dirname, '../../../tests/agents/unruly-agent.mjs')
  fs.appendFileSync(path.join(ws, '.radium/agents.toml'), `[[agents]]\nid = "unruly"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(unruly)}]\n`)
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'unruly' })
  for (const [choice, allowed, id] of [['reject', false, 'allow'], ['once', true, 'reject']]) {
    const from = v.posted.length
    await v.send({ type: 'send', text: 'crafted' })
    const perm = await until('the permission prompt', () => v.posted.slice(from).find((m) => m.type === 'permission'))
    await v.send({ type: 'permission', id: perm.id, choice })
    await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))
    const msgs = v.posted.slice(from)
    assert.equal(msgs.find((m) => m.type === 'decided').allowed, allowed, choice)
    assert.match(textOf(msgs), new RegExp(`"optionId":"${id}"`), choice)
  }
  assert.deepEqual(state.errors, [])
})

test('stop cancels a slow turn; sending while it runs does nothing', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  const from = v.posted.length
  await v.send({ type: 'send', text: 'slow' })
  await until('a few chunks', () => textOf(v.posted.slice(from)).includes('chunk 2'))
  await v.send({ type: 'send', text: 'again' })
  assert.ok(!v.posted.slice(from).some((m) => m.type === 'user' && m.text === 'again'), 'no second turn while one runs')
  await v.send({ type: 'stop' })
  const end = await until('the turn end', () => v.posted.slice(from).find((m) => m.type === 'turnEnd'))
  assert.equal(end.stopReason, 'cancelled')
  assert.ok(!textOf(v.posted.slice(from)).includes('chunk 49'))
  await commands['radium.newChat']()
  assert.ok(v.posted.some((m) => m.type === 'clear'))
})

test('review: the answer\'s block replaces the selection where it moved to; an edited selection is refused', async () => {
  const doc = unsavedDocument()
  reset({ editor: editorOf(doc, [2, 0], [5, 0]) })
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await commands['radium.attachSelection']()
  typeInto(doc, 0, 0, '// typed above\n')
  const block = 'export function add(a: number, b: number) {\n  return b + a\n}'
  const msgs = await turn(v, `swap\n\`\`\`ts\n${block}\n\`\`\``)
  const review = await until('the review', () => v.posted.find((m) => m.type === 'review'))
  assert.ok(msgs.length > 0)
  assert.deepEqual(review.files.map((f) => [f.label, f.isNew, f.hunks.map((h) => h.lines)]), [
    ['src/main.ts', false, [['@@ -5,1 +5,1 @@', '-  return a + b', '+  return b + a']]],
  ])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const done = v.posted.findLast((m) => m.type === 'review')
  assert.equal(done.done, true)
  assert.equal(done.summary, 'applied 1 of 1 hunk(s) to src/main.ts · radium.undo takes it back')
  assert.equal(doc.text, '// typed above\n' + buffer.replace('return a + b', 'return b + a'))
  // The document had unsaved changes: saved with the review (and said so once), so the step is on disk.
  assert.equal(fs.readFileSync(doc.uri.fsPath, 'utf8'), doc.text)
  assert.deepEqual(state.info.filter((m) => m.includes('had unsaved changes')), [
    'Radium: saved src/main.ts, which had unsaved changes, with the review, so that radium.undo can take the review back (it brings back the text it had before Apply, your changes included)',
  ])
  assert.deepEqual(v.posted.at(-1), { type: 'write', path: 'src/main.ts', tag: v.posted.at(-1).tag, by: 'review' })

  // The selected text itself edited while the agent ran: apply says so.
  reset({ editor: editorOf(doc, [3, 0], [6, 0]) })
  await v.send({ type: 'newChat' })
  await commands['radium.attachSelection']()
  typeInto(doc, doc.text.indexOf('return b + a'), 0, 'void 0; ')
  assert.deepEqual(v.posted.at(-1).chips, [{ kind: 'selection', label: 'main.ts:4-6', changed: true }])
  await turn(v, `again\n\`\`\`ts\n${block}\n\`\`\``)
  await until('the refusal', () => state.errors.length > 0)
  assert.match(state.errors[0], /the selected text \(main\.ts:4-6\) changed while the agent ran; its code block was not applied/)
  assert.ok(v.posted.some((m) => m.type === 'error' && /changed while the agent ran/.test(m.message)))
})

test('errors: an unknown agent and a crashing agent are shown in the view and as notifications', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'nobody' })
  await v.send({ type: 'send', text: 'hi' })
  assert.match(state.errors[0], /^Radium: .*nobody.*\[unknown_agent\]$/)
  assert.ok(v.posted.some((m) => m.type === 'error' && m.message.includes('[unknown_agent]')))
  assert.ok(!state.errors[0].includes('    at '), 'no stack trace')
  await v.send({ type: 'agent', agent: 'scripted' })
  const msgs = await turn(v, 'crash')
  const err = msgs.find((m) => m.type === 'error')
  assert.match(err.message, /exited with code 3.*the model went away/s)
  await v.send({ type: 'newChat' })
})

// ---- a review's apply recorded as one radium step ----

const rel = (name) => path.join(ws, name)
const disk = (name) => (fs.existsSync(rel(name)) ? fs.readFileSync(rel(name), 'utf8') : null)
const records = () => state.requests.filter((r) => r.req.command === 'record')

async function scriptedChat() {
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  return v
}

/** A turn whose answer proposes these files ([path, text]); answers the review. */
async function reviewOf(v, blocks) {
  const from = v.posted.length
  await turn(v, `review\n${blocks.map(([p, t]) => `\`\`\`ts:${p}\n${t}\n\`\`\``).join('\n')}`)
  return until('the review', () => v.posted.slice(from).find((m) => m.type === 'review'))
}

async function decide(v, review, ...decisions) {
  for (const [file, hunk, action] of decisions) await v.send({ type: 'review', id: review.id, action, file, hunk })
}

const A = 'export const first = 1\n\nexport const middle = 0\n\nexport const last = 9\n'
const A2 = 'export const first = 100\n\nexport const middle = 0\n\nexport const last = 999'

test('review apply: two files recorded as one step (a rejected hunk and a rejected file left out); one radium.undo takes both back, on disk and in the editors; redo', async () => {
  fs.writeFileSync(rel('src/a.ts'), A)
  fs.writeFileSync(rel('src/b.ts'), 'export const b = "old"\n')
  fs.writeFileSync(rel('src/c.ts'), 'export const c = 1\n')
  const a = new Document(Uri.file(rel('src/a.ts')), 'typescript', A, { isDirty: false })
  reset({ editor: editorOf(a, [0, 0]) })
  const v = await scriptedChat()
  const review = await reviewOf(v, [['src/a.ts', A2], ['src/b.ts', 'export const b = "new"'], ['src/c.ts', 'export const c = 2']])
  assert.deepEqual(review.files.map((f) => [f.label, f.hunks.length]), [['src/a.ts', 2], ['src/b.ts', 1], ['src/c.ts', 1]])
  await decide(v, review, [0, 0, 'accept'], [0, 1, 'reject'], [1, 0, 'accept'], [2, 0, 'reject'])
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const a1 = A.replace('first = 1', 'first = 100')
  assert.equal(disk('src/a.ts'), a1, 'saved, without the rejected hunk')
  assert.equal(disk('src/b.ts'), 'export const b = "new"\n')
  assert.equal(disk('src/c.ts'), 'export const c = 1\n', 'every hunk rejected: untouched')
  const done = v.posted.findLast((m) => m.type === 'review')
  assert.equal(done.summary, 'applied 2 of 4 hunk(s) to src/a.ts, src/b.ts · radium.undo takes it back')
  // One record request, with the chat's tag (continued, never rewound), the texts before and as saved.
  assert.equal(records().length, 1)
  // (The chat's tag: the earlier tests' agent write made one.)
  const { req } = records()[0]
  assert.match(req.tag, /^[0-9a-f]{4}-\w{8}$/)
  assert.equal(req.follow, true)
  assert.deepEqual(req.args.files, [
    { path: 'src/a.ts', old_text: A, new_text: a1 },
    { path: 'src/b.ts', old_text: 'export const b = "old"\n', new_text: 'export const b = "new"\n' },
  ])
  const answer = await records()[0].promise
  assert.equal(answer.ok, true, JSON.stringify(answer))
  assert.deepEqual(answer.data.files.map((f) => [f.path, f.created]), [['src/a.ts', false], ['src/b.ts', false]])
  assert.deepEqual(v.posted.at(-1), { type: 'write', path: 'src/a.ts, src/b.ts', tag: answer.tag, by: 'review' })
  const b = state.documents.find((d) => d.uri.fsPath === rel('src/b.ts'))
  assert.ok(b && !b.isDirty, 'b.ts was opened by the apply and saved')

  await commands['radium.undo']()
  assert.equal(state.info.at(-1), 'Radium: undid record of 2 files (src/a.ts, src/b.ts)')
  assert.equal(disk('src/a.ts'), A)
  assert.equal(disk('src/b.ts'), 'export const b = "old"\n')
  assert.equal(a.getText(), A)
  assert.equal(b.getText(), 'export const b = "old"\n')
  assert.ok(!state.executed.some((e) => e.id === 'workbench.action.files.revert'), 'VS Code reloaded them: nothing reverted')

  await commands['radium.redo']()
  assert.equal(state.info.at(-1), 'Radium: redid record of 2 files (src/a.ts, src/b.ts)')
  assert.equal(disk('src/a.ts'), a1)
  assert.equal(disk('src/b.ts'), 'export const b = "new"\n')
  assert.deepEqual(state.errors, [])

  // Every hunk rejected: nothing applied, nothing recorded.
  const again = await reviewOf(v, [['src/c.ts', 'export const c = 3']])
  await v.send({ type: 'review', id: again.id, action: 'rejectAll' })
  await v.send({ type: 'review', id: again.id, action: 'apply' })
  assert.equal(v.posted.at(-1).summary, 'nothing applied (every hunk rejected)')
  assert.equal(records().length, 1)
})

test('review apply: a created file and an unsaved document (saved, formatted on save) are one step; undo removes the file and brings the unsaved text back, reverting an editor VS Code did not reload', async () => {
  const typed = 'export const d = 1\n// typed, not saved\n'
  fs.writeFileSync(rel('src/d.ts'), 'export const d = 1\n')
  fs.rmSync(rel('src/fresh.ts'), { force: true })
  const d = new Document(Uri.file(rel('src/d.ts')), 'typescript', typed)
  reset({ editor: editorOf(d, [0, 0]) })
  Object.assign(docOptions, { reload: false, onSave: (t) => t.replace(/"/g, "'") })
  const v = await scriptedChat()
  const review = await reviewOf(v, [['src/fresh.ts', 'export const fresh = "yes"'], ['src/d.ts', 'export const d = "two"\n// typed, not saved']])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(disk('src/fresh.ts'), 'export const fresh = "yes"\n', 'created by the edit itself (not open, not formatted)')
  assert.equal(disk('src/d.ts'), "export const d = 'two'\n// typed, not saved\n", 'saved through the formatter')
  assert.deepEqual(records().at(-1).req.args.files, [
    { path: 'src/fresh.ts', old_text: null, new_text: 'export const fresh = "yes"\n' },
    { path: 'src/d.ts', old_text: typed, new_text: "export const d = 'two'\n// typed, not saved\n" },
  ])
  const answer = await records().at(-1).promise
  assert.equal(answer.ok, true, JSON.stringify(answer))
  assert.deepEqual(answer.data.files.map((f) => [f.path, f.created]), [['src/fresh.ts', true], ['src/d.ts', false]])
  assert.equal(state.info.filter((m) => m.includes('which had unsaved changes')).length, 1)

  await commands['radium.undo']()
  assert.equal(state.info.at(-1), 'Radium: undid record of 2 files (src/d.ts, src/fresh.ts)')
  assert.equal(disk('src/fresh.ts'), null, 'the created file is removed')
  assert.equal(disk('src/d.ts'), typed, 'the text before Apply, the unsaved typing included')
  assert.equal(d.getText(), typed, 'not reloaded by "VS Code": reverted by the extension')
  assert.ok(state.executed.some((e) => e.id === 'workbench.action.files.revert'))
  assert.match(channel.lines.join('\n'), /src\/d\.ts: not reloaded by VS Code after 2000 ms; reverted from disk/)
  assert.deepEqual(state.errors, [])
})

test('review apply: with saveAfterApply off nothing is recorded; a refused record is a one-line error, the apply stays', async () => {
  fs.writeFileSync(rel('src/e.ts'), 'export const e = 1\n')
  const e = new Document(Uri.file(rel('src/e.ts')), 'typescript', 'export const e = 1\n', { isDirty: false })
  reset({ editor: editorOf(e, [0, 0]), settings: { 'radium.review.saveAfterApply': false } })
  const v = await scriptedChat()
  const before = records().length
  let review = await reviewOf(v, [['src/e.ts', 'export const e = 2']])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(e.getText(), 'export const e = 2\n')
  assert.ok(e.isDirty, 'not saved')
  assert.equal(disk('src/e.ts'), 'export const e = 1\n')
  assert.equal(v.posted.at(-1).summary, 'applied 1 of 1 hunk(s) to src/e.ts (not saved: Ctrl+Z in each editor takes it back; radium.undo does not)')
  assert.equal(records().length, before)

  // Something else writes the file right after the save: the engine refuses the record.
  await e.save()
  reset({ editor: editorOf(e, [0, 0]) })
  Object.assign(docOptions, { reload: false, afterSave: (doc) => fs.appendFileSync(doc.uri.fsPath, '// someone else\n') })
  review = await reviewOf(v, [['src/e.ts', 'export const e = 3']])
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(records().length, before + 1)
  assert.deepEqual(state.errors, [
    'Radium: the applied review was not recorded, so radium.undo will not take it back (Ctrl+Z in each editor takes it back): `src/e.ts` on disk is not the edited text (save it first); nothing recorded [edit]',
  ])
  assert.ok(v.posted.some((m) => m.type === 'error' && m.message.includes('nothing recorded [edit]')))
  assert.equal(v.posted.findLast((m) => m.type === 'review').summary, 'applied 1 of 1 hunk(s) to src/e.ts (not recorded)')
  assert.equal(e.getText(), 'export const e = 3\n', 'the apply itself stays')
})

test('an image file attached goes to the agent as an image, not as text', async () => {
  const png = path.join(ws, 'shot.png')
  fs.writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]))
  reset({ editor: editorOf(new Document(Uri.file(png), 'plaintext', ''), [0, 0]) })
  const v = await scriptedChat()
  await commands['radium.attachFile']()
  assert.deepEqual(v.posted.at(-1), { type: 'chips', chips: [{ kind: 'file', label: 'shot.png', changed: false }] })
  const msgs = await turn(v, 'what is this')
  assert.match(textOf(msgs), /Images: image\/png 7 bytes/)
  await v.send({ type: 'newChat' })
})
