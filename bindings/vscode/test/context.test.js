'use strict'
// The pure helpers of the editor commands (out/context.js), with plain Node.

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { editorContext, changedRegion } = require('../out/context.js')

const text = 'one\ntwo\nthree\nfour\nfive\nsix\n'

function ctx(start, end, extra = {}) {
  return editorContext({
    text,
    languageId: 'plaintext',
    fsPath: '/ws/a.txt',
    workspace: '/ws',
    start: { line: start[0], character: start[1] },
    end: { line: end[0], character: end[1] },
    surroundingLines: 2,
    fallbackDir: '/tmp',
    ...extra,
  })
}

test('a selection: widened to whole lines, 1-based range, and the lines around it', () => {
  assert.deepEqual(ctx([2, 1], [3, 2]), {
    file_path: '/ws/a.txt',
    language: 'plaintext',
    selection: 'three\nfour',
    surrounding_lines: 'one\ntwo\n---\nfive\nsix',
    workspace: '/ws',
    selection_range: { start_line: 3, end_line: 4 },
  })
})

test('an empty selection sends its whole line', () => {
  const c = ctx([1, 2], [1, 2])
  assert.equal(c.selection, 'two')
  assert.deepEqual(c.selection_range, { start_line: 2, end_line: 2 })
  assert.equal(c.surrounding_lines, 'one\n---\nthree\nfour')
})

test('whole lines selected (ending at column 0) stop on the line before', () => {
  const c = ctx([1, 0], [3, 0])
  assert.equal(c.selection, 'two\nthree')
  assert.deepEqual(c.selection_range, { start_line: 2, end_line: 3 })
  assert.equal(c.surrounding_lines, 'one\n---\nfour\nfive')
})

test('the edges of the document, CRLF, and no surrounding lines', () => {
  const c = ctx([0, 0], [0, 3], { text: 'a\r\nb\r\n', surroundingLines: 0 })
  assert.equal(c.selection, 'a')
  assert.equal(c.surrounding_lines, '\n---\n')
  const last = ctx([6, 0], [6, 0], { surroundingLines: 5 })
  assert.equal(last.selection, '')
  assert.equal(last.surrounding_lines, 'two\nthree\nfour\nfive\nsix\n---\n')
})

test('an untitled document is placed in the workspace, or in the fallback folder', () => {
  assert.equal(ctx([0, 0], [0, 0], { fsPath: undefined }).file_path, '/ws/untitled')
  const loose = ctx([0, 0], [0, 0], { fsPath: undefined, workspace: undefined })
  assert.equal(loose.file_path, '/tmp/untitled')
  assert.equal('workspace' in loose, false)
})

test('changedRegion: the smallest region, never inside CRLF or a surrogate pair', () => {
  const apply = (old, r) => old.slice(0, r.start) + r.text + old.slice(r.end)
  const cases = [
    ['a\nb\nc\n', 'a\nX\nb\nc\n'],
    ['a\nb\nc\n', 'a\nb\nc\n'],
    ['', 'new\n'],
    ['old\n', ''],
    ['a\r\nb\r\n', 'a\r\nx\r\nb\r\n'],
    ['a\r\nb', 'a\nb'],
    ['x\u{1F600}y', 'x\u{1F601}y'],
  ]
  for (const [old, neu] of cases) {
    const r = changedRegion(old, neu)
    assert.equal(apply(old, r), neu, JSON.stringify([old, neu]))
    for (const t of [old]) {
      for (const i of [r.start, r.end]) {
        assert.ok(!(t[i - 1] === '\r' && t[i] === '\n'), `cuts CRLF at ${i}`)
        const hi = t.charCodeAt(i - 1)
        assert.ok(!(hi >= 0xd800 && hi <= 0xdbff), `cuts a surrogate pair at ${i}`)
      }
    }
  }
  assert.deepEqual(changedRegion('a\nb\nc\n', 'a\nX\nb\nc\n'), { start: 2, end: 2, text: 'X\n' })
  assert.deepEqual(changedRegion('same', 'same'), { start: 4, end: 4, text: '' })
})
