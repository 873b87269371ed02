'use strict'
// The e2e suite's world: a workspace with a few TypeScript files and three
// Python files, a RADIUM_HOME whose agents.toml has the bundled example
// agent, a sleeping agent, a failing one and two scripted ACP agents
// (examples/acp-agent, and e2e/edit-agent.mjs for a tool call whose diff has
// several hunks) and whose lsp.toml has the scripted language server of
// tests/lsp for Python, and VS Code user settings pointing at them.
// `node fixture.js` writes it (scripts/test-vscode-e2e.sh does, before
// code-server starts); run.js reads the same paths.

const fs = require('node:fs')
const path = require('node:path')

function env(name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set (run scripts/test-vscode-e2e.sh)`)
  return value
}

/** The paths of the e2e world, under RADIUM_E2E_SCRATCH. */
function paths() {
  const scratch = env('RADIUM_E2E_SCRATCH')
  return {
    scratch,
    repo: env('RADIUM_E2E_REPO'),
    ws: path.join(scratch, 'ws'),
    home: path.join(scratch, 'home'),
    user: path.join(scratch, 'user'),
    sleepyPid: path.join(scratch, 'sleepy.pid'),
    sleepyChildPid: path.join(scratch, 'sleepy-child.pid'),
  }
}

/** The files of the workspace (path relative to it → text). */
const files = {
  'src/math.ts': [
    '// Arithmetic helpers.',
    '',
    'export function add(a: number, b: number): number {',
    '  return a + b',
    '}',
    '',
    'export function sub(a: number, b: number): number {',
    '  return a - b',
    '}',
    '',
  ].join('\n'),
  'src/draft.ts': ['export function mul(a: number, b: number): number {', '  return a * b', '}', ''].join('\n'),
  'src/slow.ts': ['export const waiting = true', ''].join('\n'),
  'src/fail.ts': ['export const fails = 1', ''].join('\n'),
  'src/refuse.ts': ['export function forbidden(): number {', '  return 0', '}', ''].join('\n'),
  'src/tag.ts': ['export function tagMe(): string {', "  return 'tag'", '}', ''].join('\n'),
  // The chat's two-file review.
  'src/a.ts': ['export const first = 1', '', 'export const middle = 0', '', 'export const last = 9', ''].join('\n'),
  'src/b.ts': ['export const b = "old"', ''].join('\n'),
  // The agent's tool call reviewed per hunk.
  'src/tool.ts': ['export const first = 1', '', 'export const middle = 0', '', 'export const last = 9', ''].join('\n'),
  // An agent's write merged into the unsaved text of its editor.
  'src/rate.txt': ['alpha', 'rate=1', 'omega', ''].join('\n'),
  // Find References and Rename Symbol (e2e/code-steps.js), answered by the scripted language server.
  'app.py': ['from util import total', '', 'print("😀", total)', ''].join('\n'),
  'util.py': ['total = 1', ''].join('\n'),
  'more.py': ['from util import total', 'x = total + 1', ''].join('\n'),
}

function setup() {
  const p = paths()
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(p.ws, name)), { recursive: true })
    fs.writeFileSync(path.join(p.ws, name), text)
  }
  const example = path.join(p.repo, 'examples/agents/example-agent.sh')
  // The sleeping agent: its PID, and its child's (same process group), go to
  // files the test watches; cancel must end both.
  const sleepy = `echo $$ > '${p.sleepyPid}'; sleep 60 & echo $! > '${p.sleepyChildPid}'; wait`
  fs.mkdirSync(p.home, { recursive: true })
  fs.writeFileSync(
    path.join(p.home, 'agents.toml'),
    [
      '[[agents]]',
      'id = "example"',
      `command = [${JSON.stringify(example)}]`,
      'timeout = "20s"',
      '',
      '[[agents]]',
      'id = "sleepy"',
      `command = ["/bin/sh", "-c", ${JSON.stringify(sleepy)}]`,
      'timeout = "120s"',
      '',
      '[[agents]]',
      'id = "scripted"',
      'protocol = "acp"',
      `command = ["node", ${JSON.stringify(path.join(p.repo, 'examples/acp-agent/agent.mjs'))}]`,
      '',
      '[[agents]]',
      'id = "editing"',
      'protocol = "acp"',
      `command = ["node", ${JSON.stringify(path.join(p.repo, 'bindings/vscode/e2e/edit-agent.mjs'))}]`,
      '',
      // The example agent that keeps and lists its own sessions (step 10f).
      '[[agents]]',
      'id = "listing"',
      'protocol = "acp"',
      `command = ["node", ${JSON.stringify(path.join(p.repo, 'examples/acp-agent/agent.mjs'))}, "--resume", "--list"]`,
      `env = { EXAMPLE_AGENT_STATE = ${JSON.stringify(path.join(p.home, 'agent-state'))} }`,
      '',
      '[[agents]]',
      'id = "failing"',
      `command = ["/bin/sh", "-c", ${JSON.stringify("cat >/dev/null; echo 'the failing agent gave up' >&2; exit 3")}]`,
      '',
    ].join('\n'),
  )
  fs.writeFileSync(
    path.join(p.home, 'lsp.toml'),
    ['[python]', `command = ["python3", ${JSON.stringify(path.join(p.repo, 'tests/lsp/scripted_server.py'))}]`, ''].join('\n'),
  )
  const settings = {
    'radium.radiumHome': p.home,
    'radium.agent': 'example',
    'radium.previewBeforeApply': true,
    // A quiet workbench: nothing pops up but what the test does.
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.ignoreRecommendations': true,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'git.enabled': false,
    'security.workspace.trust.enabled': false,
    'editor.quickSuggestions': { other: false, comments: false, strings: false },
    'editor.suggestOnTriggerCharacters': false,
    'editor.autoClosingBrackets': 'never',
    'editor.autoClosingQuotes': 'never',
    'editor.minimap.enabled': false,
    'files.autoSave': 'off',
  }
  fs.mkdirSync(path.join(p.user, 'User'), { recursive: true })
  fs.writeFileSync(path.join(p.user, 'User/settings.json'), JSON.stringify(settings, null, 2))
  // `radium.radiumHome` is a machine setting: in a remote window (code-server
  // is one) VS Code takes machine settings from the remote machine's
  // settings, <user-data-dir>/Machine/settings.json ("Remote" in the Settings
  // editor); from the user settings only until they next change.
  fs.mkdirSync(path.join(p.user, 'Machine'), { recursive: true })
  fs.writeFileSync(path.join(p.user, 'Machine/settings.json'), JSON.stringify({ 'radium.radiumHome': p.home }, null, 2))
}

module.exports = { paths, files, setup }

if (require.main === module) setup()
