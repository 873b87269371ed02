// Clipboard mode in VS Code (docs/clipboard.md), for agents that live in a
// browser tab:
// - Radium: Copy Selection for a Chat: the selection's lines with their path
//   and the lines around them, as the engine's `clipboard-send` formats them
//   (`print`: the engine leaves the system clipboard alone), written with
//   VS Code's own clipboard, which is the browser's in code-server too;
// - Radium: Apply Answer from Clipboard: the clipboard's text read through
//   VS Code, its code blocks found by the engine's `clipboard-receive` (no
//   apply), and those that name a file opened in the chat view's review,
//   like an agent's answer (per hunk, applied and recorded as one step).
//   Blocks without a path are listed, never guessed.

import * as path from 'path'
import * as vscode from 'vscode'

import type { ChatView } from './chat/view'
import type { Engine } from './native'
import { proposals, resolveInside, type Block } from './proposals'
import { nameList } from './record'
import { failureText, timedRequestAsync, type Log } from './requests'
import { currentText } from './review'

/** What the clipboard commands need from the extension. */
export interface ClipboardHost {
  /** The engine and workspace of a document (without one: of the first workspace folder); throws when the module does not load. */
  engine(document: vscode.TextDocument | undefined): { engine: Engine; workspace: string | undefined }
  log: Log
  /** A notification and an output line (never throws). */
  fail(message: string): void
}

/** A block of `clipboard-receive` (docs/clipboard.md). */
export interface ReceivedBlock {
  index: number
  language: string
  path: string | null
  status: string
  lines: number
  content?: string
  /** The file's whole new text (for a block answering a range: the file with that range replaced). */
  file_text?: string
  diff?: string
  error?: string
}

/** How many lines the engine counts in a text (Rust's `str::lines`: no last empty line). */
export function countLines(text: string): number {
  if (text === '') return 0
  const n = text.split('\n').length
  return text.endsWith('\n') ? n - 1 : n
}

/** The 1-based lines of a selection: whole lines; one that ends at column 0 stops on the line before. */
export function selectedLines(sel: { start: vscode.Position; end: vscode.Position }): [number, number] {
  let end = sel.end.line
  if (end > sel.start.line && sel.end.character === 0) end--
  return [sel.start.line + 1, end + 1]
}

/** `path` relative to `workspace` when it is inside it, else undefined. */
function inside(workspace: string, p: string): string | undefined {
  const rel = path.relative(workspace, p)
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : undefined
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const span = (start: number, end: number) => (start === end ? `line ${start}` : `lines ${start}-${end}`)

/** Radium: Copy Selection for a Chat. */
export async function copySelection(host: ClipboardHost): Promise<void> {
  try {
    const editor = vscode.window.activeTextEditor
    if (!editor) {
      void vscode.window.showInformationMessage('Radium: open a file and select some code first')
      return
    }
    const document = editor.document
    const text = document.getText()
    const total = countLines(text)
    if (total === 0) {
      void vscode.window.showInformationMessage('Radium: the document is empty: nothing to copy')
      return
    }
    const { engine, workspace } = host.engine(document)
    const surrounding = vscode.workspace.getConfiguration('radium', document.uri).get<number>('surroundingLines', 5)
    let [start, end] = selectedLines(editor.selection)
    end = Math.min(end, total)
    start = Math.min(start, end)
    const args: Record<string, unknown> = { start_line: start, end_line: end, context_lines: Math.max(0, Math.floor(surrounding)), print: true }
    const file = document.uri.scheme === 'file' && !document.isUntitled ? document.uri.fsPath : undefined
    const rel = file && workspace ? inside(workspace, file) : undefined
    const name = path.basename(document.uri.path) || document.uri.toString()
    if (file && !workspace) {
      host.fail(`open the folder of ${name} first: clipboard mode sends a workspace's files, named by their path in it`)
      return
    }
    if (file && !rel) {
      // Outside the workspace: the engine refuses it (its message, its code).
      args.path = file
    } else if (rel && !document.isDirty) {
      args.path = rel
    } else {
      // Unsaved or untitled: the editor's text, with its path as the label.
      args.text = text
      if (rel) args.path = rel
      else if (document.languageId && document.languageId !== 'plaintext') args.language = document.languageId
    }
    const prompt = await vscode.window.showInputBox({
      title: `Radium: copy ${span(start, end)} of ${rel ?? name} for a chat`,
      prompt: 'What to ask, written above the code (optional: Enter with nothing copies the code alone; Escape cancels)',
      placeHolder: 'e.g. why does this panic?',
    })
    if (prompt === undefined) {
      host.log('clipboard: copy cancelled')
      return
    }
    if (prompt.trim() !== '') args.prompt = prompt
    const r = await timedRequestAsync(engine, { command: 'clipboard-send', args }, host.log)
    if (!r.ok) {
      host.fail(failureText(r, 'the text for the chat could not be made'))
      return
    }
    const data = r.data as { text: string; path: string | null; start_line: number; end_line: number }
    await vscode.env.clipboard.writeText(data.text)
    const label = data.path ?? name
    host.log(`clipboard: copied ${span(data.start_line, data.end_line)} of ${label} (${data.text.length} chars)`)
    void vscode.window.showInformationMessage(`Radium: Copied ${span(data.start_line, data.end_line)} of ${label} for a chat`)
  } catch (e) {
    host.fail(`the copy failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`)
  }
}

/**
 * The blocks of an answer, sorted: those naming a file (to review, as the file's whole new text), those without a
 * path, the ones that cannot be applied, and warnings (a block that would delete most of its file: a snippet?).
 */
export function sortBlocks(blocks: ReceivedBlock[]): { named: Block[]; noPath: ReceivedBlock[]; problems: string[]; warnings: string[] } {
  const named: Block[] = []
  const noPath: ReceivedBlock[] = []
  const problems: string[] = []
  const warnings: string[] = []
  for (const b of blocks) {
    const n = `block #${b.index + 1}`
    const text = typeof b.file_text === 'string' ? b.file_text : b.content
    if (b.status === 'no path' || !b.path) noPath.push(b)
    else if (b.status === 'refused') problems.push(`${n} (${b.path}) is refused: ${(b.error ?? 'outside the workspace').split('\n')[0]}`)
    else if (b.status === 'incomplete') problems.push(`${n} (${b.path}) is cut short (its fence is not closed)`)
    else if (typeof text !== 'string') problems.push(`${n} (${b.path}): the engine did not give its text (rebuild the native module)`)
    else {
      named.push({ content: text, file_path: b.path, index: b.index, language: b.language })
      if (b.status === 'snippet') warnings.push(`${n} (${b.path}) would delete most of the file (a snippet, not the whole file?): reject the hunks that delete what you keep`)
    }
  }
  return { named, noPath, problems, warnings }
}

function firstLine(content: string | undefined): string {
  const line = (content ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? ''
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

/** Radium: Apply Answer from Clipboard. */
export async function applyAnswer(host: ClipboardHost, view: ChatView): Promise<void> {
  try {
    const { engine, workspace } = host.engine(vscode.window.activeTextEditor?.document)
    if (!workspace) {
      host.fail('open a folder first: the paths of an answer are relative to the workspace')
      return
    }
    const answer = await vscode.env.clipboard.readText()
    if (answer.trim() === '') {
      void vscode.window.showInformationMessage('Radium: the clipboard is empty: copy the chat\'s answer first')
      return
    }
    const r = await timedRequestAsync(engine, { command: 'clipboard-receive', args: { text: answer } }, host.log)
    if (!r.ok) {
      host.fail(failureText(r, 'the answer could not be read'))
      return
    }
    const blocks = ((r.data as { blocks?: ReceivedBlock[] } | undefined)?.blocks ?? []) as ReceivedBlock[]
    host.log(`clipboard: ${plural(blocks.length, 'block')} in ${answer.length} chars${blocks.map((b) => `; #${b.index + 1} ${b.path ?? '(no path)'}: ${b.status}`).join('')}`)
    if (blocks.length === 0) {
      void vscode.window.showInformationMessage('Radium: the clipboard\'s text has no code block')
      return
    }
    const { named, noPath, problems, warnings } = sortBlocks(blocks)
    const texts = new Map<string, string | null>()
    for (const b of named) {
      const abs = path.resolve(workspace, b.file_path as string)
      texts.set(abs, await currentText(abs))
    }
    const { files, skipped } = proposals(named, workspace, (p) => texts.get(p) ?? null)
    problems.push(...skipped)
    const proposed = new Set(files.map((f) => f.path))
    // Blocks naming a file whose text (its editor's, else the disk's) they already are.
    const same = [...new Set(named.map((b) => resolveInside(workspace, b.file_path as string)))].filter(
      (p): p is string => typeof p === 'string' && !proposed.has(p) && (texts.get(p) ?? null) !== null,
    )
    for (const b of noPath) host.log(`clipboard: block #${b.index + 1} (${b.language || 'no language'}, ${plural(b.lines, 'line')}) has no path, not applied: ${firstLine(b.content)}`)
    for (const p of problems) host.log(`clipboard: not proposed: ${p}`)

    const parts: string[] = []
    if (files.length > 0) parts.push(`the answer changes ${nameList(files.map((f) => f.label))}: review it in the chat view`)
    else parts.push('nothing to review')
    if (same.length > 0) parts.push(`${nameList(same.map((p) => path.relative(workspace, p)))} already ${same.length === 1 ? 'has' : 'have'} that text`)
    if (noPath.length > 0) {
      const list = noPath.map((b) => `#${b.index + 1}${b.language ? ` ${b.language}` : ''}, ${plural(b.lines, 'line')}`).join('; ')
      parts.push(`${plural(noPath.length, 'block')} without a path (${list}) ${noPath.length === 1 ? 'is' : 'are'} not applied: ask for whole files with their path (listed in the Radium output)`)
    }
    if (problems.length > 0) parts.push(`not proposed: ${problems.join('; ')}`)
    if (warnings.length > 0) parts.push(`check: ${warnings.join('; ')}`)
    const message = `Radium: ${parts.join('. ')}`
    if (problems.length > 0 || warnings.length > 0) void vscode.window.showWarningMessage(message)
    else void vscode.window.showInformationMessage(message)
    if (files.length === 0) return

    const notices = [`answer from the clipboard: ${plural(blocks.length, 'code block')}`]
    for (const b of noPath) notices.push(`block #${b.index + 1} has no path: not applied (${firstLine(b.content) || 'empty'})`)
    for (const p of problems) notices.push(`not proposed: ${p}`)
    for (const w of warnings) notices.push(`check: ${w}`)
    view.chat.openReview(files, notices)
    await view.reveal()
  } catch (e) {
    host.fail(`the answer could not be applied: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`)
  }
}

/** Registers the two commands. */
export function registerClipboard(context: vscode.ExtensionContext, host: ClipboardHost, view: ChatView): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('radium.clipboard.copySelection', () => copySelection(host)),
    vscode.commands.registerCommand('radium.clipboard.applyAnswer', () => applyAnswer(host, view)),
  )
}
