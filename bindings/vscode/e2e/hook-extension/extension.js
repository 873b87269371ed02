'use strict'
// The e2e suite's second extension: it adds two JS hooks to radium through
// the radium extension's API (what `activate` returns), as any extension may.
// - `e2e-tag` (before_tool): a selection that mentions `tagMe` reaches the
//   agent with a first line `// tagged by a JS hook`, so the example agent's
//   answer, the diff and the applied text show that the hook ran;
// - `e2e-refuse` (before_tool): refuses a selection that mentions `forbidden`.
// Both run after radium's built-in `editor-context` hook (priority 150), which
// puts the editor context in `arguments.context`.

const vscode = require('vscode')

/** The editor context of a before_tool call, or undefined. */
function editorContext(data) {
  return data && data.arguments && typeof data.arguments.context === 'object' ? data.arguments.context : undefined
}

async function activate(context) {
  const radium = vscode.extensions.getExtension('radium.radium')
  if (!radium) throw new Error('the radium extension is not installed')
  /** @type {import('../../src/extension').RadiumApi} */
  const api = await radium.activate()
  context.subscriptions.push(
    api.registerHook('e2e-tag', 'before_tool', (ctx) => {
      const editor = editorContext(ctx.data)
      if (!editor || !String(editor.selection).includes('tagMe')) return undefined
      const tagged = { ...editor, selection: `// tagged by a JS hook\n${editor.selection}` }
      return { action: 'modify', data: { ...ctx.data, arguments: { ...ctx.data.arguments, context: tagged } } }
    }),
    api.registerHook('e2e-refuse', 'before_tool', (ctx) => {
      const editor = editorContext(ctx.data)
      if (!editor || !String(editor.selection).includes('forbidden')) return undefined
      return { action: 'stop', reason: 'the e2e JS hook refuses forbidden code' }
    }),
  )
  console.log(`radium-e2e-hooks: hooks registered on radium ${api.engineVersion()}`)
}

function deactivate() {}

module.exports = { activate, deactivate }
