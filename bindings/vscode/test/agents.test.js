'use strict'
// "Radium: Agents…": radium's catalogue and the workspace's agents in a quick
// pick with their status; picking one that is not installed offers Install,
// which runs agents-install off the extension host's thread and says what
// went wrong; picking an installed one says where it is and how to sign in.
// Against the stand-in `vscode` module with the real native engine.
//   npm run compile && node --test test/

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { setup, state, reset, commands, editorOf, unsavedDocument } = require('./stand-in.js')

setup()

// An empty cache: no catalogue agent is installed for this test's engine.
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'radium-vscode-cache-'))

function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  Object.assign(process.env, vars)
  return fn().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
}

test('Agents… lists the catalogue and the workspace\'s agents with their status', () =>
  withEnv({ XDG_CACHE_HOME: cache }, async () => {
    reset({ editor: editorOf(unsavedDocument(), [0, 0]), pick: undefined })
    await commands['radium.agents']()
    assert.deepEqual(state.errors, [])
    assert.equal(state.requests[0].req.command, 'agents-list')
    const [pick] = state.picks
    const ids = pick.items.map((i) => i.agent.id)
    for (const id of ['claude', 'gemini', 'codex', 'opencode', 'example', 'scripted']) assert.ok(ids.includes(id), id)
    const codex = pick.items.find((i) => i.agent.id === 'codex')
    assert.equal(codex.label, '$(cloud-download) codex')
    assert.match(codex.description, /^not installed: @zed-industries\/codex-acp@\d+\.\d+\.\d+$/)
    assert.match(codex.detail, /Sign in: set OPENAI_API_KEY/)
    const example = pick.items.find((i) => i.agent.id === 'example')
    assert.equal(example.label, '$(check) example')
    assert.match(example.description, /^configured in .*agents\.toml$/)
  }))

test('Agents…: Install of an agent with no npm on PATH says so; a picked installed agent says how to sign in', () =>
  withEnv({ XDG_CACHE_HOME: cache, PATH: '/nonexistent' }, async () => {
    reset({ editor: editorOf(unsavedDocument(), [0, 0]), answerPrompt: 'Install' })
    state.pick = undefined
    // Pick codex (not installed), answer Install.
    const list = () => state.picks[state.picks.length - 1].items
    const showQuickPick = require('vscode').window.showQuickPick
    require('vscode').window.showQuickPick = async (items, options) => {
      state.picks.push({ labels: items.map((i) => i.label), options, items })
      return items.find((i) => i.agent.id === state.want)
    }
    try {
      state.want = 'codex'
      await commands['radium.agents']()
      assert.match(state.prompts[0].message, /^Radium: install codex \(@zed-industries\/codex-acp@[\d.]+\) with npm into radium's cache\?$/)
      assert.deepEqual(state.prompts[0].rest, ['Install'])
      const install = state.requests.find((r) => r.req.command === 'agents-install')
      assert.equal(install.how, 'requestAsync')
      assert.deepEqual(install.req.args, { agent: 'codex' })
      assert.equal(state.errors.length, 1)
      assert.match(state.errors[0], /installing agent `codex` failed: npm is not on PATH/)
      assert.ok(list().length >= 5)
      // The built-in example agent of the catalogue is overridden by the
      // workspace's; a configured one answers where it is.
      state.want = 'scripted'
      await commands['radium.agents']()
      assert.match(state.info[state.info.length - 1], /^Radium: scripted is configured in .*agents\.toml\.$/)
    } finally {
      require('vscode').window.showQuickPick = showQuickPick
    }
  }))
