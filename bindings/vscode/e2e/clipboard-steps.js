'use strict'
// Clipboard mode's steps of the e2e suite (run.js registers them after the
// chat's): lines selected, **Radium: Copy Selection for a Chat** with a
// prompt, the text read back from the browser's clipboard (VS Code's
// clipboard in code-server is the browser's); then an answer put on the
// browser's clipboard, **Radium: Apply Answer from Clipboard**, its review
// in the chat view (the block without a path listed), Accept all, Apply: the
// files on disk; **Radium: Undo Last Change** takes the whole answer back.
// The browser context is granted clipboard-read and clipboard-write for
// code-server's origin, so navigator.clipboard works without a prompt.

const fs = require('node:fs')
const path = require('node:path')
const assert = require('node:assert/strict')

const { files } = require('./fixture')

module.exports = function clipboardSteps(step, h) {
  const { runCommand, openFile, selectLines, screenshot, until, disk, toast, clearNotifications, p } = h
  const page = () => h.page()
  const chat = () => page().frameLocator('iframe.webview.ready').frameLocator('#active-frame')
  const origin = `http://127.0.0.1:${process.env.RADIUM_E2E_PORT}`

  async function open(name) {
    try {
      await openFile(name)
    } catch {
      await page().keyboard.press('Escape')
      await openFile(name)
    }
  }

  const readClipboard = () => page().evaluate(() => navigator.clipboard.readText())
  const writeClipboard = (text) => page().evaluate((t) => navigator.clipboard.writeText(t), text)

  step('12. clipboard: lines selected, Radium: Copy Selection for a Chat with a prompt: the browser\'s clipboard has them with their path and the lines around them', async () => {
    await page().context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    await writeClipboard('nothing copied yet')
    await runCommand('Radium: New Chat') // a clean chat view for the review of step 13
    // The chat's prompt box has the focus now, where F1 does not reach the workbench.
    await page().locator('.editor-group-container.active .monaco-editor .view-lines').first().click()
    await open('math.ts')
    await selectLines(7, 9)
    // The editor's context menu has the command.
    await page().locator('.editor-group-container.active .monaco-editor .view-lines').first().click({ button: 'right', position: { x: 60, y: 8 } })
    const item = page().locator('.monaco-menu .action-item', { hasText: 'Copy Selection for a Chat' })
    await item.first().waitFor()
    await screenshot('clipboard-context-menu')
    await page().keyboard.press('Escape')
    await selectLines(7, 9)
    await runCommand('Radium: Copy Selection for a Chat')
    const input = page().locator('.quick-input-widget .quick-input-box input')
    await input.waitFor({ state: 'visible' })
    await page().locator('.quick-input-widget', { hasText: 'lines 7-9 of src/math.ts' }).waitFor()
    await page().keyboard.type('why subtract?')
    await page().keyboard.press('Enter')
    await toast('Copied lines 7-9 of src/math.ts for a chat').waitFor()
    const copied = await until('the clipboard holds the copy', async () => {
      const t = await readClipboard()
      return t !== 'nothing copied yet' && t
    })
    const sent = files['src/math.ts'].split('\n').slice(6, 9).join('\n')
    assert.ok(copied.startsWith(`why subtract?\n\n\`src/math.ts\`, lines 7-9:\n\n\`\`\`typescript:src/math.ts lines=7-9\n${sent}\n\`\`\`\n`), copied)
    assert.ok(copied.includes('Around it (lines 2-9, for context only):') && copied.includes('⋮ (lines 7-9, sent above)'), copied)
    assert.ok(copied.includes('export function add(a: number, b: number): number {'), 'the lines above, for context')
    h.log(`copied for a chat (${copied.length} chars)`)
    await screenshot('clipboard-copied')
    await clearNotifications()
  })

  const math = files['src/math.ts'].replace('export function sub', '// Subtracts b from a.\nexport function sub')
  const fresh = 'export const fromTheClipboard = true\n'
  const answer = [
    'Sure. The file with a comment:',
    '',
    '```typescript:src/math.ts',
    `${math}\`\`\``,
    '',
    'and a new file:',
    '',
    '```ts:src/clip.ts',
    `${fresh}\`\`\``,
    '',
    'Then run:',
    '',
    '```sh',
    'npm test',
    '```',
    '',
  ].join('\n')

  step('13. clipboard: an answer on the clipboard, Radium: Apply Answer from Clipboard: reviewed in the chat view (the block without a path listed), Accept all, Apply: the files on disk', async () => {
    await writeClipboard(answer)
    assert.equal(await readClipboard(), answer)
    await open('math.ts')
    await runCommand('Radium: Apply Answer from Clipboard')
    const said = toast('the answer changes src/math.ts, src/clip.ts')
    await said.waitFor()
    assert.match(await said.innerText(), /1 block without a path \(#3 sh, 1 line\) is not applied/)
    await chat().locator('.notice', { hasText: 'answer from the clipboard: 3 code blocks' }).waitFor()
    await chat().locator('.notice', { hasText: 'block #3 has no path: not applied (npm test)' }).waitFor()
    const review = chat().locator('.review').last()
    await review.locator('.review-title', { hasText: 'Review: 2 file(s)' }).waitFor()
    assert.equal(await review.locator('.hunk').count(), 2)
    await review.locator('.file-link', { hasText: 'src/clip.ts (new file)' }).waitFor()
    await review.locator('.file-link', { hasText: 'src/math.ts' }).click()
    const diff = page().locator('.monaco-diff-editor').first()
    await diff.waitFor()
    await until('the diff shows the proposal', async () => (await h.text(diff.locator('.editor.modified .view-lines'))).includes('// Subtracts b from a.'))
    await screenshot('clipboard-review')
    await review.locator('button', { hasText: 'Accept all' }).click()
    await until('both accepted', async () => (await review.locator('.hunk.accepted').count()) === 2)
    await review.locator('button', { hasText: 'Apply' }).click()
    await review.locator('.review-title', { hasText: 'applied 2 of 2 hunk(s) to src/math.ts, src/clip.ts' }).waitFor()
    await until('math.ts on disk', () => disk('src/math.ts') === math)
    await until('clip.ts on disk', () => fs.existsSync(path.join(p.ws, 'src/clip.ts')) && disk('src/clip.ts') === fresh)
    await until('the review diff closed', async () => (await page().locator('.monaco-diff-editor').count()) === 0)
    await until('math.ts in its editor', async () => (await h.text(h.activeEditorLines())).includes('// Subtracts b from a.'))
    await screenshot('clipboard-applied')
    await clearNotifications()
  })

  step('13b. clipboard: Radium: Undo Last Change takes the whole answer back (one step: the new file removed, math.ts as it was)', async () => {
    await runCommand('Radium: Undo Last Change')
    await toast('undid record of 2 files (src/clip.ts, src/math.ts)').waitFor()
    await until('math.ts on disk is back', () => disk('src/math.ts') === files['src/math.ts'])
    await until('clip.ts is gone', () => !fs.existsSync(path.join(p.ws, 'src/clip.ts')))
    await until('math.ts in its editor is back', async () => !(await h.text(h.activeEditorLines())).includes('// Subtracts b from a.'))
    await screenshot('clipboard-undone')
    await clearNotifications()
  })
}
