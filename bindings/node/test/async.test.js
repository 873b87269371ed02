'use strict'
// executeAsync: Promise hooks, script hooks and sync JS hooks in one chain,
// an event loop that keeps running, deadlines, time limits, concurrency.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { radium, rejectsCode, tracer, names, run, traceScript, ticked } = require('./helpers')
const { Engine } = radium

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const unhandled = []
process.on('unhandledRejection', (reason) => unhandled.push(reason))

test('executeAsync returns a Promise of the same outcome as execute', async () => {
  const e = new Engine()
  e.register('t-a', 'before_tool', tracer('a'), { priority: 2 })
  e.register('t-b', 'before_tool', tracer('b'), { priority: 1 })
  const promise = e.executeAsync('before_tool', { tool_name: 'view' })
  assert.ok(promise instanceof Promise)
  const out = await promise
  const sync = e.execute('before_tool', { tool_name: 'view' })
  assert.deepEqual({ ...out, duration_ns: 0, hooks: names(out) }, { ...sync, duration_ns: 0, hooks: names(sync) })
  assert.deepEqual(out.data.trace, ['a', 'b'])
  assert.deepEqual(await e.executeAsync('after_model'), {
    hook_type: 'after_model', status: 'completed', data: null, stopped_by: null, hooks: [], duration_ns: 0,
  })
})

test('Promise hooks, script hooks and sync JS hooks in one chain: priority order, data chained', async () => {
  const e = new Engine()
  e.register('t-sync-first', 'before_tool', tracer('sync-first'), { priority: 300 })
  e.register('t-async', 'before_tool', async (ctx) => {
    await sleep(30)
    return { action: 'modify', data: { ...ctx.data, trace: [...ctx.data.trace, 'async'] } }
  }, { priority: 250 })
  e.registerScript('t-script', 'before_tool', traceScript('script', 50), { priority: 200 })
  e.register('t-rejects', 'before_tool', async () => { await sleep(5); throw new TypeError('async went wrong') }, { priority: 190 })
  e.register('t-rejects-value', 'before_tool', () => Promise.reject('just a string'), { priority: 185 })
  e.register('t-rejects-nothing', 'before_tool', () => Promise.reject(undefined), { priority: 184 })
  e.register('t-throws', 'before_tool', () => { throw new Error('sync went wrong') }, { priority: 180 })
  e.register('t-resolves-number', 'before_tool', async () => 7, { priority: 170 })
  e.register('t-resolves-bad', 'before_tool', async () => ({ action: 'explode' }), { priority: 165 })
  e.register('t-thenable', 'before_tool', (ctx) => ({
    then(resolve) { setTimeout(() => resolve({ data: { ...ctx.data, trace: [...ctx.data.trace, 'thenable'] } }), 5) },
  }), { priority: 160 })
  e.register('t-async-continue', 'before_tool', async () => undefined, { priority: 150 })
  e.register('t-sync-last', 'before_tool', tracer('sync-last'), { priority: 100 })
  const out = await e.executeAsync('before_tool', { tool_name: 'create', trace: [] })
  assert.equal(out.status, 'completed')
  assert.deepEqual(out.data.trace, ['sync-first', 'async', 'script', 'thenable', 'sync-last'])
  assert.deepEqual(names(out), [
    't-sync-first', 't-async', 't-script', 't-rejects', 't-rejects-value', 't-rejects-nothing', 't-throws',
    't-resolves-number', 't-resolves-bad', 't-thenable', 't-async-continue', 't-sync-last',
  ])
  assert.deepEqual(out.hooks.map((h) => h.status), [
    'modified', 'modified', 'modified', 'error', 'error', 'error', 'error', 'error', 'error', 'modified', 'continued', 'modified',
  ])
  assert.equal(run(out, 't-rejects').error, 'TypeError: async went wrong')
  assert.equal(run(out, 't-rejects-value').error, 'just a string')
  assert.equal(run(out, 't-rejects-nothing').error, 'undefined')
  assert.equal(run(out, 't-throws').error, 'sync went wrong')
  assert.match(run(out, 't-resolves-number').error, /returned a number/)
  assert.match(run(out, 't-resolves-bad').error, /unknown action `explode`/)
  assert.ok(run(out, 't-async').duration_ns >= 25e6, 'the async hook took its time')
})

test('a stop from a Promise or a script ends the chain', async () => {
  const e = new Engine()
  e.register('t-async-stop', 'tool_selection', async () => ({ action: 'stop', reason: 'vetoed' }))
  e.register('t-never', 'tool_selection', () => { throw new Error('must not run') }, { priority: 1 })
  const out = await e.executeAsync('tool_selection', { tool_name: 'rm' })
  assert.equal(out.status, 'stopped')
  assert.deepEqual(out.stopped_by, { hook: 't-async-stop', reason: 'vetoed' })
  assert.deepEqual(names(out), ['t-async-stop'])
  e.unregister('t-async-stop')
  e.registerScript('t-script-stop', 'tool_selection', ['sh', '-c', 'cat >/dev/null; echo "no rm" >&2; exit 2'], { priority: 5 })
  const again = await e.executeAsync('tool_selection', { tool_name: 'rm' })
  assert.deepEqual(again.stopped_by, { hook: 't-script-stop', reason: 'no rm' })
})

test('the event loop keeps running while a slow script hook is in flight', async () => {
  const e = new Engine()
  e.register('t-before', 'after_tool', tracer('before'), { priority: 10 })
  e.registerScript('t-slow', 'after_tool', ['sh', '-c', 'sleep 0.4; cat >/dev/null; echo \'{"action":"continue"}\''], { priority: 5 })
  let ticks = 0
  const timer = setInterval(() => { ticks++ }, 20)
  try {
    const start = Date.now()
    const promise = e.executeAsync('after_tool', { tool_name: 'view' })
    const returnedAfter = Date.now() - start
    // Blocking, it would have waited for the 400 ms hook.
    assert.ok(returnedAfter < 300, `executeAsync returned after ${returnedAfter} ms`)
    assert.equal(radium.pendingChains(), 1)
    const out = await promise
    const took = Date.now() - start
    assert.equal(out.status, 'completed')
    assert.deepEqual(out.data.trace, ['before'])
    assert.equal(run(out, 't-slow').status, 'continued')
    assert.ok(took >= 390, `the chain took ${took} ms`)
    ticked(ticks, took, 20, 'during the chain')
    assert.equal(radium.pendingChains(), 0)
  } finally {
    clearInterval(timer)
  }
})

test('a deadline (timeoutMs) ends the chain with deadline_exceeded', async () => {
  const e = new Engine()
  e.register('t-first', 'before_model', tracer('first'), { priority: 10 })
  e.registerScript('t-sleeps', 'before_model', ['sh', '-c', 'sleep 5'], { priority: 5 })
  e.register('t-never', 'before_model', tracer('never'), { priority: 1 })
  const start = Date.now()
  const out = await e.executeAsync('before_model', { input: 'x' }, { timeoutMs: 150 })
  const took = Date.now() - start
  assert.equal(out.status, 'deadline_exceeded')
  assert.deepEqual(out.data.trace, ['first'])
  assert.equal(run(out, 't-sleeps').status, 'cancelled')
  assert.equal(run(out, 't-never'), undefined)
  assert.ok(took < 2000, `ended after ${took} ms`)
  // A Promise that never settles is cut by the deadline too.
  const p = new Engine()
  p.register('t-forever', 'before_model', () => new Promise(() => {}))
  const stuck = await p.executeAsync('before_model', {}, { timeoutMs: 100 })
  assert.equal(stuck.status, 'deadline_exceeded')
  assert.equal(run(stuck, 't-forever').status, 'cancelled')
})

test('a hook time limit stops a slow Promise; the chain goes on', async () => {
  const e = new Engine()
  e.register('t-forever', 'after_model', () => new Promise(() => {}), { timeoutMs: 80, priority: 10 })
  e.register('t-next', 'after_model', tracer('next'), { priority: 1 })
  const out = await e.executeAsync('after_model', {})
  assert.equal(out.status, 'completed')
  assert.equal(run(out, 't-forever').status, 'timed_out')
  assert.match(run(out, 't-forever').error, /time limit/)
  assert.deepEqual(out.data.trace, ['next'])
})

test('several chains run concurrently', async () => {
  const e = new Engine()
  e.register('t-mark', 'before_tool', async (ctx) => {
    await sleep(10)
    return { data: { ...ctx.data, marked: ctx.data.id } }
  }, { priority: 10 })
  // A barrier: each script leaves a mark and waits until all eight have
  // (20 s at most, then it stops its chain). Chains run one after the other
  // would never get past the first, however fast or loaded the machine.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-barrier-'))
  const barrier = `const fs=require('fs'),p=require('path');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{` +
    `const c=JSON.parse(s);fs.writeFileSync(p.join(${JSON.stringify(dir)},String(c.data.id)),'');const t0=Date.now();` +
    `const tick=()=>{if(fs.readdirSync(${JSON.stringify(dir)}).length>=8){c.data.trace=['script'];` +
    `process.stdout.write(JSON.stringify({action:'modify',data:c.data}))}else if(Date.now()-t0>20000){` +
    `process.stderr.write('the other chains never came');process.exit(2)}else setTimeout(tick,20)};tick()})`
  e.registerScript('t-wait', 'before_tool', [process.execPath, '-e', barrier], { priority: 5, timeoutMs: 30000 })
  const outs = await Promise.all(Array.from({ length: 8 }, (_, id) => e.executeAsync('before_tool', { id, tool_name: 'x' })))
  outs.forEach((out, id) => {
    assert.equal(out.status, 'completed', JSON.stringify(out))
    assert.deepEqual(out.data, { id, marked: id, tool_name: 'x', trace: ['script'] })
  })
  assert.equal(radium.pendingChains(), 0)
  fs.rmSync(dir, { recursive: true, force: true })
})

test('hooks may start chains from inside a chain', async () => {
  const e = new Engine()
  e.register('t-outer', 'before_tool', async (ctx) => {
    const inner = await e.executeAsync('after_tool', { from: ctx.data.n })
    return { data: { ...ctx.data, inner: inner.data } }
  })
  e.register('t-inner', 'after_tool', async (ctx) => ({ data: { ...ctx.data, inner: true } }))
  const out = await e.executeAsync('before_tool', { n: 3 })
  assert.deepEqual(out.data, { n: 3, inner: { from: 3, inner: true } })
})

test('executeAsync rejects on bad arguments (never throws)', async () => {
  const e = new Engine()
  await rejectsCode(e.executeAsync('nope', {}), 'unknown_hook_type', 'unknown hook type `nope`')
  await rejectsCode(e.executeAsync(undefined), 'invalid_argument', 'the hook type must be a string, got undefined')
  await rejectsCode(e.executeAsync('before_tool', { big: 1n }), 'invalid_argument', 'the data cannot be converted to JSON')
  await rejectsCode(e.executeAsync('before_tool', {}, 5), 'invalid_argument', 'the options must be an object, got a number')
  await rejectsCode(e.executeAsync('before_tool', {}, { deadline: 5 }), 'invalid_argument', 'unknown option `deadline`; known options: timeoutMs')
  await rejectsCode(e.executeAsync('before_tool', {}, { timeoutMs: -5 }), 'invalid_argument', 'option `timeoutMs` must be a non-negative whole number')
  await rejectsCode(e.executeAsync('before_tool', {}, { timeoutMs: 'soon' }), 'invalid_argument', 'got a string')
  assert.deepEqual((await e.executeAsync('before_tool', {}, { timeoutMs: undefined })).status, 'completed')
  assert.deepEqual((await e.executeAsync('before_tool', {}, null)).status, 'completed')
})

test('the first synchronous hooks run inside the executeAsync call, later ones after an await', async () => {
  const e = new Engine()
  const order = []
  e.register('t-1', 'custom_logging', () => { order.push('hook-1') }, { priority: 3 })
  e.register('t-2', 'custom_logging', async () => { order.push('hook-2'); await sleep(1) }, { priority: 2 })
  e.register('t-3', 'custom_logging', () => { order.push('hook-3') }, { priority: 1 })
  const promise = e.executeAsync('custom_logging', {})
  order.push('returned')
  await promise
  assert.deepEqual(order, ['hook-1', 'hook-2', 'returned', 'hook-3'])
})

test('requestAsync: the JSON door without blocking', async () => {
  const e = new Engine()
  e.register('t-req-async', 'before_tool', async (ctx) => { await sleep(5); return { data: { ...ctx.data, async: true } } })
  e.registerScript('t-req-script', 'before_tool', ['sh', '-c', 'sleep 0.2; cat >/dev/null'], { priority: 1 })
  assert.deepEqual(await e.requestAsync({ command: 'ping' }), { ok: true, data: 'pong' })
  let ticks = 0
  const timer = setInterval(() => { ticks++ }, 20)
  const started = Date.now()
  const response = await e.requestAsync({ command: 'hooks-execute', args: { hook_type: 'before_tool', data: { tool_name: 'x' } } })
  const ms = Date.now() - started
  clearInterval(timer)
  assert.equal(response.ok, true)
  assert.deepEqual(response.data.data, { tool_name: 'x', async: true })
  assert.deepEqual(names(response.data), ['t-req-async', 't-req-script'])
  ticked(ticks, ms, 20, 'while the request ran')
  const unknown = await e.requestAsync({ command: 'dance' })
  assert.equal(unknown.ok, false)
  assert.equal(unknown.code, 'unknown_command')
  assert.equal((await e.requestAsync({ command: 7 })).code, 'invalid_request')
  await rejectsCode(e.requestAsync('ping'), 'invalid_argument', 'the request must be an object')
  await rejectsCode(e.requestAsync(null), 'invalid_argument', 'got null')
})

test('no unhandled rejections and no chains left', async () => {
  await sleep(20)
  assert.deepEqual(unhandled, [])
  assert.equal(radium.pendingChains(), 0)
})
