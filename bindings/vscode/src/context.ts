// Pure helpers of the editor commands (no dependency on VS Code, so they can
// be tested with plain Node): the editor context sent with a `step`, and the
// smallest edit that turns a document's text into the engine's `new_text`.

import * as path from 'path'

/** A position as VS Code gives it: 0-based line, UTF-16 column. */
export interface Pos {
  line: number
  character: number
}

/** The editor context of the `step` request (docs/protocol.md, `context`). */
export interface EditorContext {
  file_path: string
  language?: string
  selection: string
  surrounding_lines: string
  workspace?: string
  selection_range: { start_line: number; end_line: number }
}

export interface ContextInput {
  /** The document's text (the editor buffer, saved or not). */
  text: string
  languageId: string
  /** `document.uri.fsPath`, or undefined for an untitled document. */
  fsPath: string | undefined
  /** The workspace folder's path, when there is one. */
  workspace: string | undefined
  /** The selection (`start` before or at `end`). */
  start: Pos
  end: Pos
  /** How many lines above and below go into `surrounding_lines`. */
  surroundingLines: number
  /** Where an untitled document is said to be when there is no workspace. */
  fallbackDir: string
}

/** The lines of a text, split the way VS Code does (`\r\n`, `\n` or `\r`). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/)
}

/**
 * The editor context of a selection, and its 1-based line range (the lines
 * `apply` replaces). The selection is widened to whole lines, because
 * applying a block replaces whole lines: the agent sees exactly the text that
 * its answer will replace. An empty selection sends its line. A selection that
 * ends at column 0 of a later line (whole lines selected) ends on the line
 * before.
 */
export function editorContext(input: ContextInput): EditorContext {
  const lines = splitLines(input.text)
  const last = lines.length - 1
  const clampLine = (n: number) => Math.min(Math.max(0, n), last)
  const startLine = clampLine(input.start.line)
  let endLine = clampLine(input.end.line)
  if (endLine > startLine && input.end.character === 0) {
    endLine -= 1
  }
  const selection = lines.slice(startLine, endLine + 1).join('\n')
  const n = Number.isFinite(input.surroundingLines) ? Math.max(0, Math.floor(input.surroundingLines)) : 0
  const above = lines.slice(Math.max(0, startLine - n), startLine).join('\n')
  const below = lines.slice(endLine + 1, endLine + 1 + n).join('\n')
  let filePath = input.fsPath
  if (filePath === undefined || !path.isAbsolute(filePath)) {
    filePath = path.join(input.workspace ?? input.fallbackDir, 'untitled')
  }
  const context: EditorContext = {
    file_path: filePath,
    language: input.languageId,
    selection,
    surrounding_lines: `${above}\n---\n${below}`,
    selection_range: { start_line: startLine + 1, end_line: endLine + 1 },
  }
  if (input.workspace !== undefined) context.workspace = input.workspace
  return context
}

/** The part of `oldText` to replace (offsets `start..end`) by `text` to get `newText`. */
export interface Region {
  start: number
  end: number
  text: string
}

function splits(t: string, i: number): boolean {
  if (i <= 0 || i >= t.length) return false
  const before = t.charCodeAt(i - 1)
  const after = t.charCodeAt(i)
  // Inside a `\r\n` pair, or inside a surrogate pair.
  return (before === 13 && after === 10) || (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff)
}

/**
 * The smallest region that differs (common prefix and suffix removed), never
 * cutting a `\r\n` or a surrogate pair, so the edit touches only the changed
 * lines and Ctrl+Z undoes just that.
 */
export function changedRegion(oldText: string, newText: string): Region {
  const max = Math.min(oldText.length, newText.length)
  let prefix = 0
  while (prefix < max && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++
  while (prefix > 0 && (splits(oldText, prefix) || splits(newText, prefix))) prefix--
  let suffix = 0
  while (suffix < max - prefix && oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)) suffix++
  while (suffix > 0 && (splits(oldText, oldText.length - suffix) || splits(newText, newText.length - suffix))) suffix--
  return { start: prefix, end: oldText.length - suffix, text: newText.slice(prefix, newText.length - suffix) }
}
