'use strict'
// Hostile and extreme use must never crash or freeze the host: data nested
// 200,000 deep and cyclic data are Errors with a code, 100 MB strings work,
// hooks that throw or never settle are isolated while the event loop goes on,
// engines dropped (there is no close()) or the process exiting with a chain
// in flight, hooks unregistering themselves mid-chain, and engines created
// and dropped in a loop without growing memory.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { radium, throwsCode, tracer, names, run, runChild, ticked } = require('./helpers')
const { Engine } = radium

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const unhandled = []
process.on('unhandledRejection', (reason) => unhandled.push(reason))

const DEPTH = 200000

function deepObject() {
  const root = {}
  let cur = root
  for (let i = 0; i < DEPTH; i++) cur = cur.next = {}
  return root
}

function deepArray() {
  const root = []
  let cur = root
  for (let i = 0; i < DEPTH; i++) { const child = []; cur.push(child); cur = child }
  return root
}

/** The engine still answers: nothing was left broken. */
const stillAlive = (e) => assert.deepEqual(e.request({ command: 'ping' }), { ok: true, data: 'pong' })

/** A child process ended by itself with status 0. */
const exitedCleanly = (r) => {
  assert.equal(r.signal, null, `killed by ${r.signal}; stderr: ${r.stderr}`)
  assert.equal(r.status, 0, `exit status ${r.status}; stderr: ${r.stderr}`)
}

/** Whether process `pid` is still running (a zombie has stopped running). */
function running(pid) {
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/**
 * `value` is refused by every door into the engine with an `invalid_argument`
 * Error whose message says it cannot be converted and matches `cause`.
 */
async function refusedEverywhere(e, value, cause) {
  const check = (what) => (err) => {
    assert.ok(err instanceof Error, `${what}: expected an Error, got ${err}`)
    assert.equal(err.code, 'invalid_argument', `${what}: code of ${err.message}`)
    assert.match(err.message, /^the (data|request|engine options) cannot be converted to JSON: /, what)
    assert.match(err.message, cause, what)
    return true
  }
  assert.throws(() => e.execute('custom_logging', value), check('execute'))
  assert.throws(() => e.request({ command: 'hooks-execute', args: { hook_type: 'custom_logging', data: value } }), check('request'))
  assert.throws(() => e.request({ command: 'hooks-execute', args: { hook_type: 'custom_logging', metadata: value } }), check('request metadata'))
  assert.throws(() => new Engine({ workspace: value }), check('engine options'))
  await assert.rejects(e.executeAsync('custom_logging', value), check('executeAsync'))
  await assert.rejects(e.requestAsync({ command: 'hooks-execute', args: { hook_type: 'custom_logging', data: value } }), check('requestAsync'))
  assert.equal(radium.pendingChains(), 0, 'no chain was started')
}

test('data nested 200,000 deep is an Error with a code; in a hook\'s answer, that hook\'s error', async () => {
  const e = new Engine()
  // How the cause is named depends on the depth: past 128 levels the data
  // is either refused at the limit or overflows JSON.stringify's stack.
  const cause = /nested deeper than \d+ levels|Maximum call stack size exceeded/
  await refusedEverywhere(e, deepObject(), cause)
  await refusedEverywhere(e, deepArray(), cause)
  stillAlive(e)
  const deep = deepObject()
  e.register('t-deep-answer', 'before_tool', () => ({ data: deep }), { priority: 300 })
  e.register('t-deep-promise', 'before_tool', async () => ({ data: deepArray() }), { priority: 250 })
  e.registerScript('t-deep-script', 'before_tool', ['sh', '-c',
    `cat >/dev/null; printf '{"data":'; head -c ${DEPTH} /dev/zero | tr '\\0' '['; head -c ${DEPTH} /dev/zero | tr '\\0' ']'; printf '}'`,
  ], { priority: 200 })
  e.register('t-after', 'before_tool', tracer('after'), { priority: 100 })
  const out = await e.executeAsync('before_tool', { tool_name: 'x' })
  assert.equal(out.status, 'completed')
  assert.deepEqual(out.data, { tool_name: 'x', trace: ['after'] })
  for (const name of ['t-deep-answer', 't-deep-promise', 't-deep-script']) assert.equal(run(out, name).status, 'error', name)
  assert.match(run(out, 't-deep-answer').error, /cannot be converted to JSON: .*(nested deeper|call stack)/)
  assert.match(run(out, 't-deep-promise').error, /cannot be converted to JSON: .*(nested deeper|call stack)/)
  assert.match(run(out, 't-deep-script').error, /not JSON on stdout \(JSON nested deeper than 127 levels is refused\)/)
  assert.ok(run(out, 't-deep-script').error.length < 10000, 'the error does not repeat the output whole')
  stillAlive(e)
})

test('cyclic data is an Error with a code; in a hook\'s answer, that hook\'s error', async () => {
  const e = new Engine()
  const self = { name: 'loop' }
  self.self = self
  const a = { name: 'a' }
  a.b = { list: [1, 2, a] }
  await refusedEverywhere(e, self, /circular/)
  await refusedEverywhere(e, { wrapper: [a] }, /circular/)
  e.register('t-cyclic', 'after_model', () => ({ data: a }), { priority: 300 })
  e.register('t-cyclic-promise', 'after_model', async () => ({ action: 'modify', data: self }), { priority: 200 })
  e.register('t-after', 'after_model', tracer('after'), { priority: 100 })
  for (const out of [e.execute('after_model', { response: 'x' }), await e.executeAsync('after_model', { response: 'x' })]) {
    assert.equal(out.status, 'completed')
    assert.deepEqual(out.data, { response: 'x', trace: ['after'] })
    assert.match(run(out, 't-cyclic').error, /cannot be converted to JSON: .*circular/)
  }
  const out = await e.executeAsync('after_model', {})
  assert.match(run(out, 't-cyclic-promise').error, /cannot be converted to JSON: .*circular/)
  stillAlive(e)
})

test('a 100 MB string round-trips through execute, request and executeAsync', async () => {
  const e = new Engine()
  const big = '<start>' + '0123456789abcdef'.repeat(100 * 1024 * 1024 / 16) + 'é<end>'
  const seen = []
  e.register('t-measure', 'custom_logging', (ctx) => {
    seen.push(ctx.data.text.length)
    return { data: { text: ctx.data.text, length: ctx.data.text.length } }
  })
  let out = e.execute('custom_logging', { text: big })
  assert.equal(out.data.length, big.length)
  assert.equal(out.data.text.length, big.length)
  assert.ok(out.data.text === big, 'execute: the same string')
  const response = e.request({ command: 'hooks-execute', args: { hook_type: 'custom_logging', data: { text: big } } })
  assert.equal(response.ok, true)
  assert.ok(response.data.data.text === big, 'request: the same string')
  out = await e.executeAsync('custom_logging', { text: big })
  assert.ok(out.data.text === big, 'executeAsync: the same string')
  assert.deepEqual(seen, [big.length, big.length, big.length])
  stillAlive(e)
})

test('a JS hook that throws is isolated: recorded as its error, the chain goes on', async () => {
  const e = new Engine()
  const huge = 'x'.repeat(1024 * 1024)
  e.register('t-throws', 'error_logging', () => { throw new Error('hook blew up') }, { priority: 500 })
  e.register('t-throws-huge', 'error_logging', () => { throw new Error(huge) }, { priority: 450 })
  e.register('t-throws-undefined', 'error_logging', () => { throw undefined }, { priority: 400 })
  e.register('t-overflows', 'error_logging', function overflow() { return overflow() }, { priority: 350 })
  e.register('t-throws-late', 'error_logging', async () => { await sleep(10); throw new RangeError('late blow-up') }, { priority: 300 })
  e.register('t-ok', 'error_logging', tracer('ok'), { priority: 100 })
  const all = ['t-throws', 't-throws-huge', 't-throws-undefined', 't-overflows', 't-throws-late', 't-ok']
  const sync = e.execute('error_logging', {})
  const async = await e.executeAsync('error_logging', {})
  for (const out of [sync, async]) {
    assert.equal(out.status, 'completed')
    assert.deepEqual(names(out), all)
    assert.deepEqual(out.data, { trace: ['ok'] })
    assert.deepEqual(out.hooks.map((h) => h.status), ['error', 'error', 'error', 'error', 'error', 'modified'])
    assert.equal(run(out, 't-throws').error, 'hook blew up')
    assert.ok(run(out, 't-throws-huge').error.includes('xxxx'))
    assert.match(run(out, 't-overflows').error, /Maximum call stack size exceeded/)
  }
  assert.match(run(sync, 't-throws-late').error, /returned a Promise/)
  assert.equal(run(async, 't-throws-late').error, 'RangeError: late blow-up')
  await sleep(20)
  assert.deepEqual(unhandled, [])
  stillAlive(e)
})

test('hooks that never settle: time limits end them and the event loop keeps ticking', async () => {
  const e = new Engine()
  const pidfile = path.join(os.tmpdir(), `radium-never-${process.pid}`)
  e.register('t-first', 'before_tool', tracer('first'), { priority: 400 })
  e.register('t-forever', 'before_tool', () => new Promise(() => {}), { priority: 300, timeoutMs: 200 })
  e.registerScript('t-never', 'before_tool', ['sh', '-c', `echo $$ > ${pidfile}; exec sleep 30`], { priority: 200, timeoutMs: 200 })
  e.register('t-last', 'before_tool', tracer('last'), { priority: 100 })
  let ticks = 0
  const timer = setInterval(() => { ticks++ }, 10)
  try {
    let start = Date.now()
    const promise = e.executeAsync('before_tool', {})
    // Blocking, it would have waited for the hooks' 200 ms time limits.
    assert.ok(Date.now() - start < 180, 'executeAsync returned at once')
    await sleep(100)
    assert.ok(ticks > 0, 'the interval ticked while the Promise hook hung')
    const out = await promise
    const took = Date.now() - start
    ticked(ticks, took, 10, 'during the chain')
    assert.ok(took >= 350 && took < 5000, `two 200 ms time limits took ${took} ms`)
    assert.equal(out.status, 'completed')
    assert.deepEqual(out.hooks.map((h) => h.status), ['modified', 'timed_out', 'timed_out', 'modified'])
    assert.match(run(out, 't-forever').error, /time limit/)
    assert.match(run(out, 't-never').error, /time limit/)
    assert.deepEqual(out.data.trace, ['first', 'last'])
    const pid = Number(fs.readFileSync(pidfile, 'utf8'))
    for (let i = 0; i < 500 && running(pid); i++) await sleep(20)
    assert.ok(!running(pid), `the script (pid ${pid}) was stopped`)

    // The chain's deadline cuts a Promise that never settles, and a script.
    for (const hang of [() => new Promise(() => {}), null]) {
      const d = new Engine()
      if (hang) d.register('t-hang', 'after_tool', hang)
      else d.registerScript('t-hang', 'after_tool', ['sh', '-c', 'exec sleep 30'])
      d.register('t-never-runs', 'after_tool', tracer('never'), { priority: 1 })
      ticks = 0
      start = Date.now()
      const cut = await d.executeAsync('after_tool', {}, { timeoutMs: 200 })
      assert.equal(cut.status, 'deadline_exceeded')
      assert.deepEqual(cut.hooks.map((h) => [h.name, h.status]), [['t-hang', 'cancelled']])
      ticked(ticks, Date.now() - start, 10, 'during the deadline wait')
      assert.ok(Date.now() - start < 5000)
    }
  } finally {
    clearInterval(timer)
    fs.rmSync(pidfile, { force: true })
  }
  assert.equal(radium.pendingChains(), 0)
  stillAlive(e)
})

test('there is no close(): a dropped engine finishes its chains; exit with a chain in flight is clean', () => {
  const r = runChild(`
    const { Engine } = require('.')
    let ran = false
    function start() {
      const e = new Engine()
      e.registerScript('slow', 'before_tool', ['sh', '-c', 'cat >/dev/null; sleep 0.3; echo \\'{"data":{"script":true}}\\''], { priority: 200 })
      e.register('later', 'before_tool', (ctx) => { ran = true; return { data: { ...ctx.data, later: true } } }, { priority: 100 })
      return [e.executeAsync('before_tool', {}), new WeakRef(e)]
    }
    const [promise, ref] = start()
    setTimeout(async () => {
      global.gc()
      const collected = ref.deref() === undefined
      const out = await promise
      console.log(JSON.stringify({ collected, status: out.status, data: out.data, ran }))
    }, 20)
  `, { timeout: 20000, args: ['--expose-gc'] })
  exitedCleanly(r)
  assert.deepEqual(JSON.parse(r.stdout), { collected: true, status: 'completed', data: { script: true, later: true }, ran: true })

  const pidfile = path.join(os.tmpdir(), `radium-exit-${process.pid}`)
  const exit = runChild(`
    const { Engine } = require('.')
    const e = new Engine()
    e.registerScript('never', 'before_tool', ['sh', '-c', 'echo $$ > ${pidfile}; exec sleep 30'])
    e.register('forever', 'before_tool', () => new Promise(() => {}), { priority: 1 })
    e.executeAsync('before_tool', {})
    setTimeout(() => { console.log('exiting'); process.exit(0) }, 200)
  `, { timeout: 20000 })
  // process.exit() ends the script too (the library kills its live process
  // groups at exit); a killed process may linger as a zombie of init.
  const pid = Number(fs.readFileSync(pidfile, 'utf8'))
  let state = null
  try { state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').match(/\) (\w)/)[1] } catch {}
  if (state !== null && state !== 'Z') { try { process.kill(pid, 'SIGKILL') } catch {} }
  assert.ok(state === null || state === 'Z', `the script ended with Node (state ${state})`)
  fs.rmSync(pidfile, { force: true })
  exitedCleanly(exit)
  assert.equal(exit.stdout.trim(), 'exiting')
  assert.ok(exit.ms < 10000, `exited after ${exit.ms} ms`)
})

test('a hook that unregisters itself mid-chain: the chain completes, the next run lacks it', async () => {
  const e = new Engine()
  let calls = 0
  e.register('t-first', 'before_tool', tracer('first'), { priority: 300 })
  e.register('t-once', 'before_tool', (ctx) => {
    calls++
    e.unregister('t-once')
    e.unregister('t-victim') // a later hook of this run: it still runs this time
    return tracer('once')(ctx)
  }, { priority: 200 })
  e.register('t-victim', 'before_tool', tracer('victim'), { priority: 150 })
  e.register('t-last', 'before_tool', tracer('last'), { priority: 100 })
  let out = e.execute('before_tool', {})
  assert.equal(out.status, 'completed')
  assert.deepEqual(out.data.trace, ['first', 'once', 'victim', 'last'])
  out = e.execute('before_tool', {})
  assert.deepEqual(out.data.trace, ['first', 'last'])
  assert.deepEqual(names(out), ['t-first', 't-last'])
  assert.equal(calls, 1)
  throwsCode(() => e.unregister('t-once'), 'unknown_hook', 'no hook named `t-once`')

  // The same in executeAsync, after a Promise hook, a hook unregistering
  // itself and the Promise hook.
  const a = new Engine()
  a.register('t-async', 'after_tool', async (ctx) => { await sleep(20); return { data: { trace: ['async'] } } }, { priority: 300 })
  a.register('t-once', 'after_tool', async (ctx) => {
    a.unregister('t-once')
    a.unregister('t-async')
    return tracer('once')(ctx)
  }, { priority: 200 })
  a.register('t-last', 'after_tool', tracer('last'), { priority: 100 })
  const first = await a.executeAsync('after_tool', {})
  const second = await a.executeAsync('after_tool', {})
  assert.deepEqual([first.data.trace, second.data.trace], [['async', 'once', 'last'], ['last']])
  assert.equal(radium.pendingChains(), 0)
})

test('2,000 engines created and dropped: every one is collected and memory does not grow', () => {
  const r = runChild(`
    const { Engine } = require('.')
    // A hook made outside the engine's scope: it does not hold the engine.
    const keep = (payload) => (ctx) => ({ data: { n: payload.length, i: ctx.data.i } })
    async function oneEngine(i) {
      const e = new Engine()
      e.register('keep', 'before_tool', keep('p'.repeat(4096) + i), { priority: 200 })
      // Holds the engine until it runs and unregisters itself.
      e.register('once', 'before_tool', () => { e.unregister('once') }, { priority: 100 })
      e.registerScript('script', 'after_tool', ['true'])
      if (e.execute('before_tool', { i }).data.i !== i) throw new Error('engine ' + i)
      e.request({ command: 'hooks-list' })
      if (i % 8 === 0 && (await e.executeAsync('before_tool', { i })).data.i !== i) throw new Error('async ' + i)
      return new WeakRef(e)
    }
    async function main() {
      const refs = [], samples = []
      for (let i = 1; i <= 2000; i++) {
        refs.push(await oneEngine(i))
        if (i % 100 === 0) {
          // Native finalizers run on a later turn of the event loop.
          global.gc()
          await new Promise((resolve) => setImmediate(resolve))
          global.gc()
          const m = process.memoryUsage()
          samples.push({ heap: m.heapUsed / 1e6, rss: m.rss / 1e6 })
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
      global.gc()
      await new Promise((resolve) => setTimeout(resolve, 20))
      const left = refs.filter((ref) => ref.deref() !== undefined).length
      console.log(JSON.stringify({ left, samples }))
    }
    main()
  `, { timeout: 120000, args: ['--expose-gc'] })
  exitedCleanly(r)
  const { left, samples } = JSON.parse(r.stdout)
  assert.equal(left, 0, 'every dropped engine was collected')
  const quarter = samples.length / 4
  const mean = (list, key) => list.reduce((sum, s) => sum + s[key], 0) / list.length
  const growth = (key) => mean(samples.slice(-quarter), key) - mean(samples.slice(0, quarter), key)
  assert.ok(growth('heap') < 5, `the JS heap grew ${growth('heap').toFixed(1)} MB from the first to the last quarter`)
  assert.ok(growth('rss') < 50, `RSS grew ${growth('rss').toFixed(1)} MB from the first to the last quarter`)
})

test('no unhandled rejections and no chains left', async () => {
  await sleep(20)
  assert.deepEqual(unhandled, [])
  assert.equal(radium.pendingChains(), 0)
})
