#!/usr/bin/env node
// An example ACP agent with no model: it speaks the Agent Client Protocol v1
// on stdio (one JSON-RPC message a line) and acts out what the prompt asks,
// so radium's sessions can be shown and tested without a network. The
// prompts it understands and its flags: README.md beside it.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createInterface } from 'node:readline'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claudeShell, geminiShell, lineFlood, oddShell, prose, toolFlood } from './shell.mjs'

const hangInitialize = process.argv.includes('--hang-initialize')
const claudeHooks = process.argv.includes('--claude-hooks')
const legacyModels = process.argv.includes('--legacy-models')
const modesOnly = process.argv.includes('--modes-only') || legacyModels
const noModes = process.argv.includes('--no-modes')
const MODES = ['default', 'acceptEdits', 'plan', 'dontAsk']
const MODELS = ['small', 'large']
const EFFORTS = ['low', 'medium', 'high']
const current = new Map()
function controls (sessionId) {
  const c = current.get(sessionId)
  const select = (id, name, category, values, value) => ({ id, name, category, type: 'select', currentValue: value, options: values.map((v) => ({ value: v, name: v[0].toUpperCase() + v.slice(1), description: `${name} ${v}` })) })
  const modes = { currentModeId: c.mode, availableModes: MODES.map((m) => ({ id: m, name: m, description: `mode ${m}` })) }
  const configOptions = [
    select('mode', 'Mode', 'mode', MODES, c.mode),
    // Grouped values, as the schema allows.
    { ...select('model', 'Model', 'model', [], c.model), options: [{ group: 'all', name: 'All models', options: MODELS.map((v) => ({ value: v, name: v })) }] },
    select('effort', 'Reasoning effort', 'thought_level', EFFORTS, c.effort)
  ]
  if (noModes) return {}
  if (legacyModels) return { modes, models: { currentModelId: c.model, availableModels: MODELS.map((m) => ({ modelId: m, name: m, description: `model ${m}` })) } }
  return modesOnly ? { modes } : { modes, configOptions }
}
function setControl (id, sessionId, key, value, values) {
  if (!values.includes(value)) { send({ id, error: { code: -32602, message: `unknown value ${value}` } }); return }
  current.get(sessionId)[key] = value
  send({ id, result: key === 'mode' && modesOnly ? {} : { configOptions: controls(sessionId).configOptions } })
}
const mcpHttp = process.argv.includes('--mcp-http')
const noImage = process.argv.includes('--no-image')
const authRequired = process.argv.includes('--auth-required')
const authFile = process.env.EXAMPLE_AGENT_AUTH_FILE ?? ''
const mcpServersOf = new Map()
const canLoad = process.argv.includes('--load')
const lateReplay = process.argv.includes('--late-replay')
const lateCommands = process.argv.includes('--late-commands')
const canResume = process.argv.includes('--resume')
const canList = process.argv.includes('--list')
// session/list: the kept sessions of the folder asked for (each file of the
// state folder), newest first, two a page (`nextCursor`: the next index).
function listSessions (id, params) {
  let all = []
  try {
    all = readdirSync(stateDir).filter((f) => f.endsWith('.json')).map((f) => {
      const stored = JSON.parse(readFileSync(join(stateDir, f), 'utf8'))
      return { sessionId: f.slice(0, -5), cwd: stored.cwd, title: stored.prompts[0] ?? null, updatedAt: statSync(join(stateDir, f)).mtime.toISOString() }
    })
  } catch {}
  all = all.filter((s) => !params?.cwd || s.cwd === params.cwd).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.sessionId.localeCompare(b.sessionId))
  const from = Number(params?.cursor ?? 0)
  const page = all.slice(from, from + 2)
  send({ id, result: { sessions: page, ...(from + 2 < all.length ? { nextCursor: String(from + 2) } : {}) } })
}
const stateDir = process.env.EXAMPLE_AGENT_STATE || join(tmpdir(), 'radium-example-agent')
const memory = new Map()
function remember (sessionId, text) {
  const prompts = memory.get(sessionId) ?? []
  prompts.push(text)
  memory.set(sessionId, prompts)
  if (canLoad || canResume) {
    mkdirSync(stateDir, { recursive: true })
    writeFileSync(join(stateDir, `${sessionId}.json`), JSON.stringify({ cwd: sessions.get(sessionId), prompts }))
  }
}
function takeUp (id, params, replay) {
  let stored
  try { stored = JSON.parse(readFileSync(join(stateDir, `${params.sessionId}.json`), 'utf8')) } catch {
    send({ id, error: { code: -32002, message: `session not found: ${params.sessionId}` } })
    return
  }
  sessions.set(params.sessionId, params.cwd)
  memory.set(params.sessionId, stored.prompts)
  current.set(params.sessionId, { mode: 'default', model: 'small', effort: 'medium' })
  // The replay: before the answer, or (`--late-replay`) after it, one
  // update every 10 ms, what the client sends meanwhile held to the end.
  const steps = (replay ? stored.prompts : []).flatMap((text) => [
    () => update(params.sessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } }),
    () => say(params.sessionId, `(replayed answer to ${text})`)
  ])
  if (!lateReplay) steps.splice(0).forEach((step) => step())
  send({ id, result: { ...controls(params.sessionId) } })
  commandsUpdate(params.sessionId, COMMANDS)
  if (!steps.length) return
  held = []
  const next = () => {
    if (steps.length) { steps.shift()(); setTimeout(next, 10); return }
    const queued = held; held = null; queued.forEach((line) => onLine(line))
  }
  setTimeout(next, 10)
}
const preToolUse = new Map()
let nextId = 1
const waiting = new Map()
let cancelled = false
let terminalOutput = false

function send (message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n')
}
function request (method, params) {
  const id = `agent-${nextId++}`
  send({ id, method, params })
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }))
}
function update (sessionId, u) {
  send({ method: 'session/update', params: { sessionId, update: u } })
}
function say (sessionId, text) {
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function writeFile (sessionId, path, text, itself = false, late = false, written = text, fail = false, nullOld = false) {
  const toolCallId = `call-${nextId++}`
  let oldText = null
  try {
    oldText = itself ? readFileSync(path, 'utf8') : (await request('fs/read_text_file', { sessionId, path })).content
  } catch {}
  const diff = { type: 'diff', path, oldText: nullOld ? null : oldText, newText: text }
  update(sessionId, {
    sessionUpdate: 'tool_call', toolCallId, title: `Write ${path}`, kind: 'edit',
    status: 'pending', locations: [{ path }], content: late ? [] : [diff], rawInput: { path, content: text }
  })
  const answer = await request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId, title: `Write ${path}`, kind: 'edit', locations: [{ path }], content: [diff], rawInput: { path, content: text } },
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' }
    ]
  })
  if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' })
    say(sessionId, `I was not allowed to write ${path}.`)
    return
  }
  if (fail) {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' })
    say(sessionId, `My first try at ${path} failed.`)
    return
  }
  try {
    if (itself) writeFileSync(path, written)
    else await request('fs/write_text_file', { sessionId, path, content: text })
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', rawOutput: { written: path } })
    say(sessionId, `I wrote ${path}.`)
  } catch (e) {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' })
    say(sessionId, `The write of ${path} failed: ${e.message}`)
  }
}

// Runs the PreToolUse hooks of the session for a call of `tool` with
// `input`, as Claude Code does for a call it would run without asking, and
// says their decision (the call itself is not run).
async function quiet (sessionId, cwd, tool, input) {
  const toolCallId = `toolu_${nextId++}`
  const title = input.command ?? `${tool} ${input.file_path}`
  update(sessionId, { sessionUpdate: 'tool_call', toolCallId, title, kind: tool === 'Bash' ? 'execute' : 'edit', status: 'pending', rawInput: input })
  const stdin = JSON.stringify({ session_id: sessionId, cwd, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: toolCallId })
  let decision = 'none'
  for (const hook of preToolUse.get(sessionId) ?? []) {
    const run = spawnSync('sh', ['-c', hook.command], { input: stdin, encoding: 'utf8', timeout: (hook.timeout ?? 60) * 1000 })
    if (run.status === 2) { decision = `deny (exit 2): ${run.stderr.trim()}`; break }
    const out = run.stdout.trim() ? JSON.parse(run.stdout).hookSpecificOutput : undefined
    if (out?.permissionDecision) { decision = `${out.permissionDecision}: ${out.permissionDecisionReason}`; break }
  }
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: decision.startsWith('deny') ? 'failed' : 'completed' })
  say(sessionId, `hook decision: ${decision}`)
}

async function prompt (id, { sessionId, prompt, _meta: meta }) {
  cancelled = false
  const texts = prompt.filter((b) => b.type === 'text').map((b) => b.text)
  const earlier = texts.length > 1 && texts[0].startsWith('This conversation continues an earlier one') ? texts.shift() : null
  const text = texts.join('\n').trim()
  const [verb, arg, ...rest] = text.split(/\s+/)
  remember(sessionId, text)
  const cwd = sessions.get(sessionId)
  const abs = (p) => (p.startsWith('/') ? p : `${cwd}/${p}`)
  switch (verb) {
    case 'write': await writeFile(sessionId, abs(arg), rest.join(' ') + '\n'); break
    case 'selfwrite': await writeFile(sessionId, abs(arg), rest.join(' ') + '\n', true); break
    case 'twowrite': {
      // Two files in one turn: the first through the client, the second
      // by the agent itself, then the first again by itself.
      const [second, ...words] = rest
      await writeFile(sessionId, abs(arg), words.join(' ') + '\n')
      await writeFile(sessionId, abs(second), words.join(' ') + '\n', true)
      await writeFile(sessionId, abs(arg), words.join(' ') + ' again\n', true)
      break
    }
    case 'selfreplace': await writeFile(sessionId, abs(arg), readFileSync(abs(arg), 'utf8').replace(rest[0], rest[1]), true); break
    case 'latewrite': await writeFile(sessionId, abs(arg), rest.join(' ') + '\n', true, true); break
    case 'nullwrite': {
      const text = rest.join(' ') + '\n'
      await writeFile(sessionId, abs(arg), text, true, false, text, false, true)
      break
    }
    case 'lines': await writeFile(sessionId, abs(arg), rest.join(' ').split('|').join('\n') + '\n'); break
    case 'selflines': await writeFile(sessionId, abs(arg), rest.join(' ').split('|').join('\n') + '\n', true); break
    case 'driftlines': {
      const text = rest.join(' ').split('|').join('\n') + '\n'
      await writeFile(sessionId, abs(arg), text, true, false, 'drift\n' + text)
      break
    }
    case 'retrylines': {
      const text = rest.join(' ').split('|').join('\n') + '\n'
      await writeFile(sessionId, abs(arg), text, true, false, text, true)
      await writeFile(sessionId, abs(arg), text, true)
      break
    }
    case 'escape': await writeFile(sessionId, `/tmp/radium-escape-${process.pid}.txt`, 'out\n'); break
    case 'read': {
      const { content } = await request('fs/read_text_file', { sessionId, path: abs(arg) })
      say(sessionId, `${arg} says:\n\`\`\`\n${content}\`\`\`\n`)
      break
    }
    case 'plan':
      update(sessionId, { sessionUpdate: 'plan', entries: [{ content: 'Look around', priority: 'high', status: 'completed' }, { content: 'Answer', priority: 'medium', status: 'in_progress' }] })
      say(sessionId, 'Planned.')
      break
    case 'think':
      update(sessionId, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Thinking it over.' } })
      say(sessionId, 'Thought.')
      break
    case 'slow':
      for (let i = 0; i < 50 && !cancelled; i++) { say(sessionId, `chunk ${i} `); await sleep(100) }
      break
    case 'badutf8': {
      const line = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'caf@' } } } })
      const bytes = Buffer.from(line + '\n')
      bytes[bytes.indexOf('@')] = 0xe9 // Latin-1 é: not UTF-8
      process.stdout.write(bytes)
      break
    }
    case 'garbage':
      process.stdout.write('this is not json\n')
      say(sessionId, 'Still here.')
      break
    case 'deep': // a notification nested 200 levels deep: over any JSON depth limit
      process.stdout.write(`{"jsonrpc":"2.0","method":"session/update","params":${'['.repeat(200)}${']'.repeat(200)}}\n`)
      say(sessionId, 'Still here.')
      break
    case 'crash':
      say(sessionId, 'About to fail.')
      process.stderr.write('example agent: the model went away\n')
      process.exit(3)
      break
    case 'ghost': {
      const options = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }]
      const first = await request('session/request_permission', { sessionId, toolCall: { toolCallId: 'never-announced', title: 'Ghost tool' }, options })
      say(sessionId, `unannounced: ${JSON.stringify(first.outcome)}\n`)
      try {
        const second = await request('session/request_permission', { sessionId, toolCall: { title: 'No id' }, options })
        say(sessionId, `no id: ${JSON.stringify(second.outcome)}`)
      } catch (e) { say(sessionId, `no id: error ${e.message}`) }
      break
    }
    case 'shell':
    case 'shellin':
    case 'gshell': {
      const dir = verb === 'shellin' ? abs(arg) : undefined
      const command = (verb === 'shellin' ? rest : [arg, ...rest]).join(' ')
      const how = { sessionId, toolCallId: `call-${nextId++}`, command, cwd, dir, terminalOutput }
      const { code } = (verb === 'gshell' ? geminiShell : claudeShell)(update, how)
      say(sessionId, `The command exited with ${code}.`)
      break
    }
    case 'hookcmd':
      say(sessionId, (preToolUse.get(sessionId) ?? []).map((h) => h.command).join('\n'))
      break
    case 'hookraw':
      for (const hook of preToolUse.get(sessionId) ?? []) {
        const run = spawnSync('sh', ['-c', hook.command], { input: [arg, ...rest].join(' '), encoding: 'utf8' })
        say(sessionId, `exit ${run.status}; stdout: ${run.stdout.trim()}; stderr: ${run.stderr.trim()}\n`)
      }
      break
    case 'quiet': await quiet(sessionId, cwd, 'Bash', { command: [arg, ...rest].join(' ') }); break
    case 'quietedit': await quiet(sessionId, cwd, 'Edit', { file_path: abs(arg), old_string: 'a', new_string: 'b' }); break
    case 'oddshell': oddShell(update, { sessionId, toolCallId: `call-${nextId++}` }); break
    case 'whoami': {
      const c = current.get(sessionId)
      say(sessionId, `mode ${c.mode}, model ${c.model}, effort ${c.effort}`)
      break
    }
    case 'switchmode':
      current.get(sessionId).mode = arg
      update(sessionId, { sessionUpdate: 'current_mode_update', currentModeId: arg })
      if (!modesOnly) update(sessionId, { sessionUpdate: 'config_option_update', configOptions: controls(sessionId).configOptions })
      say(sessionId, `Now in ${arg} mode.`)
      break
    case 'latemode':
      say(sessionId, `Switching to ${arg} mode after this turn.`)
      setTimeout(() => {
        current.get(sessionId).mode = arg
        update(sessionId, { sessionUpdate: 'current_mode_update', currentModeId: arg })
        if (!modesOnly) update(sessionId, { sessionUpdate: 'config_option_update', configOptions: controls(sessionId).configOptions })
        usageUpdate(sessionId)
      }, 200)
      break
    case 'hang': say(sessionId, 'Waiting forever.'); return
    case 'remember': {
      const before = (memory.get(sessionId) ?? []).slice(0, -1)
      const given = earlier ? (earlier.match(/^User: /gm) ?? []).length : 0
      say(sessionId, `I remember: ${before.join(' | ') || 'nothing'}; earlier turns given as context: ${given}`)
      break
    }
    case 'big': say(sessionId, 'x'.repeat(10 << 20)); break
    case 'huge': say(sessionId, 'h'.repeat((Number(arg) || 100) << 20)); say(sessionId, 'after the huge line'); break
    case 'stream': {
      const chunk = 'y'.repeat(Number(rest[0]) || 4096)
      for (let i = 0; i < (Number(arg) || 1); i++) say(sessionId, chunk)
      break
    }
    case 'toolflood': toolFlood(update, { sessionId, toolCallId: `call-${nextId++}`, lines: Number(arg) || 4000, width: Number(rest[0]) || 95 }); say(sessionId, 'The command is done.'); break
    case 'numbered': for (let i = 0; i < (Number(arg) || 1); i++) { say(sessionId, `${i} ${'n'.repeat(Number(rest[0]) || 4096)}`); if (process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once('drain', resolve)) } break
    case 'meta': say(sessionId, 'prompt _meta: ' + JSON.stringify(meta ?? null)); break
    case 'prose': for (const chunk of prose(Number(arg) || 1, Number(rest[0]) || 64)) say(sessionId, chunk); break
    case 'toollines': lineFlood(update, { sessionId, toolCallId: `call-${nextId++}` }, Number(arg) || 4000, Number(rest[0]) || 95); say(sessionId, 'The command ended.'); break
    case 'stamp': for (let i = 0; i < (Number(arg) || 1); i++) { say(sessionId, `${process.hrtime.bigint()} `); if (Number(rest[0])) await new Promise((resolve) => setTimeout(resolve, Number(rest[0]))) } break
    case 'mcpservers': say(sessionId, JSON.stringify(mcpServersOf.get(sessionId) ?? null)); break
    case 'ask': say(sessionId, `asked ${arg}: ` + await request(arg, { sessionId, _meta: { from: 'agent' } }).then((r) => JSON.stringify(r), (e) => `error ${e.message}`)); break
    case 'usage': usageUpdate(sessionId); say(sessionId, 'Usage reported.'); break
    case 'manyusage': {
      usageUpdate(sessionId)
      const extra = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, i]))
      update(sessionId, { sessionUpdate: 'usage_update', ...extra })
      say(sessionId, 'Usage reported.')
      break
    }
    case 'commands': commandsUpdate(sessionId, [arg, ...rest].filter(Boolean).map((name) => ({ name, description: `The ${name} command`, input: null }))); break
    default: {
      if (verb.startsWith('/')) {
        say(sessionId, `command ${verb} got: ${[arg, ...rest].filter((w) => w !== undefined).join(' ')}`)
        usageUpdate(sessionId)
        break
      }
      const context = prompt.filter((b) => b.type === 'resource').map((b) => b.resource.uri)
      const images = prompt.filter((b) => b.type === 'image')
        .map((b) => `${b.mimeType} ${Buffer.from(b.data, 'base64').length} bytes`)
      say(sessionId, 'You said: ')
      say(sessionId, text)
      if (context.length) say(sessionId, `\nContext: ${context.join(', ')}`)
      if (images.length) say(sessionId, `\nImages: ${images.join(', ')}`)
      if (images.length && /\bsha256\b/.test(text)) {
        const sums = prompt.filter((b) => b.type === 'image')
          .map((b) => createHash('sha256').update(Buffer.from(b.data, 'base64')).digest('hex'))
        say(sessionId, `\nSHA-256: ${sums.join(', ')}`)
      }
    }
  }
  send({ id, result: { stopReason: cancelled ? 'cancelled' : 'end_turn' } })
}

const COMMANDS = [
  { name: 'review', description: 'Review the changes of this branch', input: { hint: 'what to look at' } },
  { name: 'explain', description: 'Explain the selected code', input: null }
]
function commandsUpdate (sessionId, availableCommands) {
  update(sessionId, { sessionUpdate: 'available_commands_update', availableCommands })
}
let turns = 0
function usageUpdate (sessionId) {
  turns++
  update(sessionId, { sessionUpdate: 'usage_update', used: 12300 * turns, size: 200000, cost: { amount: 0.04 * turns, currency: 'USD' } })
}

const sessions = new Map()
const lines = createInterface({ input: process.stdin })
// Lines that came during a late replay (`--late-replay`), or null.
let held = null
lines.on('line', (line) => { if (held) held.push(line); else onLine(line) })
function onLine (line) {
  let message
  try { message = JSON.parse(line) } catch { return }
  const { id, method, params } = message
  if (method === undefined && waiting.has(id)) {
    const { resolve, reject } = waiting.get(id)
    waiting.delete(id)
    if (message.error) reject(new Error(message.error.message))
    else resolve(message.result)
    return
  }
  switch (method) {
    case 'initialize':
      terminalOutput = params?.clientCapabilities?._meta?.terminal_output === true
      if (!hangInitialize) {
        const meta = claudeHooks ? { _meta: { claudeCode: {} } } : {}
        const authMethods = authRequired
          ? [{ id: 'example-login', name: 'Log in with Example', description: 'Opens the browser' },
              { id: 'example-terminal', name: 'Log in in a terminal', type: 'terminal', args: ['--login'] }]
          : []
        const lasting = { ...(canLoad ? { loadSession: true } : {}), ...(canResume ? { sessionCapabilities: { resume: {}, close: {}, ...(canList ? { list: {} } : {}) } } : {}) }
        send({ id, result: { protocolVersion: 1, agentCapabilities: { promptCapabilities: { embeddedContext: true, image: !noImage }, mcpCapabilities: { http: mcpHttp, sse: false }, ...lasting, ...meta }, authMethods, agentInfo: { name: 'example-acp-agent', version: '1.0.0' } } })
      }
      break
    case 'authenticate':
      if (!authRequired) { send({ id, error: { code: -32602, message: 'no sign-in here' } }); break }
      if (params?.methodId !== 'example-login') { send({ id, error: { code: -32602, message: `unknown method ${params?.methodId}` } }); break }
      if (authFile) writeFileSync(authFile, 'signed in')
      send({ id, result: {} })
      break
    case 'session/new': {
      if (authRequired && !(authFile && existsSync(authFile))) {
        send({ id, error: { code: -32000, message: 'Authentication required' } })
        break
      }
      const sessionId = canLoad || canResume ? `example-${process.pid}-${Date.now()}-${sessions.size + 1}` : `example-${sessions.size + 1}`
      mcpServersOf.set(sessionId, params.mcpServers)
      sessions.set(sessionId, params.cwd)
      const matchers = params._meta?.claudeCode?.options?.settings?.hooks?.PreToolUse ?? []
      preToolUse.set(sessionId, matchers.flatMap((m) => m.hooks ?? []).filter((h) => h.type === 'command'))
      current.set(sessionId, { mode: 'default', model: 'small', effort: 'medium' })
      send({ id, result: { sessionId, ...controls(sessionId) } })
      // The commands come just after the answer (Claude Code's adapter
      // sends them a moment later; here, before any prompt can come).
      if (lateCommands) setTimeout(() => commandsUpdate(sessionId, COMMANDS), 300)
      else commandsUpdate(sessionId, COMMANDS)
      break
    }
    case 'session/set_config_option': {
      const key = { mode: 'mode', model: 'model', effort: 'effort' }[params.configId]
      if (!key || modesOnly || noModes) { send({ id, error: { code: -32602, message: `unknown option ${params.configId}` } }); break }
      setControl(id, params.sessionId, key, params.value, { mode: MODES, model: MODELS, effort: EFFORTS }[key])
      break
    }
    case 'session/set_model':
      if (!legacyModels) send({ id, error: { code: -32601, message: 'method not found: session/set_model' } })
      else setControl(id, params.sessionId, 'model', params.modelId, MODELS)
      break
    case 'session/set_mode':
      if (noModes) send({ id, error: { code: -32601, message: 'method not found: session/set_mode' } })
      else setControl(id, params.sessionId, 'mode', params.modeId, MODES)
      break
    case 'session/load': if (canLoad) { takeUp(id, params, true); break } else { send({ id, error: { code: -32601, message: 'method not found: session/load' } }); break }
    case 'session/resume': if (canResume) { takeUp(id, params, false); break } else { send({ id, error: { code: -32601, message: 'method not found: session/resume' } }); break }
    case 'session/list':
      if (canList) listSessions(id, params)
      else send({ id, error: { code: -32601, message: 'method not found: session/list' } })
      break
    case 'session/close': {
      // EXAMPLE_AGENT_CLOSE_DELAY_MS: saving the session takes that long
      // (as Claude Code's does), before the marker is written and the answer sent.
      const closed = () => {
        if (canResume) writeFileSync(join(stateDir, `${params.sessionId}.closed`), 'closed\n')
        send({ id, result: {} })
      }
      const delay = Number(process.env.EXAMPLE_AGENT_CLOSE_DELAY_MS) || 0
      if (delay > 0) setTimeout(closed, delay)
      else closed()
      break
    }
    case 'session/prompt': prompt(id, params).catch((e) => send({ id, error: { code: -32603, message: e.message } })); break
    case 'session/cancel': cancelled = true; break
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: `method not found: ${method}` } })
  }
}
lines.on('close', () => process.exit(0))
