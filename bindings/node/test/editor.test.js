'use strict'
// Editor integration and edit tools through the Node door: the shared
// vectors, an agent step that does not block the event loop, applying a
// block, and the dog-tag rewind scenario.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { Engine } = require('..')
const { ticked } = require('./helpers')

const repo = path.resolve(__dirname, '..', '..', '..')

function tempdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-'))
}

test('the shared request vectors give the expected responses', () => {
  const engine = new Engine()
  const lines = fs.readFileSync(path.join(repo, 'tests/vectors/requests.txt'), 'utf8').trimEnd().split('\n')
  assert.ok(lines.length >= 60)
  for (let i = 0; i < lines.length; i += 2) {
    const got = engine.request(JSON.parse(lines[i]))
    assert.deepEqual(got, JSON.parse(lines[i + 1]), lines[i])
  }
})

test('a selection sent to the example agent, without blocking, then applied', async () => {
  const ws = tempdir()
  fs.mkdirSync(path.join(ws, '.radium'))
  fs.mkdirSync(path.join(ws, 'src'))
  fs.writeFileSync(
    path.join(ws, '.radium/agents.toml'),
    `[[agents]]\nid = "example"\ncommand = ["/bin/sh", "-c", "sleep 0.3; exec ${repo}/examples/agents/example-agent.sh"]\n`,
  )
  const engine = new Engine({ workspace: ws, radium_home: path.join(ws, '.home') })
  assert.equal(engine.request({ command: 'trust', args: { path: ws } }).data.trusted, true)
  const buffer = 'use std::io;\n\nfn main() {\n    println!("hi");\n}\n'
  let ticks = 0
  const timer = setInterval(() => ticks++, 10)
  const started = Date.now()
  const pending = engine.requestAsync({
    command: 'step',
    args: {
      agent: 'example',
      prompt: 'review',
      context: {
        file_path: path.join(ws, 'src/main.rs'),
        selection: 'fn main() {\n    println!("hi");\n}',
        workspace: ws,
        selection_range: { start_line: 3, end_line: 5 },
      },
    },
  })
  const response = await pending
  const ms = Date.now() - started
  clearInterval(timer)
  assert.equal(response.ok, true, JSON.stringify(response))
  ticked(ticks, ms, 10, 'during the step')
  const block = response.data.code_blocks[0]
  assert.equal(block.file_path, 'src/main.rs')
  assert.equal(block.content, '// reviewed by the example agent\nfn main() {\n    println!("hi");\n}\n')
  // Apply to the (unsaved) buffer text: the engine returns the new text and a diff.
  const applied = engine.request({ command: 'apply', args: { content: block.content, text: buffer, start_line: 3, end_line: 5 } })
  assert.equal(applied.ok, true)
  assert.equal(applied.data.new_text, 'use std::io;\n\n// reviewed by the example agent\nfn main() {\n    println!("hi");\n}\n')
  assert.match(applied.data.diff, /^--- a\/buffer\n\+\+\+ b\/buffer\n/)
  assert.match(applied.data.diff, /\n\+\/\/ reviewed by the example agent\n/)
  // An invalid context is refused with the rule it broke.
  const bad = await engine.requestAsync({ command: 'step', args: { agent: 'example', context: { file_path: 'rel.rs' } } })
  assert.equal(bad.code, 'refused')
  assert.match(bad.error, /file_path: must be an absolute path/)
  fs.rmSync(ws, { recursive: true, force: true })
})

test('edit tools and the dog-tag rewind through the Node door', () => {
  const ws = tempdir()
  fs.writeFileSync(path.join(ws, 'file.ts'), 'const x = "A";\n')
  const engine = new Engine({ workspace: ws, radium_home: path.join(ws, '.home') })
  const r1 = engine.request({ command: 'str-replace', args: { path: 'file.ts', old: 'A', new: 'B' } })
  assert.equal(r1.ok, true, JSON.stringify(r1))
  const r2 = engine.request({ command: 'str-replace', args: { path: 'file.ts', old: 'B', new: 'C' }, tag: r1.tag })
  assert.notEqual(r2.tag, r1.tag)
  const v = engine.request({ command: 'view', args: { path: 'file.ts' }, tag: r1.tag })
  assert.deepEqual(v.warnings, ['conversation rewind detected. Undoing 1 operation(s).', '  undone: str-replace (file.ts) [seq:2]'])
  assert.equal(v.tag, r1.tag)
  assert.equal(fs.readFileSync(path.join(ws, 'file.ts'), 'utf8'), 'const x = "B";\n')
  fs.rmSync(ws, { recursive: true, force: true })
})

test('cancel stops a requestAsync step and kills its agent', async () => {
  const ws = tempdir()
  const home = path.join(ws, '.home')
  fs.mkdirSync(home)
  const pidFile = path.join(ws, 'pid')
  fs.writeFileSync(
    path.join(home, 'agents.toml'),
    `[[agents]]\nid = "sleepy"\ncommand = ["/bin/sh", "-c", "echo $$ > '${pidFile}'; exec sleep 60"]\ntimeout = "90s"\n`,
  )
  const engine = new Engine({ workspace: ws, radium_home: home })
  const pending = engine.requestAsync({ command: 'step', args: { agent: 'sleepy' }, id: 'vscode-step-1' })
  const started = Date.now()
  while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '') {
    assert.ok(Date.now() - started < 10000, 'the agent never started')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim())
  assert.deepEqual(engine.request({ command: 'cancel', args: { id: 'other' } }), {
    ok: true,
    data: { id: 'other', cancelled: 0 },
  })
  assert.deepEqual(engine.request({ command: 'cancel', args: { id: 'vscode-step-1' } }), {
    ok: true,
    data: { id: 'vscode-step-1', cancelled: 1 },
  })
  const response = await pending
  assert.deepEqual(response, { ok: false, code: 'cancelled', error: 'request `vscode-step-1` was cancelled' })
  const alive = () => {
    try {
      process.kill(pid, 0)
      return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')
    } catch {
      return false
    }
  }
  while (alive()) {
    assert.ok(Date.now() - started < 10000, `the agent (pid ${pid}) survived the cancel`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.equal(engine.request({ command: 'cancel', args: { id: 'vscode-step-1' } }).data.cancelled, 0)
})
