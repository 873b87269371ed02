'use strict'
// Images in the chat view with the real engine and the real scripted ACP
// agent (examples/acp-agent/agent.mjs), against the stand-in `vscode`
// module: an image pasted into the input (no file: inline data) and images
// picked with "Attach Image…" reach the agent; the bad ones (not an image,
// too big, one too many, outside the workspace, an agent without images)
// are refused with their reason on screen.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { setup, state, reset, commands, openView, Uri } = require('./stand-in.js')

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

const turnEnds = (v) => v.posted.filter((m) => m.type === 'turnEnd' || m.type === 'error')
async function turn(v, text) {
  const before = turnEnds(v).length
  const from = v.posted.length
  await v.send({ type: 'send', text })
  await until(`the end of "${text}"`, () => turnEnds(v).length > before)
  return v.posted.slice(from)
}
const textOf = (msgs) => msgs.filter((m) => m.type === 'text').map((m) => m.text).join('')
const chipsOf = (v) => v.posted.findLast((m) => m.type === 'chips').chips
const lastError = (v) => v.posted.findLast((m) => m.type === 'error')?.message ?? ''

async function chatWith(agent) {
  const v = openView('radium.chatView')
  await v.send({ type: 'ready' })
  await v.send({ type: 'agent', agent })
  return v
}

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64')

test('an image pasted into the input is a chip, and goes to the agent as inline data with the prompt', async () => {
  reset()
  const v = await chatWith('scripted')
  await v.send({ type: 'pasteImage', mimeType: 'image/png', data: PNG.toString('base64') })
  assert.deepEqual(chipsOf(v), [{ kind: 'image', label: 'pasted image 1 (png, 1 KB)', changed: false }])
  const msgs = await turn(v, 'what is this sha256')
  const text = textOf(msgs)
  assert.match(text, new RegExp(`Images: image/png ${PNG.length} bytes`))
  const sum = require('node:crypto').createHash('sha256').update(PNG).digest('hex')
  assert.ok(text.includes(`SHA-256: ${sum}`), text)
  assert.deepEqual(state.errors, [])
  await v.send({ type: 'newChat' })
})

test('a bad paste is refused with its reason and nothing is attached: not an image type, too big, empty, one too many', async () => {
  reset()
  const v = await chatWith('scripted')
  await v.send({ type: 'pasteImage', mimeType: 'image/bmp', data: 'Qk0=' })
  assert.match(lastError(v), /the pasted item \(image\/bmp\) is not an image type radium sends/)
  await v.send({ type: 'pasteImage', mimeType: 'image/png', size: 11 * 1024 * 1024 })
  assert.match(lastError(v), /the pasted image is 11534336 bytes, over the 10485760-byte limit/)
  await v.send({ type: 'pasteImage', mimeType: 'image/png', data: '' })
  assert.match(lastError(v), /the pasted image is empty/)
  assert.deepEqual(v.posted.findLast((m) => m.type === 'chips')?.chips ?? [], [], 'no chip was added')
  for (let i = 0; i < 16; i++) await v.send({ type: 'pasteImage', mimeType: 'image/png', data: PNG.toString('base64') })
  assert.equal(chipsOf(v).length, 16)
  await v.send({ type: 'pasteImage', mimeType: 'image/png', data: PNG.toString('base64') })
  assert.match(lastError(v), /at most 16 images go with one prompt/)
  assert.equal(chipsOf(v).length, 16)
  assert.equal(state.errors.length, 4, JSON.stringify(state.errors))
  await v.send({ type: 'newChat' })
})

test('"Attach Image…" picks image files (filtered to image types) that reach the agent; one outside the workspace is refused at send', async () => {
  const png = path.join(ws, 'shot.png')
  fs.writeFileSync(png, PNG)
  reset()
  state.opened = [Uri.file(png)]
  const v = await chatWith('scripted')
  // The webview's "+ Image…" button runs radium.attachImage.
  await v.send({ type: 'attach', what: 'image' })
  assert.ok(state.executed.some((c) => c.id === 'radium.attachImage'), JSON.stringify(state.executed))
  await commands['radium.attachImage']()
  assert.deepEqual(state.openDialogs[0].filters, { Images: ['png', 'jpg', 'jpeg', 'gif', 'webp'] })
  assert.equal(state.openDialogs[0].canSelectMany, true)
  assert.deepEqual(chipsOf(v), [{ kind: 'file', label: 'shot.png', changed: false }])
  assert.match(textOf(await turn(v, 'look')), new RegExp(`Images: image/png ${PNG.length} bytes`))

  const outside = path.join(path.dirname(ws), `outside-${path.basename(ws)}.png`)
  fs.writeFileSync(outside, PNG)
  after(() => fs.rmSync(outside, { force: true }))
  state.opened = [Uri.file(outside)]
  await commands['radium.attachImage']()
  await turn(v, 'look again')
  assert.match(lastError(v), /image `[^`]*outside-[^`]*\.png` is outside the workspace/)
  await v.send({ type: 'newChat' })
})

test('an image to an agent that takes no images is refused at send, naming the agent', async () => {
  reset()
  const agent = path.resolve(__dirname, '../../../examples/acp-agent/agent.mjs')
  fs.appendFileSync(path.join(ws, '.radium/agents.toml'), `\n[[agents]]\nid = "blind"\nprotocol = "acp"\ncommand = ["node", ${JSON.stringify(agent)}, "--no-image"]\n`)
  const v = await chatWith('blind')
  await v.send({ type: 'pasteImage', mimeType: 'image/png', data: PNG.toString('base64') })
  await turn(v, 'look')
  assert.match(lastError(v), /agent `blind` does not take images/)
  await v.send({ type: 'newChat' })
})
