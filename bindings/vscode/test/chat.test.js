'use strict'
// The chat view's controller with the real engine and the real scripted ACP
// agent (examples/acp-agent/agent.mjs), against the stand-in `vscode`
// module: the messages the webview gets are what a user sees. A turn streams
// with the selection attached, a permission is answered (and one times out),
// the agent's write is undone, a slow turn is stopped, the answer's block is
// reviewed and applied to the moved selection, an edited selection is
// refused, and the errors are shown.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView, docListeners, editorOf, unsavedDocument, buffer } = require('./stand-in.js')

const { ws } = setup()

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
  assert.ok(stats && stats.max >= 0 && stats.chunks >= 2, JSON.stringify(stats))
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
  const done = v.posted.at(-1)
  assert.equal(done.done, true)
  assert.equal(done.summary, 'applied 1 of 1 hunk(s) to src/main.ts')
  assert.equal(doc.text, '// typed above\n' + buffer.replace('return a + b', 'return b + a'))

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
