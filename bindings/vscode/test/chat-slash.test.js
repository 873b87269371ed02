'use strict'
// The agent's slash commands and usage in the chat view, with the real
// engine and the example ACP agent (`scripted` here: it sends /review and /explain after
// session/new, answers `/name args` with what it got, and reports usage):
// typing `/` starts the session and its commands reach the `/` menu; the
// command reaches the agent unchanged; the usage is shown; a reloaded view
// gets both again; a new chat clears them.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')

const { setup, reset, commands, openView } = require('./stand-in.js')
const { viewMessages, usageText, tokens } = require('../out/chat/events.js')

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

test('typing / brings the agent\'s commands; /review reaches the agent unchanged; the usage is shown, and again after a reload', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await v.send({ type: 'wantCommands' })
  const list = await until('the commands', () => v.posted.find((m) => m.type === 'commands' && m.commands.length))
  assert.deepEqual(list.commands, [
    { name: 'review', description: 'Review the changes of this branch', hint: 'what to look at' },
    { name: 'explain', description: 'Explain the selected code', hint: '' },
  ])
  const from = v.posted.length
  await v.send({ type: 'send', text: '/review the parser' })
  await until('the turn end', () => v.posted.slice(from).find((m) => m.type === 'turnEnd'))
  const msgs = v.posted.slice(from)
  const said = msgs.filter((m) => m.type === 'text').map((m) => m.text).join('')
  assert.equal(said, 'command /review got: the parser')
  assert.deepEqual(msgs.find((m) => m.type === 'usage'), { type: 'usage', text: '12.3k/200k tokens, $0.04' })
  assert.equal(msgs.find((m) => m.type === 'turnEnd').usage, '12.3k/200k tokens, $0.04')
  // The view reloads (hidden, shown again): the menu and the usage come back.
  const reload = v.posted.length
  await v.send({ type: 'ready' })
  const again = v.posted.slice(reload)
  assert.equal(again.find((m) => m.type === 'commands').commands.length, 2)
  assert.equal(again.find((m) => m.type === 'usage').text, '12.3k/200k tokens, $0.04')
  // A new chat forgets them.
  await commands['radium.newChat']()
  const fresh = v.posted.length
  await v.send({ type: 'ready' })
  assert.equal(v.posted.slice(fresh).filter((m) => m.type === 'commands' || m.type === 'usage').length, 0)
})

test('commands and usage events as view messages: bad entries left out, counts and currencies', () => {
  const out = viewMessages([
    { type: 'commands', commands: [{ name: 'a', description: 'A', hint: null }, { description: 'no name' }, { name: '' }, 7] },
    { type: 'usage', used: 950, size: 1500000 },
    { type: 'usage', inputTokens: 3 },
    { type: 'turn_end', stop_reason: 'end_turn', usage: { used: 2000, cost: { amount: 1.5, currency: 'EUR' } } },
  ], '/ws', 1)
  assert.deepEqual(out[0], { type: 'commands', commands: [{ name: 'a', description: 'A', hint: '' }] })
  assert.deepEqual(out[1], { type: 'usage', text: '950/1.5M tokens' })
  assert.equal(out[2].type, 'turnEnd', 'a usage without a count shows nothing')
  assert.equal(out[2].usage, '2k tokens, 1.50 EUR')
  assert.equal(usageText({ totalTokens: 12345 }), '12.3k tokens')
  assert.equal(usageText(null), undefined)
  assert.equal(viewMessages([{ type: 'commands', commands: 'nope' }], '/ws', 1)[0].commands.length, 0)
  assert.equal(tokens(200000), '200k')
})
