// The per-hunk review of an agent's tool call, opened from its permission
// prompt in the chat view: the same review as an answer's code blocks
// (hunks accepted or rejected, the diff editor), over the hunks the engine
// numbered. Its Apply answers the permission: no hunk accepted rejects the
// call; otherwise the call is allowed with the hunks kept
// (`session-permission`'s `hunks`) and the engine takes the rejected ones
// back from the agent's write, in the same undo step (its `write` event
// says which: `hunks_taken_back`), so one Radium: Undo takes the tool call
// back as the user accepted it. This door draws and answers; it writes
// nothing itself.

import * as path from 'path'

import { closeDiffs, reviewMessage, type Review } from '../review'
import { nameList } from '../record'
import { decideToolCall, keptHunks, toolCallProposals, type ToolDecision } from '../toolcall'
import type { ViewMessage } from './events'
import type { SessionEvent } from './session'

/** What a tool call's review needs from the chat. */
export interface ToolReviewHost {
  post(m: ViewMessage): void
  /** Answers a permission request (with the hunks kept, by path as the engine sent them). */
  answer(id: string, choice: 'once' | 'reject', hunks?: Record<string, number[]>): void
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
  /** Each file's path as the engine sent it. */
  sources: string[]
  decision?: ToolDecision
  /** Files whose rejected hunks the engine is to take back (absolute paths). */
  waiting: Set<string>
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
    const { files, sources } = toolCallProposals(call.diffs, workspace)
    const review: Review = { id: id(), files, decisions: files.map((f) => f.hunks.map(() => undefined)), done: false }
    this.open.set(review.id, { review, call, sources, waiting: new Set() })
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

  /** Apply: the permission answered as the decisions say, with the hunks kept; the engine takes the others back. */
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
    this.host.answer(o.call.permission, 'once', keptHunks(review.files, o.sources, review.decisions))
    if (decision.takeBack.length === 0) return this.show(o, `allowed: every hunk of ${names} accepted`, true)
    const back = decision.takeBack.reduce((n, t) => n + t.rejected, 0)
    this.show(o, `allowed with ${decision.accepted} of ${decision.of} hunk(s); radium leaves out ${back} rejected hunk(s) of ${nameList(decision.takeBack.map((t) => t.label))} when the agent writes…`, true)
  }

  /**
   * The events of a batch: the engine's writes of a reviewed file say which
   * hunks it took back; a decision made elsewhere closes a review.
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
          if (!o.waiting.delete(abs)) continue
          const back = Array.isArray(e.hunks_taken_back) ? e.hunks_taken_back.length : 0
          const left = Array.isArray(e.hunks_not_taken_back) ? e.hunks_not_taken_back.length : 0
          const label = path.relative(workspace, abs) || abs
          this.host.log(`tool review ${o.review.id}: radium took back ${back} hunk(s) of ${label}${left ? `; ${left} could not be` : ''}`)
          this.show(o, `allowed with ${o.decision?.accepted} of ${o.decision?.of} hunk(s); radium took back ${back} rejected hunk(s) of ${label}${left ? ` (${left} no longer applied: the agent wrote something else)` : ''} · one radium.undo takes back the tool call as accepted`, true)
        } else if ((e.type === 'turn_end' || e.type === 'error') && o.decision && o.waiting.size > 0) {
          const missing = [...o.waiting].map((p) => path.relative(workspace, p))
          o.waiting.clear()
          this.host.post({ type: 'notice', message: `the agent did not write ${nameList(missing)}: nothing to take back there` })
        }
      }
    }
    for (const [id, o] of this.open) if (o.decision && o.waiting.size === 0) this.open.delete(id)
  }

  clear(): void {
    this.calls.clear()
    this.open.clear()
  }
}
