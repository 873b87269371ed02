'use strict'
// How execute() runs a chain of hooks: priority order and ties, chained data,
// the context a hook gets, stop and isolated failures (throws, bad answers,
// Promises), time limits, hooks calling back into the engine, script hooks.

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { radium, tracer, names, run, mine } = require('./helpers')
const { Engine } = radium

const unhandled = []
process.on('unhandledRejection', (reason) => unhandled.push(reason))

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
