'use strict'
// An agent's tool-call diff reviewed per hunk from its permission prompt:
// the decisions (plain Node), then the chat with the real engine and a real
// ACP agent (e2e/edit-agent.mjs, which writes a whole file of several lines)
// against the stand-in `vscode` module. The review shows the engine's hunks;
// accepting one hunk and rejecting the other answers the permission with
// the hunk kept (`session-permission`'s `hunks`): the engine leaves the
// rejected hunk out of the agent's write and says so, the door records
// nothing itself, and one Radium: Undo takes the tool call back, one Redo
// brings it back as accepted. Every hunk rejected rejects the call; a
// prompt nobody answers closes the review as timed out.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { toolCallProposals, decideToolCall, keptHunks } = require('../out/toolcall.js')
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
  // The answer names the hunks kept by the paths the engine sent; a created file goes whole.
  assert.deepEqual(keptHunks(files, [`${ws}/src/two.ts`, `${ws}/src/new.ts`], [[false, true], [false]]), { [`${ws}/src/two.ts`]: [1], [`${ws}/src/new.ts`]: [0] })
})

test('the engine\'s hunks are the review\'s, so the answer numbers them as the engine does', () => {
  const engineHunks = [{ index: 0, old_start: 0, old_count: 1, new_start: 0, new_count: 1, old_lines: ['export const first = 1\n'], new_lines: ['export const first = 100\n'] }]
  const { files, sources } = toolCallProposals([{ path: 'src/two.ts', old_text: OLD, new_text: NEW, hunks: engineHunks }], ws)
  assert.deepEqual(files[0].hunks, [{ oldStart: 0, oldLines: ['export const first = 1\n'], newStart: 0, newLines: ['export const first = 100\n'] }])
  assert.deepEqual(sources, ['src/two.ts'])
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

test('accept one hunk, reject the other: the answer keeps that hunk, the engine leaves the other out of the write, the door records nothing; one undo, one redo', async () => {
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
  const recordsBefore = records().length
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const answered = state.requests.filter((r) => r.req.command === 'session-permission').at(-1)
  assert.deepEqual(Object.values(answered.req.args.hunks), [[0]], JSON.stringify(answered.req.args))
  const done = await until('the engine\'s take-back', () => /radium took back/.test(lastReview(v).summary ?? '') && lastReview(v))
  assert.deepEqual(state.errors, [])
  assert.equal(done.summary, 'allowed with 1 of 2 hunk(s); radium took back 1 rejected hunk(s) of src/two.ts · one radium.undo takes back the tool call as accepted')
  const after = v.posted.slice(from)
  assert.deepEqual(after.find((m) => m.type === 'decided')?.allowed, true)
  assert.ok(after.find((m) => m.type === 'write' && m.tag && m.path === 'src/two.ts'), JSON.stringify(after.map((m) => m.type)))
  assert.equal(disk(), KEEP, 'on disk: only the accepted hunk')
  assert.equal(records().length, recordsBefore, 'the door records nothing itself')
  await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))

  await commands['radium.undo']()
  assert.equal(disk(), OLD, 'one undo: the tool call')
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
