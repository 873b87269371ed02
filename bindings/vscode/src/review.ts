// The review of an answer's changes: each file as a diff editor
// (`vscode.diff`, the file against the proposed text), each hunk accepted or
// rejected in the chat view, and the accepted ones applied as one
// WorkspaceEdit over every file (one undo in each editor; new files
// created; open editors changed through the editor), then saved, so the
// chat can record the apply as one radium step (src/record.ts). A file
// edited since the proposal was made is refused with a message, never
// guessed at.

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

/** A file an apply changed: its text before, and after the apply (and the save). */
export interface ChangedFile {
  path: string
  label: string
  /** The text before the apply (the editor's, unsaved changes included); null: created. */
  oldText: string | null
  /** The text after the apply: the saved document's (a formatter on save included), else the file's. */
  newText: string
  /** Saved, or written by the apply itself (a created file): the disk holds `newText`. */
  onDisk: boolean
}

/** The outcome of applying a review. */
export interface Applied {
  hunks: number
  of: number
  /** The files changed, relative to the workspace. */
  files: string[]
  changed: ChangedFile[]
  /** Files that had unsaved changes before the apply and were saved with it. */
  savedDirty: string[]
}

/** The open document of a URI, if any. */
function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
}

/**
 * Applies the accepted hunks (undecided ones count as rejected) as one
 * WorkspaceEdit; with `save`, saves every document it changed, one that had
 * unsaved changes before included (the apply can then be recorded as one
 * radium step, which needs the disk to hold it). Throws an Error with a
 * user-facing message when a file changed since the proposal was made or
 * the edit is refused.
 */
export async function applyReview(review: Review, save: boolean): Promise<Applied> {
  const edit = new vscode.WorkspaceEdit()
  const touched: Array<{ uri: vscode.Uri; label: string; oldText: string | null; wasDirty: boolean }> = []
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
      touched.push({ uri, label: f.label, oldText: null, wasDirty: false })
      continue
    }
    if (now !== f.oldText) throw new Error(`${f.label} changed since the proposal was made; nothing was applied (ask again)`)
    const document = await vscode.workspace.openTextDocument(uri)
    const region = changedRegion(f.oldText, applyHunks(f.oldText, f.hunks, decisions))
    edit.replace(uri, new vscode.Range(document.positionAt(region.start), document.positionAt(region.end)), region.text)
    touched.push({ uri, label: f.label, oldText: f.oldText, wasDirty: document.isDirty })
  }
  if (accepted === 0) return { hunks: 0, of: total, files: [], changed: [], savedDirty: [] }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code refused the edit; nothing was applied')
  const savedDirty: string[] = []
  const changed: ChangedFile[] = []
  for (const t of touched) {
    const document = openDocument(t.uri)
    if (save && document?.isDirty) {
      const saved = await document.save()
      if (saved && !document.isDirty && t.wasDirty) savedDirty.push(t.label)
    }
    const after = document ? document.getText() : await currentText(t.uri.fsPath)
    changed.push({
      path: t.uri.fsPath,
      label: t.label,
      oldText: t.oldText,
      newText: after ?? '',
      onDisk: document ? !document.isDirty : after !== null,
    })
  }
  return { hunks: accepted, of: total, files: touched.map((t) => vscode.workspace.asRelativePath(t.uri)), changed, savedDirty }
}
