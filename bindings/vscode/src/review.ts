// The review of an answer's changes: each file as a diff editor
// (`vscode.diff`, the file against the proposed text), each hunk accepted or
// rejected in the chat view, and the accepted ones applied as one
// WorkspaceEdit over every file (one undo in each editor; new files
// created; open editors changed through the editor). A file edited since the
// proposal was made is refused with a message, never guessed at.

import * as vscode from 'vscode'

import { changedRegion } from './context'
import { applyHunks, hunkLines } from './diff'
import type { FileProposal } from './proposals'

export const REVIEW_SCHEME = 'radium-review'

/** One review: the files, each hunk's decision (undefined: not decided yet). */
export interface Review {
  id: number
  files: FileProposal[]
  decisions: Array<Array<boolean | undefined>>
  done: boolean
}

/** The right (and, for a new file, left) sides of the review diffs. */
export class ReviewDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>()
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? ''
  }
  add(review: number, file: number, side: string, filePath: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: filePath, query: `${review}-${file}-${side}` })
    this.texts.set(uri.toString(), text)
    return uri
  }
  forget(review: number): void {
    for (const key of [...this.texts.keys()]) if (key.includes(`?${review}-`) || key.endsWith(`%3F${review}-`)) this.texts.delete(key)
  }
}

/** What the view shows of a review. */
export function reviewMessage(review: Review): { type: string; [k: string]: unknown } {
  return {
    type: 'review',
    id: review.id,
    done: review.done,
    files: review.files.map((f, i) => ({
      label: f.label,
      isNew: f.oldText === null,
      hunks: f.hunks.map((h, k) => ({ lines: hunkLines(h), accepted: review.decisions[i][k] })),
    })),
  }
}

/** The text of a document: its open buffer, else the file on disk, else null. */
export async function currentText(filePath: string): Promise<string | null> {
  const uri = vscode.Uri.file(filePath)
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
  if (open) return open.getText()
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))
  } catch {
    return null
  }
}

/** Opens file `index` of the review as a diff editor. */
export async function showDiff(docs: ReviewDocuments, review: Review, index: number): Promise<void> {
  const f = review.files[index]
  const right = docs.add(review.id, index, 'new', f.path, f.newText)
  const left = f.oldText === null ? docs.add(review.id, index, 'old', f.path, '') : vscode.Uri.file(f.path)
  const name = f.label
  await vscode.commands.executeCommand('vscode.diff', left, right, `${name} ↔ Radium proposal${f.oldText === null ? ' (new file)' : ''}`, {
    preview: false,
  })
}

/** Closes the diff editors of a review. */
export async function closeDiffs(review: Review): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === REVIEW_SCHEME && tab.input.modified.query.startsWith(`${review.id}-`))
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs)
}

/** The outcome of applying a review. */
export interface Applied {
  hunks: number
  of: number
  files: string[]
}

/**
 * Applies the accepted hunks (undecided ones count as rejected) as one
 * WorkspaceEdit and saves the documents that had no unsaved changes before.
 * Throws an Error with a user-facing message when a file changed since the
 * proposal was made or the edit is refused.
 */
export async function applyReview(review: Review, save: boolean): Promise<Applied> {
  const edit = new vscode.WorkspaceEdit()
  const touched: Array<{ uri: vscode.Uri; wasDirty: boolean }> = []
  let accepted = 0
  let total = 0
  for (const [i, f] of review.files.entries()) {
    const decisions = f.hunks.map((_, k) => review.decisions[i][k] === true)
    total += f.hunks.length
    const n = decisions.filter(Boolean).length
    if (n === 0) continue
    accepted += n
    const uri = vscode.Uri.file(f.path)
    const now = await currentText(f.path)
    if (f.oldText === null) {
      if (now !== null) throw new Error(`${f.label} was created since the proposal was made; ask again`)
      edit.createFile(uri, { contents: new TextEncoder().encode(applyHunks('', f.hunks, decisions)) })
      touched.push({ uri, wasDirty: false })
      continue
    }
    if (now !== f.oldText) throw new Error(`${f.label} changed since the proposal was made; nothing was applied (ask again)`)
    const document = await vscode.workspace.openTextDocument(uri)
    const region = changedRegion(f.oldText, applyHunks(f.oldText, f.hunks, decisions))
    edit.replace(uri, new vscode.Range(document.positionAt(region.start), document.positionAt(region.end)), region.text)
    touched.push({ uri, wasDirty: document.isDirty })
  }
  if (accepted === 0) return { hunks: 0, of: total, files: [] }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code refused the edit; nothing was applied')
  if (save) {
    for (const t of touched) {
      if (t.wasDirty) continue
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === t.uri.toString())
      if (document?.isDirty) await document.save()
    }
  }
  return { hunks: accepted, of: total, files: touched.map((t) => vscode.workspace.asRelativePath(t.uri)) }
}
