'use strict'
// The send-selection round trip through the Node door (see
// core/examples/roundtrip.rs): two `request` calls with JS objects in and
// out, 5 no-op JS hooks on before_tool. Prints microseconds per round trip.
//   node bindings/node/bench/roundtrip.js [vectors] [iterations] [rad]   (scripts/bench-roundtrip.sh)
// With the path of `rad`, the same requests are made by spawning it instead.

const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const radium = require('..')

const file = process.argv[2] || path.join(__dirname, '..', '..', '..', 'tests', 'vectors', 'roundtrip.txt')
const iterations = Number(process.argv[3]) || 2000
const [before, after] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
if (process.argv[4]) {
  // The old way: one `rad request` process per request (execFileSync), the
  // answer parsed as the in-process door hands it over.
  const { execFileSync } = require('node:child_process')
  const rad = process.argv[4]
  const [b, a] = [JSON.stringify(before), JSON.stringify(after)]
  const start = performance.now()
  for (let i = 0; i < iterations; i++) {
    const x = JSON.parse(execFileSync(rad, ['request', b]))
    const y = JSON.parse(execFileSync(rad, ['request', a]))
    if (!x.ok || y.data.data.result.block_count !== 3) throw new Error('unexpected answers from rad')
  }
  console.log((((performance.now() - start) * 1000) / iterations).toFixed(1))
  process.exit(0)
}
const engine = new radium.Engine()
for (let i = 1; i <= 5; i++) engine.register(`noop-${i}`, 'before_tool', () => {})

function roundTrip() {
  const a = engine.request(before)
  const b = engine.request(after)
  if (!a.ok || a.data.status !== 'completed' || b.data.data.result.block_count !== 3) {
    throw new Error(`unexpected answers: ${JSON.stringify(a).slice(0, 200)} ${JSON.stringify(b).slice(0, 200)}`)
  }
}

for (let i = 0; i < iterations / 10; i++) roundTrip()
const start = performance.now()
for (let i = 0; i < iterations; i++) roundTrip()
console.log((((performance.now() - start) * 1000) / iterations).toFixed(1))
