// A session's events as the chat view's messages: consecutive text chunks of
// a batch joined into one message (a flood of chunks is a few messages),
// tool calls with their diffs as unified lines and their commands with their
// output (folded when long), permission requests with
// their options, the agent's slash commands and its usage. No dependency on
// VS Code.

import * as path from 'path'

import { diffLines } from '../diff'
import type { SessionEvent } from './session'

/** A message to the chat webview (media/chat.js handles each `type`). */
export type ViewMessage = { type: string; [field: string]: unknown }

/** A diff of a tool call, as the view shows it. */
export interface ViewDiff {
  path: string
  lines: string[]
}

/** The path relative to the workspace when it is inside, else as given. */
export function shortPath(p: string, workspace: string | undefined): string {
  if (workspace && p.startsWith(workspace + path.sep)) return p.slice(workspace.length + 1)
  return p
}

/** An output of more lines than this is folded. */
export const FOLD_OVER = 20
/** The lines kept before and after the fold. */
export const FOLD_KEEP = 8
/** The most characters of one output line shown. */
const MAX_LINE_CHARS = 500

/** A command's output as the lines shown: the middle of a long one left out (`… N more lines`), long lines cut. */
export function foldOutput(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const cut = lines.map((l) => (l.length > MAX_LINE_CHARS ? `${Array.from(l).slice(0, MAX_LINE_CHARS).join('')}…` : l))
  if (cut.length <= FOLD_OVER) return cut
  return [...cut.slice(0, FOLD_KEEP), `… ${cut.length - 2 * FOLD_KEEP} more lines`, ...cut.slice(-FOLD_KEEP)]
}

/**
 * What a tool call event says of its command: `command`, `cwd` (relative,
 * when not the workspace), `output` (folded lines; left out when `replaced`:
 * a later event of the batch replaces it), `exitCode`; only the fields present.
 */
function commandOf(e: SessionEvent, workspace: string | undefined, replaced: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (typeof e.command === 'string') out.command = e.command
  if (typeof e.cwd === 'string' && e.cwd !== workspace) out.cwd = shortPath(e.cwd, workspace)
  if (typeof e.output === 'string' && !replaced) out.output = foldOutput(e.output)
  if (typeof e.exit_code === 'number') out.exitCode = e.exit_code
  return out
}

function diffsOf(raw: unknown, workspace: string | undefined): ViewDiff[] {
  if (!Array.isArray(raw)) return []
  return raw.map((d: any) => ({
    path: shortPath(String(d?.path ?? ''), workspace),
    lines: diffLines(typeof d?.old_text === 'string' ? d.old_text : '', typeof d?.new_text === 'string' ? d.new_text : ''),
  }))
}

/** An agent's slash command as the `/` menu shows it. */
export interface ViewCommand {
  name: string
  description: string
  hint: string
}

/** The commands of a `commands` event (those without a name left out). */
export function commandsOf(raw: unknown): ViewCommand[] {
  if (!Array.isArray(raw)) return []
  return raw
    .filter((c: any) => typeof c?.name === 'string' && c.name !== '')
    .map((c: any) => ({
      name: String(c.name),
      description: typeof c.description === 'string' ? c.description : '',
      hint: typeof c.hint === 'string' ? c.hint : '',
    }))
}

/** A token count as people read it: `950`, `12.3k`, `200k`, `1.5M`. */
export function tokens(n: number): string {
  if (n < 1e3) return String(Math.round(n))
  const [value, unit] = n >= 1e6 ? [n / 1e6, 'M'] : [n / 1e3, 'k']
  return `${value.toFixed(1).replace(/\.0$/, '')}${unit}`
}

/** The agent's usage as the chat view shows it (`12.3k/200k tokens, $0.04`); undefined when it reported no count. */
export function usageText(u: any): string | undefined {
  if (!u || typeof u !== 'object') return undefined
  const used = typeof u.used === 'number' ? u.used : typeof u.totalTokens === 'number' ? u.totalTokens : undefined
  if (used === undefined) return undefined
  let text = typeof u.size === 'number' ? `${tokens(used)}/${tokens(u.size)} tokens` : `${tokens(used)} tokens`
  const amount = u.cost?.amount
  if (typeof amount === 'number') {
    const currency = u.cost.currency
    text += currency === undefined || currency === 'USD' ? `, $${amount.toFixed(2)}` : `, ${amount.toFixed(2)} ${currency}`
  }
  return text
}

const isTool = (e: SessionEvent) => e.type === 'tool_call' || e.type === 'tool_call_update'

/** The index of each tool call's last event of the batch that carries an output (an output replaces the one before). */
function lastOutputs(batch: SessionEvent[]): Map<string, number> {
  const last = new Map<string, number>()
  batch.forEach((e, i) => {
    if (isTool(e) && typeof e.output === 'string') last.set(String(e.id ?? ''), i)
  })
  return last
}

/**
 * The view messages of one batch of events: consecutive text chunks joined
 * into one message, and the events of one tool call merged into one message
 * (where its first event is; a later field replaces an earlier one, only
 * the last output folded), so a flood of events is a few messages. `t`
 * (milliseconds, Date.now()) is when the batch reached the extension host;
 * text messages carry it so the view can report the time to screen.
 */
export function viewMessages(batch: SessionEvent[], workspace: string | undefined, t: number): ViewMessage[] {
  const out: ViewMessage[] = []
  const last = lastOutputs(batch)
  const tools = new Map<string, ViewMessage>()
  let text = ''
  let chunks = 0
  const flush = () => {
    if (text) out.push({ type: 'text', text, chunks, t })
    text = ''
    chunks = 0
  }
  for (const [i, e] of batch.entries()) {
    if (e.type === 'text') {
      text += String(e.text ?? '')
      chunks++
      continue
    }
    if (isTool(e)) {
      const id = String(e.id ?? '')
      const m: ViewMessage = {
        type: 'tool',
        id,
        title: e.title,
        kind: e.kind,
        status: e.status,
        diffs: e.diffs === undefined ? undefined : diffsOf(e.diffs, workspace),
        ...commandOf(e, workspace, last.has(id) && last.get(id) !== i),
      }
      const earlier = tools.get(id)
      if (earlier) {
        for (const [k, v] of Object.entries(m)) if (v !== undefined) earlier[k] = v
        continue
      }
      flush()
      tools.set(id, m)
      out.push(m)
      continue
    }
    flush()
    switch (e.type) {
      case 'thought':
        out.push({ type: 'thought', text: String(e.text ?? '') })
        break
      case 'permission': {
        const call = e.tool_call ?? {}
        out.push({
          type: 'permission',
          id: String(e.id),
          title: String(call.title ?? 'a tool call'),
          kind: call.kind,
          diffs: diffsOf(call.diffs, workspace),
          options: Array.isArray(e.options) ? e.options : [],
        })
        break
      }
      case 'permission_decided':
        out.push({ type: 'decided', id: String(e.id), allowed: Boolean(e.allowed), by: String(e.by ?? ''), reason: e.reason })
        break
      case 'plan':
        out.push({ type: 'plan', entries: Array.isArray(e.entries) ? e.entries : [] })
        break
      case 'write':
        out.push({ type: 'write', path: shortPath(String(e.path ?? ''), workspace), tag: e.tag, by: e.by })
        break
      case 'write_refused':
        out.push({ type: 'notice', message: `write refused: ${shortPath(String(e.path ?? ''), workspace)}: ${e.error}` })
        break
      case 'notice':
        out.push({ type: 'notice', message: String(e.message ?? '') })
        break
      case 'options':
        out.push({ type: 'options', options: Array.isArray(e.options) ? e.options : [], mode: e.mode ?? null, model: e.model ?? null })
        break
      case 'turn_end':
        out.push({ type: 'turnEnd', stopReason: e.stop_reason, tag: e.tag, tagBefore: e.tag_before, timings: e.timings, usage: usageText(e.usage) })
        break
      case 'commands':
        out.push({ type: 'commands', commands: commandsOf(e.commands) })
        break
      case 'usage': {
        const text = usageText(e)
        if (text) out.push({ type: 'usage', text })
        break
      }
      case 'error':
        out.push({ type: 'error', message: `${e.message ?? 'the turn failed'}${e.code ? ` [${e.code}]` : ''}`, tagBefore: e.tag_before })
        break
      default:
        break // future events: the output channel has them
    }
  }
  flush()
  return out
}

/** The longest string of an event shown whole in the log. */
const LOG_STRING = 300

/**
 * The log lines of a batch's events (not its text): each event as JSON, its
 * long strings cut, at most 300 characters; a tool call's events of the
 * batch as one line, its last, with how many came before it.
 */
export function eventLogLines(batch: SessionEvent[]): string[] {
  const count = new Map<string, number>()
  for (const e of batch) if (isTool(e)) count.set(String(e.id ?? ''), (count.get(String(e.id ?? '')) ?? 0) + 1)
  const seen = new Map<string, number>()
  const lines: string[] = []
  for (const e of batch) {
    if (e.type === 'text') continue
    let more = ''
    if (isTool(e)) {
      const id = String(e.id ?? '')
      const n = (seen.get(id) ?? 0) + 1
      seen.set(id, n)
      if (n < (count.get(id) ?? 0)) continue
      if (n > 1) more = ` (and ${n - 1} earlier event(s) of this call)`
    }
    const line = JSON.stringify(e, (_k, v) => (typeof v === 'string' && v.length > LOG_STRING ? `${v.slice(0, LOG_STRING)}…` : v))
    lines.push(`event ${line.length > LOG_STRING ? `${line.slice(0, LOG_STRING)}…` : line}${more}`)
  }
  return lines
}

/** How a button answers a permission request: the agent's own option of that kind, by its exact id (the engine decides by the option's kind, so an id such as `allow` on a rejecting option still rejects), else the plain word. */
export function optionFor(options: Array<{ id?: string; kind?: string }>, choice: 'once' | 'always' | 'reject'): PermissionChoice {
  const kinds = choice === 'once' ? ['allow_once', 'allow_always'] : choice === 'always' ? ['allow_always', 'allow_once'] : ['reject_once', 'reject_always']
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind && typeof o.id === 'string')
    if (found) return { option: found.id as string }
  }
  return { answer: choice === 'reject' ? 'reject' : 'allow' }
}

/** A permission answer: one of the request's options by id, or the word. */
export type PermissionChoice = { option: string } | { answer: 'allow' | 'reject' }
