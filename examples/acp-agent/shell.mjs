// The example agent's commands, sent as the real agents send theirs:
//   claudeShell: as Claude Code's adapter does for its Bash tool (the call
//     announced with an empty rawInput, then its command, then the output in
//     `_meta.terminal_output` when the client asked for it, and the end with
//     `rawOutput` and `_meta.terminal_exit`);
//   geminiShell: as Gemini CLI does (the command as the title, the output
//     as the text of the call's content).
// The command really runs (`sh -c`), in the session's folder or `dir`.
import { spawnSync } from 'node:child_process'

function run (command, cwd) {
  const r = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 })
  return { output: (r.stdout || '') + (r.stderr || ''), code: r.status ?? 1 }
}

export function claudeShell (update, { sessionId, toolCallId, command, cwd, dir, terminalOutput }) {
  const terminal = [{ type: 'terminal', terminalId: toolCallId }]
  update(sessionId, {
    sessionUpdate: 'tool_call', toolCallId, title: 'Terminal', kind: 'execute', status: 'pending', rawInput: {},
    content: terminalOutput ? terminal : [],
    _meta: { claudeCode: { toolName: 'Bash' }, ...(terminalOutput ? { terminal_info: { terminal_id: toolCallId } } : {}) }
  })
  const rawInput = { command, description: 'Run a command', ...(dir ? { cwd: dir } : {}) }
  update(sessionId, {
    sessionUpdate: 'tool_call_update', toolCallId, title: command, kind: 'execute', rawInput,
    content: terminalOutput ? terminal : [{ type: 'content', content: { type: 'text', text: rawInput.description } }],
    _meta: { claudeCode: { toolName: 'Bash' } }
  })
  const { output, code } = run(command, dir || cwd)
  if (terminalOutput) {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, _meta: { terminal_output: { terminal_id: toolCallId, data: output } } })
  }
  update(sessionId, {
    sessionUpdate: 'tool_call_update', toolCallId, status: code === 0 ? 'completed' : 'failed', rawOutput: output,
    content: terminalOutput ? terminal : [{ type: 'content', content: { type: 'text', text: '```console\n' + output.trimEnd() + '\n```' } }],
    _meta: { claudeCode: { toolName: 'Bash' }, ...(terminalOutput ? { terminal_exit: { terminal_id: toolCallId, exit_code: code, signal: null } } : {}) }
  })
  return { output, code }
}

export function geminiShell (update, { sessionId, toolCallId, command, cwd }) {
  update(sessionId, {
    sessionUpdate: 'tool_call', toolCallId, status: 'in_progress', title: command, kind: 'execute',
    content: [], locations: []
  })
  const { output, code } = run(command, cwd)
  update(sessionId, {
    sessionUpdate: 'tool_call_update', toolCallId, status: code === 0 ? 'completed' : 'failed', title: command, kind: 'execute',
    content: [{ type: 'content', content: { type: 'text', text: output } }], locations: []
  })
  return { output, code }
}

// Command fields of odd shapes, as other agents (or broken ones) send them:
// a command as a list of words, then one that is a number with a folder
// that is a list, an output as an object of stdout and stderr, an exit code
// that is text.
export function oddShell (update, { sessionId, toolCallId }) {
  update(sessionId, {
    sessionUpdate: 'tool_call', toolCallId, title: 'words', kind: 'execute', status: 'in_progress',
    rawInput: { command: ['git', 'status', '--short'] }
  })
  update(sessionId, {
    sessionUpdate: 'tool_call_update', toolCallId, status: 'completed',
    rawInput: { command: 42, cwd: ['not', 'a', 'folder'] },
    rawOutput: { stdout: 'out', stderr: 'err' },
    _meta: { terminal_exit: { exit_code: 'zero' } }
  })
}

// A command whose output streams line by line: the call announced as
// Gemini CLI announces one (the command as the title), then one update per
// line, each with the output so far as the text of its content (the last
// 64 KiB of it, as a terminal's scrollback), then the end. `lines` lines of
// about `width` bytes.
export function toolFlood (update, { sessionId, toolCallId, lines, width }) {
  const command = `toolflood ${lines} ${width}`
  update(sessionId, { sessionUpdate: 'tool_call', toolCallId, status: 'in_progress', title: command, kind: 'execute', rawInput: { command }, content: [] })
  const pad = 'x'.repeat(Math.max(1, width - 12))
  let output = ''
  for (let i = 1; i <= lines; i++) {
    output += `line ${String(i).padStart(5, '0')} ${pad}\n`
    if (output.length > 64 << 10) output = output.slice(output.indexOf('\n', output.length - (64 << 10)) + 1)
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, content: [{ type: 'content', content: { type: 'text', text: output } }] })
  }
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' })
}

// A command whose output floods in: `n` lines of `size` bytes, each in an
// update of its own (`_meta.terminal_output.data`: the newest line, as a
// terminal streams it), then the whole output as the call's `rawOutput`.
export function lineFlood (update, { sessionId, toolCallId }, n, size) {
  const command = `seq ${n}`
  update(sessionId, { sessionUpdate: 'tool_call', toolCallId, title: command, kind: 'execute', status: 'in_progress', rawInput: { command } })
  const lines = []
  for (let i = 1; i <= n; i++) {
    const line = `${i} `.padEnd(size - 1, 'l') + '\n'
    lines.push(line)
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, _meta: { terminal_output: { terminal_id: toolCallId, data: line } } })
  }
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', rawOutput: lines.join('') })
}

// `n` chunks of `size` bytes of answer text: words in lines of 78 bytes
// (a line may end anywhere in a chunk), as a model writes prose.
export function * prose (n, size) {
  const line = 'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\n'
  const text = line.repeat(Math.ceil(size / line.length) + 1)
  for (let i = 0; i < n; i++) {
    const at = (i * size) % line.length
    yield text.slice(at, at + size)
  }
}
