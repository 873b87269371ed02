'use strict'
// The JS hooks of the extension's API (HookSet) on real engines, and the
// pure helpers of the request door (requests.ts).
//   npm run compile && node --test test/

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')

const root = path.join(__dirname, '..')
const { HookSet } = require('../out/hooks.js')
const { agentItems, failureText, requestLabel, stepId, timingLine } = require('../out/requests.js')
const { loadRadium } = require('../out/native.js')

const { radium } = loadRadium(root, {})
const names = (engine) => engine.list().map((h) => h.name)

test('a hook goes to the engines that exist and to those attached later; dispose removes it everywhere', () => {
  const logged = []
  const hooks = new HookSet((l) => logged.push(l))
  const first = new radium.Engine({})
  hooks.attach(first)
  const seen = []
  const reg = hooks.register({ name: 'tag', hookType: 'before_model', fn: (ctx) => { seen.push(ctx.data.input); return { data: { input: 'tagged' } } } })
  assert.ok(names(first).includes('tag'))
  const second = new radium.Engine({})
  hooks.attach(second)
  assert.ok(names(second).includes('tag'))
  assert.deepEqual(hooks.list().map((h) => h.name), ['tag'])
  const outcome = second.execute('before_model', { input: 'x' })
  assert.equal(outcome.data.input, 'tagged')
  assert.deepEqual(seen, ['x'])
  reg.dispose()
  reg.dispose()
  assert.ok(!names(first).includes('tag'))
  assert.ok(!names(second).includes('tag'))
  assert.deepEqual(hooks.list(), [])
  assert.deepEqual(logged, [])
})

test('a taken name or an unknown type throws with a code, and nothing is kept', () => {
  const hooks = new HookSet()
  const engine = new radium.Engine({})
  hooks.attach(engine)
  hooks.register({ name: 'a', hookType: 'before_tool', fn: () => undefined, options: { priority: 5 } })
  assert.throws(() => hooks.register({ name: 'a', hookType: 'before_tool', fn: () => undefined }), { code: 'duplicate_hook' })
  assert.throws(() => hooks.register({ name: 'b', hookType: 'nope', fn: () => undefined }), { code: 'unknown_hook_type' })
  assert.deepEqual(hooks.list().map((h) => h.name), ['a'])
  assert.equal(engine.list().find((h) => h.name === 'a').priority, 5)
  assert.ok(!names(engine).includes('b'))
  // An engine that refuses a hook when attached: logged, not thrown.
  const logged = []
  const other = new HookSet((l) => logged.push(l))
  other.register({ name: 'a', hookType: 'before_tool', fn: () => undefined })
  other.attach(engine)
  assert.equal(logged.length, 1)
  assert.match(logged[0], /^hook a: not registered on a new engine: /)
})

test('request helpers: ids, labels, timing lines, failure texts, agent items', () => {
  assert.equal(stepId(3), 'vscode-step-3')
  assert.equal(requestLabel({ command: 'step', args: { agent: 'x' }, id: 'vscode-step-3' }), 'step x (vscode-step-3)')
  assert.equal(requestLabel({ command: 'agents' }), 'agents')
  assert.equal(timingLine({ command: 'apply' }, { ok: true }, 1.234), 'request apply: ok in 1.2 ms')
  assert.equal(timingLine({ command: 'step', args: { agent: 'a' } }, { ok: false, code: 'agent_failed' }, 20), 'request step a: failed: agent_failed in 20.0 ms')
  assert.equal(failureText({ ok: false, error: 'boom', code: 'refused' }), 'boom [refused]')
  assert.equal(failureText({ ok: false }, 'it failed'), 'it failed')
  assert.deepEqual(
    agentItems([{ id: 'a', command: ['/bin/a', '-x'], timeout_ms: 1500, source: '/h/agents.toml' }, { id: 'b', command: ['b'], timeout_ms: 120000 }], 'b'),
    [
      { label: 'a', description: '/bin/a -x', detail: 'time limit 1.5 s · /h/agents.toml', id: 'a' },
      { label: '$(check) b', description: 'b', detail: 'time limit 120 s', id: 'b' },
    ],
  )
})
