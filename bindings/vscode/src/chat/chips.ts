// The context a chat prompt carries: chips for the selection (tracked as
// its document changes), the current file and picked files (an image file,
// png/jpeg/gif/webp, goes as an image, for an agent that takes images), and
// images pasted into the chat input (no file: sent as inline data); every
// unsaved buffer of the workspace goes as `buffers`, so the agent reads what
// the user sees.

import * as os from 'os'
import * as path from 'path'
import * as vscode from 'vscode'

import { editorContext } from '../context'
import { track, type Span } from '../tracking'
import type { PromptExtras } from './session'

export interface Chip {
  kind: 'selection' | 'file' | 'image'
  uri: vscode.Uri
  label: string
  /** Selection chips: where the (whole-line) selection is now, its text when taken, and whether it was edited since. */
  span?: Span
  text?: string
  changed?: boolean
  startLine?: number
  /** Pasted image chips: the bytes in base64 and their type. */
  image?: { data: string; mimeType: string }
}

/** The image types the engine sends, and its caps (docs/protocol.md, `session-prompt`). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp']
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024
export const MAX_IMAGES = 16

/**
 * A chip for an image pasted into the chat input (`data`: its bytes in
 * base64; absent when the webview found it too big to read), or why it is
 * refused: not an image type the engine sends, over the size cap, or one
 * image too many.
 */
export function pastedImageChip(chips: Chip[], mimeType: unknown, data: unknown, size: unknown): Chip | string {
  const type = typeof mimeType === 'string' ? mimeType : ''
  if (!IMAGE_TYPES.includes(type)) return `the pasted item (${type || 'no type'}) is not an image type radium sends (png, jpeg, gif, webp): nothing was attached`
  const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'base64') : Number(size) || 0
  if (typeof data !== 'string' || bytes > MAX_IMAGE_BYTES) return `the pasted image is ${bytes} bytes, over the ${MAX_IMAGE_BYTES}-byte limit of an image: nothing was attached`
  if (bytes === 0) return 'the pasted image is empty: nothing was attached'
  const images = chips.filter((c) => c.kind === 'image' || (c.kind === 'file' && isImage(c.uri)))
  if (images.length >= MAX_IMAGES) return `at most ${MAX_IMAGES} images go with one prompt: the pasted image was not attached`
  const n = chips.filter((c) => c.kind === 'image').length + 1
  const kb = Math.max(1, Math.round(bytes / 1024))
  return {
    kind: 'image',
    uri: vscode.Uri.from({ scheme: 'radium-pasted', path: `image-${n}` }),
    label: `pasted image ${n} (${type.slice(6)}, ${kb} KB)`,
    image: { data, mimeType: type },
  }
}

/** A chip for the selection of an editor (whole lines; the current line when nothing is selected). */
export function selectionChip(editor: vscode.TextEditor): Chip {
  const d = editor.document
  const sel = editor.selection
  let endLine = sel.end.line
  if (endLine > sel.start.line && sel.end.character === 0) endLine--
  const start = d.offsetAt(new vscode.Position(sel.start.line, 0))
  const end = endLine + 1 < d.lineCount ? d.offsetAt(new vscode.Position(endLine + 1, 0)) : d.getText().length
  const name = path.basename(d.uri.path) || d.uri.toString()
  return {
    kind: 'selection',
    uri: d.uri,
    label: `${name}:${sel.start.line + 1}-${endLine + 1}`,
    span: { start, end },
    text: d.getText().slice(start, end),
    startLine: sel.start.line,
  }
}

export function fileChip(uri: vscode.Uri): Chip {
  return { kind: 'file', uri, label: vscode.workspace.asRelativePath(uri) }
}

/** Follows the selection chips through a document change. */
export function trackChips(chips: Chip[], event: vscode.TextDocumentChangeEvent): void {
  for (const chip of chips) {
    if (chip.kind !== 'selection' || !chip.span || chip.changed || chip.uri.toString() !== event.document.uri.toString()) continue
    const moved = track(chip.span, event.contentChanges)
    if (moved) chip.span = moved
    else chip.changed = true
  }
}

/** Whether a file chip is an image the engine sends as one (`session-prompt`'s `images`). */
export function isImage(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && /\.(png|jpe?g|gif|webp)$/i.test(uri.fsPath)
}

function pathOf(uri: vscode.Uri, workspace: string | undefined): string {
  return uri.scheme === 'file' ? uri.fsPath : path.join(workspace ?? os.tmpdir(), path.basename(uri.path) || 'untitled')
}

async function textOf(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
  if (open) return open.getText()
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))
}

/** What a prompt sends for these chips (the first selection is the editor context; the rest are open files). */
export async function promptExtras(chips: Chip[], workspace: string | undefined, surroundingLines: number): Promise<PromptExtras> {
  const extras: PromptExtras = {}
  const files: Array<{ path: string; text: string }> = []
  const images: Array<string | { data: string; mimeType: string }> = []
  for (const chip of chips) {
    if (chip.kind === 'image' && chip.image) {
      images.push({ ...chip.image })
      continue
    }
    if (chip.kind === 'file' && isImage(chip.uri)) {
      images.push(chip.uri.fsPath)
      continue
    }
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === chip.uri.toString())
    if (chip.kind === 'selection' && !extras.context && document && chip.span && !chip.changed) {
      const start = document.positionAt(chip.span.start)
      const end = document.positionAt(chip.span.end)
      extras.context = editorContext({
        text: document.getText(),
        languageId: document.languageId,
        fsPath: document.isUntitled ? undefined : document.uri.fsPath,
        workspace,
        start,
        end,
        surroundingLines,
        fallbackDir: os.tmpdir(),
      }) as unknown as Record<string, unknown>
      continue
    }
    files.push({ path: pathOf(chip.uri, workspace), text: await textOf(chip.uri) })
  }
  if (files.length > 0) extras.open_files = files
  if (images.length > 0) extras.images = images
  const buffers: Record<string, string> = {}
  for (const d of vscode.workspace.textDocuments) {
    if (d.isDirty && d.uri.scheme === 'file' && workspace && d.uri.fsPath.startsWith(workspace + path.sep)) buffers[d.uri.fsPath] = d.getText()
  }
  if (Object.keys(buffers).length > 0) extras.buffers = buffers
  return extras
}
