'use strict'
// Code intelligence's steps of the e2e suite (run.js registers them after
// clipboard mode's), in the Python files of the fixture, answered by the
// scripted language server of tests/lsp (fixture.js configures it in
// RADIUM_HOME's lsp.toml): **Radium: Find References** on a name, its quick
// pick (the definition first, the engine in the title), a pick that jumps to
// the name after an emoji; **Radium: Rename Symbol** with a bad name shown
// as such, then a good one, reviewed in the chat view, Accept all, Apply:
// three files on disk; **Radium: Undo Last Change** takes all three back.

const assert = require('node:assert/strict')

const { files } = require('./fixture')

module.exports = function codeSteps(step, h) {
  const { runCommand, openFile, screenshot, until, disk, text, activeEditorLines, toast, clearNotifications, log, outputShows } = h
  const page = () => h.page()
  const chat = () => page().frameLocator('iframe.webview.ready').frameLocator('#active-frame')
  const quickRows = () => page().locator('.quick-input-widget .monaco-list-row')
  const input = () => page().locator('.quick-input-widget .quick-input-box input')
  const cursorAt = () => page().locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first()

  async function open(name) {
    try {
      await openFile(name)
    } catch {
      await page().keyboard.press('Escape')
      await openFile(name)
    }
  }

  /** Ctrl+G line:column (VS Code's column, 1-based). */
  async function goTo(line, column) {
    await page().keyboard.press('Control+G')
    await input().waitFor({ state: 'visible' })
    await page().keyboard.type(`${line}:${column}`)
    await page().keyboard.press('Enter')
    await page().locator('.quick-input-widget').waitFor({ state: 'hidden' })
    await until(`the cursor on ${line}:${column}`, async () => (await cursorAt().innerText()).startsWith(`Ln ${line}, Col ${column}`))
  }

  const renamed = {
    'app.py': files['app.py'].replace(/total/g, 'amount'),
    'util.py': files['util.py'].replace(/total/g, 'amount'),
    'more.py': files['more.py'].replace(/total/g, 'amount'),
  }

  step('14. code: Radium: Find References on a name: a quick pick of its references (the definition first, the server in the title); a pick jumps to the name after an emoji', async () => {
    // The chat's prompt box may have the focus (step 13), where F1 does not reach the workbench.
    await page().locator('.editor-group-container.active .monaco-editor .view-lines').first().click()
    await open('more.py')
    await goTo(2, 7) // in `total` of `x = total + 1`
    // The editor's context menu has both commands in its Radium submenu.
    await page().locator('.editor-group-container.active .monaco-editor .view-lines').first().click({ button: 'right', position: { x: 60, y: 8 } })
    await page().locator('.monaco-menu .action-item', { hasText: /^Radium$/ }).first().hover()
    await page().locator('.monaco-menu .action-item', { hasText: 'Find References' }).filter({ hasNotText: 'All' }).first().waitFor()
    await page().locator('.monaco-menu .action-item', { hasText: 'Rename Symbol' }).first().waitFor()
    await screenshot('code-context-menu')
    await page().keyboard.press('Escape')
    await page().keyboard.press('Escape')
    await goTo(2, 7)
    await runCommand('Radium: Find References')
    const title = page().locator('.quick-input-widget .quick-input-title', { hasText: 'references of total' })
    await title.waitFor({ timeout: 20000 }) // the server starts cold
    assert.equal(await title.innerText(), 'Radium: 5 references of total in 3 files · lsp (python3)')
    await until('five rows', async () => (await quickRows().count()) === 5)
    // Each row: the label, the description (file:line) and the detail (the line).
    const rows = []
    for (let i = 0; i < 5; i++) {
      const row = quickRows().nth(i)
      const part = async (css) => (await row.locator(css).first().innerText()).trim()
      rows.push([await part('.label-name'), await part('.label-description'), await part('.quick-input-list-label-meta')])
    }
    log(`references: ${rows.map((r) => r.join(' ')).join(' | ')}`)
    assert.deepEqual(rows, [
      ['definition', 'util.py:1', 'total = 1'],
      ['reference', 'app.py:1', 'from util import total'],
      ['reference', 'app.py:3', 'print("😀", total)'],
      ['reference', 'more.py:1', 'from util import total'],
      ['reference', 'more.py:2', 'x = total + 1'],
    ])
    await screenshot('code-references')
    await quickRows().filter({ hasText: 'app.py:3' }).first().click()
    await page().locator('.tabs-container .tab.active', { hasText: 'app.py' }).waitFor()
    await page().locator('.quick-input-widget').waitFor({ state: 'hidden' })
    // On `total`, after the emoji: selecting to the end of the line takes `total)`, 6 characters.
    await until('the cursor on line 3', async () => (await cursorAt().innerText()).startsWith('Ln 3,'))
    await page().keyboard.press('Shift+End')
    await until('`total)` selected', async () => /\(6 selected\)/.test(await cursorAt().innerText()))
    log(`after the pick: ${await cursorAt().innerText()}`)
    await screenshot('code-references-jumped')
    await page().keyboard.press('ArrowLeft') // the cursor back at the start of `total`
  })

  step('15. code: Radium: Rename Symbol: a bad name is said in the box; the new name reviewed in the chat view (three files), Accept all, Apply: the files on disk', async () => {
    await runCommand('Radium: Rename Symbol')
    await page().locator('.quick-input-widget', { hasText: 'rename `total` (line 3 of app.py)' }).waitFor()
    assert.equal(await input().inputValue(), 'total')
    await page().keyboard.type('1x-y') // replaces the selected name
    await page().locator('.quick-input-widget', { hasText: 'is not a name' }).waitFor()
    await screenshot('code-rename-bad-name')
    await page().keyboard.press('Control+A')
    await page().keyboard.type('amount')
    await until('the message is gone', async () => !(await page().locator('.quick-input-widget').innerText()).includes('is not a name'))
    await page().keyboard.press('Enter')
    await toast('review the rename `total` → `amount` in the chat view: app.py, more.py, util.py').waitFor({ timeout: 20000 })
    await chat().locator('.notice', { hasText: 'rename `total` → `amount`: 5 edits in 3 files · lsp (python3)' }).waitFor()
    const review = chat().locator('.review').last()
    await review.locator('.review-title', { hasText: 'Review: 3 file(s)' }).waitFor()
    assert.equal(await review.locator('.hunk').count(), 4)
    for (const name of ['app.py', 'more.py', 'util.py']) assert.equal(disk(name), files[name], `${name}: nothing written before the review`)
    await review.locator('.file-link', { hasText: 'app.py' }).click()
    const diff = page().locator('.monaco-diff-editor').first()
    await diff.waitFor()
    await until('the diff shows the rename', async () => (await text(diff.locator('.editor.modified .view-lines'))).includes('print("😀", amount)'))
    await screenshot('code-rename-review')
    await review.locator('button', { hasText: 'Accept all' }).click()
    await until('all accepted', async () => (await review.locator('.hunk.accepted').count()) === 4)
    await review.locator('button', { hasText: 'Apply' }).click()
    await review.locator('.review-title', { hasText: 'applied 4 of 4 hunk(s) to app.py, more.py, util.py' }).waitFor()
    for (const name of ['app.py', 'more.py', 'util.py']) await until(`${name} renamed on disk`, () => disk(name) === renamed[name])
    await until('the review diff closed', async () => (await page().locator('.monaco-diff-editor').count()) === 0)
    await until('app.py in its editor', async () => (await text(activeEditorLines())).includes('from util import amount'))
    await screenshot('code-rename-applied')
    await clearNotifications()
  })

  step('15b. code: Radium: Undo Last Change takes the rename back in all three files', async () => {
    await runCommand('Radium: Undo Last Change')
    await toast('undid record of 3 files (app.py, more.py, util.py)').waitFor()
    for (const name of ['app.py', 'more.py', 'util.py']) await until(`${name} back on disk`, () => disk(name) === files[name])
    await until('app.py in its editor is back', async () => (await text(activeEditorLines())).includes('from util import total'))
    await screenshot('code-rename-undone')
    await clearNotifications()
  })

  step('15c. the engine\'s log: Radium: Show Engine Log shows its entries (the undo just made) in the Radium output channel', async () => {
    await runCommand('Radium: Show Engine Log')
    // The end of the channel is in view: the undo of step 15b is the engine's last entry.
    await outputShows('info  request: undo done in')
    await screenshot('engine-log')
    await runCommand('Radium: Open Chat') // the output had the panel: the chat comes back
  })
}
