// The engine's request door as the commands use it: every request timed and
// logged, failures turned into one line of text, and the helpers of the
// agents list and of cancellation. No dependency on VS Code, so it can be
// tested with plain Node.

import type { Engine, Request, Response } from './native'

/** A request that may carry an `id`, by which a `cancel` request stops it. */
export type IdRequest = Request & { id?: string }

/** Where the lines go (the "Radium" output channel). */
export type Log = (line: string) => void

/** One agent of the `agents` request. */
export interface AgentInfo {
  id: string
  command: string[]
  timeout_ms: number
  env?: Record<string, string>
  cwd?: string
  source?: string
}

/** The `id` of the n-th `step` this extension sends. */
export function stepId(seq: number): string {
  return `vscode-step-${seq}`
}

/** The text of a failed response: the engine's message, with its code. */
export function failureText(response: Response, fallback = 'the request failed'): string {
  const message = response.error ?? fallback
  return response.code ? `${message} [${response.code}]` : message
}

/** How a request is named in the log: its command, its id, its agent. */
export function requestLabel(request: IdRequest): string {
  const agent = request.args?.agent
  const parts = [request.command]
  if (typeof agent === 'string') parts.push(agent)
  if (request.id !== undefined) parts.push(`(${request.id})`)
  return parts.join(' ')
}

/** The log line of an answered request. */
export function timingLine(request: IdRequest, response: Response, ms: number): string {
  const outcome = response.ok ? 'ok' : `failed: ${response.code ?? 'error'}`
  return `request ${requestLabel(request)}: ${outcome} in ${ms.toFixed(1)} ms`
}

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/** `engine.request`, timed and logged (it blocks: for quick commands only). */
export function timedRequest(engine: Engine, request: IdRequest, log: Log): Response {
  const started = now()
  const response = engine.request(request)
  log(timingLine(request, response, now() - started))
  return response
}

/** `engine.requestAsync`, timed and logged when it answers. */
export async function timedRequestAsync(engine: Engine, request: IdRequest, log: Log): Promise<Response> {
  const started = now()
  const response = await engine.requestAsync(request)
  log(timingLine(request, response, now() - started))
  return response
}

/**
 * Asks the engine to stop the request with this id (its agent's process
 * group is killed) and says, in one line, what happened.
 */
export function cancelRequest(engine: Engine, id: string, log: Log): string {
  const response = timedRequest(engine, { command: 'cancel', args: { id } }, log)
  if (!response.ok) return `the engine could not cancel ${id}: ${failureText(response)}`
  const data = response.data as { cancelled?: number } | undefined
  const n = data?.cancelled ?? 0
  return n > 0 ? `${id} cancelled (${n} request${n === 1 ? '' : 's'} stopped)` : `${id} had already ended`
}

/** A quick pick entry of an agent (plain data; the command adds nothing else). */
export interface AgentItem {
  label: string
  description: string
  detail: string
  id: string
}

/** The agents as quick pick entries; the current one is marked. */
export function agentItems(agents: AgentInfo[], current: string): AgentItem[] {
  return agents.map((a) => ({
    label: a.id === current ? `$(check) ${a.id}` : a.id,
    description: a.command.join(' '),
    detail: `time limit ${a.timeout_ms / 1000} s${a.source ? ` · ${a.source}` : ''}`,
    id: a.id,
  }))
}
