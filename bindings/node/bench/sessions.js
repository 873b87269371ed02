'use strict'
// The Node door's session benchmark: a turn of the example ACP agent (a real
// Node process) streaming `stream <n> <size>`, every chunk delivered to the
// JS thread through the session's async iterator. Each turn is timed from
// the prompt to its turn_end event in JS; prints the median per turn and per
// chunk, and the event loop's longest delay while the turns ran.
//   node bindings/node/bench/sessions.js [turns]
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { monitorEventLoopDelay } = require('node:perf_hooks')
const { Engine } = require('..')
const { openSession } = require('../session')

const turns = Number(process.argv[2] || 20)
const agent = path.resolve(__dirname, '../../../examples/acp-agent/agent.mjs')

async function run (session, count, n, size) {
  const times = []
  for (let i = 0; i < count; i++) {
    let chunks = 0
    const t0 = process.hrtime.bigint()
    for await (const event of session.prompt(`stream ${n} ${size}`)) {
      if (event.type === 'text') chunks++
      if (event.type === 'error') throw new Error(event.message)
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e3)
    if (chunks !== n) throw new Error(`${chunks} chunks, expected ${n}`)
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(count / 2)]
  console.log(`stream ${n} x ${size} B: ${(median / 1e3).toFixed(2)} ms per turn, ` +
    `${(median / n).toFixed(2)} us per chunk (median of ${count} turns)`)
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-bench-'))
  fs.writeFileSync(path.join(dir, 'agents.toml'),
    `[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(agent)}]\n`)
  const engine = new Engine({ workspace: dir, radium_home: dir })
  const started = process.hrtime.bigint()
  const session = await openSession(engine, 'example')
  console.log(`session open to ready: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)} ms`)
  await run(session, 3, 100, 64) // warm-up
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  await run(session, turns, 1000, 64)
  await run(session, turns, 256, 4096)
  delay.disable()
  console.log(`event loop delay while streaming: p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms, ` +
    `max ${(delay.max / 1e6).toFixed(2)} ms`)
  session.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

main().catch((e) => { console.error(e); process.exit(1) })
