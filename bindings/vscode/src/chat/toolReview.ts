// The per-hunk review of an agent's tool call, opened from its permission
// prompt in the chat view: the same review as an answer's code blocks
// (hunks accepted or rejected, the diff editor). Its Apply answers the
// permission: no hunk accepted rejects the call; otherwise the call is
// allowed, and once the agent has written the file (at the end of its turn)
// its rejected hunks are taken back through the editor (one WorkspaceEdit,
// saved) and recorded with the chat's tag, joined to the agent's write
// (`record` with `amend`: its seq), so one Radium: Undo takes the tool call
// back as the user accepted it. If the agent wrote again after it, the
// take-back is a step of its own (two undos), and the log says so.

import * as path from 'path'
import * as vscode from 'vscode'

import { hunks } from '../diff'
import { applyReview, closeDiffs, currentText, reviewMessage, type Applied, type Review } from '../review'
import { nameList } from '../record'
import { decideToolCall, toolCallProposals, type TakeBack, type ToolDecision } from '../toolcall'
import type { ViewMessage } from './events'
import type { SessionEvent } from './session'
import { followDisk } from './undo'

/** What a tool call's review needs from the chat. */
export interface ToolReviewHost {
  post(m: ViewMessage): void
  /** Answers a permission request. */
  answer(id: string, choice: 'once' | 'reject'): void
  /** Records an applied edit as one step of the chat's conversation (never throws). */
  record(review: number, applied: Applied, save: boolean, amend?: number): Promise<{ note: string; tag?: string; files: string[] }>
  workspace(): string | undefined
  log(line: string): void
  /** An error in the view and a notification. */
  error(message: string): void
}

interface ToolCall {
  permission: string
  callId: string
  title: string
  diffs: unknown
}

interface Open {
  review: Review
  call: ToolCall
  decision?: ToolDecision
  /** Files still to be written by the agent before their hunks are taken back (absolute paths). */
  waiting: Set<string>
  /** Written by the agent, not taken back yet. */
  written: Set<string>
  /** The seq of the agent's latest write of these files (the step a take-back joins). */
  seq?: number
  summary?: string
}

export class ToolReviews {
  /** The permission requests that can be reviewed, by request id. */
  private readonly calls = new Map<string, ToolCall>()
  private readonly open = new Map<number, Open>()

  constructor(private readonly host: ToolReviewHost) {}

  /** Remembers a permission request's tool call; answers whether it has a diff to review per hunk. */
  remember(e: SessionEvent): boolean {
    const call = e.tool_call ?? {}
    const workspace = this.host.workspace()
    if (!workspace || toolCallProposals(call.diffs, workspace).files.length === 0) return false
    this.calls.set(String(e.id), { permission: String(e.id), callId: String(call.id ?? ''), title: String(call.title ?? 'a tool call'), diffs: call.diffs })
    return true
  }

  owns(review: Review): boolean {
    return this.open.has(review.id)
  }

  /** The review of permission request `permission` (made once; undefined: nothing to review). */
  review(permission: string, id: () => number): Review | undefined {
    for (const o of this.open.values()) if (o.call.permission === permission) return o.review
    const call = this.calls.get(permission)
    const workspace = this.host.workspace()
    if (!call || !workspace) return undefined
    const { files } = toolCallProposals(call.diffs, workspace)
    const review: Review = { id: id(), files, decisions: files.map((f) => f.hunks.map(() => undefined)), done: false }
    this.open.set(review.id, { review, call, waiting: new Set(), written: new Set() })
    return review
  }

  /** What the view shows of a tool call's review. */
  message(review: Review): ViewMessage {
    const o = this.open.get(review.id)
    return o ? this.messageOf(o) : reviewMessage(review)
  }

  private messageOf(o: Open): ViewMessage {
    const workspace = this.host.workspace()
    const title = workspace ? o.call.title.split(`${workspace}${path.sep}`).join('') : o.call.title
    return { ...reviewMessage(o.review), title: `Review: ${title}`, applyLabel: 'Allow accepted hunks', summary: o.summary }
  }

  private show(o: Open, summary: string, done: boolean): void {
    o.summary = summary
    o.review.done = done
    this.host.post(this.messageOf(o))
  }

  /** Apply: the permission answered as the decisions say; the rejected hunks wait for the agent's write. */
  async apply(review: Review): Promise<void> {
    const o = this.open.get(review.id)
    if (!o || o.decision) return
    const decision = decideToolCall(review.files, review.decisions)
    o.decision = decision
    await closeDiffs(review)
    const names = nameList(review.files.map((f) => f.label))
    this.host.log(`tool review ${review.id} (${o.call.callId}): ${decision.accepted} of ${decision.of} hunk(s) accepted, ${decision.answer}`)
    if (decision.answer === 'reject') {
      this.host.answer(o.call.permission, 'reject')
      return this.show(o, `rejected the tool call (every hunk of ${names} rejected)`, true)
    }
    for (const label of decision.created) this.host.post({ type: 'notice', message: `${label} is a new file: it is created whole (a created file is allowed or rejected with the whole call)` })
    for (const t of decision.takeBack) o.waiting.add(t.path)
    this.host.answer(o.call.permission, 'once')
    if (decision.takeBack.length === 0) return this.show(o, `allowed: every hunk of ${names} accepted`, true)
    const back = decision.takeBack.reduce((n, t) => n + t.rejected, 0)
    this.show(o, `allowed with ${decision.accepted} of ${decision.of} hunk(s); ${back} rejected hunk(s) of ${nameList(decision.takeBack.map((t) => t.label))} are taken back when the agent's turn ends…`, true)
  }

  /**
   * The events of a batch: the agent's writes are noted, and taken back at
   * the end of the turn (the engine records what a tool call changed when it
   * completes or when the turn ends: a take-back before that would be
   * recorded as the agent's); a decision made elsewhere closes a review.
   */
  onEvents(batch: SessionEvent[]): void {
    const workspace = this.host.workspace() ?? ''
    for (const e of batch) {
      for (const o of this.open.values()) {
        if (e.type === 'permission_decided' && String(e.id) === o.call.callId && !o.decision) {
          // Answered on the prompt itself, timed out or cancelled.
          o.decision = { answer: e.allowed ? 'allow' : 'reject', accepted: 0, of: 0, takeBack: [], created: [] }
          this.show(o, e.by === 'timeout' ? 'timed out: rejected' : `the tool call was ${e.allowed ? 'allowed' : 'rejected'} as a whole`, true)
        } else if (e.type === 'write' && typeof e.path === 'string') {
          const abs = path.resolve(workspace, e.path)
          if (o.waiting.delete(abs)) {
            o.written.add(abs)
            if (typeof e.seq === 'number') o.seq = Math.max(o.seq ?? 0, e.seq)
          }
        } else if ((e.type === 'turn_end' || e.type === 'error') && o.decision && (o.waiting.size > 0 || o.written.size > 0)) {
          const missing = [...o.waiting].map((p) => path.relative(workspace, p))
          o.waiting.clear()
          if (missing.length > 0) this.host.post({ type: 'notice', message: `the agent did not write ${nameList(missing)}: nothing to take back there` })
          if (o.written.size > 0) void this.takeBack(o)
        }
      }
    }
    for (const [id, o] of this.open) if (o.decision && o.waiting.size === 0 && o.written.size === 0) this.open.delete(id)
  }

  /**
   * Brings the written files to their accepted hunks: each editor first shows
   * what the agent wrote, each file must still be exactly that, then one
   * WorkspaceEdit, saved, recorded with the chat's tag.
   */
  private async takeBack(o: Open): Promise<void> {
    const files = (o.decision?.takeBack ?? []).filter((t) => o.written.has(t.path))
    o.written.clear()
    if (files.length === 0) return
    const names = nameList(files.map((t) => t.label))
    const workspace = this.host.workspace()
    try {
      const followed = await followDisk(workspace, files.map((t) => path.relative(workspace ?? '', t.path)), this.host.log)
      if (followed.dirty.length > 0) throw new Error(`${nameList(followed.dirty)} ${followed.dirty.length === 1 ? 'has' : 'have'} unsaved changes`)
      for (const t of files) {
        if ((await currentText(t.path)) !== t.written) throw new Error(`${t.label} is not what the tool call showed (the agent wrote something else, or it changed since)`)
      }
      const save = vscode.workspace.getConfiguration('radium').get<boolean>('review.saveAfterApply', true)
      const applied = await applyReview(backReview(o.review.id, files), save)
      const recorded = await this.host.record(o.review.id, applied, save, o.seq)
      const back = files.reduce((n, t) => n + t.rejected, 0)
      this.host.log(`tool review ${o.review.id}: took back ${back} hunk(s) of ${names}${recorded.note}`)
      this.show(o, `allowed with ${o.decision?.accepted} of ${o.decision?.of} hunk(s); took back ${back} rejected hunk(s) of ${names} after the agent wrote ${files.length === 1 ? 'it' : 'them'}${recorded.note}`, true)
      if (recorded.tag) this.host.post({ type: 'write', path: recorded.files.join(', '), tag: recorded.tag, by: 'review' })
    } catch (e) {
      this.host.error(`the rejected hunks of ${names} were not taken back: ${e instanceof Error ? e.message : String(e)}; the file has the agent's whole edit (its Undo takes the edit back)`)
      this.show(o, `allowed; the rejected hunks of ${names} were not taken back`, true)
    }
  }

  clear(): void {
    this.calls.clear()
    this.open.clear()
  }
}

/** The take-back as a review of its own: from what the agent wrote to the accepted text, every hunk accepted. */
function backReview(id: number, files: TakeBack[]): Review {
  const proposals = files.map((t) => ({ path: t.path, label: t.label, oldText: t.written, newText: t.keep, hunks: hunks(t.written, t.keep) }))
  return { id, files: proposals, decisions: proposals.map((f) => f.hunks.map(() => true)), done: false }
}
