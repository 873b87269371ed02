// A review's apply as one radium step: the engine's `record` request (the
// editor already changed and saved the files; radium writes nothing and
// checks the disk), and how the undo / redo answers of such a step are said.
// No dependency on VS Code, so it can be tested with plain Node.

import type { Engine, Request, Response } from './native'

/** One file of a `record`: its text before (null: created) and as saved. */
export interface RecordedFile {
  /** Absolute, or relative to the engine's workspace. */
  path: string
  oldText: string | null
  newText: string
}

/** What a `record` answered: the tag after the step, its files (relative), its first seq (null: nothing changed). */
export interface RecordedStep {
  tag: string | undefined
  files: string[]
  seq: number | null
  warnings: string[]
  /** With `amend`: whether the step joined the agent's (false: a step of its own). */
  amended?: boolean
}

/**
 * The `record` request of a step. With the chat's tag it continues that
 * conversation at its latest state (`follow`: never a rewind, whatever the
 * agent or an undo did since the tag was issued); without one the step
 * starts a conversation of its own.
 */
export function recordRequest(files: RecordedFile[], tag: string | undefined, amend?: number): Request & { follow?: boolean } {
  const args: Record<string, unknown> = { files: files.map((f) => ({ path: f.path, old_text: f.oldText, new_text: f.newText })) }
  // The take-back of a tool call's rejected hunks joins the agent's step (its write's seq).
  if (amend !== undefined) args.amend = amend
  const request: Request & { follow?: boolean } = { command: 'record', args }
  if (tag) {
    request.tag = tag
    request.follow = true
  }
  return request
}

/** The one-line message of a failed response, with its code (never a stack). */
export function engineMessage(r: Response, fallback: string): string {
  const first = (r.error ?? fallback).split('\n')[0]
  return `${first}${r.code ? ` [${r.code}]` : ''}`
}

/**
 * Records the files as one step of the conversation `tag` belongs to.
 * Throws an Error whose message is one line for the user (the engine's
 * message and code) when the engine refuses.
 */
export async function recordStep(engine: Engine, files: RecordedFile[], tag: string | undefined, amend?: number): Promise<RecordedStep> {
  let r: Response
  try {
    r = await engine.requestAsync(recordRequest(files, tag, amend))
  } catch (e) {
    throw new Error(`the record request failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`)
  }
  if (!r.ok) throw new Error(engineMessage(r, 'the record request failed'))
  const data = (r.data ?? {}) as { files?: Array<{ path?: string }>; seq?: number | null; amended?: boolean }
  return {
    tag: r.tag,
    files: (data.files ?? []).map((f) => String(f.path ?? '')),
    seq: typeof data.seq === 'number' ? data.seq : null,
    warnings: r.warnings ?? [],
    ...(typeof data.amended === 'boolean' ? { amended: data.amended } : {}),
  }
}

/** The step of an undo / redo answer (`files` only for a step of several files). */
export interface Step {
  seq?: number
  command?: string
  file?: string
  files?: string[]
}

/** The files of a step, as its answer names them. */
export function stepFiles(step: Step): string[] {
  if (Array.isArray(step.files) && step.files.length > 0) return step.files.map(String)
  return step.file ? [step.file] : []
}

/** A list of names for a notification: the first few, then how many more. */
export function nameList(names: string[], shown = 4): string {
  if (names.length <= shown) return names.join(', ')
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`
}

/** What an undo / redo did, for the notification: `undid record of 2 files (src/a.ts, src/b.ts)` (sorted). */
export function stepText(command: 'undo' | 'redo', step: Step | null | undefined): string {
  if (!step) return `nothing to ${command}`
  const verb = command === 'undo' ? 'undid' : 'redid'
  const files = [...stepFiles(step)].sort()
  if (files.length > 1) return `${verb} ${step.command} of ${files.length} files (${nameList(files)})`
  return `${verb} ${step.command} (${files[0] ?? '?'})`
}
