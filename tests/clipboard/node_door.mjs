// Clipboard mode from the Node door, under Xvfb (scripts/test-clipboard.sh):
//   node tests/clipboard/node_door.mjs WORKSPACE
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import assert from 'node:assert/strict'

const require = createRequire(import.meta.url)
const { Engine } = require('../../bindings/node/index.js')
const ws = process.argv[2]
const LIB = 'int one(void) { return 1; }\nint two(void) { return 2; }\nint three(void) { return 3; }\n'
const engine = new Engine({ workspace: ws })
// `xclip -i` leaves a process serving the selection: its output is ignored
// so that process does not hold the pipe this call would wait on.
if (process.argv[3] === 'nodisplay') {
  const r = await engine.requestAsync({ command: 'clipboard-send', args: { path: 'src/lib.c' } })
  assert.equal(r.ok, false)
  assert.equal(r.code, 'clipboard')
  assert.match(r.error, /neither DISPLAY \(X11\) nor WAYLAND_DISPLAY/)
  console.log('Node door: no display is a clear error')
  process.exit(0)
}
const xclip = (args, input) =>
  execFileSync('xclip', args, { input, encoding: 'utf8', stdio: ['pipe', input === undefined ? 'pipe' : 'ignore', 'ignore'] })
// Puts `text` on the clipboard with xclip and waits (up to 30 s) until the
// clipboard shows it: `xclip -i` returns before the process it leaves in the
// background has told the X server it owns the clipboard, so on a busy
// machine a reader right after it would still get the old owner's text.
async function copy(text) {
  xclip(['-i', '-selection', 'clipboard'], text)
  for (let i = 0; i < 300; i++) {
    let shown = null
    try { shown = xclip(['-o', '-selection', 'clipboard']) } catch { /* no owner yet */ }
    if (shown === text) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(`xclip did not take the clipboard within 30 s: ${JSON.stringify(text)}`)
}

// The event loop keeps turning while the clipboard is read and written.
let ticks = 0
const timer = setInterval(() => ticks++, 1)

const sent = await engine.requestAsync({ command: 'clipboard-send', args: { path: 'src/lib.c', print: false } })
assert.equal(sent.ok, true, JSON.stringify(sent))
assert.match(xclip(['-o', '-selection', 'clipboard']), /^`src\/lib\.c`:\n\n```c:src\/lib\.c\nint one/)
// Nothing copied since: the engine's own text is not an answer.
const own = await engine.requestAsync({ command: 'clipboard-receive', args: { apply: true } })
assert.equal(own.code, 'clipboard', JSON.stringify(own))
assert.match(own.error, /still holds the text radium copied/)

// A block answering line 1 (as a send of that line asks) replaces line 1 only.
await copy('Two files:\n\n```c:src/lib.c lines=1\nint one(void) { return 11; }\n```\n\n```c:src/other.c\nint other(void) { return 0; }\n```\n\n```sh\nmake\n```\n')
const listed = await engine.requestAsync({ command: 'clipboard-receive' })
assert.deepEqual(listed.data.blocks.map((b) => b.status), ['changed', 'new', 'no path'])
const applied = await engine.requestAsync({ command: 'clipboard-receive', args: { apply: true } })
assert.equal(applied.data.applied, true, JSON.stringify(applied))
assert.equal(readFileSync(`${ws}/src/lib.c`, 'utf8'), LIB.replace('return 1;', 'return 11;'))
const undo = await engine.requestAsync({ command: 'undo', tag: applied.tag })
assert.deepEqual(undo.data.undone.files.sort(), ['src/lib.c', 'src/other.c'])
assert.equal(existsSync(`${ws}/src/other.c`), false)
assert.equal(readFileSync(`${ws}/src/lib.c`, 'utf8'), LIB)

// The same line named as the whole file would delete most of it: refused
// unless `whole_file` asks for it.
await copy('```c:src/lib.c\nint one(void) { return 11; }\n```\n')
const refused = await engine.requestAsync({ command: 'clipboard-receive', args: { apply: true } })
assert.equal(refused.code, 'edit', JSON.stringify(refused))
assert.match(refused.error, /would delete most of the file/)
assert.equal(readFileSync(`${ws}/src/lib.c`, 'utf8'), LIB)
const forced = await engine.requestAsync({ command: 'clipboard-receive', args: { apply: true, whole_file: true } })
assert.equal(forced.data.applied, true, JSON.stringify(forced))
assert.equal(readFileSync(`${ws}/src/lib.c`, 'utf8'), 'int one(void) { return 11; }\n')
await engine.requestAsync({ command: 'undo', tag: forced.tag })
assert.equal(readFileSync(`${ws}/src/lib.c`, 'utf8'), LIB)

await copy('')
const empty = await engine.requestAsync({ command: 'clipboard-receive' })
assert.equal(empty.ok, true, JSON.stringify(empty))
assert.equal(empty.data.blocks.length, 0)
clearInterval(timer)
assert.ok(ticks > 0, 'the event loop turned')
console.log('Node door: clipboard ok')
