// An agent's tool-call diff reviewed per hunk: the files of the call as a
// proposal (with the hunks the engine numbered, so the door's answer names
// them as the engine does), and what the decisions mean: no hunk accepted
// rejects the call; otherwise the call is allowed with the hunks kept
// (`session-permission`'s `hunks`), and the engine takes the others back
// from the agent's write. No dependency on VS Code, so it can be tested
// with plain Node.

import * as path from 'path'

import { applyHunks, hunks, type Hunk } from './diff'
import { resolveInside, type FileProposal } from './proposals'

/** One diff of a tool call, as the engine's events carry it. */
export interface ToolDiff {
  path?: unknown
  old_text?: unknown
  new_text?: unknown
  /** The engine's hunks (`permission` events). */
  hunks?: unknown
}

/** One hunk as the engine numbers it. */
interface EngineHunk {
  old_start?: unknown
  new_start?: unknown
  old_lines?: unknown
  new_lines?: unknown
}

const lines = (v: unknown): string[] => (Array.isArray(v) ? v.filter((l): l is string => typeof l === 'string') : [])

/** The engine's hunks of a diff in the review's shape (undefined: it sent none). */
export function engineHunks(list: unknown): Hunk[] | undefined {
  if (!Array.isArray(list)) return undefined
  return (list as EngineHunk[]).map((h) => ({
    oldStart: Number(h?.old_start ?? 0),
    oldLines: lines(h?.old_lines),
    newStart: Number(h?.new_start ?? 0),
    newLines: lines(h?.new_lines),
  }))
}

/**
 * The files a tool call's diffs change, as a proposal (`oldText` null: the
 * call creates the file). Paths outside the workspace, or inside `.git` /
 * `.radium`, and diffs that change nothing are left out (`skipped` says why).
 */
export function toolCallProposals(diffs: unknown, workspace: string): { files: FileProposal[]; skipped: string[]; sources: string[] } {
  const files: FileProposal[] = []
  const skipped: string[] = []
  // Each file's path as the engine sent it (the key of the answer's `hunks`).
  const sources: string[] = []
  for (const d of (Array.isArray(diffs) ? diffs : []) as ToolDiff[]) {
    const p = typeof d?.path === 'string' ? d.path : ''
    if (!p) continue
    const where = resolveInside(workspace, p)
    if (typeof where !== 'string') {
      skipped.push(where.error)
      continue
    }
    const oldText = typeof d.old_text === 'string' ? d.old_text : null
    const newText = typeof d.new_text === 'string' ? d.new_text : ''
    if (oldText === newText) continue
    const label = path.relative(workspace, where) || where
    if (files.some((f) => f.path === where)) continue
    files.push({ path: where, label, oldText, newText, hunks: engineHunks(d.hunks) ?? hunks(oldText ?? '', newText) })
    sources.push(p)
  }
  return { files, skipped, sources }
}

/**
 * The answer's `hunks`: for each file, by its path as the engine sent it,
 * the indices of the hunks accepted (undecided ones count as rejected); a
 * created file goes whole with the call (all its hunks).
 */
export function keptHunks(files: FileProposal[], sources: string[], decisions: Array<Array<boolean | undefined>>): Record<string, number[]> {
  const kept: Record<string, number[]> = {}
  files.forEach((f, i) => {
    const all = f.oldText === null
    kept[sources[i] ?? f.path] = f.hunks.map((_, k) => k).filter((k) => all || decisions[i]?.[k] === true)
  })
  return kept
}

/** A file whose rejected hunks are taken back once the agent wrote it. */
export interface TakeBack {
  /** Absolute path. */
  path: string
  label: string
  /** What the agent writes (the call's new text). */
  written: string
  /** The text to keep: the old text with only the accepted hunks. */
  keep: string
  /** How many hunks are taken back. */
  rejected: number
}

/** What a tool call's decided hunks mean. */
export interface ToolDecision {
  /** `reject` when no hunk is accepted, else `allow`. */
  answer: 'allow' | 'reject'
  accepted: number
  of: number
  takeBack: TakeBack[]
  /** Files the call creates whose hunk was rejected: a created file is allowed or rejected with the whole call. */
  created: string[]
}

/** The decision of a tool call's review (undecided hunks count as rejected, as in any review). */
export function decideToolCall(files: FileProposal[], decisions: Array<Array<boolean | undefined>>): ToolDecision {
  let accepted = 0
  let of = 0
  const takeBack: TakeBack[] = []
  const created: string[] = []
  files.forEach((f, i) => {
    const chosen = f.hunks.map((_, k) => decisions[i]?.[k] === true)
    const n = chosen.filter(Boolean).length
    accepted += n
    of += f.hunks.length
    if (n === f.hunks.length) return
    if (f.oldText === null) return void created.push(f.label)
    takeBack.push({ path: f.path, label: f.label, written: f.newText, keep: applyHunks(f.oldText, f.hunks, chosen), rejected: f.hunks.length - n })
  })
  if (accepted === 0) return { answer: 'reject', accepted, of, takeBack: [], created: [] }
  return { answer: 'allow', accepted, of, takeBack, created }
}
