// A file radium changed on disk (an agent's write, radium's undo or redo of
// one) whose open document has unsaved changes: VS Code does not reload a
// dirty document, and radium does not leave it silently behind either. The
// engine's `merge` joins the document's text (ours) with the disk's
// (theirs) from the text before the change (the base, found from the
// write's `seq`). The document is reverted (VS Code then knows the disk's
// new version, so a later save asks nothing) and the merged text applied
// as one edit: it stays dirty, holding both the user's text and the change.
// Conflicts keep diff3 markers (<<<<<<< ours ... >>>>>>> theirs), which VS
// Code's merge-conflict support shows with Accept Current / Accept Incoming.

import * as path from 'path'
import * as vscode from 'vscode'

import type { Engine } from '../native'
import { engineMessage } from '../record'

/** What became of one dirty document. */
export interface Merged {
  /** The file, as the workspace names it. */
  file: string
  /** Whether the merged text is in the document. */
  merged: boolean
  /** How many conflicts it holds (marked in the text). */
  conflicts: number
}

/**
 * Merges the disk's text of `file` (absolute, or relative to `workspace`)
 * into its open document when that document has unsaved changes; `seq` is
 * the operation that changed the file (a `write` event's, an undo's), and
 * `base` the text the change was made over when known (the unsaved text an
 * agent was served as the file), used instead.
 * Answers undefined when no dirty document shows the file. Every outcome is
 * said in a notification that names the file.
 */
export async function mergeDirty(engine: Engine, workspace: string | undefined, file: string, seq: number | undefined, log: (line: string) => void, base?: string): Promise<Merged | undefined> {
  const abs = path.resolve(workspace ?? '', file)
  const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs)
  if (!document || !document.isDirty) return undefined
  const name = vscode.workspace.asRelativePath(document.uri)
  const ours = document.getText()
  const r = await engine.requestAsync({ command: 'merge', cwd: workspace, args: { path: abs, ours, ...(base !== undefined ? { base } : { seq: seq ?? null }) } })
  const data = (r.data ?? {}) as { text?: string; conflicts?: unknown[] }
  if (!r.ok || typeof data.text !== 'string') {
    log(`merge ${name}: ${JSON.stringify(r).slice(0, 300)}`)
    void vscode.window.showWarningMessage(`Radium: ${name} changed on disk; your unsaved changes are kept as they are (${engineMessage(r, 'the merge failed')}). File: Revert File would show the disk's text.`)
    return { file: name, merged: false, conflicts: 0 }
  }
  if (document.getText() !== ours) {
    // Typed into while the engine merged: merged again from the new text.
    return mergeDirty(engine, workspace, file, seq, log, base)
  }
  await vscode.window.showTextDocument(document, { preview: false })
  await vscode.commands.executeCommand('workbench.action.files.revert')
  if (document.getText() !== data.text) {
    const edit = new vscode.WorkspaceEdit()
    edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), data.text)
    await vscode.workspace.applyEdit(edit)
  }
  const conflicts = Array.isArray(data.conflicts) ? data.conflicts.length : 0
  log(`merge ${name}: ${conflicts} conflict(s); the document holds the merged text, unsaved`)
  if (conflicts === 0 && !document.isDirty) {
    void vscode.window.showInformationMessage(`Radium: ${name} changed on disk and its editor now shows it: the change was made over your unsaved text.`)
  } else if (conflicts > 0) {
    void vscode.window.showWarningMessage(`Radium: ${name} changed on disk; merged into your unsaved changes with ${conflicts} conflict(s), marked <<<<<<< ours / >>>>>>> theirs (Accept Current / Accept Incoming above each). Not saved.`)
  } else {
    void vscode.window.showWarningMessage(`Radium: ${name} changed on disk and was merged into your unsaved changes, which are kept (not saved; Radium: Undo Last Change takes the change back and keeps them).`)
  }
  return { file: name, merged: true, conflicts }
}
