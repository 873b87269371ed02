// The engine's log in the Radium output channel (docs/protocol.md, "The
// engine's log"): failed requests with their error, agents and language
// servers started, stopped or crashed, an agent's stderr (at `debug`). Each
// engine is read with the `log` request (`requestAsync`, so the extension
// host never waits) every `intervalMs`, from the number the last answer gave,
// so each entry is written once. `radium.logLevel` picks the least level shown.

import type { Engine } from './native'

/** An entry of the `log` request. */
export interface LogEntry {
  seq: number
  time_ms: number
  level: 'debug' | 'info' | 'warn'
  source: string
  message: string
}

/** The line an entry makes in the output channel. */
export function logLine(e: LogEntry, label: string): string {
  const time = new Date(e.time_ms).toISOString().slice(11, 23)
  return `[engine${label ? ` ${label}` : ''}] ${time} ${e.level.padEnd(5)} ${e.source}: ${e.message}`
}

interface Followed {
  engine: Engine
  label: string
  next: number
  busy: boolean
}

/** Follows the logs of the extension's engines into `write`. */
export class EngineLogs {
  private readonly followed: Followed[] = []
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly write: (line: string) => void,
    private readonly level: () => string,
    private readonly intervalMs = 1000,
  ) {}

  /** Starts following `engine`'s log (from its first entry); `label` names it when there are several. */
  follow(engine: Engine, label: string): void {
    if (this.followed.some((f) => f.engine === engine)) return
    const f: Followed = { engine, label, next: 0, busy: false }
    this.followed.push(f)
    void this.poll(f)
    if (!this.timer) {
      this.timer = setInterval(() => {
        for (const x of this.followed) void this.poll(x)
      }, this.intervalMs)
      // Following the log never keeps a process alive.
      this.timer.unref?.()
    }
  }

  /** Writes what is new in `f`'s log; resolves when written (tests wait on it). */
  async poll(f: Followed): Promise<void> {
    if (f.busy) return
    f.busy = true
    try {
      const level = ['debug', 'info', 'warn'].includes(this.level()) ? this.level() : 'info'
      const r = await f.engine.requestAsync({ command: 'log', args: { since: f.next, level } })
      if (!r.ok) return
      const data = r.data as { entries: LogEntry[]; next: number }
      f.next = data.next
      for (const e of data.entries) this.write(logLine(e, f.label))
    } catch {
      // An engine that went away: nothing more to read.
    } finally {
      f.busy = false
    }
  }

  /** Reads every followed log once now (tests; before showing the channel). */
  async flush(): Promise<void> {
    await Promise.all(this.followed.map((f) => this.poll(f)))
  }

  /** Stops following every engine. */
  dispose(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.followed.length = 0
  }
}
