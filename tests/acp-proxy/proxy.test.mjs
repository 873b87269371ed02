// `rad acp` driven as an editor drives it: the official ACP TypeScript SDK's
// ClientSideConnection (@agentclientprotocol/sdk 1.x) on one side, `rad acp
// <agent>` in the middle, an ACP agent behind it (the example agent, or the
// agent named by RAD_ACP_AGENT with its agents.toml in RAD_ACP_HOME).
//
//   RAD=target/debug/rad ACP_SDK_MODULES=.../node_modules node --test tests/acp-proxy/proxy.test.mjs
//
// Each test starts its own `rad acp` in a fresh workspace and RADIUM_HOME,
// in a process group of its own; whatever happens in the test (a failed
// assertion, a hang cut short), its `rad acp` children end after it.
import { test as nodeTest, afterEach, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync, existsSync, mkdirSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '../..')
const RAD = resolve(process.env.RAD ?? join(repo, 'target/debug/rad'))
const modules = process.env.ACP_SDK_MODULES
if (!modules) throw new Error('ACP_SDK_MODULES must name the node_modules holding @agentclientprotocol/sdk (scripts/ensure-acp-sdk.sh)')
const acp = await import(join(modules, '@agentclientprotocol/sdk/dist/acp.js'))

/** How long a test may take before it fails (its children then end too). */
const TIMEOUT = Number(process.env.ACP_TEST_TIMEOUT_MS ?? 180000)
const test = (name, fn) => nodeTest(name, { timeout: TIMEOUT }, fn)

/** The `rad acp` children still running (see `spawnRad`). */
const children = new Set()

/** `rad acp example` with `options`, in a process group of its own, ended after the test whatever happens. */
function spawnRad (options) {
  const child = spawn(RAD, ['acp', 'example'], { ...options, detached: true })
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

/** A promise of `value` after `ms`, whose timer does not keep the test process alive (the file ended 30 s after its last test). */
const later = (ms, value) => new Promise((resolve) => setTimeout(resolve, ms, value).unref())

const running = (child) => child.exitCode === null && child.signalCode === null

/** Ends `child`: its stdin closed (rad acp then ends its agents), else after 5 s SIGKILL to its process group; its pipes closed. */
async function end (child) {
  if (running(child)) {
    try { child.stdin.end() } catch {}
    await Promise.race([new Promise((resolve) => child.once('exit', resolve)), later(5000)])
  }
  if (running(child)) {
    try { process.kill(-child.pid, 'SIGKILL') } catch { try { child.kill('SIGKILL') } catch {} }
  }
  for (const s of [child.stdin, child.stdout, child.stderr]) s?.destroy()
  children.delete(child)
}

afterEach(async () => { await Promise.all([...children].map(end)) })
after(async () => { await Promise.all([...children].map(end)) })
process.on('exit', () => { for (const child of children) { try { process.kill(-child.pid, 'SIGKILL') } catch {} } })

/** A workspace and a RADIUM_HOME with the example agent and a hook that refuses writes to `denied*`. */
function home (flags = ['--load']) {
  const dir = mkdtempSync(join(tmpdir(), 'rad-acp-'))
  const ws = join(dir, 'ws')
  const radHome = join(dir, 'home')
  mkdirSync(ws, { recursive: true })
  const ext = join(radHome, 'extensions/no-denied')
  mkdirSync(join(ext, 'hooks'), { recursive: true })
  writeFileSync(join(radHome, 'agents.toml'),
    `[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ${JSON.stringify(['node', join(repo, 'examples/acp-agent/agent.mjs'), ...flags])}\n`)
  writeFileSync(join(ext, 'radium-extension.json'),
    '{"name": "no-denied", "version": "1.0.0", "description": "no denied files", "components": {"hooks": ["hooks/*.toml"]}}')
  writeFileSync(join(ext, 'hooks/no-denied.toml'), '[[hooks]]\nname = "no-denied"\ntype = "before_tool"\nscript = "no-denied.sh"\n')
  writeFileSync(join(ext, 'no-denied.sh'), "#!/bin/sh\nif grep -q 'denied'; then echo 'no denied files here' >&2; exit 2; fi\n")
  chmodSync(join(ext, 'no-denied.sh'), 0o755)
  // The example agent keeps its sessions (and its sign-in) here.
  const env = { EXAMPLE_AGENT_STATE: join(dir, 'state'), EXAMPLE_AGENT_AUTH_FILE: join(dir, 'signed-in') }
  mkdirSync(env.EXAMPLE_AGENT_STATE)
  return { dir, ws, radHome, env }
}

/** `rad acp example` in `h`'s workspace, with an SDK client; `answers` picks permission options. */
function start (h, { allow = true } = {}) {
  const child = spawnRad({
    cwd: h.ws,
    env: { ...process.env, ...h.env, RADIUM_HOME: h.radHome },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  const seen = { updates: [], permissions: [], reads: [], text: () => seen.updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').map((u) => u.update.content.text ?? '').join('') }
  const client = {
    async requestPermission (params) {
      seen.permissions.push(params)
      const kind = allow ? 'allow_once' : 'reject_once'
      const option = params.options.find((o) => o.kind === kind)
      return { outcome: { outcome: 'selected', optionId: option.optionId } }
    },
    async sessionUpdate (params) { seen.updates.push(params) },
    async extMethod (method, params) { return { method, from: params._meta?.from ?? null } },
    async readTextFile (params) {
      seen.reads.push(params.path)
      return { content: 'unsaved text of the editor\n' }
    }
  }
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout))
  const conn = new acp.ClientSideConnection(() => client, stream)
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, conn, seen, exited, stderr: () => stderr }
}

/** initialize and session/new; answers the session id. */
async function open (t, h) {
  const init = await t.conn.initialize({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } })
  assert.equal(init.protocolVersion, 1)
  assert.ok(init._meta?.radium?.commands?.includes('/undo'), JSON.stringify(init))
  const session = await t.conn.newSession({ cwd: h.ws, mcpServers: [] })
  assert.ok(session.sessionId)
  return session.sessionId
}

const say = (conn, sessionId, text) => conn.prompt({ sessionId, prompt: [{ type: 'text', text }] })

async function stop (t) {
  t.child.stdin.end()
  const code = await Promise.race([t.exited, later(30000, 'timeout')])
  if (code === 'timeout') { try { process.kill(-t.child.pid, 'SIGKILL') } catch {} }
  return code
}

test('a turn streams through; an edit asks the editor after the hooks; radium commands are listed', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  const end = await say(t.conn, id, 'write notes.txt hello there')
  assert.equal(end.stopReason, 'end_turn')
  assert.equal(readFileSync(join(h.ws, 'notes.txt'), 'utf8'), 'hello there\n')
  assert.equal(t.seen.permissions.length, 1)
  assert.equal(t.seen.permissions[0].sessionId, id)
  assert.equal(t.seen.permissions[0].toolCall.rawInput.content, 'hello there\n', 'the request as the agent sent it')
  assert.ok(t.seen.updates.some((u) => u.update.sessionUpdate === 'tool_call'), 'the tool call streamed')
  const commands = t.seen.updates.filter((u) => u.update.sessionUpdate === 'available_commands_update')
  assert.ok(commands.length >= 1)
  const names = commands.at(-1).update.availableCommands.map((c) => c.name)
  for (const n of ['undo', 'redo', 'rewind', 'changes', 'hooks']) assert.ok(names.includes(n), names.join(','))
  assert.equal(await stop(t), 0)
})

test('the editor\'s MCP servers reach the agent beside radium\'s rad mcp', async () => {
  const h = home()
  const t = start(h)
  await t.conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  const editorServer = { name: 'editor-tool', command: '/bin/true', args: ['x'], env: [] }
  const { sessionId } = await t.conn.newSession({ cwd: h.ws, mcpServers: [editorServer] })
  await say(t.conn, sessionId, 'mcpservers')
  const servers = JSON.parse(t.seen.text())
  assert.ok(servers.some((s) => s.name === 'editor-tool' && s.args[0] === 'x'), t.seen.text())
  assert.ok(servers.some((s) => s.name !== 'editor-tool' && s.args?.includes('mcp')), 'rad mcp is passed too: ' + t.seen.text())
  assert.equal(await stop(t), 0)
})

test('the agent reads the editor\'s unsaved buffer when the editor offers fs reads, else the disk', async () => {
  const h = home()
  writeFileSync(join(h.ws, 'notes.txt'), 'saved text on disk\n')
  const t = start(h)
  await t.conn.initialize({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } } })
  const { sessionId } = await t.conn.newSession({ cwd: h.ws, mcpServers: [] })
  await say(t.conn, sessionId, 'read notes.txt')
  assert.match(t.seen.text(), /unsaved text of the editor/)
  assert.deepEqual(t.seen.reads, [join(h.ws, 'notes.txt')])
  // A path outside the workspace is refused by radium, never asked of the editor.
  // (the example agent then fails its turn with radium's refusal).
  await assert.rejects(say(t.conn, sessionId, 'read /etc/hostname'), /outside the project/)
  assert.equal(t.seen.reads.length, 1)
  await stop(t)
  const t2 = start(h)
  const id = await open(t2, h)
  await say(t2.conn, id, 'read notes.txt')
  assert.match(t2.seen.text(), /saved text on disk/)
  assert.equal(t2.seen.reads.length, 0)
  await stop(t2)
})

test('a hook denial never reaches the editor', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  const end = await say(t.conn, id, 'write denied.txt secret')
  assert.equal(end.stopReason, 'end_turn')
  assert.equal(t.seen.permissions.length, 0, 'the editor was not asked')
  assert.ok(!existsSync(join(h.ws, 'denied.txt')))
  assert.match(t.seen.text(), /not allowed to write/)
  await say(t.conn, id, '/hooks')
  assert.match(t.seen.text(), /refused by hook:no-denied: .*no denied files here/)
  await stop(t)
})

test('/undo restores both files of a two-file turn, /redo writes them again, /changes shows the diff', async () => {
  const h = home()
  writeFileSync(join(h.ws, 'a.txt'), 'a before\n')
  writeFileSync(join(h.ws, 'b.txt'), 'b before\n')
  const t = start(h)
  const id = await open(t, h)
  await say(t.conn, id, 'twowrite a.txt b.txt new text')
  assert.equal(readFileSync(join(h.ws, 'a.txt'), 'utf8'), 'new text again\n')
  assert.equal(readFileSync(join(h.ws, 'b.txt'), 'utf8'), 'new text\n')
  await say(t.conn, id, '/changes')
  // The turn as radium recorded it: a.txt before the turn (two writes) against now.
  assert.match(t.seen.text(), /-a before\n\+new text again\n/)
  const undo = await say(t.conn, id, '/undo')
  assert.equal(undo.stopReason, 'end_turn')
  assert.equal(readFileSync(join(h.ws, 'a.txt'), 'utf8'), 'a before\n')
  assert.equal(readFileSync(join(h.ws, 'b.txt'), 'utf8'), 'b before\n')
  assert.match(t.seen.text(), /radium: undone: .*a\.txt/)
  await say(t.conn, id, '/changes')
  assert.match(t.seen.text(), /the files show nothing of the last turn/)
  await say(t.conn, id, '/redo')
  assert.equal(readFileSync(join(h.ws, 'b.txt'), 'utf8'), 'new text\n')
  // radium's commands never reach the agent: it would answer "command /undo got".
  assert.doesNotMatch(t.seen.text(), /command \/(undo|redo|changes) got/)
  await stop(t)
})

test('/rewind 1 after two turns puts the files back to before the first prompt', async () => {
  const h = home()
  writeFileSync(join(h.ws, 'c.txt'), 'original\n')
  const t = start(h)
  const id = await open(t, h)
  await say(t.conn, id, 'write c.txt first')
  await say(t.conn, id, 'write d.txt second')
  assert.equal(readFileSync(join(h.ws, 'c.txt'), 'utf8'), 'first\n')
  await say(t.conn, id, '/rewind 1')
  assert.equal(readFileSync(join(h.ws, 'c.txt'), 'utf8'), 'original\n')
  assert.ok(!existsSync(join(h.ws, 'd.txt')), 'the file of the second turn is gone')
  await say(t.conn, id, '/rewind 9')
  assert.match(t.seen.text(), /\/rewind N takes a prompt's number, 1 to 2/)
  await stop(t)
})

test('unknown methods pass through both ways (with _meta); a slash command of the agent\'s reaches it', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  await assert.rejects(t.conn.extMethod('_example/nothing', { x: 1 }), (e) => e.code === -32601 && /method not found: _example\/nothing/.test(e.message))
  await say(t.conn, id, '/review now')
  assert.match(t.seen.text(), /command \/review got: now/)
  // An agent's request radium does not serve is asked of the editor, _meta unchanged.
  await say(t.conn, id, 'ask _editor/hello')
  assert.match(t.seen.text(), /asked _editor\/hello: \{"from":"agent","method":"_editor\/hello"\}/)
  await say(t.conn, id, 'ask nothing/here')
  assert.match(t.seen.text(), /asked nothing\/here: \{"from":"agent","method":"nothing\/here"\}/)
  const loaded = await t.conn.setSessionMode({ sessionId: id, modeId: 'plan' })
  assert.ok(loaded !== undefined)
  await stop(t)
})

test('session/list, config options and modes pass through to the agent and its answers (and errors) back', async () => {
  const h = home(['--load', '--list'])
  const t = start(h)
  const id = await open(t, h)
  assert.equal((await say(t.conn, id, 'hello')).stopReason, 'end_turn')
  const listed = await t.conn.listSessions({ cwd: h.ws })
  assert.ok(listed.sessions.some((s) => s.sessionId === id), JSON.stringify(listed))
  const set = await t.conn.setSessionConfigOption({ sessionId: id, configId: 'effort', value: 'high' })
  assert.equal(set.configOptions.find((o) => o.id === 'effort').currentValue, 'high')
  await assert.rejects(t.conn.setSessionConfigOption({ sessionId: id, configId: 'effort', value: 'huge' }), (e) => e.code === -32602 && /unknown value huge/.test(e.message))
  const mode = await t.conn.setSessionMode({ sessionId: id, modeId: 'plan' })
  assert.equal(mode.configOptions.find((o) => o.id === 'mode').currentValue, 'plan', JSON.stringify(mode))
  await assert.rejects(t.conn.setSessionMode({ sessionId: id, modeId: 'nope' }), (e) => e.code === -32602)
  assert.equal(await stop(t), 0)
})

test('the agent dying mid-turn fails the prompt (no hang); closing stdin ends the agent\'s process group', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  await assert.rejects(say(t.conn, id, 'crash'), (e) => /radium: .*agent `example`/.test(e.message))
  const t2 = start(h)
  await open(t2, h)
  const agents = execFileSync('pgrep', ['-P', String(t2.child.pid)]).toString().trim().split('\n').map(Number)
  assert.ok(agents.length >= 1, 'the agent runs')
  assert.equal(await stop(t2), 0)
  for (const pid of agents) assert.ok(await gone(pid), 'agent process still alive: ' + pid)
  await stop(t)
})

/** Whether process `pid` ends (or is a zombie) within 20 s. */
async function gone (pid) {
  for (let i = 0; i < 200; i++) {
    let state = null
    try { state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] } catch {}
    if (state === null || state === 'Z') return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

/** `rad acp example` spoken to in raw lines: answers the lines it printed until `until` matched. */
async function raw (h, lines, until) {
  const child = spawnRad({ cwd: h.ws, env: { ...process.env, RADIUM_HOME: h.radHome }, stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer: ' + out)), 60000)
    child.stdout.on('data', (d) => { out += d; if (until(out)) { clearTimeout(timer); resolve() } })
  })
  for (const line of lines) child.stdin.write(line + '\n')
  await done
  child.stdin.end()
  await new Promise((resolve) => child.on('exit', resolve))
  return out.trim().split('\n').map((l) => JSON.parse(l))
}

test('bad input from the editor: invalid JSON, an answer to an id never sent, no method', async () => {
  const h = home()
  const got = await raw(h, [
    '{not json',
    '{"jsonrpc":"2.0","id":4242,"result":{}}',
    '{"jsonrpc":"2.0","id":7}',
    '{"jsonrpc":"2.0","id":8,"method":"session/list","params":{}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}'
  ], (out) => out.includes('"id":1,'))
  assert.equal(got[0].error.code, -32700)
  assert.match(got[0].error.message, /not JSON/)
  assert.equal(got[1].id, 7)
  assert.equal(got[1].error.code, -32600)
  assert.equal(got[2].id, 8)
  assert.match(got[2].error.message, /before `initialize`/)
  assert.equal(got.at(-1).result.protocolVersion, 1)
})

/** Waits (up to 30 s) until `ok()` holds. */
async function until (ok, what) {
  for (let i = 0; i < 300 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.ok(ok(), 'waited in vain for ' + what)
}

test('an editor\'s _meta on session/prompt reaches the agent as it sent it', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  const end = await t.conn.prompt({ sessionId: id, prompt: [{ type: 'text', text: 'meta' }], _meta: { editor: { trace: 'abc' }, n: 1 } })
  assert.equal(end.stopReason, 'end_turn')
  assert.match(t.seen.text(), /prompt _meta: \{"editor":\{"trace":"abc"\},"n":1\}/)
  // The next prompt carries none: none reaches the agent.
  await say(t.conn, id, 'meta')
  assert.match(t.seen.text(), /prompt _meta: null$/)
  assert.equal(await stop(t), 0)
})

test('an agent that needs a sign-in: initialize answers, the editor\'s authenticate passes through, then session/new', async () => {
  const h = home(['--auth-required'])
  const t = start(h)
  const init = await t.conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  assert.deepEqual(init.authMethods.map((m) => m.id), ['example-login', 'example-terminal'])
  // Before the sign-in, the agent's refusal reaches the editor with ACP's auth_required code.
  await assert.rejects(t.conn.newSession({ cwd: h.ws, mcpServers: [] }), (e) => e.code === -32000 && /needs you to sign in/.test(e.message))
  await assert.rejects(t.conn.authenticate({ methodId: 'nope' }), (e) => /unknown method nope/.test(e.message))
  await t.conn.authenticate({ methodId: 'example-login' })
  const { sessionId } = await t.conn.newSession({ cwd: h.ws, mcpServers: [] })
  // A radium turn: the write asks the editor and is recorded (/undo takes it back).
  const end = await say(t.conn, sessionId, 'write notes.txt signed in')
  assert.equal(end.stopReason, 'end_turn')
  assert.equal(readFileSync(join(h.ws, 'notes.txt'), 'utf8'), 'signed in\n')
  assert.equal(t.seen.permissions.length, 1)
  await say(t.conn, sessionId, '/undo')
  assert.ok(!existsSync(join(h.ws, 'notes.txt')))
  assert.equal(await stop(t), 0)
})

test('session/load reaches the agent: the replay reaches the editor, the agent remembers, its prompts are radium turns', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  await say(t.conn, id, 'first words')
  await say(t.conn, id, 'second words')
  assert.equal(await stop(t), 0)
  const t2 = start(h)
  const init = await t2.conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  assert.equal(init.agentCapabilities.loadSession, true)
  await t2.conn.loadSession({ sessionId: id, cwd: h.ws, mcpServers: [] })
  // The replay came before the answer to session/load, as ACP orders it.
  const replayed = () => t2.seen.updates.filter((u) => u.sessionId === id && u.update.sessionUpdate === 'user_message_chunk').map((u) => u.update.content.text)
  assert.deepEqual(replayed(), ['first words', 'second words'])
  assert.match(t2.seen.text(), /\(replayed answer to second words\)/)
  const end = await say(t2.conn, id, 'remember')
  assert.equal(end.stopReason, 'end_turn')
  await until(() => /I remember: /.test(t2.seen.text()), 'the answer to remember')
  assert.match(t2.seen.text(), /I remember: first words \| second words;/)
  // A radium turn: the write asks the editor after radium's rules, and /undo takes it back.
  const write = await say(t2.conn, id, 'write loaded.txt from the loaded session')
  assert.equal(write.stopReason, 'end_turn')
  assert.equal(readFileSync(join(h.ws, 'loaded.txt'), 'utf8'), 'from the loaded session\n')
  assert.equal(t2.seen.permissions.length, 1)
  assert.equal(t2.seen.permissions[0].sessionId, id)
  await say(t2.conn, id, '/undo')
  assert.ok(!existsSync(join(h.ws, 'loaded.txt')), '/undo took the loaded session\'s write back')
  // An id the agent does not know: its refusal, as an error.
  await assert.rejects(t2.conn.loadSession({ sessionId: 'no-such-session', cwd: h.ws, mcpServers: [] }), /radium: .*no-such-session/)
  assert.equal(await stop(t2), 0)
})

test('a replay the agent sends after its session/load answer (as Gemini CLI does) still reaches the editor before the answer', async () => {
  const h = home(['--load', '--late-replay'])
  const t = start(h)
  const id = await open(t, h)
  await say(t.conn, id, 'first words')
  await say(t.conn, id, 'second words')
  assert.equal(await stop(t), 0)
  const t2 = start(h)
  await t2.conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  await t2.conn.loadSession({ sessionId: id, cwd: h.ws, mcpServers: [] })
  const replayed = t2.seen.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk').map((u) => u.update.content.text)
  assert.deepEqual(replayed, ['first words', 'second words'])
  assert.match(t2.seen.text(), /\(replayed answer to second words\)/)
  assert.equal(await stop(t2), 0)
})

test('session/resume reaches an agent that resumes: no replay, the agent remembers, its prompts are radium turns', async () => {
  const h = home(['--resume'])
  const t = start(h)
  const id = await open(t, h)
  await say(t.conn, id, 'first words')
  assert.equal(await stop(t), 0)
  const t2 = start(h)
  const init = await t2.conn.initialize({ protocolVersion: 1, clientCapabilities: {} })
  assert.ok(init.agentCapabilities.sessionCapabilities.resume)
  await t2.conn.resumeSession({ sessionId: id, cwd: h.ws, mcpServers: [] })
  await say(t2.conn, id, 'remember')
  await until(() => /I remember: /.test(t2.seen.text()), 'the answer to remember')
  assert.match(t2.seen.text(), /I remember: first words;/)
  assert.ok(!t2.seen.updates.some((u) => u.update.sessionUpdate === 'user_message_chunk'), 'a resume replays nothing')
  // A radium turn: the write asks the editor after radium's rules, and /undo takes it back.
  await say(t2.conn, id, 'write resumed.txt from the resumed session')
  assert.equal(readFileSync(join(h.ws, 'resumed.txt'), 'utf8'), 'from the resumed session\n')
  assert.equal(t2.seen.permissions.length, 1)
  await say(t2.conn, id, '/undo')
  assert.ok(!existsSync(join(h.ws, 'resumed.txt')), '/undo took the resumed session\'s write back')
  await assert.rejects(t2.conn.resumeSession({ sessionId: 'no-such-session', cwd: h.ws, mcpServers: [] }), /radium: .*no-such-session/)
  assert.equal(await stop(t2), 0)
})

test('session/resume to an agent that does not resume passes through: the agent\'s own error', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  await assert.rejects(t.conn.resumeSession({ sessionId: id, cwd: h.ws, mcpServers: [] }), /method not found: session\/resume/)
  assert.equal((await say(t.conn, id, 'hello')).stopReason, 'end_turn')
  assert.equal(await stop(t), 0)
})

/** Writes `n` MiB of `fill` to `stream` a MiB at a time, waiting for the pipe to drain. */
async function stream (out, head, n, fill, tail) {
  const mib = fill.repeat(1 << 20)
  if (!out.write(head)) await new Promise((resolve) => out.once('drain', resolve))
  for (let i = 0; i < n; i++) {
    if (!out.write(mib)) await new Promise((resolve) => out.once('drain', resolve))
  }
  out.write(tail)
}

test('a line of 100 MB from the editor is skipped with an error; the proxy goes on', async () => {
  const h = home()
  const child = spawnRad({ cwd: h.ws, env: { ...process.env, ...h.env, RADIUM_HOME: h.radHome }, stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const answered = (id) => until(() => out.includes(`"id":${id},`), `the answer to ${id}`)
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n')
  await answered(1)
  await stream(child.stdin, '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"text":"', 100, 'a', '"}}\n')
  child.stdin.write(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":${JSON.stringify(h.ws)},"mcpServers":[]}}\n`)
  await answered(3)
  const got = out.trim().split('\n').map((l) => JSON.parse(l))
  const skipped = got.find((m) => m.error?.code === -32700)
  assert.match(skipped.error.message, /a line of \d+ bytes or more is over the 64 MiB limit \(skipped\)/)
  assert.ok(got.find((m) => m.id === 3).result.sessionId, 'session/new after the long line is answered')
  assert.ok(!got.some((m) => m.id === 2), 'the long line is no request')
  child.stdin.end()
  assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0)
})

test('a line of 100 MB from the agent is skipped; the turn and the proxy go on', async () => {
  const h = home()
  const t = start(h)
  const id = await open(t, h)
  const end = await say(t.conn, id, 'huge 100')
  assert.equal(end.stopReason, 'end_turn')
  assert.doesNotMatch(t.seen.text(), /hhhh/, 'the long line never reaches the editor')
  await until(() => /after the huge line/.test(t.seen.text()), 'the line after it')
  const next = await say(t.conn, id, 'hello again')
  assert.equal(next.stopReason, 'end_turn')
  await until(() => /hello again/.test(t.seen.text()), 'the next turn\'s text')
  assert.equal(await stop(t), 0)
})
