// The radium extension: loads the native engine in the extension host and
// contributes its editor commands:
// - Radium: Show Version
// - Radium: Send Selection to Agent (a cancellable `step` with the editor
//   context, then the answer's code blocks are offered)
// - Radium: Apply Code Block (an `apply` of one of the answer's blocks, with a
//   diff preview, as one undoable edit)
// - Radium: List Agents (the `agents` request; picking one makes it the agent)
// - the chat view's commands (src/chat/view.ts), clipboard mode's
//   (src/clipboard.ts) and code intelligence's (src/code.ts)
// Its `activate` returns the API other extensions use to add JS hooks.

import * as os from 'os'
import * as path from 'path'
import * as vscode from 'vscode'

import { registerChat } from './chat/view'
import { registerClipboard } from './clipboard'
import { registerCode } from './code'
import { changedRegion, editorContext, splitLines, type EditorContext } from './context'
import { EngineLogs } from './engineLog'
import { HookSet } from './hooks'
import { describe, loadRadium, radProgram, type Engine, type HookFn, type HookOptions, type HookType, type Loaded, type Response } from './native'
import {
  agentItems,
  cancelRequest,
  failureText,
  stepId,
  timedRequest,
  timedRequestAsync,
  type AgentInfo,
  type AgentItem,
} from './requests'
import { agentsCommand } from './agents'

/**
 * What `activate` returns, for other extensions:
 * `(await vscode.extensions.getExtension('radium.radium')!.activate()) as RadiumApi`.
 */
export interface RadiumApi {
  /**
   * Registers a JS hook on every engine of the extension, the existing ones
   * and those created later (one per workspace folder). `fn` runs on the
   * extension host's thread, may return a Promise, and gets
   * `{hook_type, data, metadata}` (docs/hooks.md). Throws an Error with a
   * `code` when the name is taken or the type unknown. Dispose the result
   * to remove the hook from every engine.
   */
  registerHook(name: string, hookType: HookType, fn: HookFn, options?: HookOptions): vscode.Disposable
  /** The engine's version, e.g. `"0.1.0"` (loads the native module). */
  engineVersion(): string
  /** The engine's ABI version. */
  abiVersion(): number
}

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
const hooks = new HookSet((line) => channel().appendLine(line))
const engineLogs = new EngineLogs(
  (line) => channel().appendLine(line),
  () => vscode.workspace.getConfiguration('radium').get<string>('logLevel', 'info'),
)

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

/**
 * Logs an error and shows it in a notification (never throws); with
 * `showOutput`, the output channel comes into view too (the chat passes
 * false: its errors are in its view, which the output would hide in the panel).
 */
function fail(message: string, showOutput = true): void {
  const out = channel()
  out.appendLine(`error: ${message}`)
  if (showOutput) out.show(true)
  void vscode.window.showErrorMessage(`Radium: ${message}`)
}

function showVersion(context: vscode.ExtensionContext): void {
  const out = channel()
  try {
    const { message, lines } = describe(loaded(context), radProgram(context.extensionPath))
    lines.forEach((l) => out.appendLine(l))
    void vscode.window.showInformationMessage(message)
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
    engine = new radium.Engine({ workspace: workspace ?? null, radium_home: radiumHome ?? null, rad_program: radProgram(context.extensionPath) ?? null })
    engines.set(key, engine)
    hooks.attach(engine)
    engineLogs.follow(engine, workspace ? path.basename(workspace) : '')
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

/** What the settings say for a document (or, without one, the first workspace folder). */
interface Settings {
  config: vscode.WorkspaceConfiguration
  workspace: string | undefined
  /** `radium.agent`, trimmed ('' when none is configured). */
  agent: string
  /** The engine of the workspace and radium home, created on first use. */
  engine: () => Engine
}

function settingsOf(context: vscode.ExtensionContext, document: vscode.TextDocument | undefined): Settings {
  const folder = vscode.workspace.workspaceFolders?.[0]
  const config = vscode.workspace.getConfiguration('radium', document?.uri ?? folder?.uri)
  const workspace = document ? workspaceOf(document) : folder?.uri.fsPath
  const radiumHome = config.get<string>('radiumHome', '') || undefined
  return {
    config,
    workspace,
    agent: config.get<string>('agent', 'example').trim(),
    engine: () => engineFor(context, workspace, radiumHome),
  }
}

async function sendSelection(context: vscode.ExtensionContext, previews: Previews): Promise<void> {
  const out = channel()
  const log = (line: string) => out.appendLine(line)
  try {
    const editor = vscode.window.activeTextEditor
    if (!editor) {
      void vscode.window.showInformationMessage('Radium: open a file and select some code first')
      return
    }
    const document = editor.document
    const { config, workspace, agent, engine: makeEngine } = settingsOf(context, document)
    if (agent === '') {
      fail('no agent configured: set "radium.agent" to an agent of .radium/agents.toml or $RADIUM_HOME/agents.toml ("Radium: List Agents")')
      return
    }
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
    const engine = makeEngine()
    const { start_line: startLine, end_line: endLine } = ctx.selection_range
    const seq = ++stepSeq
    const id = stepId(seq)
    out.appendLine(`step ${agent} (${id}): ${ctx.file_path} lines ${startLine}-${endLine} (${ctx.language})`)
    const started = Date.now()
    const response = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Radium: asking ${agent}…`, cancellable: true },
      (_progress, token) =>
        new Promise<Response | undefined>((resolve, reject) => {
          // Cancel asks the engine to stop the step (it kills the agent's
          // process group); the notification closes at once either way.
          const sub = token.onCancellationRequested(() => {
            sub.dispose()
            out.appendLine(`step ${agent}: ${cancelRequest(engine, id, log)}`)
            resolve(undefined)
          })
          timedRequestAsync(engine, { command: 'step', args: { agent, prompt: '', context: ctx }, id }, log).then(
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
      out.appendLine(`step ${agent}: cancelled`)
      return
    }
    const elapsed = Date.now() - started
    for (const warning of response.warnings ?? []) out.appendLine(`warning: ${warning}`)
    if (!response.ok) {
      if (response.code === 'cancelled') {
        out.appendLine(`step ${agent}: cancelled (${response.error ?? 'by a cancel request'})`)
        return
      }
      fail(failureText(response, 'the step failed'))
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
      void vscode.window.showWarningMessage(`Radium: ${agent} answered without a code block (its answer is in the Radium output)`)
      return
    }
    await offerBlocks(previews)
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

/** The block to apply, as the user picks it (a single block is offered too). */
async function pickBlock(agent: string, blocks: CodeBlock[]): Promise<BlockItem | undefined> {
  const items: BlockItem[] = blocks.map((block, i) => ({
    label: `#${i + 1} [${block.language || 'text'}] ${block.file_path ? `${block.file_path} ` : ''}${firstLine(block.content)}`,
    description: block.incomplete ? '(incomplete)' : undefined,
    block,
    n: i + 1,
  }))
  const n = items.length
  return vscode.window.showQuickPick(items, {
    title: `Radium: ${agent} answered with ${n} code block${n === 1 ? '' : 's'}`,
    placeHolder: 'The code block to apply (Escape: later, with "Radium: Apply Code Block")',
  })
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

/** Closes the diff editors that show this preview document. */
async function closePreview(right: vscode.Uri): Promise<void> {
  const key = right.toString()
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === key)
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs)
}

/** Offers the last answer's blocks: pick one, preview it, apply it or not. */
async function offerBlocks(previews: Previews): Promise<void> {
  const out = channel()
  try {
    const current = answer
    if (!current || current.blocks.length === 0) {
      void vscode.window.showInformationMessage('Radium: no code block to apply; run "Radium: Send Selection to Agent" first')
      return
    }
    const item = await pickBlock(current.agent, current.blocks)
    if (!item) {
      out.appendLine('apply: no block picked')
      return
    }
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
    const response = timedRequest(
      current.engine,
      { command: 'apply', args: { content: item.block.content, text, start_line: startLine, end_line: endLine } },
      (line) => out.appendLine(line),
    )
    if (!response.ok) {
      fail(failureText(response, 'apply failed'))
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
      await closePreview(right)
      if (choice !== 'Apply') {
        out.appendLine(`apply: block #${item.n} discarded`)
        await vscode.window.showTextDocument(document)
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
    await vscode.window.showTextDocument(document)
    // The blocks now replace the lines just written (to try another one).
    const grown = splitLines(data.new_text).length - splitLines(text).length
    if (answer === current) answer = { ...current, endLine: Math.max(startLine, endLine + grown) }
    out.appendLine(`apply: block #${item.n} to ${document.uri.toString()} lines ${startLine}-${endLine}`)
    void vscode.window.showInformationMessage(`Radium: applied block #${item.n} to ${name}`)
  } catch (e) {
    fail(messageOf(e))
  }
}

async function listAgents(context: vscode.ExtensionContext): Promise<void> {
  const out = channel()
  try {
    const { config, agent: current, engine: makeEngine } = settingsOf(context, vscode.window.activeTextEditor?.document)
    const engine = makeEngine()
    const response = timedRequest(engine, { command: 'agents' }, (line) => out.appendLine(line))
    if (!response.ok) {
      fail(failureText(response, 'the agents could not be listed'))
      return
    }
    const agents = (response.data ?? []) as AgentInfo[]
    out.appendLine(`agents: ${agents.length === 0 ? 'none' : agents.map((a) => `${a.id} (${a.command.join(' ')})`).join(', ')}`)
    if (agents.length === 0) {
      fail('no agent configured: add one to .radium/agents.toml or $RADIUM_HOME/agents.toml')
      return
    }
    const picked = await vscode.window.showQuickPick<AgentItem>(agentItems(agents, current), {
      title: `Radium: ${agents.length} agent${agents.length === 1 ? '' : 's'} (the current one: ${current || 'none'})`,
      placeHolder: 'Pick the agent "Radium: Send Selection to Agent" asks',
    })
    if (!picked || picked.id === current) return
    await config.update('agent', picked.id, vscode.ConfigurationTarget.Global)
    out.appendLine(`agent: ${picked.id}`)
    void vscode.window.showInformationMessage(`Radium: the agent is now ${picked.id}`)
  } catch (e) {
    fail(messageOf(e))
  }
}

/** Activates the extension; returns the API for other extensions ({@link RadiumApi}). */
export function activate(context: vscode.ExtensionContext): RadiumApi {
  const previews = new Previews()
  context.subscriptions.push(
    vscode.commands.registerCommand('radium.showVersion', () => showVersion(context)),
    vscode.commands.registerCommand('radium.sendSelection', () => sendSelection(context, previews)),
    vscode.commands.registerCommand('radium.applyCode', () => offerBlocks(previews)),
    vscode.commands.registerCommand('radium.listAgents', () => listAgents(context)),
    vscode.commands.registerCommand('radium.agents', () => agentsCommand(settingsOf(context, vscode.window.activeTextEditor?.document).engine(), (l) => channel().appendLine(l))),
    vscode.commands.registerCommand('radium.showLog', async () => {
      await engineLogs.flush()
      channel().show(true)
    }),
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
    {
      dispose: () => {
        output?.dispose()
        output = undefined
      },
    },
  )
  const log = (line: string) => channel().appendLine(line)
  const engineOf = (document: vscode.TextDocument | undefined) => {
    const settings = settingsOf(context, document)
    return { engine: settings.engine(), workspace: settings.workspace }
  }
  const chatView = registerChat(context, { engine: () => engineOf(vscode.window.activeTextEditor?.document), log, fail })
  registerClipboard(context, { engine: engineOf, log, fail }, chatView)
  registerCode(context, { engine: engineOf, log, fail }, chatView)
  return {
    registerHook(name, hookType, fn, options) {
      const registration = hooks.register({ name, hookType, fn, options })
      channel().appendLine(`hook ${name} (${hookType}) registered through the API`)
      return new vscode.Disposable(() => {
        registration.dispose()
        output?.appendLine(`hook ${name} removed`)
      })
    },
    engineVersion: () => loaded(context).radium.version(),
    abiVersion: () => loaded(context).radium.abiVersion(),
  }
}

/** Forgets the engines, the loaded module and the last answer (the hooks stay registered for a next activation). */
export function deactivate(): void {
  cached = undefined
  engines.clear()
  engineLogs.dispose()
  hooks.detachAll()
  answer = undefined
}
