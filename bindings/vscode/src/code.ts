// Code intelligence in VS Code (docs/code-intelligence.md), answered by the
// engine's language servers (its syntax fallback where none runs), never
// blocking the extension host:
// - Radium: Find References: `read-var` on the word under the cursor (the
//   editor's unsaved text sent as `text`), its occurrences in a quick pick,
//   the definition first; picking one opens its file there;
// - Radium: Rename Symbol: `modify-var` with `apply: false`, and each file's
//   new text opened in the chat view's review, like an answer's blocks (per
//   hunk; Apply is one radium step that Radium: Undo Last Change takes back).
//   The engine works from the files on disk, so a rename that changes a file
//   with unsaved changes is refused.

import * as path from 'path'
import * as vscode from 'vscode'

import type { ChatView } from './chat/view'
import type { ClipboardHost } from './clipboard'
import type { Response } from './native'
import { proposals, type Block } from './proposals'
import { nameList } from './record'
import { failureText, timedRequestAsync } from './requests'
import { currentText } from './review'

/** What the code commands need from the extension (the clipboard commands' host). */
export type CodeHost = ClipboardHost

/** One occurrence of `read-var` (line and column 1-based; the column counts characters). */
export interface Occurrence {
  file: string
  line: number
  column: number
  text: string
  definition: boolean
}

/** The `data` of `read-var`. */
export interface ReadVarData {
  variable: string
  file: string
  line: number | null
  engine: 'lsp' | 'syntax' | 'text'
  server: string | null
  files: number
  occurrences: Occurrence[]
}

/** One file of `modify-var`'s preview (`new_text` null: the rename removes the file). */
interface PreviewFile {
  path: string
  old_text: string | null
  new_text: string | null
  diff: string
}

/** The `data` of `modify-var` with `apply: false`. */
interface ModifyVarData {
  variable: string
  to: string
  engine: 'lsp' | 'syntax' | 'text'
  server: string | null
  edits: number
  files: Array<{ path: string; edits: number }>
  preview?: PreviewFile[]
}

/** A name the commands take: letters, digits, `_` and `$`, not starting with a digit. */
const IDENTIFIER = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]*$/u

/** Why `name` cannot be the new name, or undefined when it can. */
export function badName(name: string): string | undefined {
  if (name.trim() === '') return 'Type the new name'
  if (!IDENTIFIER.test(name)) return `\`${name}\` is not a name: use letters, digits and _ (not starting with a digit)`
  return undefined
}

/** The UTF-16 column (0-based, VS Code's) of character column `column` (1-based, in code points) of `text`. */
export function utf16Column(text: string, column: number): number {
  const chars = Array.from(text)
  const n = Math.max(0, column - 1)
  return chars.slice(0, n).join('').length + Math.max(0, n - chars.length)
}

/** How the engine answered, for a title or a message. */
export function engineSaid(d: { engine: string; server: string | null }): string {
  if (d.engine === 'lsp') return `lsp (${d.server ?? 'language server'})`
  if (d.engine === 'syntax') return '⚠ syntax: not type-aware (no language server answered)'
  return '⚠ text: every match of the word (no grammar for this language)'
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** A quick pick entry of an occurrence. */
export interface ReferenceItem extends vscode.QuickPickItem {
  occurrence: Occurrence
}

/** The occurrences as quick pick entries: the definition first, labelled; then in the engine's order. */
export function referenceItems(occurrences: Occurrence[]): ReferenceItem[] {
  const sorted = [...occurrences.filter((o) => o.definition), ...occurrences.filter((o) => !o.definition)]
  return sorted.map((o) => ({
    label: o.definition ? '$(symbol-variable) definition' : '$(references) reference',
    description: `${o.file}:${o.line}`,
    detail: o.text.trim(),
    occurrence: o,
  }))
}

/** The name under the cursor, its 1-based line and column (in characters: of two on one line, this one is meant), and the file; or a message to show instead. */
function target(editor: vscode.TextEditor | undefined): { name: string; line: number; column: number; document: vscode.TextDocument } | string {
  if (!editor) return 'open a file and put the cursor on a name first'
  const document = editor.document
  if (document.uri.scheme !== 'file' || document.isUntitled) return 'save the file in the workspace first: names are looked up in the workspace\'s files'
  const at = editor.selection.active
  const range = document.getWordRangeAtPosition(at)
  const name = range ? document.getText(range) : ''
  if (name === '' || badName(name)) return 'no name under the cursor: put the cursor on one'
  const before = document.getText(new vscode.Range(new vscode.Position(at.line, 0), range!.start))
  return { name, line: at.line + 1, column: Array.from(before).length + 1, document }
}

/** The file as the engine is given it: relative to the workspace when inside it (its messages then name it so), else absolute (refused). */
function fileArg(workspace: string | undefined, document: vscode.TextDocument): string {
  const file = document.uri.fsPath
  const rel = workspace ? path.relative(workspace, file) : ''
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file
}

/** Shows a failed request: a name that is not there is a warning, anything else an error. */
function failed(host: CodeHost, r: Response, fallback: string): void {
  if (r.code === 'not_found') {
    host.log(`code: ${failureText(r, fallback)}`)
    void vscode.window.showWarningMessage(`Radium: ${(r.error ?? fallback).split('\n')[0]}`)
  } else {
    host.fail(failureText(r, fallback).split('\n')[0])
  }
}

const oneLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]

/** Radium: Find References. */
export async function findReferences(host: CodeHost): Promise<void> {
  try {
    const t = target(vscode.window.activeTextEditor)
    if (typeof t === 'string') {
      void vscode.window.showInformationMessage(`Radium: ${t}`)
      return
    }
    const { name, line, column, document } = t
    const { engine, workspace } = host.engine(document)
    const args: Record<string, unknown> = { file: fileArg(workspace, document), var: name, line, column }
    if (document.isDirty) args.text = document.getText()
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Radium: references of ${name}…` }, () =>
      timedRequestAsync(engine, { command: 'read-var', args }, host.log),
    )
    for (const w of r.warnings ?? []) host.log(`warning: ${w}`)
    if (!r.ok) return failed(host, r, `the references of \`${name}\` could not be found`)
    const d = r.data as ReadVarData
    const occurrences = d.occurrences ?? []
    host.log(`references: ${plural(occurrences.length, 'occurrence')} of ${d.variable} in ${plural(d.files, 'file')}; ${engineSaid(d)}`)
    if (occurrences.length === 0) {
      void vscode.window.showInformationMessage(`Radium: no references of \`${d.variable}\` (${engineSaid(d)})`)
      return
    }
    const picked = await vscode.window.showQuickPick(referenceItems(occurrences), {
      title: `Radium: ${plural(occurrences.length, 'reference')} of ${d.variable} in ${plural(d.files, 'file')} · ${engineSaid(d)}`,
      placeHolder: 'Pick one to go there (type to filter by file or text)',
      matchOnDescription: true,
      matchOnDetail: true,
    })
    if (!picked) return
    const o = picked.occurrence
    const file = path.resolve(workspace ?? path.dirname(document.uri.fsPath), o.file)
    const opened = await vscode.workspace.openTextDocument(vscode.Uri.file(file))
    // The engine's column counts characters; VS Code's counts UTF-16 units.
    const at = new vscode.Position(o.line - 1, utf16Column(o.text, o.column))
    await vscode.window.showTextDocument(opened, { selection: new vscode.Range(at, at) })
    host.log(`references: opened ${o.file}:${o.line}:${o.column}`)
  } catch (e) {
    host.fail(`the references could not be found: ${oneLine(e)}`)
  }
}

/** The open document of a file with unsaved changes, if any. */
function dirtyDocument(file: string): vscode.TextDocument | undefined {
  const key = vscode.Uri.file(file).toString()
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key && d.isDirty)
}

/** Radium: Rename Symbol. */
export async function renameSymbol(host: CodeHost, view: ChatView): Promise<void> {
  try {
    const t = target(vscode.window.activeTextEditor)
    if (typeof t === 'string') {
      void vscode.window.showInformationMessage(`Radium: ${t}`)
      return
    }
    const { name, line, column, document } = t
    const { engine, workspace } = host.engine(document)
    if (!workspace) {
      host.fail('open a folder first: a rename changes the files of a workspace')
      return
    }
    const label = path.relative(workspace, document.uri.fsPath) || path.basename(document.uri.fsPath)
    if (document.isDirty) {
      void vscode.window.showWarningMessage(`Radium: save ${label} first: the rename is worked out from the files on disk`)
      return
    }
    const to = await vscode.window.showInputBox({
      title: `Radium: rename \`${name}\` (line ${line} of ${label})`,
      prompt: 'The new name (Enter: review the rename in the chat view; Escape: cancel)',
      value: name,
      validateInput: (v) => badName(v),
    })
    if (to === undefined) return
    const bad = badName(to)
    if (bad) {
      host.fail(`not renamed: ${bad}`)
      return
    }
    if (to === name) {
      void vscode.window.showInformationMessage(`Radium: \`${name}\` is already its name`)
      return
    }
    const args = { file: fileArg(workspace, document), from: name, to, line, column, apply: false }
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Radium: renaming ${name}…` }, () =>
      timedRequestAsync(engine, { command: 'modify-var', args }, host.log),
    )
    for (const w of r.warnings ?? []) host.log(`warning: ${w}`)
    if (!r.ok) return failed(host, r, `\`${name}\` could not be renamed`)
    const d = r.data as ModifyVarData
    const blocks: Block[] = []
    const gone: string[] = []
    const dirty: string[] = []
    const changed: string[] = []
    const texts = new Map<string, string | null>()
    for (const [index, p] of (d.preview ?? []).entries()) {
      const abs = path.resolve(workspace, p.path)
      if (typeof p.new_text !== 'string') {
        gone.push(p.path)
        continue
      }
      if (dirtyDocument(abs)) {
        dirty.push(p.path)
        continue
      }
      const now = await currentText(abs)
      if (now !== p.old_text) changed.push(p.path)
      texts.set(abs, now)
      blocks.push({ content: p.new_text, file_path: p.path, index, language: '' })
    }
    host.log(`rename: ${name} → ${to}: ${plural(d.edits, 'edit')} in ${plural(d.files.length, 'file')}; ${engineSaid(d)}`)
    if (dirty.length > 0 || changed.length > 0) {
      const why = dirty.length > 0 ? `${nameList(dirty)} ${dirty.length === 1 ? 'has' : 'have'} unsaved changes` : `${nameList(changed)} changed on disk meanwhile`
      void vscode.window.showWarningMessage(`Radium: not renamed: ${why}; save and run Radium: Rename Symbol again (the rename is worked out from the files on disk)`)
      return
    }
    const { files, skipped } = proposals(blocks, workspace, (p) => texts.get(p) ?? null)
    const notices = [`rename \`${name}\` → \`${to}\`: ${plural(d.edits, 'edit')} in ${plural(files.length, 'file')} · ${engineSaid(d)}`]
    for (const s of skipped) notices.push(`not proposed: ${s}`)
    if (gone.length > 0) notices.push(`the rename also removes ${nameList(gone)}, which a review cannot show: not done`)
    if (files.length === 0) {
      if (gone.length > 0) void vscode.window.showWarningMessage(`Radium: not renamed: the rename only removes ${nameList(gone)}, which a review cannot show`)
      else void vscode.window.showInformationMessage(`Radium: nothing to rename: the ${d.engine === 'lsp' ? 'server' : 'fallback'} proposes no edit for \`${name}\``)
      return
    }
    view.chat.openReview(files, notices)
    await view.reveal()
    const message = `Radium: review the rename \`${name}\` → \`${to}\` in the chat view: ${nameList(files.map((f) => f.label))} · ${engineSaid(d)}`
    if (d.engine !== 'lsp' || gone.length > 0 || skipped.length > 0) {
      const extra = [...skipped.map((x) => `Not proposed: ${x}.`), ...(gone.length > 0 ? [`Not done: the rename also removes ${nameList(gone)}, which a review cannot show.`] : [])]
      void vscode.window.showWarningMessage(extra.length > 0 ? [`${message}.`, ...extra].join(' ') : message)
    } else {
      void vscode.window.showInformationMessage(message)
    }
  } catch (e) {
    host.fail(`the rename failed: ${oneLine(e)}`)
  }
}

/** Registers the two commands. */
export function registerCode(context: vscode.ExtensionContext, host: CodeHost, view: ChatView): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('radium.code.references', () => findReferences(host)),
    vscode.commands.registerCommand('radium.code.rename', () => renameSymbol(host, view)),
  )
}
