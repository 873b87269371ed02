'use strict'
// The stand-in `vscode` module the command tests run the extension against
// (only what the commands use), and setup(): a temporary workspace with test
// agents, trusted in the engine, and the compiled extension activated with
// the real native module. Not a test file itself.

const { before, after } = require('node:test')
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

const { Position, Range, WorkspaceEdit, Document, applied, docOptions } = require('./stand-in-docs.js')

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
  static joinPath(base, ...parts) {
    return new Uri(base.scheme, path.join(base.path, ...parts))
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

const state = {}

/** The webview views the extension registers, by id; `open(id)` resolves one and records what it posts. */
const views = {}
const docListeners = []

function openView(id) {
  const posted = []
  let receive
  const view = {
    webview: {
      options: {},
      html: '',
      cspSource: 'stand-in',
      asWebviewUri: (uri) => uri,
      postMessage: async (m) => {
        posted.push(m)
        return true
      },
      onDidReceiveMessage: (fn) => {
        receive = fn
        return { dispose() {} }
      },
    },
    onDidDispose: () => ({ dispose() {} }),
  }
  views[id].resolveWebviewView(view)
  return { view, posted, send: (m) => receive(m) }
}

function reset({ settings = {}, editor, pick, answerPrompt = 'Apply', answerWarning, cancelAfterMs, input = '', clipboard = '' } = {}) {
  Object.assign(state, {
    answerWarning,
    warningPrompts: [],
    settings: { 'radium.radiumHome': home, 'radium.surroundingLines': 2, ...settings },
    editor,
    pick,
    answerPrompt,
    cancelAfterMs,
    input,
    clipboard,
    inputBoxes: [],
    info: [],
    warnings: [],
    errors: [],
    shown: [],
    showOptions: [],
    updates: [],
    prompts: [],
    picks: [],
    openDialogs: [],
    opened: undefined,
    progress: [],
    executed: [],
    edits: [],
    requests: [],
    statusBar: [],
    documents: [],
  })
  Object.assign(docOptions, { reload: true, onSave: undefined, afterSave: undefined })
  channel.lines = []
}

/** The output channel the extension creates (it creates one, on first use). */
const channel = { name: undefined, lines: [], appendLine(l) { this.lines.push(l) }, show() {}, dispose() {} }
/** The text document content provider the extension registers. */
const provider = {}
const commands = {}

const vscode = {
  Position,
  Range,
  Uri,
  WorkspaceEdit,
  Disposable,
  TabInputTextDiff,
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  env: {
    openExternal: async () => true,
    // VS Code's clipboard (state.clipboard: its text; a function as the text throws, as a refused read does).
    clipboard: {
      readText: async () => (typeof state.clipboard === 'function' ? state.clipboard() : state.clipboard),
      writeText: async (text) => {
        state.clipboard = text
      },
    },
  },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  commands: {
    registerCommand: (id, fn) => {
      commands[id] = fn
      return { dispose() {} }
    },
    executeCommand: async (id, ...args) => {
      state.executed.push({ id, args })
      if (id === 'workbench.action.files.revert') state.editor?.document.revert()
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
    showWarningMessage: (message, ...rest) => {
      state.warnings.push(message)
      // A question (a modal with its detail, or buttons): answered with
      // `answerWarning` (undefined: dismissed).
      if (rest.length > 0) state.warningPrompts.push({ message, rest })
      return Promise.resolve(rest.length > 0 ? state.answerWarning : undefined)
    },
    showTextDocument: async (document, options) => {
      state.shown.push(document.uri.toString())
      state.showOptions.push(options ?? null)
      if (state.editor?.document !== document) state.editor = editorOf(document, [0, 0])
      const at = options?.selection
      if (at) state.editor.selection = { start: at.start, end: at.end, active: at.end }
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
    showInputBox: async (options) => {
      state.inputBoxes.push(options)
      // null: Escape.
      return state.input === null ? undefined : state.input
    },
    showOpenDialog: async (options) => {
      state.openDialogs.push(options)
      return state.opened
    },
    showQuickPick: async (items, options) => {
      state.picks.push({ labels: items.map((i) => i.label), options, items })
      return state.pick === undefined ? undefined : items[state.pick]
    },
    createStatusBarItem: () => {
      const item = { text: '', visible: false, show() { this.visible = true; state.statusBar.push(this.text) }, hide() { this.visible = false }, dispose() {} }
      state.statusItem = item
      return item
    },
    registerWebviewViewProvider: (id, provider) => {
      views[id] = provider
      return { dispose() {} }
    },
    createOutputChannel: (name) => {
      channel.name = name
      channel.lines = []
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
    onDidChangeTextDocument: (fn) => {
      docListeners.push(fn)
      return { dispose() {} }
    },
    asRelativePath: (uri) => path.relative(ws, uri.fsPath),
    fs: { readFile: async (uri) => fs.readFileSync(uri.fsPath) },
    openTextDocument: async (uri) => {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
      if (open) return open
      if (uri.scheme !== 'file' || !fs.existsSync(uri.fsPath)) throw new Error(`the stand-in cannot open ${uri.toString()}`)
      const doc = new Document(uri, 'plaintext', fs.readFileSync(uri.fsPath, 'utf8'), { isDirty: false })
      state.documents.push(doc)
      return doc
    },
    registerTextDocumentContentProvider: (scheme, p) => {
      if (scheme === 'radium-preview') Object.assign(provider, { scheme, p })
      return { dispose() {} }
    },
    get textDocuments() {
      const docs = state.editor ? [state.editor.document] : []
      return docs.concat(state.documents.filter((d) => !docs.includes(d)))
    },
    applyEdit: async (edit) => {
      state.edits.push(edit)
      // Created files first (written to disk, as VS Code does), then the
      // replacements, through each file's document.
      if (edit.edits.some((e) => e.create && !e.overwrite && fs.existsSync(e.uri.fsPath))) return false
      for (const e of edit.edits.filter((x) => x.create)) fs.writeFileSync(e.uri.fsPath, e.contents ?? '')
      const byDoc = new Map()
      for (const e of edit.edits.filter((x) => x.range)) {
        const doc = await vscode.workspace.openTextDocument(e.uri)
        byDoc.set(doc, [...(byDoc.get(doc) ?? []), e])
      }
      for (const [doc, edits] of byDoc) {
        doc.text = applied(doc.text, { edits })
        doc.isDirty = true
        doc.version++
      }
      return true
    },
  },
}

function editorOf(document, start, end = start) {
  return { document, selection: { start: new Position(...start), end: new Position(...end), active: new Position(...end) } }
}

// ---- the workspace, the engine's trust, and the extension ----

let ws
let home
let extension
let resolveFilename
const spied = {}

/**
 * Registers the before/after hooks of a command test file: the workspace (its
 * folder is made at once; its path is returned as `ws`), its agents, the
 * engine's trust, the stand-in `vscode` module and the activated extension.
 */
function setup() {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'radium-vscode-')))
  home = path.join(ws, '.home')
  before(() => {
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
        'id = "scripted"',
        'protocol = "acp"',
        `command = ["node", ${JSON.stringify(path.join(repo, 'examples/acp-agent/agent.mjs'))}]`,
        'permission_timeout = "2s"',
        '[[agents]]',
        'id = "two"',
        `command = ["/bin/sh", ${JSON.stringify(path.join(ws, '.radium/two.sh'))}]`,
        '[[agents]]',
        'id = "editing"',
        'protocol = "acp"',
        `command = ["node", ${JSON.stringify(path.join(root, 'e2e/edit-agent.mjs'))}]`,
        'permission_timeout = "2s"',
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
    // The log follower's polls (`log`, every second) are not the user's doing.
    proto.request = function (req) {
      if (req && req.command !== 'log') state.requests.push({ how: 'request', req, engine: this })
      return spied.request.call(this, req)
    }
    proto.requestAsync = function (req) {
      const promise = spied.requestAsync.call(this, req)
      if (req && req.command !== 'log') state.requests.push({ how: 'requestAsync', req, promise, engine: this })
      return promise
    }

    resolveFilename = Module._resolveFilename
    Module._resolveFilename = function (request, ...rest) {
      return request === 'vscode' ? 'vscode' : resolveFilename.call(this, request, ...rest)
    }
    require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode }
    reset()
    extension = require('../out/extension.js')
    spied.api = extension.activate({ extensionPath: root, extensionUri: Uri.file(root), subscriptions: [] })
  })

  after(() => {
    extension?.deactivate()
    Module._resolveFilename = resolveFilename
    delete require.cache.vscode
    if (spied.proto) Object.assign(spied.proto, { request: spied.request, requestAsync: spied.requestAsync })
    fs.rmSync(ws, { recursive: true, force: true })
  })
  return { ws }
}

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

/** What the activated extension returned (its API for other extensions: JS hooks). */
const api = () => spied.api

module.exports = {
  setup,
  api,
  openView,
  docListeners,
  state,
  reset,
  commands,
  channel,
  provider,
  Position,
  Uri,
  Document,
  docOptions,
  applied,
  editorOf,
  unsavedDocument,
  buffer,
  onDisk,
  reviewed,
  exampleAgent,
}
