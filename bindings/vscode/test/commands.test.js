'use strict'
// The editor commands (Send Selection to Agent, Apply Code Block) against a
// stand-in `vscode` module, with the real native engine and the bundled
// example agent in a temporary, trusted workspace.
//   npm run compile && node --test test/

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const Module = require('node:module')

const root = path.join(__dirname, '..')
const repo = path.resolve(root, '..', '..')
const exampleAgent = path.join(repo, 'examples/agents/example-agent.sh')
const { loadRadium } = require('../out/native.js')

// ---- the stand-in `vscode` module: only what the commands use ----

class Position {
  constructor(line, character) {
    this.line = line
    this.character = character
  }
}

class Range {
  constructor(start, end) {
    this.start = start
    this.end = end
  }
}

class Uri {
  constructor(scheme, p, query = '') {
    this.scheme = scheme
    this.path = p
    this.query = query
  }
  static file(p) {
    return new Uri('file', p)
  }
  static from({ scheme, path: p = '', query = '' }) {
    return new Uri(scheme, p, query)
  }
  get fsPath() {
    return this.path
  }
  toString() {
    return `${this.scheme}:${this.path}${this.query ? `?${this.query}` : ''}`
  }
}

class Disposable {
  constructor(fn) {
    this.fn = fn
  }
  dispose() {
    this.fn()
  }
}

class TabInputTextDiff {
  constructor(original, modified) {
    this.original = original
    this.modified = modified
  }
}

class WorkspaceEdit {
  constructor() {
    this.edits = []
  }
  replace(uri, range, text) {
    this.edits.push({ uri, range, text })
  }
}

/** Offsets <-> positions with VS Code's line breaks (\r\n, \n, \r). */
function lineStarts(text) {
  const starts = [0]
  for (const m of text.matchAll(/\r\n|\r|\n/g)) starts.push(m.index + m[0].length)
  return starts
}

function offsetAt(text, pos) {
  return lineStarts(text)[pos.line] + pos.character
}

class Document {
  constructor(uri, languageId, text, { isUntitled = false } = {}) {
    this.uri = uri
    this.languageId = languageId
    this.text = text
    this.isUntitled = isUntitled
    this.isDirty = true
    this.version = 1
  }
  getText() {
    return this.text
  }
  positionAt(offset) {
    const starts = lineStarts(this.text)
    let line = 0
    while (line + 1 < starts.length && starts[line + 1] <= offset) line++
    return new Position(line, offset - starts[line])
  }
}

/** Applies a WorkspaceEdit's replacements to a text (as VS Code would). */
function applied(text, edit) {
  const parts = edit.edits
    .map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), text: e.text }))
    .sort((a, b) => b.start - a.start)
  for (const p of parts) text = text.slice(0, p.start) + p.text + text.slice(p.end)
  return text
}

const state = {}

function reset({ settings = {}, editor, pick, answerPrompt = 'Apply', cancelAfterMs } = {}) {
  Object.assign(state, {
    settings: { 'radium.radiumHome': home, 'radium.surroundingLines': 2, ...settings },
    editor,
    pick,
    answerPrompt,
    cancelAfterMs,
    info: [],
    warnings: [],
    errors: [],
    shown: [],
    updates: [],
    prompts: [],
    picks: [],
    progress: [],
    executed: [],
    edits: [],
    requests: [],
  })
  if (channel) channel.lines = []
}

let channel
let provider
const commands = {}

const vscode = {
  Position,
  Range,
  Uri,
  WorkspaceEdit,
  Disposable,
  TabInputTextDiff,
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  commands: {
    registerCommand: (id, fn) => {
      commands[id] = fn
      return { dispose() {} }
    },
    executeCommand: async (id, ...args) => {
      state.executed.push({ id, args })
    },
  },
  window: {
    get activeTextEditor() {
      return state.editor
    },
    showInformationMessage: (message, ...rest) => {
      if (rest.length > 0) {
        state.prompts.push({ message, rest })
        return Promise.resolve(state.answerPrompt)
      }
      state.info.push(message)
      return Promise.resolve(undefined)
    },
    showWarningMessage: (message) => {
      state.warnings.push(message)
      return Promise.resolve(undefined)
    },
    showTextDocument: async (document) => {
      state.shown.push(document.uri.toString())
      return state.editor
    },
    tabGroups: {
      get all() {
        // The diff editors opened by vscode.diff, as tabs.
        const tabs = state.executed.filter((e) => e.id === 'vscode.diff').map((e) => ({ input: new TabInputTextDiff(e.args[0], e.args[1]) }))
        return [{ tabs }]
      },
      close: async (tabs) => {
        state.closed = (state.closed ?? 0) + tabs.length
        return true
      },
    },
    showErrorMessage: (message) => {
      state.errors.push(message)
      return Promise.resolve(undefined)
    },
    showQuickPick: async (items, options) => {
      state.picks.push({ labels: items.map((i) => i.label), options, items })
      return state.pick === undefined ? undefined : items[state.pick]
    },
    createOutputChannel: (name) => {
      channel = { name, lines: [], appendLine(l) { this.lines.push(l) }, show() {}, dispose() {} }
      return channel
    },
    withProgress: async (options, task) => {
      state.progress.push(options)
      const listeners = []
      const token = {
        isCancellationRequested: false,
        onCancellationRequested(fn) {
          listeners.push(fn)
          return { dispose() {} }
        },
      }
      if (state.cancelAfterMs !== undefined) {
        setTimeout(() => {
          token.isCancellationRequested = true
          for (const fn of listeners) fn()
        }, state.cancelAfterMs)
      }
      return task({ report() {} }, token)
    },
  },
  workspace: {
    get workspaceFolders() {
      return state.folders
    },
    getWorkspaceFolder: (uri) =>
      (state.folders ?? []).find((f) => uri.scheme === 'file' && (uri.fsPath + '/').startsWith(f.uri.fsPath + '/')),
    getConfiguration: (section) => ({
      get: (key, fallback) => {
        const full = `${section}.${key}`
        return full in state.settings ? state.settings[full] : fallback
      },
      update: async (key, value, target) => {
        state.updates.push({ key: `${section}.${key}`, value, target })
        state.settings[`${section}.${key}`] = value
      },
    }),
    registerTextDocumentContentProvider: (scheme, p) => {
      provider = { scheme, p }
      return { dispose() {} }
    },
    get textDocuments() {
      return state.editor ? [state.editor.document] : []
    },
    applyEdit: async (edit) => {
      state.edits.push(edit)
      const doc = state.editor.document
      for (const e of edit.edits) assert.equal(e.uri.toString(), doc.uri.toString())
      doc.text = applied(doc.text, edit)
      doc.version++
      return true
    },
  },
}

function editorOf(document, start, end = start) {
  return { document, selection: { start: new Position(...start), end: new Position(...end) } }
}

// ---- the workspace, the engine's trust, and the extension ----

let ws
let home
let extension
let resolveFilename
const spied = {}

before(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'radium-vscode-')))
  home = path.join(ws, '.home')
  fs.mkdirSync(path.join(ws, '.radium'))
  fs.mkdirSync(path.join(ws, 'src'))
  fs.writeFileSync(
    path.join(ws, '.radium/two.sh'),
    'printf \'Two ways:\\n\\n```ts\\n// first\\n```\\n\\nor\\n\\n```ts path=src/other.ts\\n// second\\n%s\\n```\\n\' "$RADIUM_EDITOR_SELECTION"\n',
  )
  fs.writeFileSync(
    path.join(ws, '.radium/agents.toml'),
    [
      '[[agents]]',
      'id = "example"',
      `command = [${JSON.stringify(exampleAgent)}]`,
      '[[agents]]',
      'id = "slow"',
      `command = ["/bin/sh", "-c", ${JSON.stringify(`sleep 0.5; exec ${exampleAgent}`)}]`,
      '[[agents]]',
      'id = "fails"',
      'command = ["/bin/sh", "-c", "cat >/dev/null; echo the agent broke >&2; exit 3"]',
      '[[agents]]',
      'id = "late"',
      'command = ["/bin/sh", "-c", "cat >/dev/null; sleep 5"]',
      'timeout = "300ms"',
      '[[agents]]',
      'id = "silent"',
      'command = ["/bin/sh", "-c", "cat >/dev/null; echo no code here"]',
      '[[agents]]',
      'id = "two"',
      `command = ["/bin/sh", ${JSON.stringify(path.join(ws, '.radium/two.sh'))}]`,
      '',
    ].join('\n'),
  )
  state.folders = [{ uri: Uri.file(ws), name: 'ws', index: 0 }]
  const { radium } = loadRadium(root)
  // The engine runs a workspace's agents only once it is trusted; the
  // extension never trusts by itself, so the test does, as a user would.
  const trusted = new radium.Engine({ workspace: ws, radium_home: home }).request({ command: 'trust', args: { path: ws } })
  assert.equal(trusted.ok, true, JSON.stringify(trusted))
  // Record the requests the extension makes (same module instance).
  const proto = radium.Engine.prototype
  spied.proto = proto
  spied.request = proto.request
  spied.requestAsync = proto.requestAsync
  proto.request = function (req) {
    state.requests.push({ how: 'request', req })
    return spied.request.call(this, req)
  }
  proto.requestAsync = function (req) {
    const promise = spied.requestAsync.call(this, req)
    state.requests.push({ how: 'requestAsync', req, promise })
    return promise
  }

  resolveFilename = Module._resolveFilename
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? 'vscode' : resolveFilename.call(this, request, ...rest)
  }
  require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode }
  reset()
  extension = require('../out/extension.js')
  extension.activate({ extensionPath: root, subscriptions: [] })
})

after(() => {
  extension?.deactivate()
  Module._resolveFilename = resolveFilename
  delete require.cache.vscode
  if (spied.proto) Object.assign(spied.proto, { request: spied.request, requestAsync: spied.requestAsync })
  fs.rmSync(ws, { recursive: true, force: true })
})

// The unsaved buffer (the file on disk says something else).
const buffer = [
  "import { readFileSync } from 'fs'",
  '',
  'export function add(a: number, b: number) {',
  '  return a + b',
  '}',
  '',
  'console.log(add(1, 2))',
  '',
].join('\n')
const onDisk = 'export const stale = true\n'
const reviewed = buffer.replace('export function add', '// reviewed by the example agent\nexport function add')

function unsavedDocument() {
  const file = path.join(ws, 'src/main.ts')
  fs.writeFileSync(file, onDisk)
  return new Document(Uri.file(file), 'typescript', buffer)
}

test('without an editor or an answer, the commands say what to do and do not throw', async () => {
  reset()
  await commands['radium.applyCode']()
  await commands['radium.sendSelection']()
  assert.deepEqual(state.info, [
    'Radium: no code block to apply; run "Radium: Send Selection to Agent" first',
    'Radium: open a file and select some code first',
  ])
  assert.deepEqual(state.errors, [])
})

test('Send Selection sends the unsaved buffer\'s context with requestAsync, offers the block; Apply (no preview) edits the buffer', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.previewBeforeApply': false }, editor: editorOf(doc, [2, 0], [5, 0]), pick: 0 })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.requests.length, 2)
  const { how, req } = state.requests[0]
  assert.equal(how, 'requestAsync')
  assert.match(req.id, /^vscode-step-\d+$/)
  assert.deepEqual(req, {
    command: 'step',
    id: req.id,
    args: {
      agent: 'example',
      prompt: '',
      context: {
        file_path: path.join(ws, 'src/main.ts'),
        language: 'typescript',
        selection: 'export function add(a: number, b: number) {\n  return a + b\n}',
        surrounding_lines: "import { readFileSync } from 'fs'\n\n---\n\nconsole.log(add(1, 2))",
        workspace: ws,
        selection_range: { start_line: 3, end_line: 5 },
      },
    },
  })
  assert.deepEqual(state.progress, [{ location: 15, title: 'Radium: asking example…', cancellable: true }])
  // The answer's block is offered at once (a single one too).
  assert.deepEqual(state.picks.map((p) => [p.labels, p.options.title]), [
    [['#1 [typescript] src/main.ts // reviewed by the example agent'], 'Radium: example answered with 1 code block'],
  ])
  assert.equal(channel.name, 'Radium')
  const log = channel.lines.join('\n')
  assert.match(log, /step example: 1 code block\(s\) in \d+ ms \(agent [\d.]+ ms, engine total [\d.]+ ms\)/)
  assert.match(log, /request step example \(vscode-step-\d+\): ok in [\d.]+ ms/)
  assert.match(log, /request apply: ok in [\d.]+ ms/)

  assert.deepEqual(state.executed, [], 'no preview')
  const apply = state.requests.find((r) => r.req.command === 'apply')
  assert.equal(apply.how, 'request')
  assert.deepEqual(apply.req.args, {
    content: '// reviewed by the example agent\nexport function add(a: number, b: number) {\n  return a + b\n}\n',
    text: buffer,
    start_line: 3,
    end_line: 5,
  })
  assert.equal(state.edits.length, 1)
  assert.equal(applied(buffer, state.edits[0]), reviewed)
  // Only the changed line is replaced (one edit, undone by one Ctrl+Z).
  assert.deepEqual(state.edits[0].edits.map((e) => [e.range.start, e.range.end, e.text]), [
    [new Position(2, 0), new Position(2, 0), '// reviewed by the example agent\n'],
  ])
  assert.equal(doc.getText(), reviewed)
  assert.equal(fs.readFileSync(doc.uri.fsPath, 'utf8'), onDisk, 'nothing is written to disk')
  assert.deepEqual(state.info, ['Radium: applied block #1 to main.ts'])

  // Apply Code Block offers the last answer again; Escape does nothing.
  reset({ editor: editorOf(doc, [0, 0]) })
  await commands['radium.applyCode']()
  assert.equal(state.picks.length, 1)
  assert.deepEqual(state.edits, [])
  assert.ok(channel.lines.includes('apply: no block picked'))
})

test('Apply with a preview: a diff against a radium-preview document, then Apply or Discard', async () => {
  const doc = unsavedDocument()
  reset({ editor: editorOf(doc, [2, 0], [5, 0]), pick: 0, answerPrompt: 'Discard' })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.executed.length, 1)
  assert.equal(state.closed, 1, 'the diff editor is closed')
  assert.deepEqual(state.edits, [], 'discarded: no edit')
  assert.equal(doc.getText(), buffer)

  state.answerPrompt = 'Apply'
  state.executed = []
  state.prompts = []
  await commands['radium.applyCode']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.executed.length, 1)
  const [left, right, title] = state.executed[0].args
  assert.equal(state.executed[0].id, 'vscode.diff')
  assert.equal(left, doc.uri)
  assert.equal(right.scheme, 'radium-preview')
  assert.equal(provider.scheme, 'radium-preview')
  assert.equal(provider.p.provideTextDocumentContent(right), reviewed)
  assert.equal(title, 'main.ts ↔ Radium block #1')
  assert.deepEqual(state.prompts, [
    { message: 'Radium: apply block #1 to main.ts (lines 3-5)?', rest: [{ modal: false }, 'Apply', 'Discard'] },
  ])
  assert.equal(state.closed, 2)
  assert.equal(state.edits.length, 1)
  assert.equal(applied(buffer, state.edits[0]), reviewed)
  assert.equal(doc.getText(), reviewed)
  assert.equal(state.shown.at(-1), doc.uri.toString(), 'the document is shown again')
})

test('several blocks: a quick pick chooses one; an untitled buffer is placed in the workspace', async () => {
  const doc = new Document(Uri.from({ scheme: 'untitled', path: 'Untitled-1' }), 'typescript', 'let a = 1\nlet b = 2\n', { isUntitled: true })
  reset({ settings: { 'radium.agent': 'two', 'radium.previewBeforeApply': false }, editor: editorOf(doc, [1, 3], [1, 3]), pick: 1 })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  const context = state.requests[0].req.args.context
  assert.equal(context.file_path, path.join(ws, 'untitled'))
  assert.equal(context.selection, 'let b = 2', 'an empty selection sends its line')
  assert.deepEqual(context.selection_range, { start_line: 2, end_line: 2 })
  assert.deepEqual(state.picks.map((p) => p.labels), [['#1 [ts] // first', '#2 [ts] src/other.ts // second']])
  assert.equal(doc.getText(), 'let a = 1\n// second\nlet b = 2\n')
  assert.deepEqual(state.info, ['Radium: applied block #2 to Untitled-1'])
})

test('errors: no agent, an unknown agent, a failing agent, a timed-out agent, no code block, an untrusted workspace: shown and logged, never thrown', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.agent': ' ' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /^Radium: no agent configured: set "radium.agent"/)
  assert.deepEqual(state.requests, [])

  reset({ settings: { 'radium.agent': 'nope' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /^Radium: unknown agent `nope`.*\[unknown_agent\]$/)
  assert.ok(channel.lines.some((l) => l.startsWith('error: unknown agent `nope`')))
  assert.ok(channel.lines.some((l) => /^request step nope \(vscode-step-\d+\): failed: unknown_agent in [\d.]+ ms$/.test(l)))
  assert.deepEqual(state.info, [])

  reset({ settings: { 'radium.agent': 'fails' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /the agent broke/)
  assert.match(state.errors[0], /\[agent_failed\]$/)
  assert.equal(doc.getText(), buffer)

  reset({ settings: { 'radium.agent': 'late' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.equal(state.errors.length, 1)
  assert.match(state.errors[0], /\[agent_timeout\]$/)
  assert.equal(doc.getText(), buffer)

  reset({ settings: { 'radium.agent': 'silent' }, editor: editorOf(doc, [3, 0], [3, 4]) })
  await commands['radium.sendSelection']()
  assert.deepEqual(state.errors, [])
  assert.deepEqual(state.warnings, ['Radium: silent answered without a code block (its answer is in the Radium output)'])
  assert.ok(channel.lines.some((l) => l.includes('no code here')))

  // Another workspace with the same agents, not trusted: the extension does not trust it.
  const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'radium-vscode-untrusted-')))
  try {
    fs.mkdirSync(path.join(other, '.radium'))
    fs.copyFileSync(path.join(ws, '.radium/agents.toml'), path.join(other, '.radium/agents.toml'))
    const folders = state.folders
    state.folders = [{ uri: Uri.file(other), name: 'other', index: 0 }]
    try {
      reset({ editor: editorOf(new Document(Uri.file(path.join(other, 'x.ts')), 'typescript', 'x\n'), [0, 0]) })
      await commands['radium.sendSelection']()
    } finally {
      state.folders = folders
    }
    assert.equal(state.errors.length, 1)
    assert.match(state.errors[0], /not trusted/)
    assert.equal(state.requests.filter((r) => r.req.command === 'trust').length, 0)
  } finally {
    fs.rmSync(other, { recursive: true, force: true })
  }
})

test('cancelling a step sends `cancel` with the step\'s id; the step ends as cancelled', async () => {
  const doc = unsavedDocument()
  reset({ settings: { 'radium.agent': 'slow' }, editor: editorOf(doc, [3, 0], [3, 4]), cancelAfterMs: 100 })
  const started = Date.now()
  await commands['radium.sendSelection']()
  assert.ok(Date.now() - started < 450, 'the command returns at once on cancel')
  assert.deepEqual(state.errors, [])
  assert.deepEqual(state.info, [])
  const step = state.requests[0]
  const cancel = state.requests.find((r) => r.req.command === 'cancel')
  assert.deepEqual(cancel.req, { command: 'cancel', args: { id: step.req.id } })
  assert.ok(channel.lines.includes(`step slow: ${step.req.id} cancelled (1 request stopped)`), channel.lines.join('\n'))
  const late = await step.promise
  assert.equal(late.ok, false)
  assert.equal(late.code, 'cancelled')
  await new Promise((r) => setTimeout(r, 20))
  assert.deepEqual(state.info, [])
  assert.deepEqual(state.picks, [])
})

test('List Agents lists the agents of the workspace; picking one makes it the agent', async () => {
  reset({ editor: editorOf(unsavedDocument(), [0, 0]), pick: 1 })
  await commands['radium.listAgents']()
  assert.deepEqual(state.errors, [])
  assert.equal(state.requests[0].req.command, 'agents')
  const [pick] = state.picks
  assert.deepEqual(pick.items.map((i) => i.id), ['example', 'slow', 'fails', 'late', 'silent', 'two'])
  assert.equal(pick.labels[0], '$(check) example')
  assert.equal(pick.items[0].description, exampleAgent)
  assert.deepEqual(state.updates, [{ key: 'radium.agent', value: 'slow', target: 1 }])
  assert.deepEqual(state.info, ['Radium: the agent is now slow'])
  assert.ok(channel.lines.some((l) => l.startsWith('agents: example (')))
})
