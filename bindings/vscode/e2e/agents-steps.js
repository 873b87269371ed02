'use strict'
// The e2e step of "Radium: Agents…" (run.js runs it after the others): the
// chat view's title bar button opens a quick pick of radium's catalogue and
// the workspace's agents with their status; picking one that is not
// installed asks to install it with an Install button (dismissed here: the
// install itself is checked by scripts/test-agents.sh gemini-catalogue).

const assert = require('node:assert/strict')

module.exports = (step, h) => {
  step('16. Radium: Agents… from the chat view: the catalogue with each agent\'s status; one not installed offers Install', async () => {
    const page = h.page()
    const rows = () => page.locator('.quick-input-widget .monaco-list-row')
    // The chat view is open from the chat steps; its title bar has the button.
    const button = page.locator('.action-label[aria-label^="Agents…"]').first()
    await button.waitFor({ timeout: 10000 })
    await button.click()
    await rows().filter({ hasText: 'codex' }).first().waitFor()
    const codex = rows().filter({ hasText: 'codex' }).first()
    assert.match(await h.text(codex), /not installed: @zed-industries\/codex-acp@\d+\.\d+\.\d+/)
    const example = rows().filter({ hasText: 'example' }).first()
    assert.match(await h.text(example), /configured in /)
    await h.screenshot('agents')
    await page.keyboard.type('codex')
    await rows().first().filter({ hasText: 'codex' }).waitFor()
    await page.keyboard.press('Enter')
    const ask = h.toast('install codex')
    await ask.waitFor()
    await ask.locator('.monaco-button', { hasText: 'Install' }).waitFor()
    await h.screenshot('agents-install-asked')
    await h.clearNotifications()
  })
}
