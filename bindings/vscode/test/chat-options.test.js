'use strict'
// The chat view's mode and model pickers, with the real engine and the
// real scripted ACP agent (examples/acp-agent/agent.mjs: modes default /
// acceptEdits / plan / dontAsk, models small / large), against the stand-in
// `vscode` module: the pickers get the agent's values once its session
// starts, a pick reaches the agent, a value it does not offer is an error
// (the picker shows the agent's value again), the agent's own switch
// updates them, and a new chat hides them.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')

const { setup, reset, commands, openView, state } = require('./stand-in.js')

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
  const ends = () => v.posted.filter((m) => m.type === 'turnEnd' || m.type === 'error').length
  const before = ends()
  const from = v.posted.length
  await v.send({ type: 'send', text })
  await until(`the end of "${text}"`, () => ends() > before)
  return v.posted.slice(from)
}
const textOf = (msgs) => msgs.filter((m) => m.type === 'text').map((m) => m.text).join('')
const lastOptions = (v) => v.posted.filter((m) => m.type === 'options').at(-1)
const values = (o, category) => o.options.find((c) => c.category === category).values.map((x) => x.value)

test('the mode, model and effort pickers: filled when the agent starts, a pick reaches it, a bad value is an error', async () => {
  reset({})
  const v = openView('radium.chatView')
  assert.match(v.view.webview.html, /<select id="mode"[^>]*hidden/)
  assert.match(v.view.webview.html, /<select id="model"[^>]*hidden/)
  assert.match(v.view.webview.html, /<select id="effort"[^>]*hidden/)
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await turn(v, 'hello')
  let o = lastOptions(v)
  assert.ok(o, 'an options message once the session started')
  assert.equal(o.mode, 'default')
  assert.equal(o.model, 'small')
  assert.deepEqual(values(o, 'mode'), ['default', 'acceptEdits', 'plan', 'dontAsk'])
  assert.deepEqual(values(o, 'model'), ['small', 'large'])

  await v.send({ type: 'option', option: 'model', value: 'large' })
  await v.send({ type: 'option', option: 'mode', value: 'plan' })
  o = lastOptions(v)
  assert.equal(o.model, 'large')
  assert.equal(o.mode, 'plan')
  assert.match(textOf(await turn(v, 'whoami')), /mode plan, model large, effort medium/)
  assert.deepEqual(values(o, 'thought_level'), ['low', 'medium', 'high'], 'the effort picker\'s values')
  await v.send({ type: 'option', option: 'thought_level', value: 'high' })
  assert.equal(lastOptions(v).options.find((c) => c.category === 'thought_level').current, 'high')
  assert.match(textOf(await turn(v, 'whoami')), /mode plan, model large, effort high/)

  const from = v.posted.length
  await v.send({ type: 'option', option: 'model', value: 'gigantic' })
  const after = v.posted.slice(from)
  const error = after.find((m) => m.type === 'error')
  assert.ok(error, JSON.stringify(after))
  assert.match(error.message, /does not offer `gigantic` for `model` \(it offers: small, large\)/)
  assert.equal(after.filter((m) => m.type === 'options').at(-1).model, 'large', 'the picker shows the agent\'s value again')
  assert.ok(state.errors.some((e) => /gigantic/.test(e)), JSON.stringify(state.errors))

  // The agent switches its own mode: the picker follows.
  await turn(v, 'switchmode acceptEdits')
  assert.equal(lastOptions(v).mode, 'acceptEdits')

  // A new chat: the pickers go with the session.
  const before = v.posted.length
  await v.send({ type: 'newChat' })
  const cleared = v.posted.slice(before).find((m) => m.type === 'options')
  assert.deepEqual(cleared, { type: 'options', options: [], mode: null, model: null })
})

test('a notice of the start is shown once as the chat opens; the agent\'s switch between turns moves the picker', async () => {
  reset({})
  const fs = require('node:fs')
  const path = require('node:path')
  const file = path.join(state.folders[0].uri.path, '.radium/mcp.toml')
  fs.writeFileSync(file, '[[servers]]\nname = "docs"\ntype = "http"\nurl = "http://127.0.0.1:9/mcp"\n')
  try {
    const v = openView('radium.chatView')
    await v.send({ type: 'ready' })
    await v.send({ type: 'agent', agent: 'scripted' })
    await turn(v, 'hello')
    const said = v.posted.filter((m) => m.type === 'notice' && /MCP server `docs`.*was not passed/.test(m.message))
    assert.equal(said.length, 1, JSON.stringify(v.posted.filter((m) => m.type === 'notice')))
    // Shown as the session opened (with its pickers), not among the turn's events.
    const opened = v.posted.findIndex((m) => m.type === 'options' && m.options.length > 0)
    assert.equal(v.posted.indexOf(said[0]), opened + 1, JSON.stringify(v.posted.map((m) => m.type)))
    // The turn ends; the agent switches to plan 200 ms later, between turns.
    await turn(v, 'latemode plan')
    await until('the mode picker on plan', () => lastOptions(v)?.mode === 'plan')
    await v.send({ type: 'newChat' })
  } finally {
    fs.rmSync(file, { force: true })
  }
})
