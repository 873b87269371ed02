'use strict'
// The extension without VS Code: the compiled loader with plain Node, and
// activate() + Show Version against a stand-in `vscode` module (the editor
// commands are in commands.test.js and command-errors.test.js).
//   npm run compile && node --test test/

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const Module = require('node:module')

const root = path.join(__dirname, '..')
const manifest = require('../package.json')
const { loadRadium, candidates, radProgram, EXPECTED_ABI } = require('../out/native.js')

// The module the loader picks here: radium.node when `npm run bundle-native`
// left one next to the extension, else the Node door of this repository.
const bundled = path.join(root, 'radium.node')
const found = fs.existsSync(bundled) ? bundled : path.join(root, '..', 'node')

test('the manifest contributes the command and points at the compiled code', () => {
  assert.equal(manifest.engines.vscode, '^1.100.0')
  assert.ok(fs.existsSync(path.join(root, manifest.main)), `${manifest.main} is compiled`)
  assert.deepEqual(manifest.contributes.commands, [
    { command: 'radium.showVersion', title: 'Show Version', category: 'Radium' },
    { command: 'radium.sendSelection', title: 'Send Selection to Agent', category: 'Radium' },
    { command: 'radium.applyCode', title: 'Apply Code Block', category: 'Radium' },
    { command: 'radium.listAgents', title: 'List Agents', category: 'Radium' },
    { command: 'radium.agents', title: 'Agents…', category: 'Radium', icon: '$(hubot)' },
    { command: 'radium.showLog', title: 'Show Engine Log', category: 'Radium' },
    { command: 'radium.chat', title: 'Open Chat', category: 'Radium', icon: '$(comment-discussion)' },
    { command: 'radium.newChat', title: 'New Chat', category: 'Radium', icon: '$(add)' },
    { command: 'radium.chatHistory', title: 'Reopen a Past Conversation…', category: 'Radium', icon: '$(history)' },
    { command: 'radium.stop', title: 'Stop the Turn', category: 'Radium' },
    { command: 'radium.attachSelection', title: 'Attach Selection to Chat', category: 'Radium' },
    { command: 'radium.attachFile', title: 'Attach Current File to Chat', category: 'Radium' },
    { command: 'radium.attachFiles', title: 'Attach Files to Chat…', category: 'Radium' },
    { command: 'radium.attachImage', title: 'Attach Image to Chat…', category: 'Radium' },
    { command: 'radium.trust', title: 'Trust Workspace…', category: 'Radium' },
    { command: 'radium.undo', title: 'Undo Last Change', category: 'Radium' },
    { command: 'radium.redo', title: 'Redo Change', category: 'Radium' },
    { command: 'radium.clipboard.copySelection', title: 'Copy Selection for a Chat', category: 'Radium' },
    { command: 'radium.clipboard.applyAnswer', title: 'Apply Answer from Clipboard', category: 'Radium' },
    { command: 'radium.code.references', title: 'Find References', category: 'Radium' },
    { command: 'radium.code.rename', title: 'Rename Symbol', category: 'Radium' },
  ])
  // Clipboard mode's copy in the editor's context menu, the code commands in
  // its Radium submenu (with or without a selection: VS Code's own "Rename
  // Symbol" may be there too), all of them in the palette when they can work.
  assert.deepEqual(manifest.contributes.menus['editor/context'], [
    { command: 'radium.clipboard.copySelection', when: 'editorTextFocus', group: '9_cutcopypaste@9' },
    { submenu: 'radium.code', when: 'editorTextFocus && resourceScheme == file', group: '1_modification@90' },
  ])
  assert.deepEqual(manifest.contributes.submenus, [{ id: 'radium.code', label: 'Radium' }])
  assert.deepEqual(manifest.contributes.menus['radium.code'].map((m) => m.command), ['radium.code.references', 'radium.code.rename'])
  assert.deepEqual(manifest.contributes.menus.commandPalette.map((m) => m.command), [
    'radium.clipboard.copySelection',
    'radium.clipboard.applyAnswer',
    'radium.code.references',
    'radium.code.rename',
  ])
  for (const c of manifest.contributes.commands.filter((c) => c.command.startsWith('radium.code.'))) {
    assert.ok(manifest.activationEvents.includes(`onCommand:${c.command}`), c.command)
  }
  assert.ok(manifest.activationEvents.includes('onView:radium.chatView'))
  // The chat view lives in the panel (VS Code 1.100, engines.vscode, offers
  // view containers in the activity bar and the panel only), in a container
  // of its own and nothing in the activity bar; a keybinding opens it.
  assert.deepEqual(Object.keys(manifest.contributes.viewsContainers), ['panel'])
  assert.equal(manifest.engines.vscode, '^1.100.0')
  const [container] = manifest.contributes.viewsContainers.panel
  assert.deepEqual(manifest.contributes.views, {
    [container.id]: [{ type: 'webview', id: 'radium.chatView', name: 'Chat', icon: 'media/radium.svg', contextualTitle: 'Radium' }],
  })
  assert.equal(container.title, 'Radium')
  assert.ok(fs.existsSync(path.join(root, container.icon)))
  assert.deepEqual(manifest.contributes.keybindings[0], { command: 'radium.chat', key: 'ctrl+alt+r', mac: 'cmd+alt+r' })
  const settings = manifest.contributes.configuration.properties
  assert.deepEqual(
    Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, [v.type, v.default]])),
    {
      'radium.agent': ['string', 'example'],
      'radium.logLevel': ['string', 'info'],
      'radium.surroundingLines': ['number', 5],
      'radium.previewBeforeApply': ['boolean', true],
      'radium.radiumHome': ['string', ''],
      'radium.chat.agent': ['string', ''],
      'radium.chat.followAgent': ['boolean', false],
      'radium.permissions.autoAllow': ['array', []],
      'radium.review.saveAfterApply': ['boolean', true],
    },
  )
  // A workspace must not move the trust store and user agents elsewhere.
  assert.equal(settings['radium.radiumHome'].scope, 'machine')
})

test('the loader finds the bundled module or the Node door of this repository', () => {
  const { radium, path: where } = loadRadium(root, {})
  assert.equal(where, found)
  assert.equal(radium.abiVersion(), EXPECTED_ABI)
  assert.match(radium.version(), /^\d+\.\d+\.\d+/)
})

test('the loader tries RADIUM_NODE_MODULE, then radium.node, then ../node, and says what it tried', () => {
  const env = { RADIUM_NODE_MODULE: '/nonexistent/radium.node' }
  assert.deepEqual(candidates(root, env), ['/nonexistent/radium.node', path.join(root, 'radium.node'), path.join(root, '..', 'node')])
  assert.equal(loadRadium(root, env).path, found)
  const lonely = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-ext-'))
  try {
    const ext = path.join(lonely, 'ext')
    fs.mkdirSync(ext)
    assert.throws(() => loadRadium(ext, {}), (e) => {
      assert.match(e.message, /the radium native module was not found or did not load; tried:/)
      assert.ok(e.message.includes(path.join(ext, 'radium.node') + ' (not found)'))
      return true
    })
  } finally {
    fs.rmSync(lonely, { recursive: true, force: true })
  }
})

test('the loader refuses a module of another version than the extension, saying how to update', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-ext-'))
  try {
    const ext = path.join(dir, 'ext')
    fs.mkdirSync(ext)
    fs.writeFileSync(path.join(ext, 'package.json'), JSON.stringify({ name: 'radium', version: '9.9.9' }))
    const radium = require('../../node')
    assert.throws(() => loadRadium(ext, { RADIUM_NODE_MODULE: path.join(root, '..', 'node') }), (e) => {
      assert.ok(e.message.includes(`(version ${radium.version()}, but the extension is 9.9.9: install the extension's .vsix of version 9.9.9`), e.message)
      return true
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('rad is the one in the extension (bin/rad), else the one on PATH, else none', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-ext-'))
  try {
    const ext = path.join(dir, 'ext')
    const onPath = path.join(dir, 'path')
    fs.mkdirSync(path.join(ext, 'bin'), { recursive: true })
    fs.mkdirSync(onPath)
    assert.equal(radProgram(ext, { PATH: '' }), undefined)
    fs.writeFileSync(path.join(onPath, 'rad'), '#!/bin/sh\n', { mode: 0o755 })
    assert.equal(radProgram(ext, { PATH: onPath }), path.join(onPath, 'rad'))
    fs.writeFileSync(path.join(ext, 'bin', 'rad'), '#!/bin/sh\n', { mode: 0o644 })
    assert.equal(radProgram(ext, { PATH: onPath }), path.join(onPath, 'rad'), 'a bin/rad that cannot run is skipped')
    fs.chmodSync(path.join(ext, 'bin', 'rad'), 0o755)
    assert.equal(radProgram(ext, { PATH: onPath }), path.join(ext, 'bin', 'rad'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('Radium: Show Version reports the version and ABI in a message and the Radium output channel', () => {
  const calls = { commands: {}, info: [], errors: [], channels: [] }
  const vscode = {
    commands: { registerCommand: (id, fn) => { calls.commands[id] = fn; return { dispose() {} } } },
    Uri: { joinPath: (base, ...parts) => ({ ...base, path: path.join(base.path, ...parts) }) },
    StatusBarAlignment: { Left: 1, Right: 2 },
    window: {
      createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
      registerWebviewViewProvider: (id) => { calls.views = [id]; return { dispose() {} } },
      showInformationMessage: (m) => { calls.info.push(m); return Promise.resolve(undefined) },
      showErrorMessage: (m) => { calls.errors.push(m); return Promise.resolve(undefined) },
      createOutputChannel: (name) => {
        const channel = { name, lines: [], appendLine(l) { this.lines.push(l) }, show() {}, dispose() {} }
        calls.channels.push(channel)
        return channel
      },
    },
    workspace: {
      registerTextDocumentContentProvider: (scheme) => { (calls.providers ??= []).push(scheme); return { dispose() {} } },
      onDidChangeTextDocument: () => ({ dispose() {} }),
      getConfiguration: () => ({ get: (_key, fallback) => fallback }),
    },
  }
  const resolve = Module._resolveFilename
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest)
  }
  require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode }
  try {
    const extension = require('../out/extension.js')
    const context = { extensionPath: root, extensionUri: { scheme: 'file', path: root }, subscriptions: [] }
    const api = extension.activate(context)
    assert.deepEqual(Object.keys(calls.commands), [
      'radium.showVersion', 'radium.sendSelection', 'radium.applyCode', 'radium.listAgents', 'radium.agents', 'radium.showLog',
      'radium.chat', 'radium.newChat', 'radium.chatHistory', 'radium.stop', 'radium.attachSelection', 'radium.attachFile',
      'radium.attachFiles', 'radium.attachImage', 'radium.trust', 'radium.undo', 'radium.redo',
      'radium.clipboard.copySelection', 'radium.clipboard.applyAnswer', 'radium.code.references', 'radium.code.rename',
    ])
    // Every command the extension registers is in the manifest, and the other way round.
    assert.deepEqual(Object.keys(calls.commands).sort(), manifest.contributes.commands.map((c) => c.command).sort())
    assert.deepEqual(Object.keys(api).sort(), ['abiVersion', 'engineVersion', 'registerHook'])
    assert.deepEqual(calls.providers, ['radium-preview', 'radium-review'])
    assert.deepEqual(calls.views, ['radium.chatView'])
    calls.commands['radium.showVersion']()
    const radium = require('../../node')
    const expected = `Radium ${radium.version()} (ABI ${radium.abiVersion()})`
    const origin = found.endsWith('radium.node') ? 'bundled' : 'repository'
    const rad = radProgram(root)
    assert.deepEqual(calls.info, [`${expected}, ${origin} module, rad ${rad ? 'reachable' : 'not found'}`])
    assert.equal(api.engineVersion(), radium.version())
    assert.equal(api.abiVersion(), radium.abiVersion())
    assert.deepEqual(calls.errors, [])
    assert.equal(calls.channels.length, 1)
    assert.equal(calls.channels[0].name, 'Radium')
    assert.deepEqual(calls.channels[0].lines, [`${expected}, native module: ${found} (${origin})`,
      rad ? `rad: ${rad}` : 'rad: not found (agents get no radium tools: install the .vsix of your platform, or put rad on PATH)'])
    extension.deactivate()
  } finally {
    Module._resolveFilename = resolve
    delete require.cache.vscode
  }
})
