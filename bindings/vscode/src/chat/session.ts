// A chat's agent session over the native module's session door: opened
// without blocking (`requestAsync` of `session-new`), its events pumped with
// `engine.sessionEvents` (a Promise per batch, settled on the extension
// host's thread), prompts, permission answers, cancel and close as quick
// requests. No dependency on VS Code, so it can be tested with plain Node.

import type { Engine, Response } from '../native'

/** One event of a session (docs/sessions.md). */
export interface SessionEvent {
  type: string
  [field: string]: any
}

/** What a prompt carries besides its text (docs/protocol.md, `session-prompt`). */
export interface PromptExtras {
  context?: Record<string, unknown> | null
  buffers?: Record<string, string | null> | null
  open_files?: Array<{ path: string; text: string }> | null
  /** Images, for an agent that takes images: files of the workspace, or inline data (a pasted image, base64). */
  images?: Array<string | { data: string; mimeType: string }> | null
}

/** One of the agent's controls (docs/sessions.md, "Modes, models and reasoning effort"). */
export interface Control {
  id: string
  name?: string
  category?: string | null
  current?: string | null
  values: Array<{ value: string; name?: string | null; description?: string | null }>
  legacy?: boolean
}

/** The agent's controls: every option, and the current mode and model. */
export interface Controls {
  options: Control[]
  mode: string | null
  model: string | null
}

/** The controls of an engine answer (`session-new`, `session-set-option`, an `options` event). */
export function controlsOf(data: any): Controls {
  return {
    options: Array.isArray(data?.options) ? data.options : [],
    mode: typeof data?.mode === 'string' ? data.mode : null,
    model: typeof data?.model === 'string' ? data.model : null,
  }
}

/** An engine failure as an Error with its code (`error.code`). */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message)
  }
}

function checked(response: Response, what: string): any {
  if (!response.ok) throw new EngineError(`${response.error ?? `${what} failed`}${response.code ? ` [${response.code}]` : ''}`, response.code)
  return response.data
}

export class ChatSession {
  private closed = false
  /** The agent's modes, models and other options, as last heard. */
  controls: Controls = { options: [], mode: null, model: null }
  /** The agents.toml defaults the agent did not take (said once, at the start). */
  warnings: string[] = []
  /** What the start could not do (an MCP server not passed, radium's tools not offered): said once, as the chat opens. */
  notices: string[] = []
  /** Settles when the event pump ends (the session closed or its agent went away). */
  readonly ended: Promise<void>

  private constructor(
    readonly engine: Engine,
    readonly id: string,
    readonly agent: string,
    /** The dog tag of the session's conversation from the start (undefined: the engine could not keep a history). */
    readonly tag: string | undefined,
    onBatch: (events: SessionEvent[]) => void,
    /** How a past conversation was taken up: 'resume', 'load', 'context' (undefined: a new one). */
    readonly resumed?: string,
  ) {
    this.ended = this.pump(onBatch)
  }

  /**
   * Opens a session with `agent` (the agent starts in the background) in the
   * conversation of `tag` when given (else a new one), or continuing the
   * past conversation `resume` (an id of `history-list`); `onBatch` gets its
   * events as they come.
   */
  static async open(engine: Engine, agent: string, onBatch: (events: SessionEvent[]) => void, tag?: string, resume?: string): Promise<ChatSession> {
    const args: Record<string, unknown> = { agent }
    if (tag) args.tag = tag
    if (resume) args.resume = resume
    const data = checked(await engine.requestAsync({ command: 'session-new', args }), 'session-new')
    const given = typeof data.tag === 'string' ? data.tag : undefined
    const resumed = typeof data.resumed === 'string' ? data.resumed : undefined
    const session = new ChatSession(engine, String(data.session), String(data.agent ?? agent), given, onBatch, resumed)
    session.controls = controlsOf(data)
    session.warnings = Array.isArray(data.warnings) ? data.warnings.map(String) : []
    session.notices = Array.isArray(data.notices) ? data.notices.map(String) : []
    return session
  }

  private async pump(onBatch: (events: SessionEvent[]) => void): Promise<void> {
    for (;;) {
      let batch: SessionEvent[] | null
      try {
        batch = (await this.engine.sessionEvents(this.id)) as SessionEvent[] | null
      } catch {
        batch = null
      }
      if (batch === null) {
        this.closed = true
        return
      }
      onBatch(batch)
    }
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** Starts a turn (answers at once); throws an EngineError (e.g. a turn already running). */
  prompt(text: string, extras: PromptExtras = {}): void {
    checked(
      this.engine.request({
        command: 'session-prompt',
        args: { session: this.id, prompt: text, context: extras.context ?? null, buffers: extras.buffers ?? null, open_files: extras.open_files ?? null, images: extras.images ?? null },
      }),
      'session-prompt',
    )
  }

  /**
   * Answers permission request `id`: `{ option }` (one of its options, by its
   * exact id) or `{ answer }` ('allow' or 'reject'); with `hunks` (an allowing
   * answer), only those hunks of its diffs are kept: `{ [path]: [index] }`.
   */
  answer(id: string, choice: ({ option: string } | { answer: 'allow' | 'reject' }) & { hunks?: Record<string, number[]> }): void {
    checked(this.engine.request({ command: 'session-permission', args: { session: this.id, id, ...choice } }), 'session-permission')
  }

  /**
   * Sets the agent's option `option` (an id, or a category: `mode`, `model`,
   * `thought_level`) to `value`, one it offers, without blocking the
   * extension host; throws an EngineError listing what it offers otherwise.
   */
  async setOption(option: string, value: string): Promise<Controls> {
    const data = checked(
      await this.engine.requestAsync({ command: 'session-set-option', args: { session: this.id, option, value } }),
      'session-set-option',
    )
    this.controls = controlsOf(data)
    return this.controls
  }

  /** Cancels the running turn (it ends with stop_reason `cancelled`). */
  cancel(): void {
    checked(this.engine.request({ command: 'session-cancel', args: { session: this.id } }), 'session-cancel')
  }

  /** Ends the session and its agent; never throws. */
  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.engine.request({ command: 'session-close', args: { session: this.id } })
    } catch {
      // Already gone.
    }
  }
}
