'use strict'
// "Reopen a Past Conversation…" in the chat view, with the real engine and
// the scripted ACP agent (examples/acp-agent/agent.mjs, which cannot resume
// its own session), against the stand-in `vscode` module: the past
// conversation is listed, its turns are shown once, and the next prompt
// continues it (the agent gets the earlier turns as context, and says so).

const { test, after } = require('node:test')
const assert = require('node:assert/strict')

const { setup, state, reset, commands, openView } = require('./stand-in.js')

setup()
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

async function turn(v, text) {
  const from = v.posted.length
  await v.send({ type: 'send', text })
  const end = await until('the turn end', () => v.posted.slice(from).find((m) => m.type === 'turnEnd' || m.type === 'error'))
  assert.equal(end.type, 'turnEnd', JSON.stringify(v.posted.slice(from)))
  return v.posted.slice(from)
}

const texts = (messages) => messages.filter((m) => m.type === 'text').map((m) => m.text).join('')

test('with no past conversation the command says so', async () => {
  reset({ pick: 0 })
  openView('radium.chatView')
  assert.equal(await commands['radium.chatHistory'](), undefined)
  assert.deepEqual(state.picks, [])
  assert.ok(state.info.some((m) => m.includes('no past conversations')), JSON.stringify(state.info))
})

test('a past conversation is listed, shown once and continued by the next prompt', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await turn(v, 'hello from before')
  await commands['radium.newChat']()

  reset({ pick: 0 })
  const from = v.posted.length
  const id = await commands['radium.chatHistory']()
  assert.equal(typeof id, 'string')
  assert.equal(state.picks.length, 1)
  assert.deepEqual(state.picks[0].labels, ['hello from before'])
  assert.equal(state.picks[0].items[0].description, 'scripted · 1 turn(s)')
  const shown = v.posted.slice(from)
  assert.deepEqual(shown.filter((m) => m.type === 'user').map((m) => m.text), ['hello from before'])
  assert.equal(texts(shown), 'You said: hello from before')
  assert.equal(shown.filter((m) => m.type === 'turnEnd').length, 1)
  assert.equal(typeof shown.find((m) => m.type === 'turnEnd').tagBefore, 'string', 'restorable')

  const next = await turn(v, 'remember')
  assert.ok(next.some((m) => m.type === 'notice' && m.message.includes('cannot resume its own session')), JSON.stringify(next))
  assert.equal(texts(next), 'I remember: nothing; earlier turns given as context: 1')
})
