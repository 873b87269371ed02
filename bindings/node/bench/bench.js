'use strict'
// A 5-hook JS chain on a 4 KiB context, per call, for execute() and
// executeAsync() (the same context as bindings/lua/bench/bench.lua).
//   node bindings/node/bench/bench.js [iterations]      (scripts/bench-node.sh)

const { performance } = require('node:perf_hooks')

const t0 = performance.now()
const radium = require('..')
const requireMs = performance.now() - t0

const iterations = Number(process.argv[2]) || 20000
const selection = 'fn main() { let x = 1; } '.repeat(156)
const data = { tool_name: 'apply', file_path: '/work/src/main.rs', language: 'rust', workspace: '/work', selection }
const size = JSON.stringify(data).length

function engineWith(count, make) {
  const engine = new radium.Engine()
  for (let i = 1; i <= count; i++) engine.register(`hook-${i}`, 'before_tool', make(i))
  return engine
}

const fmt = (us) => (us < 10 ? us.toFixed(2) : us.toFixed(1))
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ROUNDS = 5

// Per-call time: the median of ROUNDS rounds, after a warm-up of a tenth.
function benchSync(label, engine) {
  const per = Math.max(1, Math.floor(iterations / ROUNDS))
  for (let i = 0; i < iterations / 10; i++) engine.execute('before_tool', data)
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    for (let i = 0; i < per; i++) engine.execute('before_tool', data)
    rounds.push(((performance.now() - start) * 1000) / per)
  }
  console.log(`execute      ${label}: context ${size} bytes, ${per * ROUNDS} calls, ${fmt(median(rounds))} us per call`)
}

async function benchAsync(label, engine, inFlight = 1) {
  const per = Math.max(1, Math.floor(iterations / ROUNDS / inFlight)) * inFlight
  const batch = () => Promise.all(Array.from({ length: inFlight }, () => engine.executeAsync('before_tool', data)))
  for (let i = 0; i < iterations / 10; i += inFlight) await batch()
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    for (let i = 0; i < per; i += inFlight) await batch()
    rounds.push(((performance.now() - start) * 1000) / per)
  }
  const mode = inFlight === 1 ? 'awaited one by one' : `${inFlight} in flight`
  console.log(`executeAsync ${label}: context ${size} bytes, ${per * ROUNDS} calls (${mode}), ${fmt(median(rounds))} us per call`)
}

async function main() {
  const cases = [
    ['js_5_noop_hooks_4k', engineWith(5, () => () => {})],
    ['js_5_reading_hooks_4k', engineWith(5, () => (ctx) => { if (ctx.data.selection.length === 0) throw new Error('empty') })],
    ['js_5_modifying_hooks_4k', engineWith(5, () => (ctx) => {
      ctx.data.count = (ctx.data.count || 0) + 1
      return { action: 'modify', data: ctx.data }
    })],
    ['empty_chain_4k (conversion only)', engineWith(0)],
  ]
  for (const [label, engine] of cases) benchSync(label, engine)
  for (const [label, engine] of cases) await benchAsync(label, engine)
  await benchAsync('js_5_noop_hooks_4k', cases[0][1], 64)
  const asyncHooks = engineWith(5, () => async () => {})
  await benchAsync('js_5_async_noop_hooks_4k', asyncHooks)
  console.log(`require('radium-node'): ${(requireMs * 1000).toFixed(0)} us`)
}

main().catch((e) => { console.error(e); process.exit(1) })
