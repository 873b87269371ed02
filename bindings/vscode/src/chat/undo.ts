// radium's undo and redo from VS Code (radium.undo, radium.redo, the Undo
// buttons of the chat view): the request, a notification naming every file
// of the step, and the open editors of those files brought in line with what
// radium wrote to disk.

import * as path from 'path'
import * as vscode from 'vscode'

import { engineMessage, nameList, stepFiles, stepText, type Step } from '../record'
import type { ChatHost } from './controller'
import { mergeDirty } from './merge'

/** How long VS Code gets to reload a document from disk by itself before it is reverted. */
const RELOAD_WAIT_MS = 2000

async function diskText(uri: vscode.Uri): Promise<string | null> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))
  } catch {
    return null
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What became of the open documents of files radium wrote. */
export interface Followed {
  /** Reloaded by VS Code itself. */
  reloaded: string[]
  /** Not reloaded in time: reverted (reloaded from disk) by the extension. */
  reverted: string[]
  /** Unsaved changes: left to the caller (undoRedo merges the step into them). */
  dirty: string[]
}

/**
 * Brings the open documents of `files` (relative to `workspace`) in line
 * with the disk after radium wrote them: VS Code reloads a document without
 * unsaved changes when its file changes; one it has not reloaded after
 * `waitMs` is reverted (File: Revert File on it). A document with unsaved
 * changes is left alone, and a file that is gone (a created file undone)
 * is VS Code's to show.
 */
export async function followDisk(workspace: string | undefined, files: string[], log: (line: string) => void, waitMs = RELOAD_WAIT_MS): Promise<Followed> {
  const followed: Followed = { reloaded: [], reverted: [], dirty: [] }
  const stale: Array<{ file: string; document: vscode.TextDocument }> = []
  const started = Date.now()
  await Promise.all(
    files.map(async (file) => {
      const abs = path.resolve(workspace ?? '', file)
      const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs)
      if (!document) return
      for (;;) {
        if (document.isDirty) return void followed.dirty.push(file)
        const disk = await diskText(document.uri)
        if (disk === null) return
        if (document.getText() === disk) {
          followed.reloaded.push(file)
          return log(`${file}: the editor shows the disk after ${Date.now() - started} ms`)
        }
        if (Date.now() - started >= waitMs) return void stale.push({ file, document })
        await sleep(50)
      }
    }),
  )
  for (const { file, document } of stale) {
    await vscode.window.showTextDocument(document, { preview: false })
    await vscode.commands.executeCommand('workbench.action.files.revert')
    followed.reverted.push(file)
    log(`${file}: not reloaded by VS Code after ${waitMs} ms; reverted from disk`)
  }
  return followed
}

/**
 * `undo` / `redo` of radium's steps (with a tag: that conversation's last
 * one), said in a notification that names every file of the step; the open
 * editors of those files then show what radium wrote. Answers the tag of
 * the conversation after it (undefined without a tag or on failure).
 */
export async function undoRedo(host: ChatHost, command: 'undo' | 'redo', tag: string | undefined): Promise<string | undefined> {
  const { engine, workspace } = host.engine()
  const r = await engine.requestAsync(tag ? { command, tag } : { command })
  host.log(`${command}${tag ? ` (tag ${tag})` : ''}: ${JSON.stringify(r)}`)
  for (const w of r.warnings ?? []) host.log(`warning: ${w}`)
  if (!r.ok) {
    host.fail(`${command} failed: ${engineMessage(r, 'unknown error')}`)
    return undefined
  }
  const step = (r.data?.undone ?? r.data?.redone) as Step | null | undefined
  void vscode.window.showInformationMessage(`Radium: ${stepText(command, step)}`)
  if (step) {
    const { dirty } = await followDisk(workspace, stepFiles(step), host.log)
    // A document with unsaved changes gets what the step did to its file
    // merged in (the step's seq names the step); each merge is said by itself.
    for (const file of dirty) await mergeDirty(engine, workspace, file, step.seq, host.log)
  }
  return tag ? r.tag : undefined
}

/**
 * "Restore files to before this prompt": the engine's `rewind` to `tag`
 * (a prompt's `tag_before`), previewed first (`dry_run`): a modal lists the
 * files it changes (and a warning when someone else changed one since),
 * and only "Restore" rewinds; the open editors of those files then follow
 * the disk. Answers the conversation's tag after it (undefined: nothing done).
 */
export async function restoreTo(host: ChatHost, tag: string): Promise<string | undefined> {
  const { engine, workspace } = host.engine()
  const plan = await engine.requestAsync({ command: 'rewind', args: { tag, dry_run: true } })
  host.log(`restore preview (tag ${tag}): ${JSON.stringify(plan)}`)
  if (!plan.ok) {
    host.fail(`restore failed: ${engineMessage(plan, 'unknown error')}`)
    return undefined
  }
  const files = ((plan.data?.files ?? []) as string[]).filter((f) => typeof f === 'string')
  if (files.length === 0) {
    void vscode.window.showInformationMessage('Radium: the files are as they were before this prompt; nothing to restore')
    return undefined
  }
  const detail = [...files, ...(plan.warnings ?? []).map((w: string) => `warning: ${w}`)].join('\n')
  const choice = await vscode.window.showWarningMessage(
    `Restore ${files.length} file(s) to before this prompt?`,
    { modal: true, detail },
    'Restore',
  )
  if (choice !== 'Restore') return undefined
  // A document with unsaved changes of a file the restore changes is merged,
  // not reverted: its base is the file as it is now, before the restore.
  const bases = new Map<string, string>()
  for (const file of files) {
    const abs = path.resolve(workspace ?? '', file)
    const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs)
    if (!document?.isDirty) continue
    const text = await diskText(document.uri)
    if (text !== null) bases.set(file, text)
  }
  const r = await engine.requestAsync({ command: 'rewind', args: { tag } })
  host.log(`restore (tag ${tag}): ${JSON.stringify(r)}`)
  if (!r.ok) {
    host.fail(`restore failed: ${engineMessage(r, 'unknown error')}; nothing changed`)
    return undefined
  }
  const done = ((r.data?.files ?? []) as string[]).filter((f) => typeof f === 'string')
  for (const w of r.warnings ?? []) void vscode.window.showWarningMessage(`Radium: ${w}`)
  void vscode.window.showInformationMessage(`Radium: restored ${nameList(done)} to before the prompt`)
  const { dirty } = await followDisk(workspace, done, host.log)
  for (const file of dirty) await mergeDirty(engine, workspace, file, undefined, host.log, bases.get(file))
  return r.tag
}
