// A chat: its agent session, the turn that runs, the context chips, the
// permission prompts and the reviews of what an answer proposes, talking to
// the chat webview through `post` and the messages it sends back.

import * as path from 'path'
import * as vscode from 'vscode'
import type { Engine } from '../native'
import { proposals, type Block, type FileProposal, type SelectionTarget } from '../proposals'
import { nameList, recordStep } from '../record'
import { applyReview, closeDiffs, currentText, reviewMessage, showDiff, ReviewDocuments, type Applied, type Review } from '../review'
import { fileChip, promptExtras, selectionChip, trackChips, type Chip } from './chips'
import { EventBatcher } from './batcher'
import { eventLogLines, optionFor, viewMessages, type ViewMessage } from './events'
import { followAgent } from './follow'
import { transcript } from './history'
import { mergeDirty } from './merge'
import { TurnMeter } from './meter'
import { ChatSession, type SessionEvent } from './session'
import { ToolReviews } from './toolReview'
import { restoreTo, undoRedo } from './undo'

/** What the chat needs from the extension. */
export interface ChatHost {
  /** The engine and workspace of the current window (throws when the module does not load). */
  engine(): { engine: Engine; workspace: string | undefined }
  log(line: string): void
  /** A notification and an output line (never throws); `showOutput` false: the output channel is not brought into view. */
  fail(message: string, showOutput?: boolean): void
}

type Perm = { options: Array<{ id?: string; kind?: string }>; kind?: string }

export class ChatController {
  private session: ChatSession | undefined
  private opening: Promise<ChatSession> | undefined
  agent: string
  chips: Chip[] = []
  busy = false
  lastTag: string | undefined
  /** The merges of agents' writes into dirty documents, one after another (tests wait on it). */
  merging: Promise<void> = Promise.resolve()
  /** The unsaved texts the last prompt sent (path → text): what the agent was told those files hold. */
  private sentBuffers = new Map<string, string | null>()
  /** The past conversation the next session continues (see `reopen`). */
  resumeId: string | undefined
  private readonly permissions = new Map<string, Perm>()
  private readonly alwaysAllowed = new Set<string>()
  private readonly reviews = new Map<number, Review>()
  private reviewSeq = 0
  private readonly meter = new TurnMeter()
  /** The session's events, joined per turn of the event loop and handled at most once a frame. */
  private readonly batcher = new EventBatcher((events, t) => this.onBatch(events, t))
  private turnChips: Chip[] = []
  readonly status: vscode.StatusBarItem
  readonly docs = new ReviewDocuments()
  private readonly tools: ToolReviews
  /** The agent's commands and usage as last shown, shown again when the view reloads. */
  private controls: { commands?: ViewMessage; usage?: ViewMessage } = {}

  constructor(
    private readonly host: ChatHost,
    private readonly post: (m: ViewMessage) => void,
    initialAgent: string,
  ) {
    this.agent = initialAgent
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100)
    this.status.command = 'radium.stop'
    this.tools = new ToolReviews({
      post,
      answer: (id, choice, hunks) => this.answer(id, choice, hunks),
      workspace: () => this.host.engine().workspace,
      log: (line) => this.host.log(line),
      error: (message) => this.showError(message),
    })
  }

  /** The agents of the engine's `agents` request, for the picker. */
  agents(): string[] {
    const { engine } = this.host.engine()
    const r = engine.request({ command: 'agents' })
    if (!r.ok) throw new Error(`${r.error ?? 'the agents could not be listed'}${r.code ? ` [${r.code}]` : ''}`)
    return ((r.data ?? []) as Array<{ id: string }>).map((a) => a.id)
  }

  chipsMessage(): ViewMessage {
    return { type: 'chips', chips: this.chips.map((c) => ({ kind: c.kind, label: c.label, changed: Boolean(c.changed) })) }
  }

  addSelection(editor: vscode.TextEditor | undefined): void {
    if (!editor) {
      void vscode.window.showInformationMessage('Radium: open a file and select some code to attach it')
      return
    }
    this.chips = this.chips.filter((c) => c.kind !== 'selection')
    this.chips.unshift(selectionChip(editor))
    this.post(this.chipsMessage())
  }

  addFiles(uris: vscode.Uri[]): void {
    for (const uri of uris) if (!this.chips.some((c) => c.kind === 'file' && c.uri.toString() === uri.toString())) this.chips.push(fileChip(uri))
    this.post(this.chipsMessage())
  }

  removeChip(index: number): void {
    this.chips.splice(index, 1)
    this.post(this.chipsMessage())
  }

  onDocumentChange(event: vscode.TextDocumentChangeEvent): void {
    const before = [...this.chips, ...this.turnChips].map((c) => c.changed)
    trackChips(this.chips, event)
    trackChips(this.turnChips.filter((c) => !this.chips.includes(c)), event)
    if (this.chips.some((c, i) => c.changed !== before[i])) this.post(this.chipsMessage())
  }

  setAgent(agent: string): void {
    if (agent === this.agent) return
    this.agent = agent
    this.closeSession()
    // The other agent's commands are not this one's.
    this.controls = {}
    this.post({ type: 'commands', commands: [] })
    this.host.log(`chat: agent ${agent}`)
  }

  private async ensureSession(): Promise<ChatSession> {
    // One opening at a time (the `/` menu may have started it).
    if (this.opening) await this.opening.catch(() => undefined)
    if (this.session && !this.session.isClosed && this.session.agent === this.agent) return this.session
    this.session?.close()
    this.session = undefined
    const { engine } = this.host.engine()
    this.post({ type: 'notice', message: `starting ${this.agent}…` })
    // The chat's conversation goes on (a review applied before, another
    // agent picked): the session continues it; a new chat starts one.
    const resume = this.resumeId
    this.opening = ChatSession.open(engine, this.agent, (batch) => this.batcher.push(batch), resume ? undefined : this.lastTag, resume)
    try {
      this.session = await this.opening
      this.resumeId = undefined
      // (An agent that cannot resume: the turn's own notice says so.)
      if (this.session.resumed && this.session.resumed !== 'context') this.post({ type: 'notice', message: 'the agent resumed its own session' })
      if (this.session.tag) this.lastTag = this.session.tag
      this.post({ type: 'options', ...this.session.controls })
      for (const warning of this.session.warnings) this.post({ type: 'notice', message: `warning: ${warning}` })
      for (const notice of this.session.notices) this.post({ type: 'notice', message: notice })
      this.host.log(`chat: session ${this.session.id} with ${this.agent}, tag ${this.session.tag ?? '(none)'}`)
      return this.session
    } finally {
      this.opening = undefined
    }
  }

  /** Sends a prompt with the chips; errors are shown in the view and as a notification. */
  async send(text: string, surroundingLines: number): Promise<void> {
    if (this.busy || this.opening) return
    if (text.trim() === '') return
    this.setBusy(true)
    try {
      const session = await this.ensureSession()
      const { workspace } = this.host.engine()
      const extras = await promptExtras(this.chips, workspace, surroundingLines)
      this.turnChips = [...this.chips]
      this.sentBuffers = new Map(Object.entries(extras.buffers ?? {}))
      this.post({ type: 'user', text, chips: this.chips.map((c) => c.label) })
      this.meter.start()
      session.prompt(text, extras)
      this.host.log(`chat: prompt to ${this.agent} (${text.length} chars, ${this.chips.length} chip(s))`)
    } catch (e) {
      this.setBusy(false)
      this.showError(e instanceof Error ? e.message : String(e))
    }
  }

  /** The turn's figures, for the log and the view. */
  private stopMeasuring(): string {
    const measured = this.meter.stop()
    if (!measured) return ''
    this.post({ type: 'hostStats', ...measured.stats })
    return measured.line
  }

  private showError(message: string): void {
    this.post({ type: 'error', message })
    this.host.fail(message, false)
  }

  private onBatch(batch: SessionEvent[], t: number): void {
    for (const line of eventLogLines(batch)) this.host.log(line)
    const { workspace } = this.host.engine()
    const reviewable = new Set(batch.filter((e) => e.type === 'permission' && this.tools.remember(e)).map((e) => String(e.id)))
    for (const m of viewMessages(batch, workspace, t)) {
      if (m.type === 'permission') m.reviewable = reviewable.has(m.id as string)
      if (m.type === 'text') {
        this.meter.text(m.chunks as number, m.text as string)
      }
      if (m.type === 'permission' && this.autoAnswer(m)) continue
      if (m.type === 'write' && typeof m.tag === 'string') this.lastTag = m.tag
      if (m.type === 'commands') this.controls.commands = m
      if (m.type === 'usage' || (m.type === 'turnEnd' && m.usage)) this.controls.usage = { type: 'usage', text: m.type === 'usage' ? m.text : m.usage }
      this.post(m)
      if (m.type === 'turnEnd' || m.type === 'error') this.turnEnded(batch.find((e) => e.type === 'turn_end'), m)
    }
    this.tools.onEvents(batch)
    void followAgent(batch, workspace, (l) => this.host.log(l))
    for (const e of batch) {
      if (e.type !== 'write' || typeof e.path !== 'string') continue
      const seq = typeof e.seq === 'number' ? e.seq : undefined
      const file = e.path
      // Written through radium (no `by`): the agent was served the unsaved
      // text sent with the prompt as the file, so that text is the base.
      const abs = path.resolve(workspace ?? '', file)
      const base = e.by === undefined ? this.sentBuffers.get(abs) ?? undefined : undefined
      this.sentBuffers.delete(abs) // a later write is based on this one
      this.merging = this.merging.then(() => mergeDirty(this.host.engine().engine, workspace, file, seq, this.host.log, base)).then(
        () => undefined,
        (err: unknown) => this.host.log(`merge ${file}: ${err instanceof Error ? err.message : String(err)}`),
      )
    }
  }

  private autoAnswer(m: ViewMessage): boolean {
    const options = m.options as Perm['options']
    const kind = typeof m.kind === 'string' ? m.kind : 'other'
    const auto = vscode.workspace.getConfiguration('radium').get<string[]>('permissions.autoAllow', [])
    this.permissions.set(m.id as string, { options, kind })
    if (!this.alwaysAllowed.has(kind) && !auto.includes(kind)) return false
    this.answer(m.id as string, 'once')
    this.post({ type: 'notice', message: `allowed ${m.title} (${kind} calls are allowed ${this.alwaysAllowed.has(kind) ? 'for this chat' : 'by radium.permissions.autoAllow'})` })
    return true
  }

  answer(id: string, choice: 'once' | 'always' | 'reject', hunks?: Record<string, number[]>): void {
    const perm = this.permissions.get(id)
    if (choice === 'always' && perm?.kind) this.alwaysAllowed.add(perm.kind)
    try {
      this.session?.answer(id, { ...optionFor(perm?.options ?? [], choice), ...(hunks ? { hunks } : {}) })
      this.permissions.delete(id)
      this.host.log(`chat: permission ${id}: ${choice}`)
    } catch (e) {
      this.showError(e instanceof Error ? e.message : String(e))
    }
  }

  private turnEnded(end: SessionEvent | undefined, m: ViewMessage): void {
    this.setBusy(false)
    this.host.log(`chat: turn ${m.type === 'error' ? `failed: ${m.message}` : `ended (${end?.stop_reason})`}: ${this.stopMeasuring()}`)
    if (typeof end?.tag === 'string') this.lastTag = end.tag
    const blocks = (end?.code_blocks ?? []) as Block[]
    if (m.type === 'error' || end?.stop_reason !== 'end_turn' || blocks.length === 0) return
    void this.propose(blocks)
  }

  /** Makes a review of the blocks' changes and shows it in the view. */
  private async propose(blocks: Block[]): Promise<void> {
    try {
      const { workspace } = this.host.engine()
      if (!workspace) return
      const chip = this.turnChips.find((c) => c.kind === 'selection')
      let selection: SelectionTarget | undefined
      if (chip && blocks.some((b) => !b.file_path && !b.incomplete)) {
        if (chip.changed) {
          this.showError(`the selected text (${chip.label}) changed while the agent ran; its code block was not applied`)
        } else if (chip.span) {
          const text = await currentText(chip.uri.fsPath)
          if (text !== null) selection = { path: chip.uri.fsPath, text, start: chip.span.start, end: chip.span.end }
        }
      }
      const texts = new Map<string, string | null>()
      for (const b of blocks) {
        if (b.file_path) {
          const abs = path.resolve(workspace, b.file_path)
          texts.set(abs, await currentText(abs))
        }
      }
      const { files, skipped } = proposals(blocks, workspace, (p) => texts.get(p) ?? null, selection)
      this.openReview(files, skipped.map((s) => `not proposed: ${s}`))
    } catch (e) {
      this.showError(e instanceof Error ? e.message : String(e))
    }
  }

  /**
   * Shows the notices, then a review of the files (none: no review), the
   * same for an agent's answer and for one from elsewhere (the clipboard);
   * answers the review's id (0: none).
   */
  openReview(files: FileProposal[], notices: string[] = []): number {
    for (const message of notices) this.post({ type: 'notice', message })
    if (files.length === 0) return 0
    const review: Review = { id: ++this.reviewSeq, files, decisions: files.map((f) => f.hunks.map(() => undefined)), done: false }
    this.reviews.set(review.id, review)
    this.post(reviewMessage(review))
    return review.id
  }

  /** Opens the per-hunk review of a permission request's tool-call diff in the view. */
  reviewToolCall(permission: string): void {
    const review = this.tools.review(permission, () => ++this.reviewSeq)
    if (!review) return this.post({ type: 'notice', message: 'this tool call has no diff to review' })
    this.reviews.set(review.id, review)
    this.post(this.tools.message(review))
  }

  /** A review's buttons: a hunk decided, accept/reject all, apply, open a file's diff. */
  async onReview(msg: { id: number; action: string; file?: number; hunk?: number }): Promise<void> {
    const review = this.reviews.get(msg.id)
    if (!review || review.done) return
    const { action, file, hunk } = msg
    if (action === 'open' && file !== undefined && review.files[file]) {
      await showDiff(this.docs, review, file)
      return
    }
    if ((action === 'accept' || action === 'reject') && file !== undefined && hunk !== undefined && review.decisions[file]) {
      review.decisions[file][hunk] = action === 'accept'
    } else if (action === 'acceptAll' || action === 'rejectAll') {
      review.decisions = review.files.map((f) => f.hunks.map(() => action === 'acceptAll'))
    } else if (action === 'apply' && this.tools.owns(review)) {
      await this.tools.apply(review)
      return
    } else if (action === 'apply') {
      try {
        const save = vscode.workspace.getConfiguration('radium').get<boolean>('review.saveAfterApply', true)
        const applied = await applyReview(review, save)
        review.done = true
        await closeDiffs(review)
        this.docs.forget(review.id)
        let summary = applied.hunks === 0 ? 'nothing applied (every hunk rejected)' : `applied ${applied.hunks} of ${applied.of} hunk(s) to ${applied.files.join(', ')}`
        const recorded = applied.hunks === 0 ? undefined : await this.record(review.id, applied, save)
        if (recorded?.note) summary += recorded.note
        this.host.log(`review ${review.id}: ${summary}`)
        this.post({ ...reviewMessage(review), summary })
        if (recorded?.tag) this.post({ type: 'write', path: recorded.files.join(', '), tag: recorded.tag, by: 'review' })
      } catch (e) {
        this.showError(e instanceof Error ? e.message : String(e))
      }
      return
    }
    this.post(this.tools.message(review))
  }

  /**
   * Records an applied review as one step of this chat's conversation (the
   * `record` request), so radium.undo takes it back in every file at once.
   * Only a saved apply can be: with radium.review.saveAfterApply off, or a
   * file that could not be saved, nothing is recorded (Ctrl+Z in each editor
   * still takes it back). Never throws: a refusal is a notification.
   */
  async record(id: number, applied: Applied, save: boolean): Promise<{ note: string; tag?: string; files: string[] }> {
    const ctrlZ = 'Ctrl+Z in each editor takes it back'
    if (!save) {
      this.host.log(`review ${id}: not saved (radium.review.saveAfterApply is off), so not recorded as a radium step`)
      return { note: ` (not saved: ${ctrlZ}; radium.undo does not)`, files: [] }
    }
    if (applied.savedDirty.length > 0) {
      const n = applied.savedDirty.length
      void vscode.window.showInformationMessage(
        `Radium: saved ${nameList(applied.savedDirty)}, which had unsaved changes, with the review, so that radium.undo can take the review back (it brings back the text ${n === 1 ? 'it' : 'they'} had before Apply, your changes included)`,
      )
    }
    const unsaved = applied.changed.filter((f) => !f.onDisk).map((f) => f.label)
    if (unsaved.length > 0) {
      this.showError(`${nameList(unsaved)} could not be saved, so the applied review was not recorded: radium.undo will not take it back (${ctrlZ})`)
      return { note: ' (not recorded)', files: [] }
    }
    try {
      const { engine, workspace } = this.host.engine()
      // Paths relative to the engine's workspace (its messages then name them so).
      const files = applied.changed.map((f) => {
        const shown = workspace ? path.relative(workspace, f.path) : f.path
        return { ...f, path: shown && !shown.startsWith('..') && !path.isAbsolute(shown) ? shown : f.path }
      })
      const step = await recordStep(engine, files, this.lastTag)
      for (const w of step.warnings) this.host.log(`warning: ${w}`)
      this.host.log(`review ${id}: recorded as step [seq:${step.seq}] of ${step.files.length} file(s) (${step.files.join(', ')}), tag ${step.tag}`)
      if (step.files.length === 0) return { note: '', files: [] }
      if (step.tag) this.lastTag = step.tag
      return { note: ' · radium.undo takes it back', tag: step.tag, files: step.files }
    } catch (e) {
      this.showError(`the applied review was not recorded, so radium.undo will not take it back (${ctrlZ}): ${e instanceof Error ? e.message : String(e)}`)
      return { note: ' (not recorded)', files: [] }
    }
  }

  /** radium's undo / redo: with a tag, that conversation's; without, this chat's (its last tag). */
  async undoRedo(command: 'undo' | 'redo', tag?: string): Promise<void> {
    try {
      const next = await undoRedo(this.host, command, tag ?? this.lastTag)
      if (next) this.lastTag = next
    } catch (e) {
      this.host.fail(`${command} failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`)
    }
  }

  /** The files back to how they were at `tag` (a prompt's tag of before it), after a modal listing them. */
  async restore(tag: string): Promise<void> {
    try {
      const next = await restoreTo(this.host, tag)
      if (next) this.lastTag = next
    } catch (e) {
      this.host.fail(`restore failed: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`)
    }
  }

  /** The mode or model picker: `option` (`mode`, `model`) set to `value` on the agent (starting it when needed). */
  async setOption(option: string, value: string): Promise<void> {
    try {
      const session = await this.ensureSession()
      const controls = await session.setOption(option, value)
      this.post({ type: 'options', ...controls })
      this.host.log(`chat: ${option} ${value}`)
    } catch (e) {
      this.showError(e instanceof Error ? e.message : String(e))
      // The picker shows the agent's value again.
      if (this.session) this.post({ type: 'options', ...this.session.controls })
    }
  }

  stop(): void {
    if (!this.busy || !this.session) return
    try {
      this.session.cancel()
      this.host.log('chat: cancel requested')
    } catch (e) {
      this.showError(e instanceof Error ? e.message : String(e))
    }
  }

  private setBusy(busy: boolean): void {
    this.busy = busy
    this.post({ type: 'busy', busy })
    if (busy) {
      this.status.text = `$(loading~spin) Radium: ${this.agent} is answering…`
      this.status.tooltip = 'Radium: stop the turn'
      this.status.show()
    } else {
      this.status.hide()
    }
  }

  closeSession(): void {
    // What the session sent before it closes is shown before what follows.
    this.batcher.flush()
    // The pickers go with the agent's session.
    if (this.session) this.post({ type: 'options', options: [], mode: null, model: null })
    this.session?.close()
    this.session = undefined
    if (this.busy) this.setBusy(false)
    this.stopMeasuring()
  }

  /**
   * Reopens past conversation `id` with `agent`: the view shows its `turns`
   * (of `history-read`) and the next prompt's session continues it.
   */
  reopen(id: string, agent: string, turns: Array<Record<string, unknown>>): void {
    this.reset()
    this.agent = agent
    this.resumeId = id
    for (const m of transcript(id, agent, turns)) this.post(m)
    this.host.log(`chat: reopened conversation ${id} with ${agent}`)
  }

  /** The agent's commands and usage as last shown (for a view that reloaded). */
  controlMessages(): ViewMessage[] {
    return [this.controls.commands, this.controls.usage].filter((m): m is ViewMessage => m !== undefined)
  }

  /** Starts the agent's session ahead of the first message (the `/` menu needs its commands). */
  prepare(): void {
    if (this.opening || (this.session && !this.session.isClosed)) return
    this.ensureSession().catch(() => undefined)
  }

  /** A new chat: the session closed, the view and the chips cleared. */
  reset(): void {
    this.closeSession()
    this.controls = {}
    this.lastTag = undefined
    this.resumeId = undefined
    for (const r of this.reviews.values()) void closeDiffs(r)
    this.reviews.clear()
    this.tools.clear()
    this.permissions.clear()
    this.alwaysAllowed.clear()
    this.chips = []
    this.turnChips = []
    this.post({ type: 'clear' })
    this.post(this.chipsMessage())
  }

  dispose(): void {
    this.closeSession()
    this.status.dispose()
  }
}
