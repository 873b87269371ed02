// bench.mjs — what `rad acp` adds to each message it relays, against the
// agent alone. The editor is the official ACP TypeScript SDK's
// ClientSideConnection; the agent is the example agent, whose `stamp <n>
// [ms]` prompt sends n chunks, each the monotonic clock (ns) when it was
// written. Each chunk's latency is its arrival in the editor's
// `sessionUpdate` minus that stamp (the same clock: one machine). Turns
// alternate: the agent alone, then behind `rad acp`, in the same run; how
// many times rad acp's threads went to sleep per chunk 1 ms apart (each a
// thread woken for it: the hops of one message) and the CPU time they ran
// per chunk. Then the resident size of `rad acp` (VmRSS of /proc/<pid>/status) before and
// after 10,000 relayed updates, twice.
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
async function editor (command) {
  const child = spawn(command[0], command.slice(1), { cwd: ws, env: { ...process.env, RADIUM_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] })
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

const alone = await editor(agentCommand)
const proxied = await editor([RAD, 'acp', 'example'])
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
  for (const [name, side] of [['alone', alone], ['proxied', proxied]]) {
    const [slept, worked] = [sleeps(proxied.pid), cpu(proxied.pid)]
    got[name].paced.push(...await side.prompt(`stamp ${paced} 1`))
    if (side === proxied) [wakes, ran] = [wakes + sleeps(proxied.pid) - slept, ran + cpu(proxied.pid) - worked]
    const turn = await side.prompt(`stamp ${flood}`)
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
// Memory: the resident size of `rad acp` before and after 10,000 relayed updates, twice.
const n = quick ? 2000 : 10000
const before = rss(proxied.pid)
const sizes = [before]
for (let i = 0; i < 4; i++) {
  await proxied.prompt(`stream ${n} 64`)
  sizes.push(rss(proxied.pid))
}
console.log(`rad acp VmRSS: ${sizes.map((k) => `${(k / 1024).toFixed(1)} MiB`).join(' -> ')} (before, then after each ${n} more relayed updates; ${proxied.updates()} updates in all)`)
await alone.close()
await proxied.close()
