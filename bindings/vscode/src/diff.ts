// Line diffs for the review: the hunks that turn one text into another, and
// the text that results from accepting some of them. No dependency on VS
// Code, so it can be tested with plain Node.

/** The lines of a text, each with its line break (the last may have none). */
export function linesOf(text: string): string[] {
  return text.match(/[^\r\n]*(\r\n|\r|\n)|[^\r\n]+$/g) ?? []
}

/** One change: `oldLines` at `oldStart` (0-based line) become `newLines`. */
export interface Hunk {
  oldStart: number
  oldLines: string[]
  newStart: number
  newLines: string[]
}

/** Above this many lines on both sides (after the common ends), one hunk covers the middle. */
const MAX_LCS = 4_000_000

/**
 * The hunks from `oldText` to `newText`: runs of changed lines separated by
 * at least one unchanged line (a longest-common-subsequence diff of the
 * lines, after the common prefix and suffix are set aside).
 */
export function hunks(oldText: string, newText: string): Hunk[] {
  const a = linesOf(oldText)
  const b = linesOf(newText)
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let suf = 0
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++
  const n = a.length - pre - suf
  const m = b.length - pre - suf
  if (n === 0 && m === 0) return []
  if (n === 0 || m === 0 || n * m > MAX_LCS) {
    return [{ oldStart: pre, oldLines: a.slice(pre, pre + n), newStart: pre, newLines: b.slice(pre, pre + m) }]
  }
  // lcs[i][j]: the LCS length of a[pre+i..] and b[pre+j..] (flat array).
  const w = m + 1
  const lcs = new Uint32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[pre + i] === b[pre + j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1])
    }
  }
  const out: Hunk[] = []
  let current: Hunk | undefined
  let i = 0
  let j = 0
  const open = () => {
    current ??= { oldStart: pre + i, oldLines: [], newStart: pre + j, newLines: [] }
    return current
  }
  while (i < n || j < m) {
    if (i < n && j < m && a[pre + i] === b[pre + j]) {
      if (current) out.push(current)
      current = undefined
      i++
      j++
    } else if (j < m && (i === n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) {
      open().newLines.push(b[pre + j])
      j++
    } else {
      open().oldLines.push(a[pre + i])
      i++
    }
  }
  if (current) out.push(current)
  return out
}

/** `oldText` with the hunks accepted (`accepted[k]` for `list[k]`) applied. */
export function applyHunks(oldText: string, list: Hunk[], accepted: boolean[]): string {
  const a = linesOf(oldText)
  const result: string[] = []
  let at = 0
  list.forEach((h, k) => {
    result.push(...a.slice(at, h.oldStart))
    result.push(...(accepted[k] ? h.newLines : h.oldLines))
    at = h.oldStart + h.oldLines.length
  })
  result.push(...a.slice(at))
  return result.join('')
}

/** A hunk as unified-diff lines (`@@ -a,b +c,d @@`, then `-` and `+` lines without their breaks). */
export function hunkLines(h: Hunk): string[] {
  const strip = (l: string) => l.replace(/\r?\n$|\r$/, '')
  return [
    `@@ -${h.oldStart + 1},${h.oldLines.length} +${h.newStart + 1},${h.newLines.length} @@`,
    ...h.oldLines.map((l) => `-${strip(l)}`),
    ...h.newLines.map((l) => `+${strip(l)}`),
  ]
}

/** A whole diff as unified lines (for a tool call's diff), at most `max` lines. */
export function diffLines(oldText: string, newText: string, max = 400): string[] {
  const lines = hunks(oldText, newText).flatMap(hunkLines)
  return lines.length > max ? [...lines.slice(0, max), `… ${lines.length - max} more lines`] : lines
}
