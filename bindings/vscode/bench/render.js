'use strict'
// How long the chat view takes to render an answer while it streams, in
// headless Chromium (the browser the e2e suite drives code-server with):
// the webview's own page (media/chat.js, media/markdown.js, media/chat.css,
// the body the extension gives it), the answer posted to it as text
// messages, and each animation frame's render timed (the frame callback the
// page registers is called by the bench, so every frame renders exactly one
// new piece; a frame's time is the view's render and the browser's rendering
// of that frame after it: style, layout and paint).
//
//   node bindings/vscode/bench/render.js [--runs N] [--json FILE] [--before REV | --no-before] [--cases a,b] [--trace]
//
// Cases: a 32 KB Markdown answer (headings, paragraphs, lists, fenced code)
// and a 512 KB answer on one line, then a 5 MB answer of each kind, each in
// 600 frames after a first message (the 5 MB ones: one run, not --runs).
// Each runs with the view as it is in the working tree and as it was at
// --before (default ec10f1b, before the long-answer pieces and chunks; not
// the 5 MB line with a view that does not cut lines into pieces, which
// would take hours there), loaded with `git show`. After each answer the page checks that all of it
// is there: its text whole (the one-line case), the first message on screen
// once the log is scrolled to the top, and the browser's find (as VS Code's
// find in a webview) finding its first and last words. The browser:
// $RADIUM_BENCH_PLAYWRIGHT / $RADIUM_BENCH_CHROMIUM, else what
// scripts/ensure-vscode.sh reports (it installs them when missing).

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const repo = path.resolve(root, '..', '..')
const FRAMES = 600
const BEFORE = process.argv.includes('--before') ? process.argv[process.argv.indexOf('--before') + 1] : 'ec10f1b'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : fallback
}
const runs = Number(arg('--runs', '3'))

function tools() {
  let playwright = process.env.RADIUM_BENCH_PLAYWRIGHT
  let chromium = process.env.RADIUM_BENCH_CHROMIUM
  if (!playwright || !chromium) {
    const out = execFileSync('bash', [path.join(repo, 'scripts/ensure-vscode.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    const value = (k) => (out.match(new RegExp(`^${k}=(.*)$`, 'm')) || [])[1]
    playwright ||= value('PLAYWRIGHT_CORE')
    chromium ||= value('CHROMIUM')
  }
  return { chromium: require(playwright).chromium, executablePath: chromium }
}

/** The view's files: the working tree's, or those of a git revision. */
function media(rev) {
  const read = (name) =>
    rev ? execFileSync('git', ['show', `${rev}:bindings/vscode/media/${name}`], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }) : fs.readFileSync(path.join(root, 'media', name), 'utf8')
  // (virtual.js and answer.js: not in the views before them.)
  const maybe = (name) => { try { return read(name) } catch { return '' } }
  return { css: read('chat.css'), markdown: read('markdown.js'), virtual: maybe('virtual.js'), answer: maybe('answer.js'), chat: read('chat.js') }
}

/** The webview's body, as src/chat/view.ts writes it. */
const BODY = `<div id="top"><select id="agent"></select><button id="new">New chat</button></div>
<div id="log" role="log" aria-live="polite"></div>
<div id="composer"><div id="chips"></div><textarea id="input" rows="3"></textarea>
<div id="actions"><button id="addSel">+ Selection</button><button id="addFile">+ File</button><button id="addFiles">+ Files…</button><span class="grow"></span><button id="stop" disabled>Stop</button><button id="send">Send</button></div></div>
<div id="stats" hidden></div>`

/** A Markdown answer of about `bytes` bytes, as an agent writes one. */
function markdownAnswer(bytes) {
  const parts = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const part = [
      `## Step ${i + 1}: the \`parser\` module`,
      '',
      `The function **parse${i}** reads the input once and keeps *every* token; see [the docs](https://example.com/${i}).`,
      'It answers early when the input is empty, and otherwise walks it line by line.',
      '',
      `- keeps \`state.offset\` in step ${i}`,
      '- never allocates in the loop',
      '',
      '```ts:src/parser.ts',
      `export function parse${i}(input: string): Token[] {`,
      '  const out: Token[] = [] // the tokens, in order',
      `  for (let k = 0; k < input.length; k++) out.push({ at: k, text: "${i}" })`,
      '  return out',
      '}',
      '```',
      '',
      '',
    ].join('\n')
    parts.push(part)
    size += Buffer.byteLength(part)
  }
  return parts.join('').slice(0, bytes)
}

/** `text` cut into `n` pieces of (nearly) equal length. */
function pieces(text, n) {
  const out = []
  for (let i = 0; i < n; i++) out.push(text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n)))
  return out
}

/**
 * Runs in the page: posts a first message, then the pieces, one frame each;
 * answers each frame's milliseconds, the answer's text on screen, and
 * whether the first message shows at the top and find finds both ends.
 */
async function inPage([list, first, last]) {
  const post = (data) => window.dispatchEvent(new MessageEvent('message', { data }))
  post({ type: 'clear' })
  post({ type: 'user', text: 'the first message of the chat', chips: [] })
  const ms = []
  const js = []
  for (const text of list) {
    post({ type: 'text', text, chunks: 1, t: Date.now() })
    const t0 = performance.now()
    window.__frame()
    js.push(performance.now() - t0)
    ms.push(js.at(-1) + (await window.__rendering()))
  }
  post({ type: 'turnEnd', stopReason: 'end_turn' })
  const shown = document.querySelector('.msg.agent')
  const log = document.getElementById('log')
  // The view's own find first where it has one (it searches the detached
  // parts too, and puts back the part it finds), then the browser's.
  const found = (text, last) => {
    window.getSelection().removeAllRanges()
    if (window.radiumChat && !window.radiumChat.find(text, last)) return false
    return window.find(text, true, false, true)
  }
  const foundLast = found(last, true)
  log.scrollTop = 0
  await new Promise((r) => setTimeout(r, 50))
  const top = document.querySelector('.msg.user').getBoundingClientRect()
  const box = log.getBoundingClientRect()
  const firstOnTop = top.height > 0 && top.top >= box.top - 1 && top.top < box.bottom
  const detached = window.radiumChat ? window.radiumChat.virtual.count : 0
  return { ms, js, detached, chars: !shown ? 0 : window.radiumChat ? window.radiumChat.text(shown).length : shown.textContent.length, firstOnTop, foundFirst: found(first), foundLast }
}

/**
 * Runs in the page first: the view's frame callback kept for the bench to
 * call, and `__rendering()`, the milliseconds the browser's next rendering
 * takes (style, layout, paint: from its animation frame callback to the
 * task after it), without the wait for that frame.
 */
function setupPage() {
  const raf = window.requestAnimationFrame.bind(window)
  window.acquireVsCodeApi = () => ({ postMessage() {}, setState() {}, getState() {} })
  window.requestAnimationFrame = (fn) => { window.__frame = fn; return 1 }
  window.__rendering = () => new Promise((resolve) => raf(() => { const t = performance.now(); setTimeout(() => resolve(performance.now() - t), 0) }))
}

async function measure(browser, view, list, trace) {
  const page = await browser.newPage()
  if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'blink', 'v8', 'disabled-by-default-devtools.timeline'] })
  // The bench calls the frame callback itself: one render per piece.
  await page.setContent(`<!DOCTYPE html><html><head><style>${view.css}</style></head><body>${BODY}</body></html>`)
  await page.evaluate(setupPage)
  await page.addScriptTag({ content: view.markdown })
  if (view.virtual) await page.addScriptTag({ content: view.virtual })
  if (view.answer) await page.addScriptTag({ content: view.answer })
  await page.addScriptTag({ content: view.chat })
  const text = list.join('')
  const words = text.match(/[A-Za-z][\w ]{3,24}/g) || [text.slice(0, 16)]
  const result = await page.evaluate(inPage, [list, words[0], words.at(-1)])
  if (trace) result.trace = traceSummary(JSON.parse(await browser.stopTracing()))
  await page.close()
  return result
}

/**
 * The browser's floor for the one-line case: the same pieces appended as
 * text nodes to one paragraph in the view's log, and the layout forced, with
 * no renderer at all.
 */
async function layoutFloor(browser, view, list) {
  const page = await browser.newPage()
  await page.setContent(`<!DOCTYPE html><html><head><style>${view.css}</style></head><body>${BODY}</body></html>`)
  await page.evaluate(setupPage)
  const ms = await page.evaluate(async (list) => {
    const log = document.getElementById('log')
    const p = log.appendChild(document.createElement('div')).appendChild(document.createElement('p'))
    p.parentElement.className = 'msg agent md'
    const ms = []
    for (const text of list) {
      const t0 = performance.now()
      p.appendChild(document.createTextNode(text))
      log.scrollTop = log.scrollHeight
      ms.push(performance.now() - t0 + (await window.__rendering()))
    }
    return ms
  }, list)
  await page.close()
  return ms
}

/**
 * Where a traced run's main thread went: the milliseconds of the trace's
 * complete events by name (the top-level renderer tasks and what they
 * contain: script, style, layout, paint, GC), the largest first.
 */
function traceSummary(trace) {
  const events = (trace.traceEvents || trace).filter((e) => e.ph === 'X' && e.dur)
  const main = events.find((e) => e.name === 'FunctionCall' || e.name === 'EvaluateScript')
  const byName = new Map()
  for (const e of events) if (!main || e.tid === main.tid) byName.set(e.name, (byName.get(e.name) || 0) + e.dur / 1000)
  return Object.fromEntries([...byName].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.RADIUM_BENCH_TRACE_TOP) || 16).map(([k, v]) => [k, Math.round(v)]))
}

const round = (x) => Math.round(x * 100) / 100
function summary(ms) {
  const s = [...ms].sort((a, b) => a - b)
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))]
  return { total: round(ms.reduce((a, b) => a + b, 0)), p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)), max: round(s[s.length - 1]) }
}

async function main() {
  const { chromium, executablePath } = tools()
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
  const only = arg('--cases')
  const cases = [
    ['32 KB Markdown answer, 600 frames', markdownAnswer(32 * 1024)],
    ['512 KB answer on one line, 600 frames', 'y'.repeat(512 * 1024)],
    ['5 MB Markdown answer, 600 frames', markdownAnswer(5 << 20)],
    ['5 MB answer on one line, 600 frames', 'y'.repeat(5 << 20)],
  ].filter((_, i) => !only || only.split(',').includes('abcd'[i]))
  const views = [
    ['working tree', media()],
    [`before (${BEFORE})`, media(BEFORE)],
  ].slice(0, process.argv.includes('--no-before') ? 1 : 2)
  const report = { browser: `${browser.version()}`, frames: FRAMES, runs, results: [] }
  try {
    for (const [name, text] of cases) {
      for (const [version, view] of views) {
        if (!(view.chat + view.answer).includes('pieceCut') && text.length > 1e6 && name.includes('one line')) {
          // Hours at the 512 KB case's rate (each frame lays out the whole line).
          console.log(`${name} · ${version}: not run (each frame lays out the whole line: see the 512 KB case)`)
          continue
        }
        let best
        let reach
        for (let r = 0; r < (text.length > 1e6 ? 1 : runs); r++) {
          const { ms, js, detached, chars, firstOnTop, foundFirst, foundLast, trace } = await measure(browser, view, pieces(text, FRAMES), process.argv.includes('--trace'))
          if (name.includes('one line') && chars !== text.length) throw new Error(`${version}: the answer on screen has ${chars} characters`)
          reach = { firstOnTop, foundFirst, foundLast, detached }
          if (trace) console.log(`${name} · ${version}: the main thread's time by trace event (ms): ${JSON.stringify(trace)}`)
          const s = { ...summary(ms), js: summary(js) }
          if (!best || s.total < best.total) best = s
        }
        report.results.push({ case: name, view: version, bytes: text.length, ...best, ...reach })
        console.log(
          `${name} · ${version}: ${best.total} ms in all; a frame p50 ${best.p50} ms, p95 ${best.p95} ms, p99 ${best.p99} ms, max ${best.max} ms (the view's script: p50 ${best.js.p50} ms, p99 ${best.js.p99} ms, max ${best.js.max} ms; best of ${text.length > 1e6 ? 1 : runs}); ${reach.detached} parts detached at the end; first message on top ${reach.firstOnTop}, find: first words ${reach.foundFirst}, last words ${reach.foundLast}`,
        )
        if (version === 'working tree' && !(reach.firstOnTop && reach.foundFirst && reach.foundLast)) throw new Error(`${name}: not all of the chat is reachable: ${JSON.stringify(reach)}`)
      }
      if (!name.includes('512 KB')) continue
      const floor = summary(await layoutFloor(browser, views[0][1], pieces(text, FRAMES)))
      report.results.push({ case: name, view: 'layout floor (text nodes appended, no renderer)', bytes: text.length, ...floor })
      console.log(`${name} · layout floor (text nodes appended, no renderer): ${floor.total} ms in all; a frame p50 ${floor.p50} ms, p95 ${floor.p95} ms, max ${floor.max} ms`)
    }
  } finally {
    await browser.close()
  }
  const json = arg('--json')
  if (json) fs.writeFileSync(json, JSON.stringify(report, null, 2))
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e)
  process.exit(1)
})
