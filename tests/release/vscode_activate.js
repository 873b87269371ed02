'use strict'
// One e2e step for scripts/test-release.sh: in a code-server where the
// release's .vsix was installed, "Radium: Show Version" (run from the
// command palette, as a person would) activates the extension, which says
// it loaded its bundled module and that its `rad` is reachable. Arguments:
// PORT WORKSPACE PLAYWRIGHT_CORE CHROMIUM VERSION SCREENSHOT. Exits 1 with
// the reason on a failure; the browser is closed in any case.

const fs = require('node:fs')
const [port, ws, playwright, chromiumPath, version, screenshot] = process.argv.slice(2)
const { chromium } = require(playwright)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function main() {
  const profile = fs.mkdtempSync(`${ws}-browser-`)
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
  })
  const page = browser.pages()[0] ?? (await browser.newPage())
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`)
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 })
    const expected = `Radium ${version} (ABI 1), bundled module, rad reachable`
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: expected })
    // Right after start-up the palette may not list the extension's commands
    // yet, and the welcome page, opening late on a loaded machine, takes the
    // focus and closes the palette: every step of an attempt is retried.
    const end = Date.now() + 100000
    for (;;) {
      try {
        await page.keyboard.press('F1')
        const input = page.locator('.quick-input-widget .quick-input-box input')
        await input.waitFor({ state: 'visible', timeout: 5000 })
        await input.fill('>Radium: Show Version', { timeout: 5000 })
        const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Radium: Show Version' }).first()
        await row.waitFor({ timeout: 3000 })
        await page.keyboard.press('Enter')
        await toast.waitFor({ timeout: 15000 })
        break
      } catch (e) {
        await page.keyboard.press('Escape')
        if (Date.now() > end) {
          const seen = await page.locator('.notifications-toasts').innerText().catch(() => '')
          throw new Error(`no notification "${expected}" (seen: ${JSON.stringify(seen)}): ${e.message}`)
        }
        await sleep(500)
      }
    }
    await sleep(300) // let the toast finish fading in
    await page.screenshot({ path: screenshot })
    console.log(`vscode: the extension activated: "${expected}"`)
  } catch (e) {
    await page.screenshot({ path: screenshot }).catch(() => {})
    throw e
  } finally {
    await browser.close()
    fs.rmSync(profile, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(`vscode_activate: ${e.message}`)
  process.exit(1)
})
