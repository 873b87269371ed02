// A session's event batches joined before the chat handles them: the
// batches that arrive in one turn of the extension host's event loop are
// handled together (setImmediate), and at most once per frame (16 ms) while
// they keep coming, so a flood of events is a few passes over joined
// batches (its text joined, a tool call's updates merged: events.ts), not a
// pass and a webview message per event. No dependency on VS Code.

import type { SessionEvent } from './session'

/** The shortest time between two passes while events keep coming (one frame). */
export const FRAME_MS = 16

/** Joins batches; `handle` gets them with the time (Date.now()) the first of them arrived. */
export class EventBatcher {
  private pending: SessionEvent[] = []
  private first = 0
  private last = -Infinity
  private timer: { cancel(): void } | undefined

  constructor(
    private readonly handle: (events: SessionEvent[], t: number) => void,
    private readonly frameMs = FRAME_MS,
  ) {}

  /** Events that arrived; handled at the loop's next turn, or a frame after the last pass. */
  push(batch: SessionEvent[]): void {
    if (batch.length === 0) return
    if (this.pending.length === 0) this.first = Date.now()
    for (const e of batch) this.pending.push(e)
    if (this.timer) return
    const wait = this.last + this.frameMs - performance.now()
    if (wait > 0) {
      const t = setTimeout(() => this.flush(), wait)
      this.timer = { cancel: () => clearTimeout(t) }
    } else {
      const t = setImmediate(() => this.flush())
      this.timer = { cancel: () => clearImmediate(t) }
    }
  }

  /** Handles what waits now (nothing: nothing happens). */
  flush(): void {
    this.timer?.cancel()
    this.timer = undefined
    if (this.pending.length === 0) return
    const events = this.pending
    this.pending = []
    this.last = performance.now()
    this.handle(events, this.first)
  }

  /** How many events wait. */
  get waiting(): number {
    return this.pending.length
  }
}
