'use strict'
// "Follow the agent" (the setting radium.chat.followAgent), with the real
// engine and the scripted ACP agent (examples/acp-agent/agent.mjs, whose
// write tool calls carry `locations`), against the stand-in `vscode`
// module: on, the written file is shown as a preview that keeps the focus;
// off (the default), nothing is shown; a location outside the workspace is
// never shown.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, reset, commands, openView, state } = require('./stand-in.js')

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

// The agent writes `file` (the permission allowed once); answers when the turn ended.
async function agentWrites(v, file) {
  const from = v.posted.length
  await v.send({ type: 'send', text: `write ${file} followed` })
  const perm = await until('the permission prompt', () => v.posted.slice(from).find((m) => m.type === 'permission'))
  await v.send({ type: 'permission', id: perm.id, choice: 'once' })
  await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))
}

test('off (the default): the agent\'s tool call opens nothing', async () => {
  reset({})
  fs.writeFileSync(path.join(ws, 'src/off.txt'), 'before\n')
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await agentWrites(v, 'src/off.txt')
  assert.equal(fs.readFileSync(path.join(ws, 'src/off.txt'), 'utf8'), 'followed\n')
  assert.deepEqual(state.shown.filter((u) => u.endsWith('off.txt')), [])
})

test('on: the file of the agent\'s tool call is shown as a preview that keeps the focus', async () => {
  reset({ settings: { 'radium.chat.followAgent': true } })
  fs.writeFileSync(path.join(ws, 'src/on.txt'), 'before\n')
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await agentWrites(v, 'src/on.txt')
  const at = await until('the file shown', () => state.shown.findIndex((u) => u.endsWith(path.join(ws, 'src/on.txt'))) + 1)
  const options = state.showOptions[at - 1]
  assert.equal(options.preserveFocus, true)
  assert.equal(options.preview, true)
  assert.equal(options.selection.start.line, 0)
})

test('only locations inside the workspace are followed; the line is 1-based', () => {
  // Loaded (with the stand-in `vscode`) when the extension was activated.
  const { followTarget } = require('../out/chat/follow.js')
  const call = (loc) => [{ type: 'tool_call', id: '1', locations: [loc] }]
  assert.deepEqual(followTarget(call({ path: 'src/a.ts', line: 7 }), ws), { file: path.join(ws, 'src/a.ts'), line: 7 })
  assert.deepEqual(followTarget(call({ path: path.join(ws, 'b.ts') }), ws), { file: path.join(ws, 'b.ts'), line: 1 })
  assert.equal(followTarget(call({ path: '/etc/hostname', line: 1 }), ws), undefined)
  assert.equal(followTarget(call({ path: '../escape.txt' }), ws), undefined)
  assert.equal(followTarget(call({ path: ws }), ws), undefined, 'the workspace folder itself')
  assert.equal(followTarget(call({ line: 3 }), ws), undefined, 'no path')
  assert.equal(followTarget(call({ path: 'src/a.ts' }), undefined), undefined, 'no workspace')
  assert.equal(followTarget([{ type: 'text', text: 'x', locations: [{ path: 'a' }] }], ws), undefined, 'not a tool call')
})
