'use strict'
// The engine's log in the Radium output channel, and a chat's conversation
// from its first step, with the real engine and the scripted ACP agent,
// against the stand-in `vscode` module: a failed request is written with its
// error code, Radium: Show Engine Log reads what is new and shows the
// channel, `radium.logLevel` picks the least level; a review applied from
// the clipboard in a new chat before any turn is in the conversation the
// chat's session then continues (its `session-new` carries the tag).
//   npm run compile && node --test test/

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView, channel } = require('./stand-in.js')
const { logLine } = require('../out/engineLog.js')

const { ws } = setup()
after(() => commands['radium.newChat']?.())

const requestsOf = (command) => state.requests.filter((r) => r.req.command === command)
const engineLines = () => channel.lines.filter((l) => l.startsWith('[engine'))

async function until(what, check, ms = 10000) {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('an entry is one line: engine, time, level, source, message', () => {
  const line = logLine({ seq: 0, time_ms: Date.UTC(2026, 10, 23, 12, 3, 4, 5), level: 'warn', source: 'request', message: 'view failed' }, 'ws')
  assert.equal(line, '[engine ws] 12:03:04.005 warn  request: view failed')
  assert.equal(logLine({ seq: 1, time_ms: 0, level: 'info', source: 'lsp', message: 'x' }, ''), '[engine] 00:00:00.000 info  lsp: x')
})

test('a failed request is in the output channel with its code; Show Engine Log shows it; logLevel warn leaves info out', async () => {
  reset({})
  await commands['radium.undo']() // nothing to undo yet: the engine says why
  await commands['radium.showLog']()
  const lines = engineLines().join('\n')
  assert.match(lines, /^\[engine [^\]]+\] \d\d:\d\d:\d\d\.\d{3} warn  request: undo failed after [\d.]+ ms \(\w+\): /m)
  assert.ok(!lines.includes('\n    at '), 'no stack trace')
  // Each entry once: reading again adds nothing.
  const count = engineLines().length
  await commands['radium.showLog']()
  assert.equal(engineLines().length, count)
  // With logLevel warn, an info entry (a file created) is not written; a failure is.
  reset({ settings: { 'radium.logLevel': 'warn' } })
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true })
  await commands['radium.undo']()
  const engine = requireEngine()
  await engine.requestAsync({ command: 'create', args: { path: 'src/logged.ts', content: 'x\n' } })
  await engine.requestAsync({ command: 'view', args: { path: 'src/none.ts' } })
  await commands['radium.showLog']()
  const added = engineLines().join('\n')
  assert.match(added, /warn  request: view failed/)
  assert.match(added, /warn  request: undo failed/)
  assert.ok(!added.includes('create done'), added)
})

// The engine the extension made for the workspace (the stand-in records requests on it).
function requireEngine() {
  const r = state.requests.at(-1)
  assert.ok(r && r.engine, 'the extension has an engine')
  return r.engine
}

test('a review applied before any turn of a new chat is in the conversation its session continues', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await v.send({ type: 'newChat' })
  fs.writeFileSync(path.join(ws, 'src/early.ts'), 'export const early = 1\n')
  reset({ clipboard: '```ts:src/early.ts\nexport const early = 2\n```\n' })
  await commands['radium.clipboard.applyAnswer']()
  const review = await until('the review', () => v.posted.findLast((m) => m.type === 'review' && m.files))
  await v.send({ type: 'review', id: review.id, action: 'acceptAll' })
  await v.send({ type: 'review', id: review.id, action: 'apply' })
  const record = requestsOf('record').at(-1)
  assert.equal(record.req.tag, undefined, 'a new chat: no conversation yet')
  const recorded = await record.promise
  assert.equal(recorded.ok, true, JSON.stringify(recorded))
  await v.send({ type: 'send', text: 'hello' })
  const opened = await until('session-new', () => requestsOf('session-new').at(-1))
  assert.equal(opened.req.args.tag, recorded.tag, 'the session continues the review\'s conversation')
  const answer = await opened.promise
  assert.equal(answer.data.tag, recorded.tag, 'nothing happened since: the same tag')
  await until('the turn', () => v.posted.some((m) => m.type === 'turnEnd'))
  // New Chat starts a new conversation.
  await v.send({ type: 'newChat' })
  await v.send({ type: 'send', text: 'again' })
  const second = await until('a second session-new', () => requestsOf('session-new').length > 1 && requestsOf('session-new').at(-1))
  assert.equal(second.req.args.tag, undefined)
  await until('the second turn', () => v.posted.filter((m) => m.type === 'turnEnd').length > 1)
  assert.deepEqual(state.errors, [])
})
