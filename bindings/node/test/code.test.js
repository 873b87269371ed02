'use strict'
// Code intelligence through the Node door: read-var answered by a language
// server (the scripted one of tests/lsp, started by the engine) without
// blocking the event loop, modify-var as one step and undo, errors.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { Engine } = require('..')
const { ticked } = require('./helpers')

const repo = path.resolve(__dirname, '..', '..', '..')

function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-node-code-'))
  fs.mkdirSync(path.join(dir, 'ws'))
  fs.mkdirSync(path.join(dir, 'home'))
  const server = path.join(repo, 'tests/lsp/scripted_server.py')
  fs.writeFileSync(
    path.join(dir, 'home/lsp.toml'),
    `[python]\ncommand = ["python3", ${JSON.stringify(server)}, "--mode", "progress"]\n`,
  )
  fs.writeFileSync(path.join(dir, 'ws/app.py'), 'from util import total\nprint(total)\n')
  fs.writeFileSync(path.join(dir, 'ws/util.py'), 'total = 1\n')
  const engine = new Engine({ workspace: path.join(dir, 'ws'), radium_home: path.join(dir, 'home') })
  return { dir, engine }
}

test('read-var through a language server leaves the event loop free', async () => {
  const { dir, engine } = project()
  let ticks = 0
  const timer = setInterval(() => ticks++, 10)
  const started = Date.now()
  const response = await engine.requestAsync({ command: 'read-var', args: { file: 'app.py', var: 'total' } })
  const ms = Date.now() - started
  clearInterval(timer)
  assert.equal(response.ok, true, JSON.stringify(response))
  assert.equal(response.data.engine, 'lsp')
  assert.deepEqual(
    response.data.occurrences.map((o) => `${o.file}:${o.line}:${o.column}`),
    ['app.py:1:18', 'app.py:2:7', 'util.py:1:1'],
  )
  assert.equal(response.data.definition.file, 'util.py')
  ticked(ticks, ms, 10, 'while the server started and indexed')
  const python = engine.request({ command: 'lsp-list' }).data.servers.find((s) => s.language === 'python')
  assert.equal(python.running, true)
  fs.rmSync(dir, { recursive: true, force: true })
})

test('modify-var is one step that undo takes back; errors', async () => {
  const { dir, engine } = project()
  const r = await engine.requestAsync({ command: 'modify-var', args: { file: 'util.py', from: 'total', to: 'sum_' } })
  assert.equal(r.ok, true, JSON.stringify(r))
  assert.equal(fs.readFileSync(path.join(dir, 'ws/app.py'), 'utf8'), 'from util import sum_\nprint(sum_)\n')
  assert.equal(engine.request({ command: 'undo' }).ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'ws/app.py'), 'utf8'), 'from util import total\nprint(total)\n')
  const preview = await engine.requestAsync({
    command: 'modify-var',
    args: { file: 'util.py', from: 'total', to: 'sum_', apply: false },
  })
  assert.equal(preview.data.applied, false)
  assert.match(preview.data.preview[0].diff, /^-from util import total$/m)
  assert.equal(fs.readFileSync(path.join(dir, 'ws/util.py'), 'utf8'), 'total = 1\n')
  const missing = await engine.requestAsync({ command: 'read-var', args: { file: 'nope.py', var: 'x' } })
  assert.equal(missing.code, 'not_found')
  const outside = await engine.requestAsync({ command: 'rename-file', args: { from: 'app.py', to: '../x.py' } })
  assert.equal(outside.code, 'outside_project')
  fs.rmSync(dir, { recursive: true, force: true })
})
