'use strict'
// "Reopen a Past Conversation…" with the chat's agent's own sessions: the
// example ACP agent with `--resume --list` keeps its sessions in
// EXAMPLE_AGENT_STATE (one is written as if started in its own command
// line); the quick pick lists it under the separator "The agent's own
// sessions", and the one picked is taken up by the next prompt's session
// (the agent remembers; the view says radium holds no transcript of it).

const fs = require('node:fs')
const path = require('node:path')
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')

const { setup, state, reset, commands, openView } = require('./stand-in.js')

const { ws } = setup()
const home = path.join(ws, '.home')
const agentState = path.join(ws, '.agent-state')
const agent = path.join(__dirname, '..', '..', '..', 'examples/acp-agent/agent.mjs')

before(() => {
  fs.mkdirSync(agentState, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(
    path.join(home, 'agents.toml'),
    [
      '[[agents]]',
      'id = "listing"',
      'protocol = "acp"',
      `command = ["node", ${JSON.stringify(agent)}, "--resume", "--list"]`,
      `env = { EXAMPLE_AGENT_STATE = ${JSON.stringify(agentState)} }`,
      '',
    ].join('\n'),
  )
  fs.writeFileSync(path.join(agentState, 'cli-a.json'), JSON.stringify({ cwd: ws, prompts: ['from the cli'] }))
})
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

const texts = (messages) => messages.filter((m) => m.type === 'text').map((m) => m.text).join('')

test("the chat's agent's own sessions are listed after a separator and the one picked is taken up", async () => {
  reset({ pick: 1 })
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'listing' })
  const from = v.posted.length
  const id = await commands['radium.chatHistory']()
  assert.equal(id, 'agent:cli-a')
  assert.equal(state.picks.length, 1)
  assert.deepEqual(state.picks[0].labels, ["The agent's own sessions", 'from the cli'])
  assert.equal(state.picks[0].items[0].kind, -1, 'a separator')
  assert.equal(state.picks[0].items[1].description, "listing · (the agent's own)")
  const shown = v.posted.slice(from)
  assert.ok(shown.some((m) => m.type === 'notice' && m.message.includes("the agent's own session cli-a with listing: radium holds no transcript of it")), JSON.stringify(shown))
  assert.equal(shown.filter((m) => m.type === 'user').length, 0, 'no transcript')

  const at = v.posted.length
  await v.send({ type: 'send', text: 'remember' })
  const end = await until('the turn end', () => v.posted.slice(at).find((m) => m.type === 'turnEnd' || m.type === 'error'))
  const next = v.posted.slice(at)
  assert.equal(end.type, 'turnEnd', JSON.stringify(next))
  assert.ok(next.some((m) => m.type === 'notice' && m.message === 'the agent resumed its own session'), JSON.stringify(next))
  assert.equal(texts(next), 'I remember: from the cli; earlier turns given as context: 0')

  // Now radium's conversation: listed as radium's, no longer as the agent's own.
  await commands['radium.newChat']()
  await v.send({ type: 'agent', agent: 'listing' })
  reset({})
  assert.equal(await commands['radium.chatHistory'](), undefined)
  assert.deepEqual(state.picks[0].labels, ['remember'])
  assert.equal(state.picks[0].items[0].description, 'listing · 1 turn(s)')
})

test('an agent that cannot list its sessions or fails to start: radium\'s conversations only, the failure a warning', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  assert.equal(await commands['radium.chatHistory'](), undefined)
  assert.deepEqual(state.picks[0].labels, ['remember'], 'no separator: scripted does not list its sessions')
  assert.deepEqual(state.warnings, [], 'said only in the log')

  reset({})
  await v.send({ type: 'agent', agent: 'nosuch' })
  assert.equal(await commands['radium.chatHistory'](), undefined)
  assert.deepEqual(state.picks[0].labels, ['remember'])
  assert.ok(state.warnings.some((w) => w.includes('the sessions of nosuch could not be listed') && w.includes('listing')), JSON.stringify(state.warnings))
})
