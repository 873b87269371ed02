'use strict'
// Whole-process behaviour, each in a child Node: the addon never keeps Node
// alive when idle, keeps it alive while chains are in flight, survives
// hostile input, worker threads and garbage collection.

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { runChild } = require('./helpers')

const ok = (r) => {
  assert.equal(r.signal, null, `killed by ${r.signal}; stderr: ${r.stderr}`)
  assert.equal(r.status, 0, `exit status ${r.status}; stderr: ${r.stderr}`)
}

test('Node exits by itself after chains ran (nothing keeps the loop alive)', () => {
  const r = runChild(`
    const { Engine } = require('.')
    const e = new Engine()
    e.register('a', 'before_tool', async () => ({ data: 1 }))
    e.registerScript('s', 'before_tool', ['sh', '-c', 'cat >/dev/null'])
    e.register('never', 'before_tool', () => new Promise(() => {}), { timeoutMs: 50 })
    Promise.all([e.executeAsync('before_tool', {}), e.executeAsync('nope', {}).catch((x) => x.code)])
      .then(([out, code]) => console.log('done', out.status, code))
  `, { timeout: 15000 })
  ok(r)
  assert.equal(r.stdout.trim(), 'done completed unknown_hook_type')
  assert.ok(r.ms < 10000, `took ${r.ms} ms`)
})

test('an engine that was only created does not keep Node alive', () => {
  const r = runChild(`
    const { Engine } = require('.')
    const e = new Engine()
    e.register('a', 'before_tool', () => {})
    e.execute('before_tool', {})
    console.log('created')
  `, { timeout: 15000 })
  ok(r)
  assert.equal(r.stdout.trim(), 'created')
})

test('Node stays alive while a chain is in flight, even if nobody awaits it', () => {
  const r = runChild(`
    const { Engine } = require('.')
    const e = new Engine()
    e.registerScript('slow', 'after_tool', ['sh', '-c', 'sleep 0.3; cat >/dev/null'])
    e.register('late', 'after_tool', () => { console.log('late hook ran') }, { priority: 1 })
    e.executeAsync('after_tool', {}).then((out) => console.log('outcome', out.status))
  `, { timeout: 15000 })
  ok(r)
  assert.equal(r.stdout.trim(), 'late hook ran\noutcome completed')
})

test('hostile input never crashes the process', () => {
  const r = runChild(`
    const radium = require('.')
    const { Engine } = radium
    const cyclic = {}; cyclic.self = cyclic
    const values = [undefined, null, 0, -1, 1.5, NaN, Infinity, 2 ** 64, '', 'x', 'before_tool', true,
      Symbol('s'), 10n, () => {}, [], [1, [2]], {}, cyclic, new Date(), new Map(), new Uint8Array(3),
      new Proxy({}, { get() { throw new Error('get trap') }, ownKeys() { throw new Error('keys trap') } }),
      { toJSON() { throw new Error('toJSON') } }, { get command() { throw new Error('getter') } },
      Object.create(null), globalThis, process, 'a'.repeat(100000), '\\ud800']
    let calls = 0, threw = 0
    const attempt = (f) => { calls++; try { const r = f(); if (r && typeof r.catch === 'function') r.catch(() => {}) } catch (e) { threw++; if (!(e instanceof Error) || typeof e.code !== 'string') throw new Error('bad error: ' + e) } }
    const e = new Engine()
    e.register('echo', 'before_tool', (ctx) => ctx.data)
    for (const v of values) {
      attempt(() => new Engine(v))
      attempt(() => e.register(v, 'before_tool', () => {}))
      attempt(() => e.register('n' + calls, v, () => {}))
      attempt(() => e.register('n' + calls, 'before_tool', v))
      attempt(() => e.register('n' + calls, 'after_model', () => v, v))
      attempt(() => e.registerScript('s' + calls, 'before_tool', v, v))
      attempt(() => e.unregister(v)); attempt(() => e.enable(v)); attempt(() => e.disable(v))
      attempt(() => e.execute(v, v)); attempt(() => e.execute('before_tool', v)); attempt(() => e.execute('after_model', v))
      attempt(() => e.executeAsync(v, v, v)); attempt(() => e.executeAsync('after_model', v, v))
      attempt(() => e.request(v)); attempt(() => e.request({ command: v, args: v }))
      attempt(() => e.requestAsync(v)); attempt(() => e.requestAsync({ command: 'hooks-execute', args: { hook_type: v, data: v } }))
    }
    // A wrong receiver is refused by V8 itself (TypeError: Illegal invocation).
    for (const f of ['list', 'execute', 'register', 'request']) {
      for (const self of [{}, undefined]) {
        try { Engine.prototype[f].call(self, 'before_tool') } catch (e) { if (!(e instanceof TypeError)) throw e }
      }
    }
    attempt(() => Engine())
    attempt(() => Engine.call({}))
    e.register('throws-weird', 'error_logging', () => { throw Object.create(null) })
    e.register('throws-symbol', 'error_logging', () => { throw Symbol('x') }, { priority: 1 })
    e.register('throws-proxy', 'error_logging', () => { throw new Proxy({}, { get() { throw new Error('t') } }) }, { priority: 2 })
    // Values that throw again, forever, when radium tries to describe them.
    const evil = () => ({ toJSON() { throw evil() } })
    const evilError = () => { const x = new Error(); Object.defineProperty(x, 'message', { get() { throw evilError() } }); return x }
    e.register('throws-evil', 'error_logging', () => { throw evil() }, { priority: 3 })
    e.register('throws-evil-error', 'error_logging', () => { throw evilError() }, { priority: 4 })
    e.register('rejects-evil', 'error_logging', () => Promise.reject(evil()), { priority: 5 })
    attempt(() => e.execute('before_tool', evil()))
    attempt(() => e.execute('before_tool', { a: [evil()] }))
    e.executeAsync('error_logging', {}).then((o) => { if (o.hooks.length !== 6 || o.hooks.some((h) => h.status !== 'error')) throw new Error(JSON.stringify(o)) })
    const out = e.execute('error_logging', {})
    if (out.hooks.length !== 6 || out.hooks.some((h) => h.status !== 'error')) throw new Error(JSON.stringify(out))
    setTimeout(() => console.log('survived', calls, threw), 200)
  `, { timeout: 30000 })
  ok(r)
  assert.match(r.stdout, /^survived \d+ \d+$/m)
})

test('worker threads each get their own engine state and exit cleanly', () => {
  const r = runChild(`
    const { Worker } = require('node:worker_threads')
    const src = \`
      const { parentPort } = require('node:worker_threads')
      const { Engine } = require(\${JSON.stringify(process.cwd())})
      const e = new Engine()
      e.register('w', 'before_tool', async (ctx) => ({ data: { ...ctx.data, worker: true } }))
      e.registerScript('slow', 'before_tool', ['sh', '-c', 'sleep 0.2; cat >/dev/null'], { priority: 1 })
      e.executeAsync('before_tool', { n: 1 }).then((out) => parentPort.postMessage(out.data))
      // A chain still in flight when the worker is terminated must not crash anything.
      e.executeAsync('before_tool', { n: 2 })
    \`
    const { Engine } = require('.')
    const main = new Engine()
    main.register('m', 'before_tool', () => ({ data: 'main' }))
    const w = new Worker(src, { eval: true })
    w.on('message', (data) => { console.log('worker', JSON.stringify(data)); w.terminate() })
    w.on('exit', () => console.log('main', main.execute('before_tool', {}).data))
  `, { timeout: 20000 })
  ok(r)
  assert.equal(r.stdout.trim(), 'worker {"n":1,"worker":true}\nmain main')
})

test('engines and their JS hooks are garbage collected', () => {
  const r = runChild(`
    const { Engine } = require('.')
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 2000; i++) {
      const e = new Engine()
      const big = 'x'.repeat(10000) + i
      e.register('h', 'before_tool', () => ({ data: big.length }))
      e.execute('before_tool', {})
    }
    global.gc(); global.gc()
    setTimeout(() => {
      global.gc()
      const grew = (process.memoryUsage().heapUsed - before) / 1e6
      console.log(grew < 10 ? 'collected' : 'leaked ' + grew.toFixed(1) + ' MB')
    }, 50)
  `, { timeout: 60000, args: ['--expose-gc'] })
  ok(r)
  assert.equal(r.stdout.trim(), 'collected')
})

test('data still crosses when code generation from strings is disallowed', () => {
  // The codec is compiled by the addon (napi_run_script), not by eval.
  const r = runChild(`
    let refused = false
    try { eval('1') } catch (e) { refused = e instanceof EvalError }
    const { Engine } = require('.')
    const e = new Engine()
    e.register('a', 'custom_logging', (ctx) => ({ action: 'modify', data: { ...ctx.data, seen: ctx.hook_type } }))
    const out = e.execute('custom_logging', { list: [1, 'x', { b: null }], 'ключ': 'é' })
    console.log(refused, JSON.stringify(out.data))
  `, { timeout: 15000, args: ['--disallow-code-generation-from-strings'] })
  ok(r)
  assert.equal(r.stdout.trim(), 'true {"list":[1,"x",{"b":null}],"seen":"custom_logging","ключ":"é"}')
})
