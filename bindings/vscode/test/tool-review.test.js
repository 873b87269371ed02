'use strict'
// An agent's tool-call diff reviewed per hunk from its permission prompt:
// the decisions (plain Node), then the chat with the real engine and a real
// ACP agent (e2e/edit-agent.mjs, which writes a whole file of several lines)
// against the stand-in `vscode` module. Accepting one hunk and rejecting the
// other allows the write, then takes the rejected hunk back through the
// editor, recorded with the chat's tag and joined to the agent's write
// (`amend`): one Radium: Undo takes the tool call back as accepted, one
// Redo brings it back so. Every hunk rejected rejects the
// call; a prompt nobody answers closes the review as timed out.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { toolCallProposals, decideToolCall } = require('../out/toolcall.js')
const { setup, state, reset, commands, openView, editorOf, Document, Uri } = require('./stand-in.js')

const { ws } = setup()
after(() => commands['radium.newChat']?.())

const OLD = 'export const first = 1\n\nexport const middle = 0\n\nexport const last = 9\n'
const NEW = 'export const first = 100\n\nexport const middle = 0\n\nexport const last = 999\n'
const KEEP = 'export const first = 100\n\nexport const middle = 0\n\nexport const last = 9\n'

test('a tool call\'s diffs as a proposal; the decisions: none accepted rejects, some accepted allows and takes the rest back', () => {
  const { files, skipped } = toolCallProposals(
    [
      { path: `${ws}/src/two.ts`, old_text: OLD, new_text: NEW },
      { path: `${ws}/src/new.ts`, old_text: null, new_text: 'fresh\n' },
      { path: `${ws}/src/same.ts`, old_text: 'x\n', new_text: 'x\n' },
      { path: '/elsewhere/x.ts', old_text: 'a', new_text: 'b' },
    ],
    ws,
  )
  assert.deepEqual(files.map((f) => [f.label, f.oldText === null, f.hunks.length]), [['src/two.ts', false, 2], ['src/new.ts', true, 1]])
  assert.deepEqual(skipped, ['/elsewhere/x.ts is outside the workspace'])
  assert.deepEqual(decideToolCall(files, [[false, undefined], [false]]), { answer: 'reject', accepted: 0, of: 3, takeBack: [], created: [] })
  const some = decideToolCall(files, [[true, false], [false]])
  assert.equal(some.answer, 'allow')
  assert.deepEqual(some.takeBack, [{ path: path.join(ws, 'src/two.ts'), label: 'src/two.ts', written: NEW, keep: KEEP, rejected: 1 }])
  assert.deepEqual(some.created, ['src/new.ts'], 'a created file goes whole with the call')
  assert.deepEqual(decideToolCall(files, [[true, true], [true]]).takeBack, [])
})

const until = async (what, check, ms = 10000) => {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
const file = path.join(ws, 'src/two.ts')
const disk = () => fs.readFileSync(file, 'utf8')
const records = () => state.requests.filter((r) => r.req.command === 'record')

async function editingChat() {
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'editing' })
  return v
}

/** Sends `edit src/two.ts` with NEW; answers the permission prompt as the view got it. */
async function askEdit(v) {
  const from = v.posted.length
  await v.send({ type: 'send', text: `edit src/two.ts\n${NEW}` })
  return until('the permission prompt', () => v.posted.slice(from).find((m) => m.type === 'permission'))
}

async function openReview(v, perm) {
  const from = v.posted.length
  await v.send({ type: 'toolReview', id: perm.id })
  return until('the review', () => v.posted.slice(from).find((m) => m.type === 'review'))
}

const lastReview = (v) => v.posted.findLast((m) => m.type === 'review')

test('accept one hunk, reject the other: the write is allowed, the rejected hunk taken back in the editor and on disk, recorded with the chat\'s tag, joined to the agent\'s step; one undo', async () => {
  fs.writeFileSync(file, OLD)
  const doc = new Document(Uri.file(file), 'typescript', OLD, { isDirty: false })
  reset({ editor: editorOf(doc, [0, 0]) })
  const v = await editingChat()
  const perm = await askEdit(v)
  assert.equal(perm.reviewable, true)
  assert.equal(perm.title, `Edit ${file}`)
  const review = await openReview(v, perm)
  assert.equal(review.title, 'Review: Edit src/two.ts')
  assert.equal(review.applyLabel, 'Allow accepted hunks')
  assert.deepEqual(review.files.map((f) => [f.label, f.hunks.map((h) => h.lines)]), [
    ['src/two.ts', [['@@ -1,1 +1,1 @@', '-export const first = 1', '+export const first = 100'], ['@@ -5,1 +5,1 @@', '-export const last = 9', '+export const last = 999']]],
  ])
  // The review opened twice is the same review.
  assert.equal((await openReview(v, perm)).id, review.id)
  await v.send({ type: 'review', id: review.id, action: 'accept', file: 0, hunk: 0 })
  await v.send({ type: 'review', id: review.id, action: 'reject', file: 0, hunk: 1 })
  assert.deepEqual(lastReview(v).files[0].hunks.map((h) => h.accepted), [true, false])
  const from = v.posted.length
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const done = await until('the take-back', () => /took back/.test(lastReview(v).summary ?? '') && lastReview(v))
  assert.deepEqual(state.errors, [])
  assert.equal(done.summary, 'allowed with 1 of 2 hunk(s); took back 1 rejected hunk(s) of src/two.ts after the agent wrote it · one radium.undo takes back the tool call as accepted')
  const after = v.posted.slice(from)
  assert.deepEqual(after.find((m) => m.type === 'decided')?.allowed, true)
  const agentWrite = after.find((m) => m.type === 'write' && m.tag && m.path === 'src/two.ts' && m.by !== 'review')
  assert.ok(agentWrite, JSON.stringify(after.map((m) => m.type)))
  assert.equal(disk(), KEEP, 'on disk: only the accepted hunk')
  assert.equal(doc.getText(), KEEP, 'in the editor')
  // One record: from the agent's text to the kept one, continuing the chat's conversation (the write's tag).
  const { req, promise } = records().at(-1)
  assert.deepEqual(req.args.files, [{ path: 'src/two.ts', old_text: NEW, new_text: KEEP }])
  assert.equal(req.tag, agentWrite.tag)
  assert.equal(req.follow, true)
  assert.ok(Number.isInteger(req.args.amend) && req.args.amend > 0, `amend: the agent's write's seq (${req.args.amend})`)
  const answer = await promise
  assert.equal(answer.ok, true)
  assert.equal(answer.data.amended, true, JSON.stringify(answer))
  const takeBack = v.posted.at(-1)
  assert.deepEqual(takeBack, { type: 'write', path: 'src/two.ts', tag: takeBack.tag, by: 'review' })
  await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))

  await commands['radium.undo']()
  assert.equal(disk(), OLD, 'one undo: the take-back and the agent\'s write')
  assert.equal(doc.getText(), OLD)
  await commands['radium.redo']()
  assert.equal(disk(), KEEP, 'one redo: the tool call as accepted')
  assert.deepEqual(state.errors, [])
})

test('every hunk rejected rejects the call; a review left open while the prompt times out says so', async () => {
  fs.writeFileSync(file, OLD)
  reset({})
  const v = await editingChat()
  let perm = await askEdit(v)
  let review = await openReview(v, perm)
  await v.send({ type: 'review', id: review.id, action: 'rejectAll' })
  const before = records().length
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  assert.equal(lastReview(v).summary, 'rejected the tool call (every hunk of src/two.ts rejected)')
  await until('the agent was told', () => v.posted.some((m) => m.type === 'text' && m.text.includes('I was not allowed to edit')))
  assert.equal(disk(), OLD)
  assert.equal(records().length, before)

  await until('the turn end', () => !state.statusItem.visible)
  perm = await askEdit(v)
  review = await openReview(v, perm)
  await until('the timeout', () => lastReview(v).summary === 'timed out: rejected', 5000)
  assert.equal(lastReview(v).done, true)
  assert.equal(disk(), OLD)
  assert.deepEqual(state.errors, [])
})
