'use strict'
// An agent's write to a file whose open document has unsaved changes, with
// the real engine and the scripted ACP agent (examples/acp-agent/agent.mjs)
// against the stand-in `vscode` module: the change is merged into the
// document, which stays dirty with the user's line and the agent's change;
// radium's undo merges again and the user's line stays; a conflict is
// marked; a merge the engine cannot do keeps the document and says why.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView, editorOf, Document, Uri } = require('./stand-in.js')

const { ws } = setup()
after(() => commands['radium.newChat']?.())

async function until(what, check, ms = 15000) {
  const end = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const DISK = 'import os\nrate=1\nend\n'
const USER = '# my unsaved line\n'

/** src/price.py on disk, open in a document with an unsaved line above it. */
function dirtyPrice() {
  const file = path.join(ws, 'src/price.py')
  fs.writeFileSync(file, DISK)
  const doc = new Document(Uri.file(file), 'python', USER + DISK)
  reset({ editor: editorOf(doc, [0, 0]) })
  return { file, doc }
}

/** A chat with the scripted agent that asks `text` and allows its write. */
async function agentTurn(text) {
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent: 'scripted' })
  const from = v.posted.length
  await v.send({ type: 'send', text })
  const perm = await until('the permission prompt', () => v.posted.slice(from).find((m) => m.type === 'permission'))
  await v.send({ type: 'permission', id: perm.id, choice: 'once' })
  await until('the turn end', () => v.posted.slice(from).some((m) => m.type === 'turnEnd'))
  return { v, write: await until('the write', () => v.posted.slice(from).find((m) => m.type === 'write')) }
}

test('an agent\'s write to a dirty document is merged into it, which stays dirty; radium\'s undo merges again', async () => {
  const { file, doc } = dirtyPrice()
  // The agent reads and writes the disk itself, as Claude Code does.
  const { v, write } = await agentTurn('selfreplace src/price.py rate=1 rate=2')
  assert.equal(fs.readFileSync(file, 'utf8'), 'import os\nrate=2\nend\n', 'the agent\'s text on disk')
  await until('the merge', () => doc.text.includes('rate=2'))
  assert.equal(doc.text, USER + 'import os\nrate=2\nend\n', 'the user\'s line and the agent\'s change')
  assert.equal(doc.isDirty, true, 'still unsaved')
  assert.ok(state.warnings.some((w) => w.includes('src/price.py changed on disk and was merged into your unsaved changes')), JSON.stringify(state.warnings))
  assert.ok(state.executed.some((e) => e.id === 'workbench.action.files.revert'), 'reverted first, so a save asks nothing')

  await v.send({ type: 'undo', tag: write.tag })
  assert.equal(fs.readFileSync(file, 'utf8'), DISK, 'the agent\'s change undone on disk')
  assert.equal(doc.text, USER + DISK, 'the user\'s line is still there, the agent\'s change gone')
  assert.equal(doc.isDirty, true, 'still unsaved')
})

test('a conflict is marked in the document; a merge the engine refuses keeps the document and says why', async () => {
  const { file, doc } = dirtyPrice()
  doc.text = USER + 'import os\nrate=3\nend\n' // the user changed the same line
  await agentTurn('selfreplace src/price.py rate=1 rate=2')
  await until('the merge', () => doc.text.includes('<<<<<<<'))
  assert.equal(doc.text, USER + 'import os\n<<<<<<< ours\nrate=3\n||||||| original\nrate=1\n=======\nrate=2\n>>>>>>> theirs\nend\n')
  assert.equal(doc.isDirty, true)
  assert.ok(state.warnings.some((w) => w.includes('src/price.py changed on disk; merged into your unsaved changes with 1 conflict(s)')), JSON.stringify(state.warnings))

  // The file changed again behind radium's back: the write's operation
  // no longer fits it, so the document is kept as it is.
  const { mergeDirty } = require('../out/chat/merge.js')
  const { radium } = require('../out/native.js').loadRadium(path.join(__dirname, '..'))
  const engine = new radium.Engine({ workspace: ws, radium_home: path.join(ws, '.home') })
  fs.writeFileSync(file, 'someone else\n')
  const kept = doc.text
  const r = await mergeDirty(engine, ws, 'src/price.py', 424242, () => {})
  assert.deepEqual(r, { file: 'src/price.py', merged: false, conflicts: 0 })
  assert.equal(doc.text, kept)
  assert.ok(state.warnings.at(-1).includes('src/price.py changed on disk; your unsaved changes are kept as they are ('), state.warnings.at(-1))
  assert.ok(state.warnings.at(-1).includes('[seq:424242] is no longer kept'), state.warnings.at(-1))
})

test('a write through radium is merged over the unsaved text the agent was served: the document shows what was approved, no conflict', async () => {
  const file = path.join(ws, 'src/draft.txt')
  fs.writeFileSync(file, 'on disk\n')
  const doc = new Document(Uri.file(file), 'plaintext', 'unsaved\n')
  reset({ editor: editorOf(doc, [0, 0]) })
  // The agent reads the file through radium (it is served the document's
  // text) and writes through radium (fs/write_text_file), as Gemini CLI does.
  await agentTurn('write src/draft.txt agent text')
  assert.equal(fs.readFileSync(file, 'utf8'), 'agent text\n')
  await until('the merge', () => doc.text === 'agent text\n')
  assert.equal(doc.isDirty, false, 'the document is the file')
  assert.ok(state.info.some((m) => m.includes('src/draft.txt changed on disk and its editor now shows it')), JSON.stringify(state.info))
  assert.ok(!state.warnings.some((w) => w.includes('conflict')), JSON.stringify(state.warnings))
})
