// "Reopen a Past Conversation…": the project's conversations (the engine's
// `history-list`, newest first) in a quick pick; the one picked is read
// (`history-read`) and shown in the chat view, and the next prompt's session
// continues it (the agent resumes its own session when it can, else it gets
// the earlier turns as context). Damaged history files are named in a warning.
// With the chat's agent chosen, its own sessions (ACP `session/list`) that
// radium's history does not hold follow under a separator "The agent's own
// sessions"; the one picked is taken up by the next prompt's session (radium
// holds no transcript of it: the view says so). Listing starts the agent, so
// only the chat's agent is asked, off the extension host's thread.

import * as vscode from 'vscode'

import type { ChatController, ChatHost } from './controller'
import type { ViewMessage } from './events'

type Conversation = { id: string; agent: string; title: string; turns: number; updated: number }
/** One of the agent's own sessions of `history-list {agent}`'s `agent_sessions`. */
type AgentSession = { id: string; acp_session: string; agent: string; title: string | null; updated_at: string | null }
type Item = vscode.QuickPickItem & { conversation?: Conversation; own?: AgentSession }

/** The view's messages of past conversation `id` with `agent`: its `turns` (of `history-read`), each once, then a notice. */
export function transcript(id: string, agent: string, turns: Array<Record<string, unknown>>): ViewMessage[] {
  if (id.startsWith('agent:')) {
    const message = `the agent's own session ${id.slice(6)} with ${agent}: radium holds no transcript of it; your next prompt continues it (the agent remembers it)`
    return [{ type: 'notice', message } as ViewMessage]
  }
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

/** A quick pick item of one of the agent's own sessions, marked as such. */
export function ownItem(s: AgentSession): Item {
  const when = s.updated_at ? s.updated_at.slice(0, 16).replace('T', ' ') + ' UTC · ' : ''
  return { label: s.title || '(no title)', description: `${s.agent} · (the agent's own)`, detail: `${when}${s.id}`, own: s }
}

/**
 * The sessions of the chat's `agent` that radium's history does not hold
 * (`[]` with a warning when it cannot list them or failed to start).
 */
async function agentSessions(host: ChatHost, agent: string | undefined): Promise<AgentSession[]> {
  const { engine, workspace } = host.engine()
  if (!agent) return []
  const listed = await engine.requestAsync({ command: 'history-list', cwd: workspace, args: { agent } })
  if (!listed.ok) {
    void vscode.window.showWarningMessage(`Radium: the sessions of ${agent} could not be listed: ${listed.error} [${listed.code}]`)
    return []
  }
  const data = listed.data as { agent_sessions?: AgentSession[]; warnings: string[] }
  // Its damaged-file warnings are the plain listing's too: only the agent's
  // own are said, and one that does not list its sessions (a command agent,
  // Gemini CLI) only in the log: the chat's agent was not asked for by name.
  for (const w of data.warnings) {
    if (!w.startsWith(`agent \`${agent}\``)) continue
    if (w.includes('does not list its sessions')) host.log(`history: ${w}`)
    else void vscode.window.showWarningMessage(`Radium: ${w}`)
  }
  return data.agent_sessions ?? []
}

/** Lists, picks and reopens a past conversation (or one of the agent's own sessions) in `chat`; answers the id reopened. */
export async function reopenConversation(chat: ChatController, host: ChatHost): Promise<string | undefined> {
  const { engine, workspace } = host.engine()
  if (!workspace) {
    host.fail('open a folder first: past conversations are kept per project')
    return undefined
  }
  const [listed, own] = await Promise.all([engine.requestAsync({ command: 'history-list', cwd: workspace }), agentSessions(host, chat.agent)])
  if (!listed.ok) {
    host.fail(`the past conversations could not be listed: ${listed.error} [${listed.code}]`)
    return undefined
  }
  const data = listed.data as { conversations: Conversation[]; warnings: string[] }
  for (const w of data.warnings) void vscode.window.showWarningMessage(`Radium: ${w}`)
  if (data.conversations.length === 0 && own.length === 0) {
    void vscode.window.showInformationMessage('Radium: no past conversations in this project yet')
    return undefined
  }
  const items: Item[] = data.conversations.map(item)
  if (own.length > 0) items.push({ label: "The agent's own sessions", kind: vscode.QuickPickItemKind.Separator }, ...own.map(ownItem))
  const picked = await vscode.window.showQuickPick(items, { title: 'Radium: reopen a past conversation' })
  if (!picked || (!picked.conversation && !picked.own)) return undefined
  if (picked.own) {
    chat.reopen(picked.own.id, picked.own.agent, [])
    return picked.own.id
  }
  const c = picked.conversation as Conversation
  const read = await engine.requestAsync({ command: 'history-read', cwd: workspace, args: { id: c.id } })
  if (!read.ok) {
    host.fail(`the conversation could not be read: ${read.error} [${read.code}]`)
    return undefined
  }
  const turns = (read.data as { turns: Array<Record<string, unknown>> }).turns
  chat.reopen(c.id, c.agent, turns)
  return c.id
}
