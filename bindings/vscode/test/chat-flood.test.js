'use strict'
// A flood of events does not flood the extension host or the view: the
// batches of a turn of the event loop are handled together and at most once
// a frame, a tool call's updates become one message with only its last
// output folded, the log says a call's updates once, a long text message
// goes to the view a piece a frame, in order; and a long answer is
// cut into pieces near a size (the view's paragraphs) with nothing lost. Then
// the real engine and the example ACP agent's `toolflood`: every line
// reaches the view, in fewer messages than the agent sent updates.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')

const { setup, reset, commands, openView, channel } = require('./stand-in.js')
const { EventBatcher, FRAME_MS } = require('../out/chat/batcher.js')
const { viewMessages, eventLogLines } = require('../out/chat/events.js')
const { Outbox, textPieces, FRAME_TEXT } = require('../out/chat/outbox.js')
const md = require('../media/markdown.js')

setup()
after(() => commands['radium.newChat']?.())

const tick = () => new Promise((r) => setImmediate(r))

test('batcher: the batches of one turn of the loop are handled once, in order, with the time the first came', async () => {
  const passes = []
  const b = new EventBatcher((events, t) => passes.push({ events, t }))
  const t0 = Date.now()
  for (let i = 0; i < 1000; i++) b.push([{ type: 'text', text: String(i) }])
  b.push([])
  assert.equal(passes.length, 0, 'nothing handled before the loop turns')
  assert.equal(b.waiting, 1000)
  await tick()
  await tick()
  assert.equal(passes.length, 1)
  assert.deepEqual(passes[0].events.map((e) => e.text), Array.from({ length: 1000 }, (_, i) => String(i)))
  assert.ok(passes[0].t >= t0 && passes[0].t <= Date.now())
  b.flush()
  assert.equal(passes.length, 1, 'an empty flush handles nothing')
})

test('batcher: events that keep coming are handled at most once a frame, and flush() hands over what waits at once', async () => {
  const passes = []
  const b = new EventBatcher((events) => passes.push(events.length))
  const start = performance.now()
  let sent = 0
  while (performance.now() - start < 300) {
    b.push([{ type: 'text', text: 'x' }])
    sent++
    await tick()
  }
  const elapsed = performance.now() - start
  b.flush()
  assert.equal(passes.reduce((a, n) => a + n, 0), sent, 'every event handled')
  assert.ok(sent > passes.length, `${sent} batches, ${passes.length} passes`)
  // (Half a frame: a timer may fire a little early by the clock read here.)
  assert.ok(passes.length <= elapsed / (FRAME_MS / 2) + 2, `${passes.length} passes in ${Math.round(elapsed)} ms`)
  b.push([{ type: 'notice', message: 'now' }])
  b.flush()
  assert.equal(passes.at(-1), 1)
  assert.equal(b.waiting, 0)
})

test('view messages: a tool call\'s updates in a batch are one message where it started, the last field of each kind kept, only the last output folded', () => {
  const out = viewMessages(
    [
      { type: 'tool_call', id: 'c1', title: 'run', kind: 'execute', status: 'in_progress', command: 'seq' },
      { type: 'tool_call_update', id: 'c1', output: 'a\n' },
      { type: 'text', text: 'Hel' },
      { type: 'tool_call_update', id: 'c1', output: 'a\nb\n' },
      { type: 'text', text: 'lo' },
      { type: 'tool_call', id: 'c2', title: 'other', status: 'pending' },
      { type: 'tool_call_update', id: 'c1', status: 'completed', exit_code: 0 },
    ],
    '/ws',
    7,
  )
  assert.deepEqual(out.map((m) => m.type), ['tool', 'text', 'tool'])
  assert.deepEqual(out[0], { type: 'tool', id: 'c1', title: 'run', kind: 'execute', status: 'completed', diffs: undefined, command: 'seq', output: ['a', 'b'], exitCode: 0 })
  assert.deepEqual(out[1], { type: 'text', text: 'Hello', chunks: 2, t: 7 }, 'the text around a merged update is one message')
  assert.equal(out[2].id, 'c2')
})

test('event log: long strings cut, a tool call\'s updates of a batch said once with their count, text left out', () => {
  const lines = eventLogLines([
    { type: 'text', text: 'not logged' },
    { type: 'tool_call', id: 'c1', title: 'run' },
    ...Array.from({ length: 500 }, (_, i) => ({ type: 'tool_call_update', id: 'c1', output: `${'x'.repeat(100000)}${i}` })),
    { type: 'notice', message: 'n'.repeat(1000) },
  ])
  assert.equal(lines.length, 2, lines.join('\n'))
  assert.match(lines[0], /^event \{"type":"tool_call_update","id":"c1","output":"x{200,}/)
  assert.ok(lines[0].endsWith('… (and 500 earlier event(s) of this call)'), lines[0].slice(-80))
  assert.ok(lines[1].length < 320, lines[1])
})

test('outbox: a long text goes a piece a frame, in order with what follows; small messages go at once; nothing lost or split inside a character', async () => {
  const sent = []
  const box = new Outbox((m) => sent.push(m))
  box.post({ type: 'busy', busy: true })
  assert.deepEqual(sent, [{ type: 'busy', busy: true }], 'nothing waits: sent at once')
  const text = `${'a'.repeat(FRAME_TEXT - 1)}😀${'b'.repeat(3 * FRAME_TEXT)}`
  box.post({ type: 'text', text, chunks: 7, t: 1 })
  box.post({ type: 'turnEnd', stopReason: 'end_turn' })
  assert.equal(sent.length, 2, 'one piece in this frame')
  assert.ok(sent[1].text.length <= FRAME_TEXT && sent[1].text.endsWith('a'), 'the emoji is not cut in two')
  assert.ok(box.pending > 1)
  const end = Date.now() + 10000
  while (box.pending > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
  assert.equal(box.pending, 0)
  const texts = sent.filter((m) => m.type === 'text')
  assert.equal(texts.map((m) => m.text).join(''), text)
  assert.deepEqual(texts.map((m) => m.chunks), [7, ...texts.slice(1).map(() => 0)], 'the chunks counted once')
  assert.ok(texts.every((m) => m.t === 1 && m.text.length <= FRAME_TEXT))
  assert.deepEqual(sent.at(-1), { type: 'turnEnd', stopReason: 'end_turn' }, 'what came after the text comes after all of it')
  assert.deepEqual(textPieces({ type: 'notice', message: 'x'.repeat(FRAME_TEXT * 2) }).length, 1, 'only text is cut')
  box.post({ type: 'text', text: 'c'.repeat(FRAME_TEXT * 2), chunks: 1, t: 2 })
  box.flush()
  assert.equal(box.pending, 0)
  assert.equal(sent.filter((m) => m.t === 2).map((m) => m.text).join('').length, FRAME_TEXT * 2, 'flush sends what waits')
})

test('pieces: a long line cut near the size, at white space when there is some, never over twice the size, nothing lost', () => {
  const size = 64
  const cases = ['y'.repeat(1000), 'word '.repeat(400), `${'a'.repeat(100)} ${'b'.repeat(300)}`]
  for (const text of cases) {
    for (const step of [1, 7, 64, 500, 5000]) {
      const pieces = ['']
      for (let at = 0; at < text.length; at += step) {
        let more = text.slice(at, at + step)
        for (;;) {
          const cut = md.pieceCut(pieces.at(-1).length, more, size)
          pieces[pieces.length - 1] += cut < 0 ? more : more.slice(0, cut)
          if (cut < 0) break
          more = more.slice(cut)
          pieces.push('')
        }
      }
      assert.equal(pieces.join(''), text, `step ${step}`)
      for (const p of pieces) assert.ok(p.length <= 2 * size, `a piece of ${p.length}`)
      if (text.includes(' ')) for (const p of pieces.slice(0, -1)) assert.ok(p.length <= size || / $/.test(p) || !p.includes(' '), JSON.stringify(p))
      assert.ok(pieces.length >= Math.floor(text.length / (2 * size)), `${pieces.length} pieces`)
    }
  }
  assert.equal(md.pieceCut(0, 'short', size), -1)
  assert.equal(md.pieceCut(62, 'abc def', size), 4, 'just after the first space at or past the size')
  assert.equal(md.pieceCut(60, 'abc def', size), -1, 'a space before the size does not cut')
})

test('toolflood: a tool call whose output streams 300 lines reaches the view whole, in fewer messages than updates', async () => {
  reset({})
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  const from = v.posted.length
  await v.send({ type: 'send', text: 'toolflood 300 40' })
  const end = Date.now() + 60000
  while (!v.posted.slice(from).some((m) => m.type === 'turnEnd' || m.type === 'error')) {
    if (Date.now() > end) throw new Error('timed out waiting for the turn to end')
    await new Promise((r) => setTimeout(r, 20))
  }
  const msgs = v.posted.slice(from)
  assert.equal(msgs.find((m) => m.type === 'turnEnd').stopReason, 'end_turn')
  const tools = msgs.filter((m) => m.type === 'tool')
  // The agent sent the call and 301 updates of it.
  assert.ok(tools.length < 302, `${tools.length} tool messages`)
  const output = tools.map((m) => m.output).filter(Boolean).at(-1)
  assert.match(output[0], /^line 00001 x+$/)
  assert.match(output.at(-1), /^line 00300 x+$/)
  assert.equal(tools.map((m) => m.status).filter(Boolean).at(-1), 'completed')
  assert.ok(msgs.filter((m) => m.type === 'text').map((m) => m.text).join('').includes('The command is done.'))
  assert.ok(channel.lines.filter((l) => l.startsWith('event {"type":"tool_call_update"')).length < 301, 'the log says a batch\'s updates once')
})
