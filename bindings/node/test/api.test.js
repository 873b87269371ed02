'use strict'
// The Engine API and its error paths: module functions, engine options and
// the workspace hooks.toml, the argument errors of register, unregister,
// enable, disable, execute and registerScript, list, the request door, and
// the shape of the errors thrown. (How a chain runs is in chain.test.js, data
// conversion in data.test.js.)

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { radium, throwsCode, rejectsCode, tracer, names, mine } = require('./helpers')
const { Engine } = radium

const HOOK_TYPES = [
  'before_model', 'after_model', 'before_tool', 'after_tool', 'tool_selection',
  'error_interception', 'error_transformation', 'error_recovery', 'error_logging',
  'telemetry_collection', 'custom_logging', 'metrics_aggregation', 'performance_monitoring',
]

test('module functions', () => {
  assert.equal(radium.version(), '0.1.0')
  assert.equal(radium.abiVersion(), 1)
  assert.deepEqual(radium.hookTypes(), HOOK_TYPES)
  assert.equal(typeof radium.pendingChains(), 'number')
  assert.equal(typeof Engine, 'function')
})

test('engine options', () => {
  for (const ok of [undefined, null, {}, { workspace: null }, { workspace: os.tmpdir() }]) {
    assert.ok(new Engine(ok) instanceof Engine)
  }
  assert.deepEqual(new Engine().request({ command: 'ping' }), { ok: true, data: 'pong' })
  throwsCode(() => new Engine(3), 'invalid_argument', 'the engine options must be an object, got a number')
  throwsCode(() => new Engine('x'), 'invalid_argument', 'got a string')
  throwsCode(() => new Engine([]), 'invalid_argument', 'got an array')
  throwsCode(() => new Engine(() => {}), 'invalid_argument', 'got a function')
  throwsCode(() => new Engine({ workspaces: '/x' }), 'invalid_argument', 'unknown field `workspaces`')
  throwsCode(() => new Engine({ workspace: 3 }), 'invalid_argument', '`workspace` must be a string')
  const cyclic = {}
  cyclic.self = cyclic
  throwsCode(() => new Engine(cyclic), 'invalid_argument', 'cannot be converted to JSON')
  // Calling the class without `new` is refused, not a crash.
  throwsCode(() => Engine(), 'invalid_argument', 'create engines with `new Engine(options)`')
})

test('the workspace .radium/hooks.toml is applied, and its errors name the line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.mkdirSync(path.join(dir, '.radium'))
  const file = path.join(dir, '.radium', 'hooks.toml')
  fs.writeFileSync(file, "[[hooks]]\nname = 'x'\ntype = 'before_lunch'\n")
  // An untrusted workspace's file (a cloned repository's) is not applied:
  // nothing fails, and hooks-list says why; a trust applies it.
  const home = path.join(dir, 'home')
  const untrusted = new Engine({ workspace: dir, radium_home: home })
  untrusted.register('t-u', 'before_model', () => {})
  assert.equal(untrusted.execute('before_model', {}).status, 'completed', 'an untrusted file breaks no chain')
  const why = untrusted.request({ command: 'hooks-list' }).warnings
  assert.ok(why && why[0].includes('is not trusted'), JSON.stringify(why))
  assert.equal(untrusted.request({ command: 'trust' }).data.trusted, true)
  throwsCode(() => untrusted.execute('before_model', {}), 'config', 'hooks.toml:3:')
  // A broken file of a trusted workspace does not stop the engine: the
  // chains with a hook to run fail with its error, which names the line;
  // the others work.
  const broken = new Engine({ workspace: dir, radium_home: home })
  assert.equal(broken.request({ command: 'ping' }).data, 'pong')
  assert.equal(broken.execute('before_model', {}).status, 'completed', 'no hook to run')
  let ran = false
  broken.register('t-x', 'before_model', () => { ran = true })
  throwsCode(() => broken.execute('before_model', {}), 'config', 'hooks.toml:3:')
  await rejectsCode(broken.executeAsync('before_model', {}), 'config', 'hooks.toml:3:')
  const answer = broken.request({ command: 'hooks-execute', args: { hook_type: 'before_model' } })
  assert.equal(answer.ok, false)
  assert.equal(answer.code, 'config')
  assert.ok(answer.error.includes('hooks.toml:3:'), answer.error)
  const list = broken.request({ command: 'hooks-list' })
  assert.ok(list.data.some((h) => h.name === 't-x'), 'hooks-list still lists the hooks')
  assert.ok(list.warnings.length === 1 && list.warnings[0].includes('hooks.toml:3:'), JSON.stringify(list))
  assert.equal(ran, false, 'no hook ran')

  fs.writeFileSync(file, "[[hooks]]\nname = 't-late'\ntype = 'before_tool'\npriority = 999\nenabled = false\n")
  const engine = new Engine({ workspace: dir, radium_home: home })
  engine.register('t-late', 'before_tool', () => {})
  assert.deepEqual(mine(engine).map((h) => [h.name, h.priority, h.enabled]), [['t-late', 999, false]])
  assert.equal(engine.request({ command: 'hooks-list' }).warnings, undefined, 'a fixed file: no warning')
})

test('register: argument errors', () => {
  const e = new Engine()
  const noop = () => {}
  throwsCode(() => e.register(1, 'before_tool', noop), 'invalid_argument', 'the hook name must be a string, got a number')
  throwsCode(() => e.register(undefined, 'before_tool', noop), 'invalid_argument', 'got undefined')
  throwsCode(() => e.register('t', null, noop), 'invalid_argument', 'the hook type must be a string, got null')
  throwsCode(() => e.register('t', 'before_lunch', noop), 'unknown_hook_type', 'unknown hook type `before_lunch`; valid types are: before_model')
  throwsCode(() => e.register('t', 'before_tool', 'noop'), 'invalid_argument', 'the hook must be a function, got a string')
  throwsCode(() => e.register('t', 'before_tool'), 'invalid_argument', 'got undefined')
  throwsCode(() => e.register('t', 'before_tool', noop, 5), 'invalid_argument', 'the hook options must be an object, got a number')
  throwsCode(() => e.register('t', 'before_tool', noop, []), 'invalid_argument', 'got an array')
  throwsCode(() => e.register('t', 'before_tool', noop, { priorty: 1 }), 'invalid_argument', 'unknown option `priorty`; known options: priority, matcher, timeoutMs, enabled')
  throwsCode(() => e.register('t', 'before_tool', noop, { timeout_ms: 1 }), 'invalid_argument', 'did you mean `timeoutMs`?')
  throwsCode(() => e.register('t', 'before_tool', noop, { cwd: '/' }), 'invalid_argument', '`cwd` is for registerScript')
  throwsCode(() => e.register('t', 'before_tool', noop, { priority: 'high' }), 'invalid_argument', 'option `priority` must be a whole number (32-bit), got a string')
  throwsCode(() => e.register('t', 'before_tool', noop, { priority: 1.5 }), 'invalid_argument', 'option `priority`')
  throwsCode(() => e.register('t', 'before_tool', noop, { priority: 2 ** 40 }), 'invalid_argument', 'option `priority`')
  throwsCode(() => e.register('t', 'before_tool', noop, { timeoutMs: -1 }), 'invalid_argument', 'option `timeoutMs` must be a non-negative whole number of milliseconds')
  throwsCode(() => e.register('t', 'before_tool', noop, { enabled: 'yes' }), 'invalid_argument', 'option `enabled` must be a boolean')
  throwsCode(() => e.register('t', 'before_tool', noop, { matcher: 3 }), 'invalid_argument', 'option `matcher` must be a string')
  throwsCode(() => e.register('t', 'before_tool', noop, { matcher: 'a||b' }), 'invalid_matcher', 'invalid tool matcher `a||b`')
  throwsCode(() => e.register('t', 'before_model', noop, { matcher: 'view' }), 'invalid_matcher', 'matchers apply only to before_tool')
  throwsCode(() => e.register('', 'before_tool', noop), 'invalid_hook_name', 'cannot be empty')
  throwsCode(() => e.register('a\nb', 'before_tool', noop), 'invalid_hook_name', 'control characters')
  throwsCode(() => e.register('x'.repeat(129), 'before_tool', noop), 'invalid_hook_name', 'at most 128 bytes')
  e.register('t-once', 'before_tool', noop, { priority: undefined, matcher: undefined })
  throwsCode(() => e.register('t-once', 'after_tool', noop), 'duplicate_hook', 'a hook named `t-once` is already registered')
  assert.deepEqual(mine(e).map((h) => h.name), ['t-once'])
})

test('unregister, enable, disable, list', () => {
  const e = new Engine()
  e.register('t-a', 'before_tool', tracer('a'), { priority: 5, matcher: 'create|str-*', timeoutMs: 250 })
  e.register('t-b', 'before_tool', tracer('b'), { enabled: false })
  assert.deepEqual(mine(e), [
    { enabled: false, hook_type: 'before_tool', matcher: null, name: 't-b', priority: 100, timeout_ms: null },
    { enabled: true, hook_type: 'before_tool', matcher: 'create|str-*', name: 't-a', priority: 5, timeout_ms: 250 },
  ])
  // The matcher selects on data.tool_name; disabled hooks are skipped and not listed.
  assert.deepEqual(names(e.execute('before_tool', { tool_name: 'view' })), [])
  assert.deepEqual(e.execute('before_tool', { tool_name: 'str-replace' }).data.trace, ['a'])
  e.enable('t-b')
  assert.deepEqual(e.execute('before_tool', { tool_name: 'create' }).data.trace, ['b', 'a'])
  e.disable('t-a')
  assert.deepEqual(e.execute('before_tool', { tool_name: 'create' }).data.trace, ['b'])
  e.unregister('t-a')
  assert.deepEqual(mine(e).map((h) => h.name), ['t-b'])
  for (const f of ['unregister', 'enable', 'disable']) {
    throwsCode(() => e[f]('t-a'), 'unknown_hook', 'no hook named `t-a` is registered')
    throwsCode(() => e[f](7), 'invalid_argument', 'the hook name must be a string, got a number')
    throwsCode(() => e[f](), 'invalid_argument', 'got undefined')
  }
})

test('execute: argument errors', () => {
  const e = new Engine()
  throwsCode(() => e.execute('nope', {}), 'unknown_hook_type', 'unknown hook type `nope`')
  throwsCode(() => e.execute(4, {}), 'invalid_argument', 'the hook type must be a string, got a number')
  const cyclic = { a: 1 }
  cyclic.me = cyclic
  throwsCode(() => e.execute('before_tool', cyclic), 'invalid_argument', 'the data cannot be converted to JSON: ')
  throwsCode(() => e.execute('before_tool', { n: 1n }), 'invalid_argument', 'BigInt')
  throwsCode(() => e.execute('before_tool', () => {}), 'invalid_argument', 'got a function')
  throwsCode(() => e.execute('before_tool', Symbol('s')), 'invalid_argument', 'got a symbol')
  const angry = { toJSON() { throw new RangeError('no JSON for you') } }
  throwsCode(() => e.execute('before_tool', angry), 'invalid_argument', 'RangeError: no JSON for you')
  const trap = new Proxy({}, { ownKeys() { throw new Error('trapped') } })
  throwsCode(() => e.execute('before_tool', trap), 'invalid_argument', 'trapped')
})

test('registerScript: arguments and options', (t) => {
  const e = new Engine()
  throwsCode(() => e.registerScript('t-s', 'before_tool', 'ls'), 'invalid_argument', 'the command must be an array of strings, program first')
  throwsCode(() => e.registerScript('t-s', 'before_tool', ['ls', 3]), 'invalid_argument', 'array of strings')
  throwsCode(() => e.registerScript('t-s', 'before_tool', []), 'invalid_argument', 'the command must not be empty')
  throwsCode(() => e.registerScript('t-s', 'before_tool', ['ls'], { cwd: 3 }), 'invalid_argument', 'option `cwd` must be a string')
  throwsCode(() => e.registerScript('t-s', 'before_tool', ['ls'], { shell: true }), 'invalid_argument', 'known options: priority, matcher, timeoutMs, enabled, cwd')
  throwsCode(() => e.registerScript(null, 'before_tool', ['ls']), 'invalid_argument', 'the hook name must be a string')
  throwsCode(() => e.registerScript('t-s', 'nope', ['ls']), 'unknown_hook_type')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  e.registerScript('t-pwd', 'custom_logging', ['sh', '-c', 'cat >/dev/null; printf \'{"data":"%s"}\' "$(pwd)"'], { cwd: dir, priority: 7, timeoutMs: 5000 })
  assert.deepEqual(mine(e), [{ enabled: true, hook_type: 'custom_logging', matcher: null, name: 't-pwd', priority: 7, timeout_ms: 5000 }])
  assert.equal(e.execute('custom_logging', {}).data, fs.realpathSync(dir))
  throwsCode(() => e.registerScript('t-pwd', 'custom_logging', ['true']), 'duplicate_hook')
})

test('request: the JSON door', () => {
  const e = new Engine()
  e.register('t-req', 'before_tool', tracer('req'))
  assert.deepEqual(e.request({ command: 'ping' }), { ok: true, data: 'pong' })
  assert.deepEqual(e.request({ command: 'version' }), { ok: true, data: { abi_version: 1, version: '0.1.0' } })
  const listed = e.request({ command: 'hooks-list' })
  assert.equal(listed.ok, true)
  assert.ok(listed.data.some((h) => h.name === 't-req'))
  const executed = e.request({ command: 'hooks-execute', args: { hook_type: 'before_tool', data: { tool_name: 'view' } } })
  assert.equal(executed.ok, true)
  assert.deepEqual(executed.data.data.trace, ['req'])
  // The same JSON form as execute().
  const direct = e.execute('before_tool', { tool_name: 'view' })
  assert.deepEqual(Object.keys(executed.data).sort(), Object.keys(direct).sort())
  assert.deepEqual(Object.keys(executed.data.hooks[0]).sort(), Object.keys(direct.hooks[0]).sort())
  assert.deepEqual(e.request({ command: 'hooks-disable', args: { name: 't-req' } }), { ok: true, data: { enabled: false, name: 't-req' } })
  assert.equal(mine(e)[0].enabled, false)
  const unknown = e.request({ command: 'dance' })
  assert.equal(unknown.ok, false)
  assert.equal(unknown.code, 'unknown_command')
  assert.match(unknown.error, /unknown command `dance`; known commands: ping/)
  assert.equal(e.request({ command: 'hooks-enable', args: { name: 'nope' } }).code, 'unknown_hook')
  assert.equal(e.request({ command: 'hooks-enable', args: [] }).code, 'invalid_argument')
  assert.equal(e.request({ command: 5 }).code, 'invalid_request')
  assert.equal(e.request({ command: 'ping', extra: 1 }).code, 'invalid_request')
  for (const bad of [undefined, null, 3, 'ping', [], () => {}]) {
    throwsCode(() => e.request(bad), 'invalid_argument', 'the request must be an object like { command: "ping" }')
  }
  const cyclic = { command: 'ping' }
  cyclic.args = cyclic
  throwsCode(() => e.request(cyclic), 'invalid_argument', 'the request cannot be converted to JSON')
})

test('errors are Error instances with a code and a message', () => {
  const e = new Engine()
  try {
    e.unregister('missing')
    assert.fail('no error')
  } catch (err) {
    assert.ok(err instanceof Error)
    assert.equal(err.code, 'unknown_hook')
    assert.equal(err.message, 'no hook named `missing` is registered')
    assert.ok(err.stack.includes('api.test.js'))
  }
})
