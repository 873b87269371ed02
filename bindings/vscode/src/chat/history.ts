// "Reopen a Past Conversation…": the project's conversations (the engine's
// `history-list`, newest first) in a quick pick; the one picked is read
// (`history-read`) and shown in the chat view, and the next prompt's session
// continues it (the agent resumes its own session when it can, else it gets
// the earlier turns as context). Damaged history files are named in a warning.

import * as vscode from 'vscode'

import type { ChatController, ChatHost } from './controller'
import type { ViewMessage } from './events'

type Conversation = { id: string; agent: string; title: string; turns: number; updated: number }

/** The view's messages of past conversation `id` with `agent`: its `turns` (of `history-read`), each once, then a notice. */
export function transcript(id: string, agent: string, turns: Array<Record<string, unknown>>): ViewMessage[] {
  const out: ViewMessage[] = []
  for (const t of turns) {
    out.push({ type: 'user', text: String(t.prompt ?? ''), chips: [] } as ViewMessage)
    if (t.text) out.push({ type: 'text', text: String(t.text), chunks: 1, t: 0 } as ViewMessage)
    if (typeof t.error === 'string') out.push({ type: 'error', message: t.error, tagBefore: t.tag_before } as ViewMessage)
    else out.push({ type: 'turnEnd', stopReason: t.stop_reason ?? 'end_turn', tag: t.tag, tagBefore: t.tag_before } as ViewMessage)
  }
  out.push({ type: 'notice', message: `conversation ${id} with ${agent} (${turns.length} earlier turn(s)): your next prompt continues it` } as ViewMessage)
  return out
}

/** A quick pick item of a conversation. */
export function item(c: Conversation): vscode.QuickPickItem & { conversation: Conversation } {
  const when = new Date(c.updated).toISOString().slice(0, 16).replace('T', ' ')
  return { label: c.title || '(no prompt)', description: `${c.agent} · ${c.turns} turn(s)`, detail: `${when} UTC · ${c.id}`, conversation: c }
}

/** Lists, picks and reopens a past conversation in `chat`; answers the id reopened. */
export async function reopenConversation(chat: ChatController, host: ChatHost): Promise<string | undefined> {
  const { engine, workspace } = host.engine()
  if (!workspace) {
    host.fail('open a folder first: past conversations are kept per project')
    return undefined
  }
  const listed = await engine.requestAsync({ command: 'history-list', cwd: workspace })
  if (!listed.ok) {
    host.fail(`the past conversations could not be listed: ${listed.error} [${listed.code}]`)
    return undefined
  }
  const data = listed.data as { conversations: Conversation[]; warnings: string[] }
  for (const w of data.warnings) void vscode.window.showWarningMessage(`Radium: ${w}`)
  if (data.conversations.length === 0) {
    void vscode.window.showInformationMessage('Radium: no past conversations in this project yet')
    return undefined
  }
  const picked = await vscode.window.showQuickPick(data.conversations.map(item), { title: 'Radium: reopen a past conversation' })
  if (!picked) return undefined
  const c = picked.conversation
  const read = await engine.requestAsync({ command: 'history-read', cwd: workspace, args: { id: c.id } })
  if (!read.ok) {
    host.fail(`the conversation could not be read: ${read.error} [${read.code}]`)
    return undefined
  }
  const turns = (read.data as { turns: Array<Record<string, unknown>> }).turns
  chat.reopen(c.id, c.agent, turns)
  return c.id
}
