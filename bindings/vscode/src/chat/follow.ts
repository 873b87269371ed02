// "Follow the agent" (opt-in: the setting radium.chat.followAgent): the file
// a tool call names in its `locations` ({path, line?}) is shown at that line
// beside the chat, as a preview that keeps the focus where it is (the
// chat's input, while the user types). Only files inside the workspace.

import * as path from 'path'
import * as vscode from 'vscode'

import type { SessionEvent } from './session'

/** A file to show: absolute, and its line (1-based). */
export interface FollowTarget {
  file: string
  line: number
}

/** The last location of the batch's tool calls that is inside `workspace` (none outside it, or without a workspace). No dependency on VS Code's state. */
export function followTarget(batch: SessionEvent[], workspace: string | undefined): FollowTarget | undefined {
  if (!workspace) return undefined
  let found: FollowTarget | undefined
  for (const e of batch) {
    if (e.type !== 'tool_call' && e.type !== 'tool_call_update') continue
    const loc = Array.isArray(e.locations) ? e.locations[0] : undefined
    if (!loc || typeof loc.path !== 'string' || loc.path === '') continue
    const file = path.resolve(workspace, loc.path)
    const rel = path.relative(workspace, file)
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue
    const line = typeof loc.line === 'number' && loc.line >= 1 ? Math.floor(loc.line) : 1
    found = { file, line }
  }
  return found
}

/** Shows the batch's last tool call location when the setting is on (errors, e.g. a file not written yet, are logged, never thrown). */
export async function followAgent(batch: SessionEvent[], workspace: string | undefined, log: (line: string) => void): Promise<void> {
  if (!vscode.workspace.getConfiguration('radium').get<boolean>('chat.followAgent', false)) return
  const target = followTarget(batch, workspace)
  if (!target) return
  try {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(target.file))
    const line = new vscode.Position(Math.max(Math.min(target.line, document.lineCount) - 1, 0), 0)
    const at = new vscode.Range(line, line)
    await vscode.window.showTextDocument(document, { preserveFocus: true, preview: true, selection: at })
  } catch (e) {
    log(`follow the agent: ${target.file}: ${e instanceof Error ? e.message : String(e)}`)
  }
}
