// A selection followed as its document changes: edits before it move it,
// edits after it leave it, and an edit inside it marks it changed (applying
// an answer there would guess). No dependency on VS Code.

/** A range of a document as offsets (`start` ≤ `end`). */
export interface Span {
  start: number
  end: number
}

/** One content change, as `TextDocumentChangeEvent.contentChanges` gives it. */
export interface ContentChange {
  rangeOffset: number
  rangeLength: number
  text: string
}

/**
 * Where `span` is after `changes` (all against the document before them, as
 * VS Code reports one event's changes), or `undefined` when one of them
 * touched the text inside it. Insertions at its very start or end are outside.
 */
export function track(span: Span, changes: readonly ContentChange[]): Span | undefined {
  let { start, end } = span
  const sorted = [...changes].sort((x, y) => y.rangeOffset - x.rangeOffset)
  for (const c of sorted) {
    const cStart = c.rangeOffset
    const cEnd = c.rangeOffset + c.rangeLength
    const delta = c.text.length - c.rangeLength
    if (cStart >= span.end) continue
    if (cEnd <= span.start) {
      start += delta
      end += delta
      continue
    }
    // Overlaps, or an insertion strictly inside.
    return undefined
  }
  return { start, end }
}
