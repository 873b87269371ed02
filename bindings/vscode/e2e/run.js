'use strict'
// Drives a real VS Code (code-server, started by scripts/test-vscode-e2e.sh)
// through headless Chromium as a person would: the command palette, the
// keyboard, the quick pick, the diff editor, the notifications. Asserts on
// what is seen (the DOM) and on the files on disk; a screenshot per step in
// target/vscode-e2e/. Exits non-zero on the first failure; the browser is
// closed in any case.

const fs = require('node:fs')
const path = require('node:path')
const assert = require('node:assert/strict')

const { paths, files } = require('./fixture')

const p = paths()
const out = process.env.RADIUM_E2E_OUT
const port = process.env.RADIUM_E2E_PORT
const { chromium } = require(process.env.RADIUM_E2E_PLAYWRIGHT)
const browserPath = process.env.RADIUM_E2E_CHROMIUM

/** @type {import('playwright-core').Page} */
let page
/** @type {import('playwright-core').BrowserContext | undefined} */
let browser
let shot = 0
const t0 = Date.now()

function log(line) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${line}`)
}

async function screenshot(name) {
  await sleep(250) // let a toast finish fading in
  shot += 1
  const file = path.join(out, `${String(shot).padStart(2, '0')}-${name}.png`)
  await page.screenshot({ path: file })
  log(`screenshot ${path.relative(p.repo, file)}`)
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Waits until `check()` is truthy (it may throw meanwhile); the last error says why not. */
async function until(what, check, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs
  let last
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch (e) {
      last = e
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`)
    await sleep(100)
  }
}

const disk = (name) => fs.readFileSync(path.join(p.ws, name), 'utf8')
/** Monaco renders spaces as U+00A0. */
const text = async (locator) => (await locator.innerText()).replace(/\u00a0/g, ' ')

const quickInput = () => page.locator('.quick-input-widget')
const quickRows = () => page.locator('.quick-input-widget .monaco-list-row')
const toasts = () => page.locator('.notifications-toasts .notification-toast')
const toast = (content) => toasts().filter({ hasText: content })
const activeEditorLines = () => page.locator('.editor-group-container.active .monaco-editor .view-lines').first()

/**
 * F1, the command's title, Enter. Right after start-up the palette may not
 * list the extensions' commands yet (the extension host is still coming up):
 * then Escape and try again, for up to `timeoutMs`.
 */
async function runCommand(title, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs
  for (;;) {
    await page.keyboard.press('F1')
    const input = page.locator('.quick-input-widget .quick-input-box input')
    await input.waitFor({ state: 'visible' })
    await input.fill(`>${title}`)
    const row = quickRows().filter({ hasText: title }).first()
    try {
      await row.waitFor({ timeout: Math.max(1000, Math.min(3000, end - Date.now())) })
      break
    } catch (e) {
      await page.keyboard.press('Escape')
      if (Date.now() > end) throw e
      await sleep(500)
    }
  }
  await page.keyboard.press('Enter')
  // The palette is gone, or the widget already shows the command's own quick pick.
  const input = page.locator('.quick-input-widget .quick-input-box input')
  await until(
    'the palette closed',
    async () => !(await quickInput().isVisible()) || !(await input.inputValue()).startsWith('>'),
    5000,
  )
}

/** Ctrl+P, the file's name, Enter; waits for its tab. */
async function openFile(name) {
  await page.keyboard.press('Control+P')
  const input = page.locator('.quick-input-widget .quick-input-box input')
  await input.waitFor({ state: 'visible' })
  await input.fill(name)
  // The first row, once the list is filtered (before that it lists the recent files).
  await quickRows().first().filter({ hasText: name }).waitFor()
  await page.keyboard.press('Enter')
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor()
  await page.locator('.editor-group-container.active .monaco-editor.focused').waitFor()
}

/** Selects lines first..last (1-based) the keyboard way: Ctrl+G, then Shift+Down. */
async function selectLines(first, last) {
  await page.keyboard.press('Control+G')
  const input = page.locator('.quick-input-widget .quick-input-box input')
  await input.waitFor({ state: 'visible' })
  await page.keyboard.type(String(first))
  await page.keyboard.press('Enter')
  await quickInput().waitFor({ state: 'hidden' })
  await page.keyboard.press('Home')
  for (let i = first; i <= last; i++) await page.keyboard.press('Shift+ArrowDown')
}

async function clearNotifications() {
  await runCommand('Notifications: Clear All Notifications')
  await until('no notification', async () => (await toasts().count()) === 0, 5000)
}

async function focusEditor() {
  await runCommand('View: Focus Active Editor Group')
}

/** The active tab shows unsaved changes. */
const dirty = async () => (await page.locator('.tabs-container .tab.active.dirty').count()) > 0

async function save(name, expected) {
  await focusEditor()
  await page.keyboard.press('Control+S')
  await until(`${name} saved as expected`, () => disk(name) === expected)
}

async function useAgent(id) {
  await runCommand('Radium: List Agents')
  await quickRows().filter({ hasText: 'sleepy' }).first().waitFor()
  await page.keyboard.type(id)
  await quickRows().first().filter({ hasText: id }).waitFor()
  await page.keyboard.press('Enter')
  await toast(`the agent is now ${id}`).waitFor()
  await clearNotifications()
}

/** Send the selection: the quick pick of the answer's blocks appears. */
async function sendAndExpectBlocks(agent, blockText) {
  await runCommand('Radium: Send Selection to Agent')
  await page.locator('.quick-input-widget .quick-input-title', { hasText: `${agent} answered with 1 code block` }).waitFor()
  await quickRows().filter({ hasText: blockText }).first().waitFor()
}

/** Enter on the offered block: the diff editor opens, and Apply/Discard is asked; returns the diff's two sides' text. */
async function previewDiff(name) {
  await page.keyboard.press('Enter')
  const diff = page.locator('.monaco-diff-editor').first()
  await diff.waitFor()
  const original = diff.locator('.editor.original .view-lines')
  const modified = diff.locator('.editor.modified .view-lines')
  await until('the diff shows a change', async () => (await text(modified)) !== (await text(original)))
  await toast(`apply block #1 to ${name}`).locator('.monaco-button', { hasText: 'Discard' }).waitFor()
  await sleep(300) // the toast's fade-in, for the screenshot
  return { original: await text(original), modified: await text(modified) }
}

async function applyFromToast(name) {
  const ask = toast(`apply block #1 to ${name}`)
  await ask.waitFor()
  await ask.locator('.monaco-button', { hasText: 'Apply' }).click()
  await toast(`applied block #1 to ${name}`).waitFor()
  await until('the diff editor closed', async () => (await page.locator('.monaco-diff-editor').count()) === 0)
}

/**
 * Whether a process runs: `process.kill(pid, 0)` succeeds and it is not a
 * zombie (a killed process whose parent has not collected it yet: here the
 * agent's child is re-parented to PID 1, which may collect it late).
 */
function alive(pid) {
  try {
    process.kill(pid, 0)
  } catch (e) {
    if (e.code === 'ESRCH') return false
    throw e
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

const steps = []
function step(name, fn) {
  steps.push({ name, fn })
}

const reviewed = '// reviewed by the example agent'

/** The "Radium" output channel, as shown in the panel, has a line with this text. */
async function outputShows(content) {
  await page.locator('.part.panel .view-lines').filter({ hasText: content }).first().waitFor()
}

step('0. Show Version: the bundled native module loads in the extension host', async () => {
  await runCommand('Radium: Show Version')
  const shown = toast('Radium ')
  await shown.waitFor()
  assert.match(await shown.innerText(), /Radium \d+\.\d+\.\d+\S* \(ABI 1\)/)
  await screenshot('version')
  await clearNotifications()
})

step('1. select a function, send the selection: the answer\'s code blocks are offered', async () => {
  await openFile('math.ts')
  await selectLines(3, 5)
  await sendAndExpectBlocks('example', reviewed)
  await screenshot('blocks-offered')
})

step('2. preview as a diff, apply, save: the file has the new code; Ctrl+Z brings the old text back', async () => {
  const { original, modified } = await previewDiff('math.ts')
  assert.ok(original.includes('export function add(a: number, b: number): number {'), original)
  assert.ok(!original.includes(reviewed), 'the left side is the document as it is')
  assert.ok(modified.includes(reviewed) && modified.includes('export function add'), modified)
  assert.ok(modified.includes('export function sub'), 'the right side is the whole new document')
  await screenshot('diff-preview')
  await applyFromToast('math.ts')
  const after = files['src/math.ts'].replace('export function add', `${reviewed}\nexport function add`)
  await until('the editor shows the new code', async () => (await text(activeEditorLines())).includes(reviewed))
  assert.ok(await dirty(), 'applied, not saved yet')
  assert.equal(disk('src/math.ts'), files['src/math.ts'], 'nothing written before saving')
  await save('src/math.ts', after)
  await screenshot('applied-and-saved')
  await page.keyboard.press('Control+Z')
  await until('Ctrl+Z removed the new code', async () => !(await text(activeEditorLines())).includes(reviewed))
  await save('src/math.ts', files['src/math.ts'])
  await screenshot('undone')
  await clearNotifications()
})

step('3. the same on an unsaved, modified document', async () => {
  await openFile('draft.ts')
  await page.keyboard.press('Control+End')
  await page.keyboard.type('export const typed = 1')
  await until('the tab is dirty', dirty)
  await selectLines(1, 3)
  await sendAndExpectBlocks('example', reviewed)
  const { original, modified } = await previewDiff('draft.ts')
  assert.ok(original.includes('export const typed = 1'), 'the left side is the unsaved buffer')
  assert.ok(modified.includes('export const typed = 1') && modified.includes(reviewed), modified)
  await screenshot('unsaved-diff-preview')
  await applyFromToast('draft.ts')
  assert.equal(disk('src/draft.ts'), files['src/draft.ts'], 'the unsaved buffer was used, nothing written')
  const typed = `${files['src/draft.ts']}export const typed = 1`
  await save('src/draft.ts', `${reviewed}\n${typed}`)
  await page.keyboard.press('Control+Z')
  await until('Ctrl+Z removed the new code', async () => !(await text(activeEditorLines())).includes(reviewed))
  await save('src/draft.ts', typed)
  await screenshot('unsaved-applied-undone')
  await clearNotifications()
})

step('4. a sleeping agent: progress with Cancel, the editor takes typing, Cancel ends the agent', async () => {
  await useAgent('sleepy')
  await openFile('slow.ts')
  await selectLines(1, 1)
  for (const f of [p.sleepyPid, p.sleepyChildPid]) fs.rmSync(f, { force: true })
  await runCommand('Radium: Send Selection to Agent')
  const progress = toast('asking sleepy')
  await progress.waitFor()
  const pids = await until('the sleeping agent\'s PIDs', () => {
    const read = (f) => Number(fs.readFileSync(f, 'utf8').trim())
    const both = [read(p.sleepyPid), read(p.sleepyChildPid)]
    return both.every((n) => n > 0) && both
  })
  assert.ok(pids.every(alive), 'the agent runs')
  // The UI is not frozen: typing lands in the editor while the agent runs.
  await page.keyboard.press('End')
  await page.keyboard.type(' // typed while the agent runs')
  await until('the typing shows', async () => (await text(activeEditorLines())).includes('typed while the agent runs'))
  assert.ok(await progress.isVisible(), 'the progress notification is still there')
  await screenshot('typing-while-agent-runs')
  await progress.locator('.monaco-button', { hasText: 'Cancel' }).click()
  await until('the agent process and its child are gone', () => !pids.some(alive), 5000)
  await until('the progress notification closed', async () => (await toast('asking sleepy').count()) === 0, 5000)
  await screenshot('cancelled')
  await runCommand('File: Revert File')
  await until('the file is reverted', async () => !(await dirty()))
  await clearNotifications()
})

step('5. a failing agent and a refusing before_tool hook: a notification each, the document unchanged', async () => {
  await useAgent('failing')
  await openFile('fail.ts')
  await selectLines(1, 1)
  await runCommand('Radium: Send Selection to Agent')
  await toast('the failing agent gave up').waitFor()
  // The error is logged in the Radium output channel, which comes into view.
  await outputShows('error: agent `failing` exited with status 3: the failing agent gave up [agent_failed]')
  await screenshot('agent-failed')
  assert.ok(!(await dirty()), 'the document is unchanged')
  assert.equal(disk('src/fail.ts'), files['src/fail.ts'])
  await clearNotifications()

  await useAgent('example')
  await openFile('refuse.ts')
  await selectLines(1, 3)
  await runCommand('Radium: Send Selection to Agent')
  const refused = toast('the e2e JS hook refuses forbidden code')
  await refused.waitFor()
  assert.match(await refused.innerText(), /refused by hook `e2e-refuse` \(before_tool\)/)
  await screenshot('hook-refused')
  assert.equal(await page.locator('.monaco-diff-editor').count(), 0, 'no preview')
  assert.ok(!(await dirty()), 'the document is unchanged')
  assert.equal(disk('src/refuse.ts'), files['src/refuse.ts'])
  await clearNotifications()
})

step('6. a JS hook registered through the extension\'s API by another extension runs in the chain', async () => {
  await openFile('tag.ts')
  await selectLines(1, 3)
  await sendAndExpectBlocks('example', reviewed)
  const { modified } = await previewDiff('tag.ts')
  assert.ok(modified.includes('// tagged by a JS hook'), `the hook changed what the agent saw: ${modified}`)
  await screenshot('js-hook-diff')
  await applyFromToast('tag.ts')
  await save('src/tag.ts', `${reviewed}\n// tagged by a JS hook\n${files['src/tag.ts']}`)
  await clearNotifications()
})

const helpers = {
  page: () => page, runCommand, openFile, selectLines, screenshot, until, disk, text, activeEditorLines, toast,
  clearNotifications, log, p, out, outputShows,
}
require('./chat-steps')(step, helpers)
require('./clipboard-steps')(step, helpers)
require('./code-steps')(step, helpers)
require('./agents-steps')(step, helpers)

async function main() {
  fs.mkdirSync(out, { recursive: true })
  const profile = path.join(p.scratch, 'browser')
  // Stopped from outside (the script's timeout, Ctrl+C): close the browser first.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      console.error(`run.js: ${signal}, closing the browser`)
      void (browser ? browser.close() : Promise.resolve()).finally(() => process.exit(1))
    })
  }
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browserPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  browser = context
  let failed = 0
  let passed = 0
  try {
    page = context.pages()[0] ?? (await context.newPage())
    page.setDefaultTimeout(15000)
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(p.ws)}`)
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 })
    // The extensions are up once the hooks extension registered its hooks
    // (it activates on startup and activates radium).
    await until('the workbench is ready', async () => (await page.locator('.statusbar').count()) > 0, 30000)
    log('workbench loaded')
    for (const s of steps) {
      const started = Date.now()
      try {
        await s.fn()
        passed += 1
        log(`ok   ${s.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      } catch (e) {
        failed += 1
        log(`FAIL ${s.name}\n${e && e.stack ? e.stack : e}`)
        await screenshot('failure').catch(() => {})
        break
      }
    }
  } finally {
    await context.close().catch(() => {})
  }
  const skipped = steps.length - passed - failed
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`)
  if (failed > 0 || passed !== steps.length) process.exit(1)
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e)
  process.exit(1)
})
