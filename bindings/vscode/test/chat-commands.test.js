'use strict'
// The chat view shows what a tool call ran and printed, with the real engine
// and the real scripted ACP agent (examples/acp-agent/agent.mjs, which runs
// real commands and sends them as Claude Code's adapter does), against the
// stand-in `vscode` module: the tool messages the webview gets carry the
// command, its folder, its output folded when long, and its exit code.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, reset, commands, openView, state } = require('./stand-in.js')
const { foldOutput } = require('../out/chat/events.js')

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

async function turn(v, text) {
  const ends = () => v.posted.filter((m) => m.type === 'turnEnd' || m.type === 'error').length
  const before = ends()
  const from = v.posted.length
  await v.send({ type: 'send', text })
  await until(`the end of "${text}"`, () => ends() > before)
  return v.posted.slice(from).filter((m) => m.type === 'tool')
}

/** The last value of `field` among the tool messages. */
const last = (tools, field) => tools.map((m) => m[field]).filter((x) => x !== undefined).at(-1)

test('a command, its output folded and its exit code reach the chat view', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  let tools = await turn(v, 'shell seq 1 30')
  assert.equal(last(tools, 'command'), 'seq 1 30')
  assert.deepEqual(last(tools, 'output'), ['1', '2', '3', '4', '5', '6', '7', '8', '… 14 more lines', '23', '24', '25', '26', '27', '28', '29', '30'])
  assert.equal(last(tools, 'exitCode'), 0)
  assert.equal(last(tools, 'cwd'), undefined, 'no folder for the workspace itself')

  tools = await turn(v, 'shell echo oops >&2; exit 3')
  assert.deepEqual(last(tools, 'output'), ['oops'])
  assert.equal(last(tools, 'exitCode'), 3)
  assert.equal(last(tools, 'status'), 'failed')

  fs.mkdirSync(path.join(ws, 'sub'), { recursive: true })
  tools = await turn(v, 'shellin sub pwd')
  assert.equal(last(tools, 'cwd'), 'sub')
  assert.equal(last(tools, 'command'), 'pwd')
  assert.deepEqual(state.errors, [])
})

test('foldOutput: short outputs whole, long ones folded, long lines cut', () => {
  assert.deepEqual(foldOutput('a\nb\n'), ['a', 'b'])
  assert.equal(foldOutput('x\n'.repeat(21)).length, 17)
  assert.equal(foldOutput('x\n'.repeat(21))[8], '… 5 more lines')
  assert.equal(Array.from(foldOutput('é'.repeat(600))[0]).length, 501)
})
