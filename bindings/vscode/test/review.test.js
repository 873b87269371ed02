'use strict'
// The review's pure parts: line hunks and applying some of them, a selection
// followed through document changes, the files an answer's blocks propose,
// and the chat view's Markdown renderer (also while an answer streams).

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { hunks, applyHunks, hunkLines, linesOf } = require('../out/diff.js')
const { track } = require('../out/tracking.js')
const { proposals, resolveInside } = require('../out/proposals.js')
const { viewMessages, optionFor } = require('../out/chat/events.js')
const md = require('../media/markdown.js')

test('hunks: separate changes, each accepted or rejected on its own', () => {
  const old = 'a\nb\nc\nd\ne\n'
  const neu = 'a\nB\nc\nd\nE\nf\n'
  const list = hunks(old, neu)
  assert.equal(list.length, 2)
  assert.deepEqual(hunkLines(list[0]), ['@@ -2,1 +2,1 @@', '-b', '+B'])
  assert.deepEqual(hunkLines(list[1]), ['@@ -5,1 +5,2 @@', '-e', '+E', '+f'])
  assert.equal(applyHunks(old, list, [true, true]), neu)
  assert.equal(applyHunks(old, list, [false, false]), old)
  assert.equal(applyHunks(old, list, [true, false]), 'a\nB\nc\nd\ne\n')
  assert.equal(applyHunks(old, list, [false, true]), 'a\nb\nc\nd\nE\nf\n')
  assert.deepEqual(hunks(old, old), [])
  // A new file: one hunk of added lines; CRLF and a missing last break kept.
  assert.deepEqual(hunks('', 'x\ny').map(hunkLines), [['@@ -1,0 +1,2 @@', '+x', '+y']])
  assert.equal(applyHunks('p\r\nq\r\n', hunks('p\r\nq\r\n', 'p\r\nQ\r\n'), [true]), 'p\r\nQ\r\n')
  assert.deepEqual(linesOf('a\r\nb'), ['a\r\n', 'b'])
})

test('a tracked selection moves with edits around it and is marked changed by an edit inside it', () => {
  const span = { start: 10, end: 20 }
  assert.deepEqual(track(span, [{ rangeOffset: 0, rangeLength: 0, text: 'xyz' }]), { start: 13, end: 23 })
  assert.deepEqual(track(span, [{ rangeOffset: 2, rangeLength: 5, text: '' }]), { start: 5, end: 15 })
  assert.deepEqual(track(span, [{ rangeOffset: 25, rangeLength: 3, text: 'long text' }]), span)
  assert.deepEqual(track(span, [{ rangeOffset: 10, rangeLength: 0, text: 'ab' }]), { start: 12, end: 22 }, 'typed just before')
  assert.deepEqual(track(span, [{ rangeOffset: 20, rangeLength: 0, text: 'ab' }]), span, 'typed just after')
  // Several changes of one event, all against the text before it.
  assert.deepEqual(track(span, [{ rangeOffset: 0, rangeLength: 1, text: '' }, { rangeOffset: 30, rangeLength: 0, text: 'z' }, { rangeOffset: 5, rangeLength: 0, text: 'qq' }]), { start: 11, end: 21 })
  assert.equal(track(span, [{ rangeOffset: 15, rangeLength: 1, text: 'X' }]), undefined)
  assert.equal(track(span, [{ rangeOffset: 5, rangeLength: 10, text: '' }]), undefined, 'a deletion across its start')
  assert.equal(track(span, [{ rangeOffset: 12, rangeLength: 0, text: 'in' }]), undefined)
})

test('proposals: a block naming a file replaces it, a new path is a new file, a block without a path replaces the selection', () => {
  const ws = '/ws'
  const disk = { '/ws/src/a.ts': 'one\ntwo\nthree\n', '/ws/main.ts': 'head\nold body\ntail\n' }
  const read = (p) => disk[p] ?? null
  const selection = { path: '/ws/main.ts', text: disk['/ws/main.ts'], start: 5, end: 14 }
  const { files, skipped } = proposals(
    [
      { content: 'ONE\ntwo\nthree', file_path: 'src/a.ts', index: 0 },
      { content: 'fresh\n', file_path: 'src/new.ts', index: 1 },
      { content: 'new body', index: 2 },
      { content: 'x', file_path: '../etc/passwd', index: 3 },
      { content: 'x', file_path: '.git/config', index: 4 },
      { content: 'half', file_path: 'src/b.ts', index: 5, incomplete: true },
      { content: 'one\ntwo\nthree\n', file_path: 'src/a.ts', index: 6 },
    ].slice(0, 6),
    ws,
    read,
    selection,
  )
  assert.deepEqual(files.map((f) => [f.label, f.oldText === null, f.newText]), [
    ['src/a.ts', false, 'ONE\ntwo\nthree\n'],
    ['src/new.ts', true, 'fresh\n'],
    ['main.ts', false, 'head\nnew body\ntail\n'],
  ])
  assert.deepEqual(skipped, ['../etc/passwd is outside the workspace', '.git/config is inside .git', 'block #6 is not closed'])
  assert.deepEqual(resolveInside(ws, 'src/../src/a.ts'), '/ws/src/a.ts')
  // A block that changes nothing proposes nothing.
  assert.deepEqual(proposals([{ content: 'one\ntwo\nthree\n', file_path: 'src/a.ts' }], ws, read).files, [])
})

test('view messages: a batch\'s text chunks become one message; tool calls carry unified diffs; permission options', () => {
  const batch = [
    { type: 'text', text: 'Hel' },
    { type: 'text', text: 'lo' },
    { type: 'tool_call', id: 'c1', title: 'Write a', kind: 'edit', status: 'pending', diffs: [{ path: '/ws/a', old_text: 'x\n', new_text: 'y\n' }] },
    { type: 'permission', id: 'p1', tool_call: { title: 'Write a', kind: 'edit', diffs: [{ path: '/ws/a', old_text: null, new_text: 'y\n' }] }, options: [{ id: 'ok', kind: 'allow_once' }, { id: 'no', kind: 'reject_once' }] },
    { type: 'text', text: '!' },
    { type: 'turn_end', stop_reason: 'end_turn', tag: 't1' },
  ]
  const out = viewMessages(batch, '/ws', 5)
  assert.deepEqual(out.map((m) => m.type), ['text', 'tool', 'permission', 'text', 'turnEnd'])
  assert.deepEqual(out[0], { type: 'text', text: 'Hello', chunks: 2, t: 5 })
  assert.deepEqual(out[1].diffs, [{ path: 'a', lines: ['@@ -1,1 +1,1 @@', '-x', '+y'] }])
  assert.deepEqual(out[2].diffs, [{ path: 'a', lines: ['@@ -1,0 +1,1 @@', '+y'] }])
  assert.deepEqual(optionFor(out[2].options, 'once'), { option: 'ok' })
  assert.deepEqual(optionFor(out[2].options, 'always'), { option: 'ok' }, 'no allow_always option: allow once')
  assert.deepEqual(optionFor(out[2].options, 'reject'), { option: 'no' })
  assert.deepEqual(optionFor([], 'reject'), { answer: 'reject' })
  // Ids that are the other kind's word: the button picks by kind, and sends the id as an option, never as the word.
  const crafted = [{ id: 'allow', kind: 'reject_once' }, { id: 'reject', kind: 'allow_once' }]
  assert.deepEqual(optionFor(crafted, 'reject'), { option: 'allow' })
  assert.deepEqual(optionFor(crafted, 'once'), { option: 'reject' })
})

test('markdown: escaped HTML, code highlighted with its path, a fence still open while streaming', () => {
  const html = md.render('# T\n<img src=x onerror=alert(1)> **b** `c<d>` [l](https://x.y) [j](javascript:alert(1))\n\n```ts:src/a.ts\nconst s = "q" // n\n```\n\n```py\nopen')
  assert.ok(!html.includes('<img'), html)
  assert.ok(html.includes('&lt;img'), html)
  assert.ok(html.includes('<strong>b</strong>') && html.includes('<code>c&lt;d&gt;</code>'), html)
  assert.ok(html.includes('<a href="https://x.y" data-href="https://x.y">l</a>'), html)
  assert.ok(!html.includes('href="javascript'), html)
  assert.ok(html.includes('data-path="src/a.ts"') && html.includes('<span class="tok-keyword">const</span>'), html)
  assert.ok(html.includes('<span class="tok-string">&quot;q&quot;</span>') && html.includes('<span class="tok-comment">// n</span>'), html)
  assert.ok(html.includes('data-index="1" data-open="1"'), html)
})

test('record: the request of an applied review (with a tag: followed, never a rewind); undo / redo answers of a step said with every file', () => {
  const { recordRequest, stepText, stepFiles, nameList, engineMessage } = require('../out/record.js')
  const files = [{ path: 'src/a.ts', oldText: 'a\n', newText: 'A\n' }, { path: 'src/new.ts', oldText: null, newText: 'n\n' }]
  assert.deepEqual(recordRequest(files, 'ab12-cdefghij'), {
    command: 'record',
    args: { files: [{ path: 'src/a.ts', old_text: 'a\n', new_text: 'A\n' }, { path: 'src/new.ts', old_text: null, new_text: 'n\n' }] },
    tag: 'ab12-cdefghij',
    follow: true,
  })
  assert.deepEqual(recordRequest(files, undefined).tag, undefined)
  assert.equal(recordRequest(files, undefined).follow, undefined)
  assert.equal(stepText('undo', { seq: 3, command: 'record', file: 'src/b.ts', files: ['src/b.ts', 'src/a.ts'] }), 'undid record of 2 files (src/a.ts, src/b.ts)')
  assert.equal(stepText('redo', { seq: 2, command: 'create', file: 'x.txt' }), 'redid create (x.txt)')
  assert.equal(stepText('undo', null), 'nothing to undo')
  assert.deepEqual(stepFiles({ file: 'x' }), ['x'])
  assert.equal(nameList(['a', 'b', 'c', 'd', 'e', 'f']), 'a, b, c, d and 2 more')
  assert.equal(engineMessage({ ok: false, error: 'first line\n    at stack', code: 'edit' }, 'x'), 'first line [edit]')
})

test('markdown while streaming, the view\'s way: the text kept from the last finished block, the scan going on where it stopped, the same answer', () => {
  const samples = [
    '# Title\n\nA *para*\nwith two lines.\n\n- one\n- two\ncontinued\n\n1. first\n2) second\n\n> quoted\n\n---\n\nthe end',
    'Here:\n\n```ts:src/a.ts\nconst a = 1\n\n// a blank line inside the fence\n```\n\nand\n\n~~~py\nx = 1\n\n~~~\n\n```sh\nstill open\n\n',
    'CRLF\r\n\r\n```js\r\nlet x\r\n\r\n```\r\n\r\n**bold\r\nacross** lines\r\n\r\nlast',
    '````md\n```inner\n```\n````\n\nafter\n\n```\nopen\n\nstill\n',
  ]
  const flat = (html) => html.replace(/>\n</g, '><')
  for (const text of samples) {
    for (const step of [1, 2, 3, 7, 16]) {
      let rest = ''
      let blocks = 0
      let finished = ''
      const scan = {}
      for (let at = 0; at < text.length; at += step) {
        rest += text.slice(at, at + step)
        const cut = md.settled(rest, 0, scan)
        if (cut.end > 0) {
          finished += md.render(rest.slice(0, cut.end), blocks)
          rest = rest.slice(cut.end)
          md.rebase(scan, cut.end)
          blocks += cut.blocks
        }
        const now = text.slice(0, at + step)
        assert.equal(flat(finished + md.render(rest, blocks)), flat(md.render(now)), `step ${step}, ${JSON.stringify(now)}`)
      }
      assert.ok(finished !== '', 'some blocks were finished')
    }
  }
  // An unfinished fence is read once: each call scans only what came since.
  const scan = {}
  let text = '```\n'
  for (let i = 0; i < 1000; i++) {
    text += `line ${i}\n\n`
    assert.deepEqual(md.settled(text, 0, scan), { end: 0, blocks: 0 })
    assert.equal(scan.start, text.length, 'the scan stopped at the text\'s end')
  }
})

test('markdown while streaming: the finished blocks rendered once and the rest again are the whole answer rendered; plain text appended as text', () => {
  const samples = [
    '# Title\n\nA *para*\nwith two lines.\n\n- one\n- two\ncontinued\n\n1. first\n2) second\n\n> quoted\n\n---\n\nthe end',
    'Here:\n\n```ts:src/a.ts\nconst a = 1\n\n// a blank line inside the fence\n```\n\nand\n\n~~~py\nx = 1\n\n~~~\n\n```sh\nstill open\n\n',
    'CRLF\r\n\r\n```js\r\nlet x\r\n\r\n```\r\n\r\n**bold\r\nacross** lines\r\n\r\nlast',
    'chunk 0 chunk 1 chunk 2 `code` and [a link](https://x.y) _em_\n\n\n\n````md\n```inner\n```\n````\n\nafter',
  ]
  const flat = (html) => html.replace(/>\n</g, '><')
  for (const text of samples) {
    for (const step of [1, 2, 3, 7, 16]) {
      let done = 0
      let blocks = 0
      let finished = ''
      for (let len = 0; len <= text.length; len = Math.min(text.length, len + step)) {
        const now = text.slice(0, len)
        const cut = md.settled(now, done)
        assert.ok(cut.end >= done)
        if (cut.end > done) {
          finished += md.render(now.slice(done, cut.end), blocks)
          done = cut.end
          blocks += cut.blocks
        }
        assert.equal(flat(finished + md.render(now.slice(done), blocks)), flat(md.render(now)), `step ${step}, ${JSON.stringify(now)}`)
        if (len === text.length) break
      }
      assert.ok(done > 0, 'some blocks were finished')
    }
  }
  assert.deepEqual(md.settled('a\n\n```\nx\n\ny\n```\n\nc'), { end: 17, blocks: 1 })
  assert.deepEqual(md.settled('a\n\r', 0), { end: 0, blocks: 0 }, 'a lone \\r at the end may be half of \\r\\n')
  // Plain lines: appending plain text appends text.
  for (const [line, more] of [['chunk 0 ', 'chunk 1 <b>&'], ['yyyy', 'yyyy'], ['  You said: hi', ' there (really)']]) {
    assert.ok(md.plainLine(line) && md.plainMore(more), line)
    assert.equal(md.render(line + more), `<p>${md.escape(line + more)}</p>`)
  }
  for (const line of ['# h', '- item', '1. item', '> q', '```', '~~~', '--', '*a*', 'a_b', '`c`', '[l](https://x)', 'two\nlines', '  ']) assert.ok(!md.plainLine(line), line)
  for (const more of ['\nnext', '*', '_', '`', '[']) assert.ok(!md.plainMore(more), more)
})
