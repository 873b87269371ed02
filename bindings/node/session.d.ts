import type { Engine } from './index'

/** One event of a session (docs/sessions.md lists them): `type` and its fields. */
export interface SessionEvent {
  type: string
  [field: string]: any
}

/** What a prompt may carry besides its text. */
export interface PromptOptions {
  /** An editor context: file_path, selection, selection_range, surrounding_lines. */
  context?: Record<string, unknown>
  /** Unsaved buffers by path; the agent reads these instead of the files. */
  buffers?: Record<string, string | null>
  /** Other open files, sent with their text. */
  openFiles?: Array<{ path: string, text: string }>
  /** Image files of the workspace (png, jpeg, gif, webp; 10 MiB each at most), for an agent that takes images. */
  images?: string[]
}

/** Every event of `session` until it ends. */
export function sessionEvents (engine: Engine, session: string): AsyncGenerator<SessionEvent, void>

/** An open session with a coding agent. */
export class Session {
  readonly engine: Engine
  readonly id: string
  readonly agent: string
  readonly workspace: string
  /** Starts a turn and iterates over its events; the last is `turn_end` or `error`. */
  prompt (prompt: string | object[], options?: PromptOptions): AsyncGenerator<SessionEvent, void>
  /**
   * Answers permission request `id`: 'allow' or 'reject' (the agent's option
   * of that kind), or one of its options by exact id (an entry of the event's
   * `options`, or `{ option }`): the option's kind decides. With `hunks`
   * (an allowing answer), only those hunks of the request's diffs are kept.
   */
  answer (id: string, choice: string | ({ id: string } | { option: string } | { answer: 'allow' | 'reject' }) & { hunks?: Record<string, number[]> }): unknown
  /** Cancels the running turn. */
  cancel (): unknown
  /** Ends the session (the agent and its children end). */
  close (): unknown
}

/** Opens a session with `agent` (an id from agents.toml) without blocking. */
export function openSession (engine: Engine, agent: string): Promise<Session>
