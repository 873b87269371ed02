// drive.mjs — an editor in a few lines, for scripts/test-agents.sh's `acp-*`
// cases: the official ACP TypeScript SDK's ClientSideConnection drives
// `rad acp <agent>` (stdin/stdout of this process's child), allows every
// permission request the editor is asked, and sends each prompt of argv in
// turn. After each prompt it prints one JSON line: the prompt, its stop
// reason (or error), the text streamed during it, how many permission
// requests reached the editor, and the content of each file named in
// $WATCH (comma-separated paths; null: no such file). With $LOAD (a session
// id), the session is loaded (`session/load`) instead of a new one, and the
// first line names the prompts its replay sent the editor; with $RESUME (a
// session id), it is resumed (`session/resume`, no replay).
//
//   ACP_SDK_MODULES=... WATCH=a.txt,b.txt node drive.mjs RAD AGENT PROMPT...
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'

const [rad, agent, ...prompts] = process.argv.slice(2)
const acp = await import(join(process.env.ACP_SDK_MODULES, '@agentclientprotocol/sdk/dist/acp.js'))
const watch = (process.env.WATCH ?? '').split(',').filter(Boolean)
const child = spawn(rad, ['acp', agent], { stdio: ['pipe', 'pipe', 'inherit'] })
let text = ''
let permissions = 0
let commands = []
const replayed = []
const client = {
  async requestPermission (params) {
    permissions++
    const option = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0]
    return { outcome: { outcome: 'selected', optionId: option.optionId } }
  },
  async sessionUpdate ({ update }) {
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') text += update.content.text
    if (update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text') replayed.push(update.content.text)
    if (update.sessionUpdate === 'available_commands_update') commands = update.availableCommands.map((c) => c.name)
  },
  async writeTextFile () { throw new Error('the editor offered no fs') },
  async readTextFile () { throw new Error('the editor offered no fs') }
}
const conn = new acp.ClientSideConnection(() => client, acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)))
const read = (p) => { try { return readFileSync(p, 'utf8') } catch { return null } }
const init = await conn.initialize({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } })
let sessionId = process.env.LOAD || process.env.RESUME
if (process.env.LOAD) {
  // The replay comes before the answer.
  await conn.loadSession({ sessionId, cwd: process.cwd(), mcpServers: [] })
} else if (sessionId) {
  await conn.resumeSession({ sessionId, cwd: process.cwd(), mcpServers: [] })
} else {
  sessionId = (await conn.newSession({ cwd: process.cwd(), mcpServers: [] })).sessionId
}
console.log(JSON.stringify({ initialized: init.protocolVersion, radium: init._meta?.radium ?? null, sessionId, replayed }))
for (const prompt of prompts) {
  text = ''
  permissions = 0
  let line
  try {
    const end = await conn.prompt({ sessionId, prompt: [{ type: 'text', text: prompt }] })
    line = { prompt, stopReason: end.stopReason }
  } catch (e) {
    line = { prompt, error: e.message ?? String(e) }
  }
  Object.assign(line, { text, permissions, commands, files: Object.fromEntries(watch.map((p) => [p, read(p)])) })
  console.log(JSON.stringify(line))
}
child.stdin.end()
const code = await new Promise((resolve) => child.on('exit', resolve))
console.log(JSON.stringify({ exit: code }))
