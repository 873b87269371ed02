#!/usr/bin/env node
// A scripted ACP agent for the extension's tests (node tests and the e2e
// suite), with no model: it writes a whole file of several lines through the
// client, as a coding agent's edit tool does, so its tool call's diff has
// several hunks. It speaks the Agent Client Protocol v1 on stdio (one
// JSON-RPC message a line).
//
//   edit <path>            the lines after the first are the file's new text:
//   <new text...>          it reads the file (fs/read_text_file), announces a
//                          tool call with the diff, asks permission, and on
//                          allow writes it (fs/write_text_file)
//   anything else          says how to use it
import { createInterface } from 'node:readline'

let nextId = 1
const waiting = new Map()
const sessions = new Map()

function send (message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n')
}
function request (method, params) {
  const id = `edit-agent-${nextId++}`
  send({ id, method, params })
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }))
}
function update (sessionId, u) {
  send({ method: 'session/update', params: { sessionId, update: u } })
}
function say (sessionId, text) {
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
}

async function edit (sessionId, path, text) {
  const toolCallId = `edit-${nextId++}`
  let oldText = null
  try { oldText = (await request('fs/read_text_file', { sessionId, path })).content } catch {}
  const call = {
    toolCallId, title: `Edit ${path}`, kind: 'edit', locations: [{ path }],
    content: [{ type: 'diff', path, oldText, newText: text }], rawInput: { path, content: text }
  }
  update(sessionId, { sessionUpdate: 'tool_call', status: 'pending', ...call })
  const answer = await request('session/request_permission', {
    sessionId,
    toolCall: call,
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' }
    ]
  })
  if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' })
    say(sessionId, `I was not allowed to edit ${path}.`)
    return
  }
  await request('fs/write_text_file', { sessionId, path, content: text })
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' })
  say(sessionId, `I edited ${path}.`)
}

async function prompt (id, { sessionId, prompt }) {
  const text = prompt.filter((b) => b.type === 'text').map((b) => b.text).join('\n')
  const [first, ...lines] = text.split('\n')
  const [verb, arg] = first.trim().split(/\s+/)
  if (verb === 'edit' && arg) {
    const cwd = sessions.get(sessionId)
    const body = lines.join('\n')
    await edit(sessionId, arg.startsWith('/') ? arg : `${cwd}/${arg}`, body.endsWith('\n') ? body : `${body}\n`)
  } else {
    say(sessionId, 'Say `edit <path>`, then the file\'s new text on the lines below.')
  }
  send({ id, result: { stopReason: 'end_turn' } })
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
    case 'initialize':
      send({ id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'radium-edit-agent', version: '1.0.0' } } })
      break
    case 'session/new': {
      const sessionId = `edit-${sessions.size + 1}`
      sessions.set(sessionId, params.cwd)
      send({ id, result: { sessionId } })
      break
    }
    case 'session/prompt': prompt(id, params).catch((e) => send({ id, error: { code: -32603, message: e.message } })); break
    case 'session/cancel': break
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: `method not found: ${method}` } })
  }
})
lines.on('close', () => process.exit(0))
