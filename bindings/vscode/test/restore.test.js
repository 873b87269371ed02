'use strict'
// One undo per turn and "Restore files to before this prompt" in the chat
// view, with the real engine and the scripted ACP agent
// (examples/acp-agent/agent.mjs) writing two files in one turn (one through
// radium, one by itself, then the first again), against the stand-in
// `vscode` module.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView } = require('./stand-in.js')

const { ws } = setup()
after(() => commands['radium.newChat']?.())

async function until(what, check, ms = 15000) {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const read = (rel) => (fs.existsSync(path.join(ws, rel)) ? fs.readFileSync(path.join(ws, rel), 'utf8') : null)

/** A chat whose one turn wrote src/a.txt (twice) and src/b.txt; its turnEnd message. */
async function twoFileTurn(v) {
  fs.writeFileSync(path.join(ws, 'src/a.txt'), 'a\n')
  fs.rmSync(path.join(ws, 'src/b.txt'), { force: true })
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  const from = v.posted.length
  await v.send({ type: 'send', text: 'twowrite src/a.txt src/b.txt hello' })
  // Each of the three writes asks; each is allowed once.
  const answered = new Set()
  const end = await until('the turn end', () => {
    for (const m of v.posted.slice(from)) {
      if (m.type === 'permission' && !answered.has(m.id)) {
        answered.add(m.id)
        void v.send({ type: 'permission', id: m.id, choice: 'once' })
      }
    }
    return v.posted.slice(from).find((m) => m.type === 'turnEnd' || m.type === 'error')
  })
  assert.equal(answered.size, 3, 'three writes asked')
  assert.equal(end.type, 'turnEnd', JSON.stringify(v.posted.slice(from)))
  assert.equal(read('src/a.txt'), 'hello again\n')
  assert.equal(read('src/b.txt'), 'hello\n')
  return end
}

test('one radium.undo takes the whole turn back and one radium.redo brings it back', async () => {
  reset({})
  const v = openView('radium.chatView')
  const end = await twoFileTurn(v)
  assert.equal(typeof end.tagBefore, 'string', 'the turn end carries the tag of before the prompt')
  await commands['radium.undo']()
  assert.equal(read('src/a.txt'), 'a\n', 'a.txt taken back')
  assert.equal(read('src/b.txt'), null, 'b.txt (created in the turn) gone')
  await commands['radium.redo']()
  assert.equal(read('src/a.txt'), 'hello again\n')
  assert.equal(read('src/b.txt'), 'hello\n')
  assert.deepEqual(state.errors, [])
})

test('Restore lists the files in a modal first: dismissed, nothing changes; Restore puts them back to before the prompt', async () => {
  reset({})
  const v = openView('radium.chatView')
  const end = await twoFileTurn(v)
  await v.send({ type: 'restore', tag: end.tagBefore })
  const asked = state.warningPrompts.at(-1)
  assert.equal(asked.message, 'Restore 2 file(s) to before this prompt?')
  assert.deepEqual(asked.rest[0], { modal: true, detail: 'src/a.txt\nsrc/b.txt' })
  assert.equal(asked.rest[1], 'Restore')
  assert.equal(read('src/a.txt'), 'hello again\n', 'dismissed: nothing changed')
  assert.equal(read('src/b.txt'), 'hello\n')

  reset({ answerWarning: 'Restore' })
  await v.send({ type: 'restore', tag: end.tagBefore })
  assert.equal(read('src/a.txt'), 'a\n', 'restored')
  assert.equal(read('src/b.txt'), null, 'restored: the created file is gone')
  assert.match(state.info.at(-1), /^Radium: restored src\/a\.txt, src\/b\.txt to before the prompt/)
  // Nothing left to restore: said, no question.
  const questions = state.warningPrompts.length
  await v.send({ type: 'restore', tag: end.tagBefore })
  assert.equal(state.warningPrompts.length, questions)
  assert.match(state.info.at(-1), /nothing to restore/)
  assert.deepEqual(state.errors, [])
})

test('a restore to a tag radium does not know is an error that changes nothing', async () => {
  reset({ answerWarning: 'Restore' })
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  fs.writeFileSync(path.join(ws, 'src/a.txt'), 'kept\n')
  await v.send({ type: 'restore', tag: 'nope-nope' })
  assert.match(state.errors.at(-1) ?? '', /restore failed: .*nothing changed/)
  assert.equal(read('src/a.txt'), 'kept\n')
})
