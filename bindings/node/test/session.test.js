'use strict'
// Agent sessions from Node with the example ACP agent (a real Node process):
// events as an async iterator on the JS thread while the loop keeps
// running, a permission answered, the agent's write undone, cancel, close,
// and the errors.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { Engine } = require('..')
const { openSession } = require('../session')
const { throwsCode, ticked, removeDir } = require('./helpers')

const agent = path.resolve(__dirname, '../../../examples/acp-agent/agent.mjs')
const unruly = path.resolve(__dirname, '../../../tests/agents/unruly-agent.mjs')

// Each test removes its folder with retries (removeDir): a session that
// closes writes its history's last records in the background.
function engineWithAgent () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-session-'))
  const ws = path.join(dir, 'ws')
  const home = path.join(dir, 'home')
  fs.mkdirSync(ws)
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, 'agents.toml'),
    `[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(agent)}]\n` +
    `[[agents]]\nid = "unruly"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(unruly)}]\n`)
  return { engine: new Engine({ workspace: ws, radium_home: home }), ws, dir }
}

test('a turn streams as an async iterator; a permission is answered and the write undone', async () => {
  const { engine, ws, dir } = engineWithAgent()
  fs.writeFileSync(path.join(ws, 'notes.txt'), 'old\n')
  const session = await openSession(engine, 'example')
  const events = []
  let ticks = 0
  const timer = setInterval(() => { ticks++ }, 5)
  const started = Date.now()
  for await (const event of session.prompt('write notes.txt from node')) {
    events.push(event)
    if (event.type === 'permission') {
      assert.equal(event.tool_call.diffs[0].old_text, 'old\n')
      session.answer(event.id, 'allow')
    }
  }
  const last = events.at(-1)
  assert.equal(last.type, 'turn_end', JSON.stringify(events))
  assert.equal(last.stop_reason, 'end_turn')
  assert.equal(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'from node\n')
  assert.ok(events.some((e) => e.type === 'write'))

  // A slow turn: chunks arrive while the event loop keeps ticking; cancel.
  const chunks = []
  for await (const event of session.prompt('slow')) {
    if (event.type === 'text') chunks.push(event.text)
    if (chunks.length === 3) session.cancel()
    if (event.type === 'turn_end') assert.equal(event.stop_reason, 'cancelled')
  }
  clearInterval(timer)
  assert.ok(chunks.length >= 3 && chunks.length < 50, `${chunks.length} chunks`)
  ticked(ticks, Date.now() - started, 5, 'while the agent streamed')

  const undo = engine.request({ command: 'undo', tag: last.tag })
  assert.equal(undo.ok, true, JSON.stringify(undo))
  assert.equal(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8'), 'old\n')

  // Closing ends the stream: the next batch is null.
  session.close()
  assert.deepEqual((await session.events.next()).done, true)
  removeDir(dir)
})

test('session errors: unknown agent, unknown session, a second turn at once', async () => {
  const { engine, dir } = engineWithAgent()
  await assert.rejects(openSession(engine, 'nobody'), (e) => e.code === 'unknown_agent' && e.message.includes('nobody'))
  throwsCode(() => engine.sessionEvents('s77'), 'invalid_argument', 'no session `s77`')
  throwsCode(() => engine.sessionEvents(5), 'invalid_argument')
  const session = await openSession(engine, 'example')
  const turn = session.prompt('slow')
  await turn.next()
  await assert.rejects(session.prompt('again').next(), (e) => e.code === 'invalid_argument' && e.message.includes('already running'))
  session.close()
  for await (const _ of turn) { /* drains to the close */ }
  removeDir(dir)
})

test('a permission answered with one of its options is decided by the option\'s kind, not its id', async () => {
  // The agent's options: id 'allow' of kind reject_once, id 'reject' of kind allow_once.
  const { engine, dir } = engineWithAgent()
  const session = await openSession(engine, 'unruly')
  const cases = [
    [(options) => options.find((o) => o.kind === 'reject_once'), false, 'allow'],
    [(options) => ({ option: options.find((o) => o.kind === 'allow_once').id }), true, 'reject'],
    [() => 'reject', false, 'allow']
  ]
  for (const [choose, allowed, id] of cases) {
    const events = []
    for await (const event of session.prompt('crafted')) {
      events.push(event)
      if (event.type === 'permission') session.answer(event.id, choose(event.options))
    }
    assert.equal(events.find((e) => e.type === 'permission_decided').allowed, allowed, JSON.stringify(events))
    assert.match(events.at(-1).text, new RegExp(`"optionId":"${id}"`))
  }
  session.close()
  removeDir(dir)
})

test('a permission answered with some of its hunks: only they land; a bad hunk answer throws and the request waits', async () => {
  const { engine, ws, dir } = engineWithAgent()
  fs.writeFileSync(path.join(ws, 'f.txt'), 'a\nb\nc\nd\ne\nf\ng\nh\n')
  const session = await openSession(engine, 'example')
  const events = []
  for await (const event of session.prompt('selflines f.txt a|B|c|d|e|f|G|h')) {
    events.push(event)
    if (event.type === 'permission') {
      const diff = event.tool_call.diffs[0]
      assert.deepEqual(diff.hunks.map((h) => h.new_lines), [['B\n'], ['G\n']])
      throwsCode(() => session.answer(event.id, { answer: 'allow', hunks: { [diff.path]: [5] } }), 'invalid_argument', 'not hunk 5')
      session.answer(event.id, { answer: 'allow', hunks: { [diff.path]: [1] } })
    }
  }
  assert.equal(events.at(-1).type, 'turn_end', JSON.stringify(events))
  assert.equal(fs.readFileSync(path.join(ws, 'f.txt'), 'utf8'), 'a\nb\nc\nd\ne\nf\nG\nh\n')
  assert.deepEqual(events.find((e) => e.type === 'write').hunks_taken_back, [0])
  session.close()
  removeDir(dir)
})

test('a JS before_tool hook decides a chat tool call\'s permission on the JS thread: a stop rejects, permission allow allows', async () => {
  const { engine, ws, dir } = engineWithAgent()
  const seen = []
  engine.register('gate', 'before_tool', (ctx) => {
    // The permission requests (the allowed write then passes the hooks
    // again as radium's `create` edit, without a tool_call).
    if (ctx.data.tool_call) seen.push(ctx.data.tool_call.toolCallId)
    if (JSON.stringify(ctx.data.tool_call).includes('blocked.txt')) return { action: 'stop', reason: 'not this file' }
    return { action: 'modify', data: { permission: 'allow' } }
  })
  const session = await openSession(engine, 'example')
  let asked = false
  const turn = async (text) => {
    const events = []
    for await (const event of session.prompt(text)) {
      events.push(event)
      if (event.type === 'permission') { asked = true; session.answer(event.id, 'reject') }
    }
    return events
  }
  let events = await turn('write blocked.txt nope')
  let decided = events.filter((e) => e.type === 'permission_decided')
  assert.equal(decided.length, 1, JSON.stringify(events))
  assert.equal(decided[0].allowed, false)
  assert.equal(decided[0].by, 'hook:gate')
  assert.equal(decided[0].reason, 'not this file')
  assert.equal(fs.existsSync(path.join(ws, 'blocked.txt')), false)

  events = await turn('write allowed.txt yes')
  decided = events.filter((e) => e.type === 'permission_decided')
  assert.equal(decided[0] && decided[0].allowed, true, JSON.stringify(events))
  assert.equal(decided[0].by, 'hook:gate')
  assert.equal(fs.readFileSync(path.join(ws, 'allowed.txt'), 'utf8'), 'yes\n')
  assert.equal(asked, false, 'the door was never asked')
  assert.equal(seen.length, 2, `the hook ran for both calls: ${seen}`)

  // An async hook (a Promise) is awaited on the JS thread too.
  engine.unregister('gate')
  engine.register('later', 'before_tool', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { action: 'stop', reason: 'decided later' }
  })
  events = await turn('write late.txt nope')
  decided = events.filter((e) => e.type === 'permission_decided')
  assert.equal(decided[0] && decided[0].by, 'hook:later', JSON.stringify(events))
  assert.equal(decided[0].reason, 'decided later')
  session.close()
  removeDir(dir)
})

test('a JS before_tool hook stops a call Claude Code would run without asking (its PreToolUse hook, relayed by rad)', async () => {
  // `rad` (built by `cargo build -p radium-cli`, as scripts/test.sh does first) runs the relay.
  const rad = process.env.RADIUM_RAD || path.resolve(__dirname, '../../../target/debug/rad')
  assert.ok(fs.existsSync(rad), `no rad at ${rad}: build it with cargo build -p radium-cli (or set RADIUM_RAD)`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-relay-'))
  const ws = path.join(dir, 'ws')
  const home = path.join(dir, 'home')
  fs.mkdirSync(ws)
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, 'agents.toml'),
    `[[agents]]\nid = "claudeish"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(agent)}, "--claude-hooks"]\n`)
  const engine = new Engine({ workspace: ws, radium_home: home, rad_program: rad })
  const seen = []
  engine.register('no-ls', 'before_tool', (ctx) => {
    seen.push(ctx.data.via)
    if (/^ls\b/.test(ctx.data.arguments.command)) return { action: 'stop', reason: 'no ls from JS' }
  })
  const session = await openSession(engine, 'claudeish')
  const turn = async (text) => {
    const events = []
    for await (const event of session.prompt(text)) events.push(event)
    return events
  }
  let events = await turn('quiet ls -la')
  assert.match(events.at(-1).text, /hook decision: deny: radium: the before_tool hook `no-ls` refused it: no ls from JS/, JSON.stringify(events))
  const decided = events.find((e) => e.type === 'permission_decided')
  assert.equal(decided.allowed, false)
  assert.equal(decided.by, 'hook:no-ls')
  events = await turn('quiet echo hi')
  assert.match(events.at(-1).text, /hook decision: none/)
  assert.deepEqual(seen, ['pre_tool_use', 'pre_tool_use'])
  session.close()
  removeDir(dir)
})

test('a host that reads late gets a flood in batches of about 1 MiB at most, every event in order', async () => {
  const { engine, dir } = engineWithAgent()
  const session = await openSession(engine, 'example')
  // 600 updates of one command, each with its output so far (up to 57 KB):
  // about 17 MB, none of it read until the turn has ended.
  engine.request({ command: 'session-prompt', args: { session: session.id, prompt: 'toolflood 600 95' } })
  let all = []
  let biggest = 0
  for (;;) {
    const batch = await engine.sessionEvents(session.id)
    assert.ok(batch !== null, 'the session ended before its turn did')
    const size = JSON.stringify(batch).length
    if (batch.length > 1) biggest = Math.max(biggest, size)
    all = all.concat(batch)
    if (all.some((e) => e.type === 'turn_end')) break
  }
  assert.ok(biggest < 1.2 * (1 << 20), `a batch of ${biggest} bytes`)
  const outputs = all.filter((e) => e.type.startsWith('tool_call') && /line \d{5}/.test(JSON.stringify(e)))
  const last = outputs.map((e) => [...JSON.stringify(e).matchAll(/line (\d{5})/g)].at(-1)[1])
  assert.ok(last.length > 1, `${last.length} tool updates`)
  assert.deepEqual(last, [...last].sort(), 'the updates arrived in order')
  assert.equal(last.at(-1), '00600')
  session.close()
  removeDir(dir)
})

test('a backlog read in a loop settles one batch a turn of the event loop: timers and I/O run between batches', async () => {
  const { engine, dir } = engineWithAgent()
  const session = await openSession(engine, 'example')
  // About 17 MB of updates, left to pile up (many batches of about 1 MiB).
  engine.request({ command: 'session-prompt', args: { session: session.id, prompt: 'toolflood 600 95' } })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  // A turn of the event loop: a `setImmediate` that queues itself again.
  let turns = 0
  let spinning = true
  const spin = () => { turns++; if (spinning) setImmediate(spin) }
  setImmediate(spin)
  const seen = []
  let all = []
  for (;;) {
    const pending = engine.sessionEvents(session.id)
    const before = turns
    const batch = await pending
    assert.ok(batch !== null, 'the session ended before its turn did')
    seen.push(turns - before)
    all = all.concat(batch)
    if (all.some((e) => e.type === 'turn_end')) break
  }
  spinning = false
  assert.ok(seen.length > 2, `${seen.length} batches`)
  assert.deepEqual(seen.filter((n) => n === 0), [], `turns of the loop before each batch: ${seen.join(' ')}`)
  const last = all.filter((e) => e.type.startsWith('tool_call') && /line \d{5}/.test(JSON.stringify(e)))
    .map((e) => [...JSON.stringify(e).matchAll(/line (\d{5})/g)].at(-1)[1])
  assert.deepEqual(last, [...last].sort(), 'the updates arrived in order')
  assert.equal(last.at(-1), '00600')
  session.close()
  removeDir(dir)
})
