// Clipboard mode from the Node door, under Xvfb (scripts/test-clipboard.sh):
//   node tests/clipboard/node_door.mjs WORKSPACE
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import assert from 'node:assert/strict'

const require = createRequire(import.meta.url)
const { Engine } = require('../../bindings/node/index.js')
const ws = process.argv[2]
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

// The event loop keeps turning while the clipboard is read and written.
let ticks = 0
const timer = setInterval(() => ticks++, 1)

const sent = await engine.requestAsync({ command: 'clipboard-send', args: { path: 'src/lib.c', print: false } })
assert.equal(sent.ok, true, JSON.stringify(sent))
assert.match(xclip(['-o', '-selection', 'clipboard']), /^`src\/lib\.c`:\n\n```c:src\/lib\.c\nint one/)

xclip(['-i', '-selection', 'clipboard'], 'Two files:\n\n```c:src/lib.c\nint one(void) { return 11; }\n```\n\n```c:src/other.c\nint other(void) { return 0; }\n```\n\n```sh\nmake\n```\n')
const listed = await engine.requestAsync({ command: 'clipboard-receive' })
assert.deepEqual(listed.data.blocks.map((b) => b.status), ['changed', 'new', 'no path'])
const applied = await engine.requestAsync({ command: 'clipboard-receive', args: { apply: true } })
assert.equal(applied.data.applied, true, JSON.stringify(applied))
assert.match(readFileSync(`${ws}/src/lib.c`, 'utf8'), /return 11/)
const undo = await engine.requestAsync({ command: 'undo', tag: applied.tag })
assert.deepEqual(undo.data.undone.files.sort(), ['src/lib.c', 'src/other.c'])
assert.equal(existsSync(`${ws}/src/other.c`), false)
assert.match(readFileSync(`${ws}/src/lib.c`, 'utf8'), /return 1;/)

xclip(['-i', '-selection', 'clipboard'], '')
const empty = await engine.requestAsync({ command: 'clipboard-receive' })
assert.equal(empty.ok, true, JSON.stringify(empty))
assert.equal(empty.data.blocks.length, 0)
clearInterval(timer)
assert.ok(ticks > 0, 'the event loop turned')
console.log('Node door: clipboard ok')
