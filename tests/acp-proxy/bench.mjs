// bench.mjs — what `rad acp` adds to each message it relays, against the
// agent alone. The editor is the official ACP TypeScript SDK's
// ClientSideConnection; the agent is the example agent, whose `stamp <n>
// [ms]` prompt sends n chunks, each the monotonic clock (ns) when it was
// written. Each chunk's latency is its arrival in the editor's
// `sessionUpdate` minus that stamp (the same clock: one machine). Turns
// alternate: the agent alone, then behind `rad acp`, in the same run; how
// many times rad acp's threads went to sleep per chunk 1 ms apart (each a
// thread woken for it: the hops of one message) and the CPU time they ran
// per chunk, and (RADIUM_ACP_TIMING) the relay's own cost per message in
// that `rad acp`: from its read of the agent's line to the return of its
// write to the editor, p50 / p99 / max. The back-to-back turns run through
// a second `rad acp` (their queueing is not the relay's cost). Then that
// one's resident size (VmRSS of /proc/<pid>/status) before and after each
// of 8 bursts of 10,000 relayed updates.
//
//   RAD=target/release/rad ACP_SDK_MODULES=.../node_modules node tests/acp-proxy/bench.mjs [--quick]
//
// --quick: a few turns, for scripts/test.sh (the figures are not meant then).
import { spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const RAD = resolve(process.env.RAD ?? join(repo, 'target/release/rad'))
const acp = await import(join(process.env.ACP_SDK_MODULES, '@agentclientprotocol/sdk/dist/acp.js'))
const quick = process.argv.includes('--quick')
const agentCommand = ['node', join(repo, 'examples/acp-agent/agent.mjs')]

const dir = mkdtempSync(join(tmpdir(), 'rad-acp-bench-'))
const ws = join(dir, 'ws')
const home = join(dir, 'home')
mkdirSync(ws)
mkdirSync(home)
writeFileSync(join(home, 'agents.toml'), `[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ${JSON.stringify(agentCommand)}\n`)

/** An editor connected to `command`: its session, and a prompt that answers each chunk's latency (µs). */
async function editor (command, env = {}) {
  const child = spawn(command[0], command.slice(1), { cwd: ws, env: { ...process.env, RADIUM_HOME: home, ...env }, stdio: ['pipe', 'pipe', 'inherit'] })
  let latencies = []
  let updates = 0
  const client = {
    async requestPermission () { return { outcome: { outcome: 'cancelled' } } },
    async sessionUpdate ({ update }) {
      const now = process.hrtime.bigint()
      updates++
      if (update.sessionUpdate !== 'agent_message_chunk') return
      const sent = /^(\d+) $/.exec(update.content.text ?? '')
      if (sent) latencies.push(Number(now - BigInt(sent[1])) / 1000)
    }
  }
  const conn = new acp.ClientSideConnection(() => client, acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)))
  await conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  const { sessionId } = await conn.newSession({ cwd: ws, mcpServers: [] })
  return {
    pid: child.pid,
    updates: () => updates,
    async prompt (text) {
      latencies = []
      const started = process.hrtime.bigint()
      const end = await conn.prompt({ sessionId, prompt: [{ type: 'text', text }] })
      if (end.stopReason !== 'end_turn') throw new Error(`${text}: ${end.stopReason}`)
      latencies.turn = Number(process.hrtime.bigint() - started) / 1000
      return latencies
    },
    close () { child.stdin.end(); return new Promise((resolve) => child.on('exit', resolve)) }
  }
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] }
/** How many times the threads of process `pid` went to sleep waiting (voluntary context switches, all threads). */
const sleeps = (pid) => readdirSync(`/proc/${pid}/task`).reduce((n, t) => {
  try { return n + Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${t}/status`, 'utf8'))[1]) } catch { return n }
}, 0)
/** The CPU time (ns) the threads of process `pid` have run (the first field of each thread's schedstat). */
const cpu = (pid) => readdirSync(`/proc/${pid}/task`).reduce((n, t) => {
  try { return n + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]) } catch { return n }
}, 0)
const rss = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1])
const us = (x) => `${x.toFixed(1)} µs`

const timed = join(dir, 'timing.json')
const alone = await editor(agentCommand)
const proxied = await editor([RAD, 'acp', 'example'], { RADIUM_ACP_TIMING: timed })
const flooded = await editor([RAD, 'acp', 'example'])
const rounds = quick ? 1 : 10
const paced = quick ? 100 : 500
const flood = quick ? 1000 : 2000
const got = { alone: { paced: [], flood: [], turns: [] }, proxied: { paced: [], flood: [], turns: [] } }
let wakes = 0
let ran = 0
// A turn each first, not counted (the code paths warm up).
await alone.prompt('stamp 50')
await proxied.prompt('stamp 50')
for (let r = 0; r < rounds; r++) {
  for (const [name, side, fast] of [['alone', alone, alone], ['proxied', proxied, flooded]]) {
    const [slept, worked] = [sleeps(proxied.pid), cpu(proxied.pid)]
    got[name].paced.push(...await side.prompt(`stamp ${paced} 1`))
    if (side === proxied) [wakes, ran] = [wakes + sleeps(proxied.pid) - slept, ran + cpu(proxied.pid) - worked]
    const turn = await fast.prompt(`stamp ${flood}`)
    got[name].flood.push(...turn)
    got[name].turns.push(turn.turn / flood)
  }
}
console.log(`chunk latency from the agent's write to the editor's sessionUpdate (${rounds} rounds, turns alternating)`)
console.log('| turn | agent alone p50 / p99 | through rad acp p50 / p99 | added p50 / p99 |')
console.log('|---|---|---|---|')
for (const kind of ['paced', 'flood']) {
  const a = got.alone[kind]
  const p = got.proxied[kind]
  const label = kind === 'paced' ? `${paced} chunks 1 ms apart` : `${flood} chunks back to back`
  if (a.length !== p.length || a.length !== rounds * (kind === 'paced' ? paced : flood)) throw new Error(`${kind}: ${a.length} and ${p.length} chunks arrived`)
  console.log(`| ${label} (${a.length} each) | ${us(pct(a, 50))} / ${us(pct(a, 99))} | ${us(pct(p, 50))} / ${us(pct(p, 99))} | ${us(pct(p, 50) - pct(a, 50))} / ${us(pct(p, 99) - pct(a, 99))} |`)
}
console.log(`rad acp per relayed chunk 1 ms apart (all its threads, over the turn): threads woken (voluntary context switches) ${(wakes / (rounds * paced)).toFixed(2)}, CPU time ${us(ran / 1000 / (rounds * paced))}`)
const [a, p] = [pct(got.alone.turns, 50), pct(got.proxied.turns, 50)]
console.log(`back to back, per chunk (a turn's time / its chunks, median of ${rounds}): agent alone ${us(a)}, through rad acp ${us(p)} (added ${us(p - a)})`)
// Memory: the resident size of `rad acp` before and after each burst of 10,000 relayed updates.
// ACP_BENCH_BURST, ACP_BENCH_BURSTS: another size and count of bursts.
const n = Number(process.env.ACP_BENCH_BURST ?? (quick ? 2000 : 10000))
const bursts = Number(process.env.ACP_BENCH_BURSTS ?? (quick ? 2 : 8))
const sizes = [rss(flooded.pid)]
const at = [flooded.updates()]
for (let i = 0; i < bursts; i++) {
  await flooded.prompt(`stream ${n} 64`)
  sizes.push(rss(flooded.pid))
  at.push(flooded.updates())
}
console.log(`rad acp VmRSS: ${sizes.map((k, i) => `${(k / 1024).toFixed(1)} MiB${i ? ` (+${i * n})` : ''}`).join(' -> ')} (before the bursts (${at[0]} updates relayed then), then after each ${n} more; ${flooded.updates()} updates in all)`)
await alone.close()
await proxied.close()
await flooded.close()
// The relay's own cost per message (rad acp writes it when it ends).
const cost = JSON.parse(readFileSync(timed, 'utf8'))
if (!(cost.count >= rounds * paced)) throw new Error(`rad acp timed ${cost.count} messages`)
console.log(`rad acp's own cost per relayed message, from its read of the agent's line to its write to the editor (${cost.count} messages of the paced turns): p50 ${us(cost.p50_us)}, p99 ${us(cost.p99_us)}, max ${us(cost.max_us)}`)
