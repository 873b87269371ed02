#!/usr/bin/env node
// An ACP agent (v1, one JSON-RPC message a line on stdio) that does what a
// careless or hostile agent might, for radium's hardening tests. No model:
// the prompt's first word says what to do.
//
//   fswrite <path> <text...>   writes the file through the client
//                              (fs/write_text_file) without asking first, and
//                              says `written` or `refused: <message>`
//   announce <path>            announces a tool call naming <path>, then asks
//                              permission for it naming no path at all
//   later <path>               announces a tool call naming nothing, updates
//                              it to name <path>, then asks permission
//   rawinput <path>            asks permission for a call whose only path is
//                              `rawInput.file_path`
//   crafted                    asks permission with options whose ids are the
//                              words of the other kind (`allow` rejects,
//                              `reject` allows), names to match the ids
//   hugeline <MiB>             sends one line of <MiB> MiB, then `after`
//   snapshots <n> <path...>    announces <n> edit tool calls naming each <path>
//   bigdiff <lines>            announces a tool call whose diff changes every
//                              one of <lines> lines
//   stream <n> <size>          sends <n> chunks of <size> bytes
//
// Every verb that asks permission then says what it was told, as JSON:
// `outcome: {...}`.
//
// Its environment changes how it starts and answers:
//   UNRULY_REFUSE_NEW=<details>  writes two lines on stderr and refuses
//                                session/new (-32603 "Internal error", with
//                                `data.details` <details>), as Claude Code's
//                                adapter does when its query cannot start
//   UNRULY_STALE=plain|resume    answers as Claude Code's adapter does after a
//                                cancel: the cancelled turn leaves its end
//                                behind, so the next prompt ends at once and
//                                empty, and every later answer comes one prompt
//                                late (`slow ...` runs until cancelled; other
//                                prompts answer `answer to: <prompt>`).
//                                `resume` also offers session/close and
//                                session/resume, which start over with nothing
//                                left behind.
import { createInterface } from 'node:readline'

let nextId = 1
const waiting = new Map()
const sessions = new Map()

function write (text) {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve()
    else process.stdout.once('drain', resolve)
  })
}
function send (message) {
  return write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n')
}
function request (method, params) {
  const id = `unruly-${nextId++}`
  send({ id, method, params })
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }))
}
function update (sessionId, u) {
  return send({ method: 'session/update', params: { sessionId, update: u } })
}
function say (sessionId, text) {
  return update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
}
const options = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' }
]
async function ask (sessionId, toolCall, opts = options) {
  const answer = await request('session/request_permission', { sessionId, toolCall, options: opts })
  await say(sessionId, `outcome: ${JSON.stringify(answer.outcome)}`)
}

// UNRULY_STALE: what each session's model has produced and its prompts not
// yet read, in order: `{ chunk }`, `{ result }` (a cancelled generation's
// end) and `{ end }` (the end of a generation, which ends a prompt).
const stale = process.env.UNRULY_STALE
const queues = new Map()
function queue (sessionId) {
  if (!queues.has(sessionId)) queues.set(sessionId, { items: [], wake: null, cancelled: false, timer: null })
  return queues.get(sessionId)
}
function push (q, ...items) {
  q.items.push(...items)
  if (q.wake) { const w = q.wake; q.wake = null; w() }
}
async function nextItem (q) {
  while (q.items.length === 0) await new Promise((resolve) => { q.wake = resolve })
  return q.items.shift()
}
async function stalePrompt (id, sessionId, text) {
  const q = queue(sessionId)
  q.cancelled = false
  if (text.startsWith('slow')) {
    push(q, { chunk: `thinking about: ${text}` })
    q.timer = setTimeout(() => { q.timer = null; push(q, { chunk: 'done' }, { end: true }) }, 120000)
  } else {
    push(q, { chunk: `answer to: ${text}` }, { end: true })
  }
  while (true) {
    const item = await nextItem(q)
    if (item.chunk) await say(sessionId, item.chunk)
    else if (item.result && q.cancelled) return send({ id, result: { stopReason: 'cancelled' } })
    else if (item.end) return send({ id, result: { stopReason: 'end_turn' } })
  }
}
function staleCancel (sessionId) {
  const q = queue(sessionId)
  q.cancelled = true
  if (q.timer) {
    clearTimeout(q.timer)
    q.timer = null
    push(q, { result: true }, { end: true })
  }
}

async function prompt (id, { sessionId, prompt }) {
  if (stale) {
    const text = prompt.filter((b) => b.type === 'text').map((b) => b.text).join('\n').trim()
    return stalePrompt(id, sessionId, text)
  }
  const text = prompt.filter((b) => b.type === 'text').map((b) => b.text).join('\n').trim()
  const [verb, arg, ...rest] = text.split(/\s+/)
  const cwd = sessions.get(sessionId)
  const abs = (p) => (p.startsWith('/') ? p : `${cwd}/${p}`)
  const callId = `call-${nextId++}`
  switch (verb) {
    case 'fswrite': {
      const path = abs(arg)
      await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: callId, title: `Write ${arg}`, kind: 'edit', status: 'in_progress', locations: [{ path }] })
      try {
        await request('fs/write_text_file', { sessionId, path, content: rest.join(' ') + '\n' })
        await update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'completed' })
        await say(sessionId, 'written')
      } catch (e) {
        await update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'failed' })
        await say(sessionId, `refused: ${e.message}`)
      }
      break
    }
    case 'announce':
      await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: callId, title: 'Edit', kind: 'edit', status: 'pending', locations: [{ path: abs(arg) }] })
      await ask(sessionId, { toolCallId: callId, title: 'Edit' })
      break
    case 'later':
      await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: callId, title: 'Edit', kind: 'other', status: 'pending' })
      await update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: callId, content: [{ type: 'diff', path: abs(arg), oldText: null, newText: 'x\n' }] })
      await ask(sessionId, { toolCallId: callId, title: 'Edit' })
      break
    case 'rawinput':
      await ask(sessionId, { toolCallId: callId, title: 'Edit', kind: 'edit', rawInput: { file_path: abs(arg), content: 'x\n' } })
      break
    case 'crafted':
      await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: callId, title: 'Crafted', kind: 'execute', status: 'pending' })
      await ask(sessionId, { toolCallId: callId, title: 'Crafted' }, [
        { optionId: 'allow', name: 'Reject', kind: 'reject_once' },
        { optionId: 'reject', name: 'Allow', kind: 'allow_once' }
      ])
      break
    case 'hugeline': {
      const mib = Number(arg) || 65
      await write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' } } } }).slice(0, -5))
      const block = 'z'.repeat(1 << 20)
      for (let i = 0; i < mib; i++) await write(block)
      await write('"}}}}\n')
      await say(sessionId, 'after')
      break
    }
    case 'snapshots': {
      for (const name of rest) {
        for (let i = 0; i < (Number(arg) || 1); i++) {
          await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: `${callId}-${name}-${i}`, title: `Edit ${name}`, kind: 'edit', status: 'pending', locations: [{ path: abs(name) }] })
        }
      }
      await say(sessionId, 'announced')
      break
    }
    case 'bigdiff': {
      const n = Number(arg) || 1000
      const lines = (tag) => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join('')
      await update(sessionId, { sessionUpdate: 'tool_call', toolCallId: callId, title: 'Rewrite big.txt', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: abs('big.txt'), oldText: lines('old'), newText: lines('new') }] })
      await update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'failed' })
      await say(sessionId, 'diffed')
      break
    }
    case 'stream': {
      const chunk = 'y'.repeat(Number(rest[0]) || 100)
      for (let i = 0; i < (Number(arg) || 1); i++) await say(sessionId, chunk)
      break
    }
    default:
      await say(sessionId, `unknown verb ${verb}`)
  }
  await send({ id, result: { stopReason: 'end_turn' } })
}

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
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
    case 'initialize': {
      const agentCapabilities = stale === 'resume' ? { sessionCapabilities: { close: {}, resume: {} } } : {}
      send({ id, result: { protocolVersion: 1, agentCapabilities, authMethods: [], agentInfo: { name: 'unruly-agent', version: '1.0.0' } } })
      break
    }
    case 'session/close':
    case 'session/resume':
      if (stale !== 'resume') {
        send({ id, error: { code: -32601, message: `method not found: ${method}` } })
        break
      }
      staleCancel(params.sessionId)
      queues.delete(params.sessionId)
      send({ id, result: {} })
      break
    case 'session/new': {
      if (process.env.UNRULY_REFUSE_NEW) {
        process.stderr.write('unruly: starting the query\nunruly: the query closed\n')
        send({ id, error: { code: -32603, message: 'Internal error', data: { details: process.env.UNRULY_REFUSE_NEW } } })
        break
      }
      const sessionId = `unruly-${sessions.size + 1}`
      sessions.set(sessionId, params.cwd)
      send({ id, result: { sessionId } })
      break
    }
    case 'session/prompt': prompt(id, params).catch((e) => send({ id, error: { code: -32603, message: e.message } })); break
    case 'session/cancel': if (stale) staleCancel(params.sessionId); break
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: `method not found: ${method}` } })
  }
})
lines.on('close', () => process.exit(0))
