// The changes an answer proposes, as files with hunks: a code block that
// names a file replaces that file (a new file when it does not exist); a
// block without a path replaces the selection the prompt was sent with.
// No dependency on VS Code.

import * as path from 'path'

import { hunks, linesOf, type Hunk } from './diff'

/** A code block of an answer (`turn_end.code_blocks`, the engine's extract). */
export interface Block {
  language?: string
  content: string
  index?: number
  file_path?: string
  incomplete?: boolean
}

/** The selection a prompt was sent with, where it is now. */
export interface SelectionTarget {
  /** Absolute path of its document. */
  path: string
  /** The document's text now. */
  text: string
  /** Offsets of the (whole-line) selection in `text`. */
  start: number
  end: number
}

/** One file of a proposal. */
export interface FileProposal {
  /** Absolute path. */
  path: string
  /** Relative to the workspace, for display. */
  label: string
  /** The text the hunks apply to (`null`: the file does not exist). */
  oldText: string | null
  newText: string
  hunks: Hunk[]
}

/** A file's current text (an open editor's buffer first), or null when there is none. */
export type ReadText = (absPath: string) => string | null

/** Where a block's path points, or an error text (outside the workspace). */
export function resolveInside(workspace: string, p: string): string | { error: string } {
  const abs = path.resolve(workspace, p)
  const rel = path.relative(workspace, abs)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { error: `${p} is outside the workspace` }
  if (rel.split(path.sep).some((part) => part === '.git' || part === '.radium')) return { error: `${p} is inside ${rel.split(path.sep)[0]}` }
  return abs
}

/** The whole-line replacement of a selection: the block's text ends with a line break when the selection did. */
function replaceSelection(target: SelectionTarget, content: string): string {
  const selected = target.text.slice(target.start, target.end)
  let body = content
  const selectedBreak = /(\r\n|\r|\n)$/.exec(selected)
  if (selectedBreak && !/(\r\n|\r|\n)$/.test(body)) body += selectedBreak[1]
  if (!selectedBreak) body = body.replace(/(\r\n|\r|\n)$/, '')
  return target.text.slice(0, target.start) + body + target.text.slice(target.end)
}

/**
 * The files an answer's blocks change (skipped blocks are explained in
 * `skipped`): a later block for the same file wins; blocks that change
 * nothing are left out.
 */
export function proposals(
  blocks: Block[],
  workspace: string,
  read: ReadText,
  selection?: SelectionTarget,
): { files: FileProposal[]; skipped: string[] } {
  const byPath = new Map<string, FileProposal>()
  const skipped: string[] = []
  let selectionUsed = false
  for (const block of blocks) {
    if (block.incomplete) {
      skipped.push(`block #${(block.index ?? 0) + 1} is not closed`)
      continue
    }
    let abs: string
    let oldText: string | null
    let newText: string
    if (block.file_path) {
      const where = resolveInside(workspace, block.file_path)
      if (typeof where !== 'string') {
        skipped.push(where.error)
        continue
      }
      abs = where
      oldText = read(abs)
      newText = block.content
      if (oldText !== null && linesOf(oldText).length > 0 && !/(\r\n|\r|\n)$/.test(newText) && /(\r\n|\r|\n)$/.test(oldText)) {
        newText += /\r\n$/.test(oldText) ? '\r\n' : '\n'
      }
    } else if (selection && !selectionUsed) {
      selectionUsed = true
      abs = selection.path
      oldText = selection.text
      newText = replaceSelection(selection, block.content)
    } else {
      continue
    }
    const base = oldText ?? ''
    if (oldText !== null && base === newText) continue
    byPath.set(abs, { path: abs, label: path.relative(workspace, abs) || abs, oldText, newText, hunks: hunks(base, newText) })
  }
  return { files: [...byPath.values()], skipped }
}
