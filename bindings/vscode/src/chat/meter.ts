// The figures of one chat turn, for the log and the benchmark: how long it
// took, how many text chunks came in how many view messages, and the
// extension host's event-loop delay meanwhile.

import { monitorEventLoopDelay, type IntervalHistogram } from 'perf_hooks'

/** The figures the view shows after a turn (`hostStats`). */
export interface HostStats {
  p50: number
  p99: number
  max: number
  chunks: number
  bytes: number
  messages: number
}

/** Measures one turn at a time: `start` when it is sent, `stop` when it ends. */
export class TurnMeter {
  private delay: IntervalHistogram | undefined
  private started = 0
  private messages = 0
  private chunks = 0
  private bytes = 0

  /** Starts measuring a turn (a turn still measured is dropped). */
  start(): void {
    this.delay?.disable()
    this.delay = monitorEventLoopDelay({ resolution: 1 })
    this.delay.enable()
    this.started = Date.now()
    this.messages = 0
    this.chunks = 0
    this.bytes = 0
  }

  /** Counts one view message of `chunks` text chunks holding `text`. */
  text(chunks: number, text: string): void {
    this.messages++
    this.chunks += chunks
    this.bytes += Buffer.byteLength(text)
  }

  /** Stops: the figures as one line and for the view (undefined when nothing was measured). */
  stop(): { line: string; stats: HostStats } | undefined {
    const h = this.delay
    this.delay = undefined
    if (!h) return undefined
    h.disable()
    const ms = (ns: number) => (ns / 1e6).toFixed(1)
    const line = `${Date.now() - this.started} ms, ${this.chunks} text chunk(s) in ${this.messages} view message(s), event-loop delay p50 ${ms(h.percentile(50))} ms, p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms`
    const stats = { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, chunks: this.chunks, bytes: this.bytes, messages: this.messages }
    return { line, stats }
  }
}
