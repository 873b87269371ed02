'use strict'
// The synchronous API: module functions, the Engine class, every error path,
// JS hooks (including failing ones), data conversion and the request door.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { radium, throwsCode, tracer, names, run } = require('./helpers')
const { Engine } = radium

const HOOK_TYPES = [
  'before_model', 'after_model', 'before_tool', 'after_tool', 'tool_selection',
  'error_interception', 'error_transformation', 'error_recovery', 'error_logging',
  'telemetry_collection', 'custom_logging', 'metrics_aggregation', 'performance_monitoring',
]

/** The hooks this test registered (the engine also has built-in ones). */
const mine = (engine, prefix = 't-') => engine.list().filter((h) => h.name.startsWith(prefix))

const unhandled = []
process.on('unhandledRejection', (reason) => unhandled.push(reason))

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

test('the workspace .radium/hooks.toml is applied, and its errors name the line', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.mkdirSync(path.join(dir, '.radium'))
  const file = path.join(dir, '.radium', 'hooks.toml')
  fs.writeFileSync(file, "[[hooks]]\nname = 'x'\ntype = 'before_lunch'\n")
  throwsCode(() => new Engine({ workspace: dir }), 'config', 'hooks.toml:3:')
  fs.writeFileSync(file, "[[hooks]]\nname = 't-late'\ntype = 'before_tool'\npriority = 999\nenabled = false\n")
  const engine = new Engine({ workspace: dir })
  engine.register('t-late', 'before_tool', () => {})
  assert.deepEqual(mine(engine).map((h) => [h.name, h.priority, h.enabled]), [['t-late', 999, false]])
})

test('priority order, ties in registration order, chained data', () => {
  const e = new Engine()
  e.register('t-low', 'before_tool', tracer('low'), { priority: 10 })
  e.register('t-tie-a', 'before_tool', tracer('tie-a'))
  e.register('t-high', 'before_tool', tracer('high'), { priority: 200 })
  e.register('t-tie-b', 'before_tool', tracer('tie-b'))
  const out = e.execute('before_tool', { tool_name: 'view' })
  assert.equal(out.status, 'completed')
  assert.equal(out.hook_type, 'before_tool')
  assert.deepEqual(out.data.trace, ['high', 'tie-a', 'tie-b', 'low'])
  assert.deepEqual(names(out), ['t-high', 't-tie-a', 't-tie-b', 't-low'])
  assert.equal(out.stopped_by, null)
  for (const h of out.hooks) {
    assert.equal(h.status, 'modified')
    assert.equal(typeof h.duration_ns, 'number')
    assert.ok(!('error' in h))
  }
  assert.equal(typeof out.duration_ns, 'number')
  assert.deepEqual(Object.keys(out), ['hook_type', 'status', 'data', 'stopped_by', 'hooks', 'duration_ns'])
  assert.deepEqual(mine(e).map((h) => `${h.name}:${h.priority}`), ['t-high:200', 't-tie-a:100', 't-tie-b:100', 't-low:10'])
})

test('the context a hook gets', () => {
  const e = new Engine()
  const seen = []
  e.register('t-look', 'after_model', (ctx) => { seen.push(ctx) })
  e.register('t-mutate-in-place', 'after_model', (ctx) => { ctx.data.changed = true }, { priority: 200 })
  const out = e.execute('after_model', { response: 'hi' })
  assert.deepEqual(seen, [{ hook_type: 'after_model', data: { response: 'hi' }, metadata: null }])
  // Changing ctx without answering modify changes nothing.
  assert.deepEqual(out.data, { response: 'hi' })
  assert.deepEqual(out.hooks.map((h) => h.status), ['continued', 'continued'])
})

test('ctx is a plain object: keys, spread, JSON.stringify and assignment', () => {
  const e = new Engine()
  const seen = {}
  e.register('t-keys', 'before_model', (ctx) => {
    seen.keys = Object.keys(ctx)
    seen.json = JSON.parse(JSON.stringify(ctx))
    seen.spread = { ...ctx }
  }, { priority: 30 })
  e.register('t-assign', 'before_model', (ctx) => {
    ctx.data = { replaced: true }
    seen.meta = ctx.metadata
    seen.assigned = ctx.data
    return { data: { n: ctx.data.replaced ? 2 : 0 } }
  }, { priority: 20 })
  const out = e.request({ command: 'hooks-execute', args: { hook_type: 'before_model', data: { n: 1 }, metadata: { who: 'test' } } })
  assert.equal(out.ok, true)
  assert.deepEqual(seen.keys, ['hook_type', 'data', 'metadata'])
  assert.deepEqual(seen.json, { hook_type: 'before_model', data: { n: 1 }, metadata: { who: 'test' } })
  assert.deepEqual(seen.spread, seen.json)
  assert.deepEqual(seen.meta, { who: 'test' })
  assert.deepEqual(seen.assigned, { replaced: true })
  assert.deepEqual(out.data.data, { n: 2 })
})

test('stop, error answers, throws and bad answers are isolated', () => {
  const e = new Engine()
  const add = (name, priority, fn) => e.register(name, 'after_model', fn, { priority })
  add('t-throws', 900, () => { throw new Error('js went wrong') })
  add('t-throws-type', 890, () => { null.x() })
  add('t-throws-string', 880, () => { throw 'plain string' })
  add('t-throws-object', 870, () => { throw { code: 7 } })
  add('t-number', 860, () => 42)
  add('t-string', 850, () => 'yes')
  add('t-array', 840, () => [1, 2])
  add('t-function', 830, () => () => {})
  add('t-bad-action', 820, () => ({ action: 'explode' }))
  add('t-action-type', 810, () => ({ action: 3 }))
  add('t-cyclic', 800, () => { const o = { action: 'continue' }; o.o = o; return o })
  add('t-bigint', 790, () => ({ data: 10n }))
  add('t-error-answer', 780, () => ({ action: 'error', message: 'told so' }))
  add('t-null', 770, () => null)
  add('t-empty', 760, () => ({}))
  add('t-short-modify', 750, (ctx) => ({ data: { ...ctx.data, short: true } }))
  add('t-stop', 500, () => ({ action: 'stop', reason: 'enough' }))
  add('t-never', 100, () => { throw new Error('must not run') })
  const out = e.execute('after_model', { response: 'r' })
  assert.equal(out.status, 'stopped')
  assert.deepEqual(out.stopped_by, { hook: 't-stop', reason: 'enough' })
  assert.deepEqual(out.data, { response: 'r', short: true })
  const error = (name) => {
    const r = run(out, name)
    assert.equal(r.status, 'error', name)
    return r.error
  }
  assert.equal(error('t-throws'), 'js went wrong')
  assert.match(error('t-throws-type'), /^TypeError: Cannot read properties of null/)
  assert.equal(error('t-throws-string'), 'plain string')
  assert.equal(error('t-throws-object'), '{"code":7}')
  assert.match(error('t-number'), /returned a number; expected undefined or a result object/)
  assert.match(error('t-string'), /returned a string/)
  assert.match(error('t-array'), /expected an object like .* got an array/)
  assert.match(error('t-function'), /returned a function/)
  assert.match(error('t-bad-action'), /unknown action `explode`/)
  assert.match(error('t-action-type'), /`action` must be a string, got a number/)
  assert.match(error('t-cyclic'), /cannot be converted to JSON: .*circular/i)
  assert.match(error('t-bigint'), /cannot be converted to JSON: .*BigInt/)
  assert.equal(error('t-error-answer'), 'told so')
  assert.equal(run(out, 't-null').status, 'continued')
  assert.equal(run(out, 't-empty').status, 'continued')
  assert.equal(run(out, 't-short-modify').status, 'modified')
  assert.equal(run(out, 't-stop').status, 'stopped')
  assert.equal(run(out, 't-never'), undefined)
})

test('a Promise under execute() is that hook\'s error and never an unhandled rejection', async () => {
  const e = new Engine()
  e.register('t-async', 'before_model', async () => { throw new Error('rejected later') })
  e.register('t-resolves', 'before_model', () => Promise.resolve({ data: 1 }), { priority: 50 })
  e.register('t-after', 'before_model', tracer('after'), { priority: 10 })
  const out = e.execute('before_model', { input: 'x' })
  assert.equal(out.status, 'completed')
  assert.match(run(out, 't-async').error, /returned a Promise, but execute\(\) runs the chain synchronously; use executeAsync\(\)/)
  assert.equal(run(out, 't-resolves').status, 'error')
  assert.deepEqual(out.data, { input: 'x', trace: ['after'] })
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(unhandled, [])
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

test('data conversion follows JSON.stringify / JSON.parse', () => {
  const e = new Engine()
  const seen = []
  e.register('t-echo', 'custom_logging', (ctx) => { seen.push(ctx.data) })
  const echo = (data) => e.execute('custom_logging', data).data
  assert.equal(echo(undefined), null)
  assert.equal(echo(null), null)
  assert.equal(echo(true), true)
  assert.equal(echo('text'), 'text')
  assert.equal(echo(3.5), 3.5)
  assert.equal(echo(NaN), null)
  assert.equal(echo(2 ** 53 - 1), 2 ** 53 - 1)
  assert.equal(echo(-(2 ** 53) + 1), -(2 ** 53) + 1)
  assert.equal(echo(1e300), 1e300)
  assert.deepEqual(echo([1, undefined, () => {}, 'x']), [1, null, null, 'x'])
  assert.deepEqual(echo({ a: undefined, f() {}, b: [] }), { b: [] })
  const date = new Date(0)
  assert.equal(echo(date), '1970-01-01T00:00:00.000Z')
  assert.deepEqual(echo(new Map([[1, 2]])), {})
  const text = 'ünïcödé ✓ 𝄞 "quoted" \\ \u0000 end'
  assert.equal(echo(text), text)
  // A `__proto__` key is a plain property, as JSON.parse makes it.
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')
  const back = echo(parsed)
  assert.equal(Object.getPrototypeOf(back), Object.prototype)
  assert.deepEqual(Object.keys(back), ['__proto__', 'ok'])
  assert.equal({}.polluted, undefined)
  // Object keys come back sorted (the engine's JSON objects are ordered by key).
  assert.deepEqual(Object.keys(echo({ b: 1, a: 2 })), ['a', 'b'])
  // Each hook gets its own copy.
  seen.length = 0
  e.execute('custom_logging', { n: 1 })
  e.execute('custom_logging', { n: 1 })
  assert.notEqual(seen[0], seen[1])
  // Deep nesting beyond the JSON parser's limit is an error, not a crash.
  let deep = 0
  for (let i = 0; i < 200; i++) deep = [deep]
  throwsCode(() => e.execute('custom_logging', deep), 'invalid_argument', 'recursion limit')
})

test('data in is exactly JSON.parse(JSON.stringify(data))', () => {
  const e = new Engine()
  const echo = (data) => e.execute('custom_logging', data).data
  class Point { constructor() { this.x = 1; this.y = 2 } }
  class WithJSON { toJSON(key) { return { key, from: 'toJSON' } } }
  const args = (function () { return arguments })(1, 'two')
  const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false })
  const inherited = Object.create({ inheritedKey: 1 })
  inherited.own = 2
  const holes = [1, , 3] // eslint-disable-line no-sparse-arrays
  const getter = { get computed() { return 'yes' } }
  const samples = [
    0, -0, 1, -1, 0.1, 1.5e-7, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 1e19, 1e20, 1e21, -(2 ** 63), -(2 ** 63) - 4096,
    Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN,
    '', 'ascii', 'é', '\ufffd', '\n\t"\\', 'x'.repeat(100000),
    [], {}, [[[]]], { a: { b: { c: [1, { d: null }] } } },
    { 2: 'b', 1: 'a', z: 'z', 10: 'ten' }, holes, [undefined, () => {}, Symbol('s')],
    { u: undefined, f() {}, [Symbol('k')]: 1, kept: true },
    Object.create(null), Object.assign(Object.create(null), { n: 1 }),
    new Point(), new WithJSON(), { nested: new WithJSON() }, { toJSON: 5, v: 1 },
    new Date(86400000), /re/g, new Map([[1, 2]]), new Set([1]), new Uint8Array([1, 2]), new Error('e'),
    new Number(3), new String('s'), new Boolean(false), args, hidden, inherited, getter,
    { date: new Date(0), list: [new Date(1)] },
  ]
  for (const sample of samples) {
    assert.deepEqual(echo(sample), JSON.parse(JSON.stringify(sample)), `for sample ${samples.indexOf(sample)}`)
  }
  // What JSON.stringify refuses, or escapes and JSON refuses, is refused.
  throwsCode(() => echo('\ud800'), 'invalid_argument', 'a string holds a lone UTF-16 surrogate')
  throwsCode(() => echo({ k: 'a\udc00b' }), 'invalid_argument', 'lone UTF-16 surrogate')
  throwsCode(() => echo({ get boom() { throw new Error('getter threw') } }), 'invalid_argument', 'getter threw')
  throwsCode(() => echo([1, [2, 3n]]), 'invalid_argument', 'BigInt')
  let cyclic = []
  cyclic.push({ back: cyclic })
  throwsCode(() => echo(cyclic), 'invalid_argument', 'circular')
})

test('the bulk codec: names met once or many times, long and non-ASCII names and texts', () => {
  const e = new Engine()
  const seen = []
  e.register('t-a', 'custom_logging', (ctx) => { seen.push(ctx) })
  e.register('t-b', 'custom_logging', (ctx) => { seen.push(ctx) })
  const echo = (data) => e.execute('custom_logging', data).data
  // More distinct names than the codec remembers (4096), twice over: the
  // later ones travel as text, and every one comes back right.
  const wide = {}
  for (let i = 0; i < 5000; i++) wide[`key-${i}`] = i
  assert.deepEqual(echo(wide), JSON.parse(JSON.stringify(wide)))
  assert.deepEqual(echo(wide), JSON.parse(JSON.stringify(wide)))
  const mixed = {
    ['long-' + 'n'.repeat(100)]: 'a name longer than the remembered ones',
    'ключ 🔑': 'значение 𝄞 with a surrogate pair',
    nested: [{ 'ключ 🔑': 1, same: { same: { same: 'same' } } }, { same: 2 }],
    text: 'é'.repeat(5000) + 'x'.repeat(5000),
  }
  for (let i = 0; i < 3; i++) assert.deepEqual(echo(mixed), mixed)
  // Every hook of a chain gets an equal, separate copy of the same data.
  seen.length = 0
  e.execute('custom_logging', mixed)
  assert.equal(seen.length, 2)
  assert.notEqual(seen[0].data, seen[1].data)
  assert.deepEqual(seen[0].data, mixed)
  assert.deepEqual(seen[1].data, mixed)
  assert.deepEqual(Object.keys(seen[0]), ['hook_type', 'data', 'metadata'])
  // A hook that changes its copy changes nothing for the next one.
  const e2 = new Engine()
  let second
  e2.register('t-first', 'custom_logging', (ctx) => { ctx.data.x = 'changed' }, { priority: 2 })
  e2.register('t-second', 'custom_logging', (ctx) => { second = ctx.data.x }, { priority: 1 })
  assert.equal(e2.execute('custom_logging', { x: 'original' }).data.x, 'original')
  assert.equal(second, 'original')
  // A hook that runs another chain (with names never seen before) in the
  // middle of its own: the next hook still gets the outer chain's data.
  const e3 = new Engine()
  const contexts = []
  e3.register('t-reenter', 'custom_logging', (ctx) => {
    contexts.push(ctx.data)
    const inner = e3.execute('telemetry_collection', { [`fresh-${Math.random()}`]: ['never', 'seen'], x: ctx.data.x })
    assert.equal(inner.data.x, 'outer')
  }, { priority: 3 })
  e3.register('t-after', 'custom_logging', (ctx) => { contexts.push(ctx.data) }, { priority: 2 })
  e3.register('t-inner', 'telemetry_collection', (ctx) => { contexts.push(ctx.data) })
  for (let i = 0; i < 3; i++) {
    contexts.length = 0
    const data = { x: 'outer', [`new-${i}`]: { deep: [i, `é${i}`] } }
    e3.execute('custom_logging', data)
    assert.equal(contexts.length, 3)
    assert.deepEqual(contexts[0], data)
    assert.equal(contexts[1].x, 'outer')
    assert.deepEqual(contexts[2], data, 'the second outer hook after the inner chain')
  }
})

test('every hook of a chain gets its own exact copy of the context, whatever its shape', () => {
  const e = new Engine()
  const seen = []
  for (let i = 0; i < 3; i++) {
    e.register(`t-copy-${i}`, 'custom_logging', (ctx) => {
      // What this hook got, before it changes its copy every way there is:
      // the next hook must not see any of it.
      seen.push({ data: ctx.data, json: JSON.stringify(ctx.data), keys: typeof ctx.data === 'object' ? Object.keys(ctx.data) : null })
      if (typeof ctx.data !== 'object' || ctx.data === null) return
      ctx.data.added = i
      if (Array.isArray(ctx.data.list)) ctx.data.list.push('more')
      if (ctx.data.nested) ctx.data.nested.deeper = null
      if (Array.isArray(ctx.data)) ctx.data[1].push('more')
    }, { priority: 10 - i })
  }
  let deep = { end: true }
  for (let i = 0; i < 80; i++) deep = { level: i, deep }
  const samples = [
    { list: [1, { a: [2, { b: 'c' }] }, 'x'], nested: { deeper: { deepest: [] } } },
    { 2: 'b', 1: 'a', 10: 'ten', z: 'z', 'key "quoted"': 'q', 'line\nbreak': 'n', 'ключ 🔑': 'u', '': 'empty' },
    JSON.parse('{"__proto__": {"polluted": true}, "ok": [{"__proto__": 1}]}'),
    deep,
    { list: [], nested: {} },
    [1, [2, [3]], { a: null }],
    'a plain string',
  ]
  for (const sample of samples) {
    for (let round = 0; round < 2; round++) {
      seen.length = 0
      const out = e.execute('custom_logging', sample)
      const want = JSON.stringify(out.data) // the engine's own answer (keys in its order)
      assert.deepEqual(JSON.parse(want), JSON.parse(JSON.stringify(sample)))
      assert.equal(seen.length, 3)
      for (const [i, got] of seen.entries()) {
        assert.equal(got.json, want, `sample ${samples.indexOf(sample)}, hook ${i}`)
        if (got.keys) assert.deepEqual(got.keys, Object.keys(out.data))
      }
      if (typeof sample === 'object') {
        assert.notEqual(seen[0].data, seen[1].data)
        assert.notEqual(seen[1].data, seen[2].data)
      }
      assert.equal({}.polluted, undefined)
    }
  }
})

test('a synchronous hook over its time limit is recorded as timed out', () => {
  const e = new Engine()
  e.register('t-slow', 'before_tool', () => {
    const end = Date.now() + 30
    while (Date.now() < end) { /* busy */ }
    return { data: 'discarded' }
  }, { timeoutMs: 5 })
  const out = e.execute('before_tool', { tool_name: 'view' })
  assert.equal(run(out, 't-slow').status, 'timed_out')
  assert.deepEqual(out.data, { tool_name: 'view' })
})

test('hooks may call back into the engine', () => {
  const e = new Engine()
  e.register('t-outer', 'before_tool', (ctx) => {
    const inner = e.execute('after_tool', { from: 'outer' })
    e.register('t-added-' + ctx.data.n, 'custom_logging', () => {})
    return { data: { ...ctx.data, inner: inner.data } }
  })
  e.register('t-inner', 'after_tool', tracer('inner'))
  const out = e.execute('before_tool', { n: 1 })
  assert.deepEqual(out.data, { n: 1, inner: { from: 'outer', trace: ['inner'] } })
  assert.ok(mine(e).some((h) => h.name === 't-added-1'))
})

test('script hooks run by execute()', () => {
  const e = new Engine()
  e.registerScript('t-stop-script', 'before_tool', ['sh', '-c', 'cat >/dev/null; echo "not here" >&2; exit 2'])
  const out = e.execute('before_tool', { tool_name: 'delete' })
  assert.equal(out.status, 'stopped')
  assert.deepEqual(out.stopped_by, { hook: 't-stop-script', reason: 'not here' })
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
