'use strict'
// The send-selection round trip through the Node door (see
// core/examples/roundtrip.rs): two `request` calls with JS objects in and
// out, 5 no-op JS hooks on before_tool.
//   node roundtrip.js <vectors> <iterations> [<rad> <hooked-home> <bare-home> <spawns>]
// prints microseconds per round trip in-process and, given `rad`, for the
// same two requests made the old way: one `rad request` process each
// (execFileSync, the answer parsed as the in-process door hands it over),
// with RADIUM_HOME set to each home. The measurements take turns in 15
// rounds; each figure is its best round (this 2-core machine's speed varies
// from second to second).

const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { execFileSync } = require('node:child_process')
const radium = require('..')

const file = process.argv[2] || path.join(__dirname, '..', '..', '..', 'tests', 'vectors', 'roundtrip.txt')
const iterations = Number(process.argv[3]) || 2000
const [rad, hooked, bare] = process.argv.slice(4, 7)
const spawns = Number(process.argv[7]) || 0
const [before, after] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))

const engine = new radium.Engine()
for (let i = 1; i <= 5; i++) engine.register(`noop-${i}`, 'before_tool', () => {})

function roundTrip() {
  const a = engine.request(before)
  const b = engine.request(after)
  if (!a.ok || a.data.status !== 'completed' || b.data.data.result.block_count !== 3) {
    throw new Error(`unexpected answers: ${JSON.stringify(a).slice(0, 200)} ${JSON.stringify(b).slice(0, 200)}`)
  }
}

function spawner(home) {
  const env = { ...process.env, RADIUM_HOME: home }
  const [b, a] = [JSON.stringify(before), JSON.stringify(after)]
  return () => {
    const x = JSON.parse(execFileSync(rad, ['request', b], { env }))
    const y = JSON.parse(execFileSync(rad, ['request', a], { env }))
    if (!x.ok || y.data.data.result.block_count !== 3) throw new Error('unexpected answers from rad')
  }
}

function time(calls, f) {
  const start = performance.now()
  for (let i = 0; i < calls; i++) f()
  return ((performance.now() - start) * 1000) / calls
}

const ROUNDS = 15
const measured = [[roundTrip, Math.max(1, Math.floor(iterations / ROUNDS))]]
if (rad) for (const home of [hooked, bare]) measured.push([spawner(home), Math.max(1, Math.floor(spawns / ROUNDS))])
for (let i = 0; i < iterations / 10; i++) roundTrip()
const best = measured.map(() => Infinity)
for (let r = 0; r < ROUNDS; r++) {
  measured.forEach(([f, calls], i) => {
    // After the spawns, an untimed round warms the caches again (and takes
    // the page faults a fork leaves the parent).
    if (i === 0) time(calls, f)
    best[i] = Math.min(best[i], time(calls, f))
  })
}
console.log(best.map((us) => us.toFixed(1)).join(' '))
