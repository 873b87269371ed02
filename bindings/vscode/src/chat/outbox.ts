// The chat's messages on their way to the webview, in order, at most about
// FRAME_TEXT characters of answer text a frame: VS Code serializes each
// message on the extension host's thread, so a long text message (a 5 MB
// answer arrives in a few) is cut into pieces sent a frame apart, and what
// comes after it waits its turn. Other messages go at once when nothing
// waits. No dependency on VS Code.

import type { ViewMessage } from './events'

/** The most characters of text sent to the webview in one frame (one piece at least). */
export const FRAME_TEXT = 256 * 1024
/** The time between two frames of sending (ms). */
const FRAME_MS = 16

/** `m` cut into text messages of at most `size` characters (never inside a surrogate pair); other messages as they are. */
export function textPieces(m: ViewMessage, size = FRAME_TEXT): ViewMessage[] {
  if (m.type !== 'text' || typeof m.text !== 'string' || m.text.length <= size) return [m]
  const text = m.text
  const out: ViewMessage[] = []
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + size)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
    // The first piece carries the chunks (the meter counts them once).
    out.push({ ...m, text: text.slice(at, end), chunks: at === 0 ? m.chunks : 0 })
    at = end
  }
  return out
}

/** Sends messages in order through `send`, at most about FRAME_TEXT characters of text a frame. */
export class Outbox {
  private waiting: ViewMessage[] = []
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly send: (m: ViewMessage) => void) {}

  post(m: ViewMessage): void {
    for (const piece of textPieces(m)) this.waiting.push(piece)
    if (!this.timer) this.drain()
  }

  /** How many messages wait for a later frame. */
  get pending(): number {
    return this.waiting.length
  }

  /** Sends everything now (the view is going away). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const m of this.waiting.splice(0)) this.send(m)
  }

  private drain(): void {
    this.timer = undefined
    let text = 0
    let sent = 0
    while (sent < this.waiting.length) {
      const m = this.waiting[sent]
      const size = m.type === 'text' && typeof m.text === 'string' ? m.text.length : 0
      if (text > 0 && text + size > FRAME_TEXT) break
      sent++
      text += size
      this.send(m)
    }
    this.waiting = sent === this.waiting.length ? [] : this.waiting.slice(sent)
    if (this.waiting.length > 0) this.timer = setTimeout(() => this.drain(), FRAME_MS)
  }
}
