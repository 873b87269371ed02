'use strict'
// The extension host's event-loop delay while an agent floods the chat: the
// compiled extension (out/, `tsc -p .` first) activated against the stand-in
// `vscode` module of the tests, its chat view opened, the real engine (the
// native module) and the example ACP agent (examples/acp-agent/agent.mjs),
// a prompt sent the way the webview sends one. Each turn's delay is measured
// with `perf_hooks.monitorEventLoopDelay({ resolution: 1 })` from the
// prompt until the view has the turn's end. What the view is sent is
// serialized as VS Code serializes a webview message (JSON), and its count
// and bytes are reported.
//
//   node bindings/vscode/bench/host.js [--runs N] [--json FILE] [--streams a,b,c,d]
//
// Streams: (a) `stream 20000 64`, 20,000 chunks of 64 B; (b) `toolflood
// 4000`, a tool call whose output streams 4,000 short lines, one update a
// line; (c) `stream 20000 1024`, 1 KiB chunks at full speed; (d) `stream
// 1280 4096`, a 5 MB answer. Runs as a node:test file (its TAP lines, then
// the figures).

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { monitorEventLoopDelay } = require('node:perf_hooks')

const { setup, reset, commands, openView } = require('../test/stand-in.js')

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : fallback
}
const runs = Number(arg('--runs', '3'))

const STREAMS = [
  ['(a) 20,000 chunks of 64 B', 'stream 20000 64'],
  ['(b) 4,000 short lines through a tool call', 'toolflood 4000'],
  ['(c) 1 KiB chunks at full speed (20 MB)', 'stream 20000 1024'],
  ['(d) a 5 MB answer', 'stream 1280 4096'],
]

setup()
after(() => commands['radium.newChat']?.())

async function until(what, check, ms = 300000) {
  const end = Date.now() + ms
  for (;;) {
    if (check()) return
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** One turn: the event-loop delay while it runs, and what the view was sent. */
async function turn(v, sent, prompt) {
  const ends = () => sent.list.filter((m) => m.type === 'turnEnd' || m.type === 'error').length
  const before = ends()
  sent.count = 0
  sent.bytes = 0
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  const t0 = Date.now()
  await v.send({ type: 'send', text: prompt })
  await until(`the end of "${prompt}"`, () => ends() > before)
  const ms = Date.now() - t0
  h.disable()
  const end = sent.list.filter((m) => m.type === 'turnEnd' || m.type === 'error').at(-1)
  assert.equal(end.type, 'turnEnd', JSON.stringify(end))
  const f = (ns) => Math.round(ns / 1e4) / 100
  return { ms, p50: f(h.percentile(50)), p99: f(h.percentile(99)), max: f(h.max), messages: sent.count, bytes: sent.bytes }
}

test('the extension host under floods', { timeout: 1800000 }, async () => {
  reset({})
  const v = openView('radium.chatView')
  // What VS Code does with each message to a webview: serialize it.
  const sent = { list: [], count: 0, bytes: 0 }
  v.view.webview.postMessage = async (m) => {
    const json = JSON.stringify(m)
    sent.count++
    sent.bytes += json.length
    // Keep the small messages only (the turn's end, its figures).
    sent.list.push(json.length > 4096 ? { type: m.type } : m)
    return true
  }
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  await turn(v, sent, 'hello') // the agent started, warm
  const report = { node: process.version, runs, results: [] }
  const only = arg('--streams')
  for (const [name, prompt] of STREAMS.filter(([name]) => !only || only.split(',').includes(name[1]))) {
    let best
    for (let r = 0; r < runs; r++) {
      await v.send({ type: 'newChat' })
      const figures = await turn(v, sent, prompt)
      if (!best || figures.p99 < best.p99) best = figures
    }
    report.results.push({ stream: name, prompt, ...best })
    console.log(
      `${name} (${prompt}): turn ${best.ms} ms; event-loop delay p50 ${best.p50} ms, p99 ${best.p99} ms, max ${best.max} ms; ${best.messages} view messages, ${(best.bytes / 1e6).toFixed(1)} MB (best p99 of ${runs})`,
    )
  }
  const json = arg('--json')
  if (json) fs.writeFileSync(json, JSON.stringify(report, null, 2))
})
