// The radium extension: loads the native engine in the extension host and
// contributes its editor commands:
// - Radium: Show Version
// - Radium: Send Selection to Agent (a `step` with the editor context)
// - Radium: Apply Code Block (an `apply` of one of the answer's blocks, with a
//   diff preview, as one undoable edit)

import * as os from 'os'
import * as path from 'path'
import * as vscode from 'vscode'

import { changedRegion, editorContext, splitLines, type EditorContext } from './context'
import { loadRadium, type Engine, type Loaded, type Response } from './native'

/** The scheme of the virtual documents shown on the right of a preview diff. */
export const PREVIEW_SCHEME = 'radium-preview'

/** A code block of a `step` answer (the `code-apply` hook's output). */
interface CodeBlock {
  language: string
  content: string
  index: number
  file_path?: string
  incomplete?: boolean
}

/** The `data` of a successful `step`. */
interface StepData {
  agent: string
  original_output: string
  code_blocks: CodeBlock[]
  block_count: number
  context: EditorContext
  timings?: Record<string, number>
}

/** The `data` of a successful `apply`. */
interface ApplyData {
  new_text: string
  diff: string
  changed: boolean
  written: boolean
}

/** The last answer, with where its blocks go. */
interface Answer {
  engine: Engine
  agent: string
  blocks: CodeBlock[]
  uri: vscode.Uri
  /** 1-based, inclusive: the lines the blocks replace. */
  startLine: number
  endLine: number
}

let output: vscode.OutputChannel | undefined
let cached: Loaded | undefined
const engines = new Map<string, Engine>()
let answer: Answer | undefined
let stepSeq = 0

function channel(): vscode.OutputChannel {
  output ??= vscode.window.createOutputChannel('Radium')
  return output
}

/** The native module, loaded on first use. */
function loaded(context: vscode.ExtensionContext): Loaded {
  cached ??= loadRadium(context.extensionPath)
  return cached
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** Logs an error and shows it in a notification (never throws). */
function fail(message: string): void {
  const out = channel()
  out.appendLine(`error: ${message}`)
  out.show(true)
  void vscode.window.showErrorMessage(`Radium: ${message}`)
}

function showVersion(context: vscode.ExtensionContext): void {
  const out = channel()
  try {
    const { radium, path } = loaded(context)
    const text = `Radium ${radium.version()} (ABI ${radium.abiVersion()})`
    out.appendLine(`${text}, native module: ${path}`)
    void vscode.window.showInformationMessage(text)
  } catch (e) {
    fail(messageOf(e).split('\n')[0])
  }
}

/** The engine of a workspace (and radium home), created on first use. */
function engineFor(context: vscode.ExtensionContext, workspace: string | undefined, radiumHome: string | undefined): Engine {
  const key = JSON.stringify([workspace ?? null, radiumHome ?? null])
  let engine = engines.get(key)
  if (!engine) {
    const { radium } = loaded(context)
    engine = new radium.Engine({ workspace: workspace ?? null, radium_home: radiumHome ?? null })
    engines.set(key, engine)
  }
  return engine
}

function workspaceOf(document: vscode.TextDocument): string | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0]
  return folder?.uri.fsPath
}

function ms(ns: number | undefined): string {
  return ns === undefined ? '?' : (ns / 1e6).toFixed(1)
}

async function sendSelection(context: vscode.ExtensionContext): Promise<void> {
  const out = channel()
  try {
    const editor = vscode.window.activeTextEditor
    if (!editor) {
      void vscode.window.showInformationMessage('Radium: open a file and select some code first')
      return
    }
    const document = editor.document
    const config = vscode.workspace.getConfiguration('radium', document.uri)
    const agent = config.get<string>('agent', 'example')
    const radiumHome = config.get<string>('radiumHome', '') || undefined
    const workspace = workspaceOf(document)
    const ctx = editorContext({
      text: document.getText(),
      languageId: document.languageId,
      fsPath: document.isUntitled ? undefined : document.uri.fsPath,
      workspace,
      start: editor.selection.start,
      end: editor.selection.end,
      surroundingLines: config.get<number>('surroundingLines', 5),
      fallbackDir: os.tmpdir(),
    })
    const engine = engineFor(context, workspace, radiumHome)
    const { start_line: startLine, end_line: endLine } = ctx.selection_range
    out.appendLine(`step ${agent}: ${ctx.file_path} lines ${startLine}-${endLine} (${ctx.language})`)
    const seq = ++stepSeq
    const started = Date.now()
    const response = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Radium: asking ${agent}…`, cancellable: true },
      (_progress, token) =>
        new Promise<Response | undefined>((resolve, reject) => {
          // The engine has no way to stop a request yet: on cancel the agent
          // runs on (until it ends or reaches its time limit) and its answer
          // is ignored.
          const sub = token.onCancellationRequested(() => resolve(undefined))
          engine.requestAsync({ command: 'step', args: { agent, prompt: '', context: ctx } }).then(
            (r) => {
              sub.dispose()
              resolve(r)
            },
            (e: unknown) => {
              sub.dispose()
              reject(e)
            },
          )
        }),
    )
    if (response === undefined) {
      out.appendLine(`step ${agent}: cancelled (its answer will be ignored)`)
      return
    }
    const elapsed = Date.now() - started
    for (const warning of response.warnings ?? []) out.appendLine(`warning: ${warning}`)
    if (!response.ok) {
      fail(response.error ?? 'the step failed')
      return
    }
    const data = response.data as StepData
    const blocks = data.code_blocks ?? []
    const t = data.timings ?? {}
    out.appendLine(
      `step ${agent}: ${blocks.length} code block(s) in ${elapsed} ms (agent ${ms(t.agent_ns)} ms, engine total ${ms(t.total_ns)} ms)`,
    )
    if (seq !== stepSeq) {
      out.appendLine(`step ${agent}: a later step was started; this answer is ignored`)
      return
    }
    answer = { engine, agent, blocks, uri: document.uri, startLine, endLine }
    if (blocks.length === 0) {
      out.appendLine(data.original_output)
      void vscode.window.showInformationMessage(`Radium: ${agent} answered without a code block (see the Radium output)`)
    } else {
      void vscode.window.showInformationMessage(
        `Radium: ${agent} answered with ${blocks.length} code block${blocks.length === 1 ? '' : 's'}; run "Radium: Apply Code Block" to apply`,
      )
    }
  } catch (e) {
    fail(messageOf(e))
  }
}

function firstLine(content: string): string {
  const line = splitLines(content).find((l) => l.trim() !== '') ?? ''
  const trimmed = line.trim()
  return trimmed.length > 80 ? `${trimmed.slice(0, 79)}…` : trimmed
}

interface BlockItem extends vscode.QuickPickItem {
  block: CodeBlock
  n: number
}

/** The block to apply: the only one, or the one the user picks. */
async function pickBlock(blocks: CodeBlock[]): Promise<BlockItem | undefined> {
  const items: BlockItem[] = blocks.map((block, i) => ({
    label: `#${i + 1} [${block.language || 'text'}] ${block.file_path ? `${block.file_path} ` : ''}${firstLine(block.content)}`,
    description: block.incomplete ? '(incomplete)' : undefined,
    block,
    n: i + 1,
  }))
  if (items.length === 1) return items[0]
  return vscode.window.showQuickPick(items, { placeHolder: 'The code block to apply' })
}

/** The right side of the preview diffs: the would-be text of a document. */
class Previews implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>()
  private seq = 0

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? ''
  }

  add(target: vscode.Uri, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: target.path, query: String(++this.seq) })
    this.texts.set(uri.toString(), text)
    // Keep the last few (a diff editor may still show them).
    for (const key of this.texts.keys()) {
      if (this.texts.size <= 10) break
      this.texts.delete(key)
    }
    return uri
  }
}

async function applyCode(previews: Previews): Promise<void> {
  const out = channel()
  try {
    const current = answer
    if (!current || current.blocks.length === 0) {
      void vscode.window.showInformationMessage('Radium: no code block to apply; run "Radium: Send Selection to Agent" first')
      return
    }
    const item = await pickBlock(current.blocks)
    if (!item) return
    // The document the selection came from (an untitled one only while it is open).
    const target = current.uri.toString()
    const document =
      vscode.workspace.textDocuments.find((d) => d.uri.toString() === target) ??
      (current.uri.scheme === 'untitled' ? undefined : await vscode.workspace.openTextDocument(current.uri))
    if (!document) {
      fail(`${target} is closed; send the selection again`)
      return
    }
    const text = document.getText()
    const version = document.version
    const { startLine, endLine } = current
    const response = current.engine.request({
      command: 'apply',
      args: { content: item.block.content, text, start_line: startLine, end_line: endLine },
    })
    if (!response.ok) {
      fail(response.error ?? 'apply failed')
      return
    }
    const data = response.data as ApplyData
    const name = path.basename(document.uri.path) || document.uri.toString()
    if (!data.changed) {
      void vscode.window.showInformationMessage(`Radium: block #${item.n} is already in ${name}`)
      return
    }
    const config = vscode.workspace.getConfiguration('radium', document.uri)
    if (config.get<boolean>('previewBeforeApply', true)) {
      const right = previews.add(document.uri, data.new_text)
      await vscode.commands.executeCommand('vscode.diff', document.uri, right, `${name} ↔ Radium block #${item.n}`)
      const choice = await vscode.window.showInformationMessage(
        `Radium: apply block #${item.n} to ${name} (lines ${startLine}-${endLine})?`,
        { modal: false },
        'Apply',
        'Discard',
      )
      if (choice !== 'Apply') {
        out.appendLine(`apply: block #${item.n} discarded`)
        return
      }
      if (document.version !== version) {
        fail(`${name} changed during the preview; run "Radium: Apply Code Block" again`)
        return
      }
    }
    const region = changedRegion(text, data.new_text)
    const edit = new vscode.WorkspaceEdit()
    edit.replace(document.uri, new vscode.Range(document.positionAt(region.start), document.positionAt(region.end)), region.text)
    if (!(await vscode.workspace.applyEdit(edit))) {
      fail(`the edit of ${name} was not applied`)
      return
    }
    // The blocks now replace the lines just written (to try another one).
    const grown = splitLines(data.new_text).length - splitLines(text).length
    if (answer === current) answer = { ...current, endLine: Math.max(startLine, endLine + grown) }
    out.appendLine(`apply: block #${item.n} to ${document.uri.toString()} lines ${startLine}-${endLine}`)
    void vscode.window.showInformationMessage(`Radium: applied block #${item.n} to ${name}`)
  } catch (e) {
    fail(messageOf(e))
  }
}

export function activate(context: vscode.ExtensionContext): void {
  const previews = new Previews()
  context.subscriptions.push(
    vscode.commands.registerCommand('radium.showVersion', () => showVersion(context)),
    vscode.commands.registerCommand('radium.sendSelection', () => sendSelection(context)),
    vscode.commands.registerCommand('radium.applyCode', () => applyCode(previews)),
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
    {
      dispose: () => {
        output?.dispose()
        output = undefined
      },
    },
  )
}

export function deactivate(): void {
  cached = undefined
  engines.clear()
  answer = undefined
}
