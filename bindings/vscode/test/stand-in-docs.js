'use strict'
// The documents of the stand-in `vscode` module (stand-in.js): positions,
// ranges, WorkspaceEdits (replacements and created files) and text
// documents that save to disk and, like VS Code's, follow their file on
// disk while they have no unsaved changes. Not a test file itself.

const fs = require('node:fs')

class Position {
  constructor(line, character) {
    this.line = line
    this.character = character
  }
}

class Range {
  constructor(start, end) {
    this.start = start
    this.end = end
  }
}

class WorkspaceEdit {
  constructor() {
    this.edits = []
  }
  replace(uri, range, text) {
    this.edits.push({ uri, range, text })
  }
  createFile(uri, options = {}) {
    this.edits.push({ uri, create: true, contents: options.contents, overwrite: Boolean(options.overwrite) })
  }
}

/** VS Code's default word pattern (DEFAULT_WORD_REGEXP). */
const WORD = /(-?\d*\.\d\w*)|([^`~!@#$%^&*()\-=+[{\]}\\|;:'",.<>/?\s]+)/g

/** Offsets <-> positions with VS Code's line breaks (\r\n, \n, \r). */
function lineStarts(text) {
  const starts = [0]
  for (const m of text.matchAll(/\r\n|\r|\n/g)) starts.push(m.index + m[0].length)
  return starts
}

function offsetAt(text, pos) {
  return lineStarts(text)[pos.line] + pos.character
}

/**
 * What the documents do, set by a test: `reload` (a document without unsaved
 * changes shows its file as it is on disk, as VS Code reloads it; false: it
 * keeps its text until reverted), `onSave` (a formatter: text => text) and
 * `afterSave` (document => void: what happens to the file once saved).
 */
const docOptions = { reload: true, onSave: undefined, afterSave: undefined }

class Document {
  constructor(uri, languageId, text, { isUntitled = false, isDirty = true } = {}) {
    this.uri = uri
    this.languageId = languageId
    this._text = text
    this.isUntitled = isUntitled
    this.isDirty = isDirty
    this.version = 1
  }
  get text() {
    if (!this.isDirty && !this.isUntitled && docOptions.reload) this.revert()
    return this._text
  }
  set text(value) {
    this._text = value
  }
  /** Reloads the text from disk (File: Revert File); a removed file keeps its text. */
  revert() {
    let disk
    try {
      disk = fs.readFileSync(this.uri.fsPath, 'utf8')
    } catch {
      return
    }
    if (disk !== this._text) {
      this._text = disk
      this.version++
    }
    this.isDirty = false
  }
  /** The whole text, or the text of a range. */
  getText(range) {
    if (!range) return this.text
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end))
  }
  /** The word at (or just after) a position, with VS Code's default word pattern. */
  getWordRangeAtPosition(pos) {
    const line = this.text.slice(lineStarts(this.text)[pos.line]).split(/\r\n|\r|\n/)[0]
    for (const m of line.matchAll(WORD)) {
      if (m.index <= pos.character && pos.character <= m.index + m[0].length) {
        return new Range(new Position(pos.line, m.index), new Position(pos.line, m.index + m[0].length))
      }
    }
    return undefined
  }
  get lineCount() {
    return lineStarts(this.text).length
  }
  offsetAt(pos) {
    return offsetAt(this.text, pos)
  }
  async save() {
    if (docOptions.onSave) this._text = docOptions.onSave(this._text)
    fs.writeFileSync(this.uri.fsPath, this._text)
    this.isDirty = false
    docOptions.afterSave?.(this)
    return true
  }
  positionAt(offset) {
    const starts = lineStarts(this.text)
    let line = 0
    while (line + 1 < starts.length && starts[line + 1] <= offset) line++
    return new Position(line, offset - starts[line])
  }
}

/** Applies a WorkspaceEdit's replacements to a text (as VS Code would). */
function applied(text, edit) {
  const parts = edit.edits
    .filter((e) => e.range)
    .map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), text: e.text }))
    .sort((a, b) => b.start - a.start)
  for (const p of parts) text = text.slice(0, p.start) + p.text + text.slice(p.end)
  return text
}

module.exports = { Position, Range, WorkspaceEdit, Document, applied, docOptions, lineStarts, offsetAt }
