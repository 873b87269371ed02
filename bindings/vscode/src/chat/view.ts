// The chat view (a webview view in Radium's container in the panel) and the
// commands around it: radium.chat, radium.newChat, radium.stop,
// radium.attachSelection, radium.attachFiles, radium.attachImage (and an
// image pasted into the input), radium.trust, radium.undo,
// radium.redo.

import * as crypto from 'crypto'
import * as vscode from 'vscode'

import { REVIEW_SCHEME } from '../review'
import { pastedImageChip } from './chips'
import { ChatController, type ChatHost } from './controller'
import { reopenConversation } from './history'
import type { ViewMessage } from './events'
import { Outbox } from './outbox'

export const VIEW_ID = 'radium.chatView'

export class ChatView implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined
  private queue: ViewMessage[] = []
  readonly chat: ChatController

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: ChatHost,
    initialAgent: string,
  ) {
    this.chat = new ChatController(host, (m) => this.post(m), initialAgent)
  }

  /** What goes to the webview, a long answer's text a piece a frame (outbox.ts). */
  private readonly outbox = new Outbox((m) => {
    if (this.view) void this.view.webview.postMessage(m)
    else this.queue.push(m)
  })

  private post(m: ViewMessage): void {
    if (this.view) this.outbox.post(m)
    else this.queue.push(m)
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view
    const media = vscode.Uri.joinPath(this.extensionUri, 'media')
    view.webview.options = { enableScripts: true, localResourceRoots: [media] }
    view.webview.html = this.html(view.webview, media)
    view.webview.onDidReceiveMessage((m) => this.receive(m))
    view.onDidDispose(() => {
      this.view = undefined
    })
  }

  private initMessage(): ViewMessage {
    let agents: string[] = []
    let error: string | undefined
    try {
      agents = this.chat.agents()
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    if (agents.length === 0 && !error) error = 'no agent configured: add one to .radium/agents.toml or $RADIUM_HOME/agents.toml'
    if (agents.length > 0 && !agents.includes(this.chat.agent)) this.chat.setAgent(agents[0])
    return { type: 'init', agents, agent: this.chat.agent, error, busy: this.chat.busy }
  }

  private async receive(m: any): Promise<void> {
    try {
      switch (m?.type) {
        case 'ready': {
          const init = this.initMessage()
          if (typeof init.error === 'string') this.host.log(`chat: ${init.error}`)
          this.post(init)
          this.post(this.chat.chipsMessage())
          for (const c of this.chat.controlMessages()) this.post(c)
          for (const q of this.queue.splice(0)) this.post(q)
          break
        }
        case 'send':
          await this.chat.send(String(m.text ?? ''), vscode.workspace.getConfiguration('radium').get<number>('surroundingLines', 5))
          break
        case 'stop':
          this.chat.stop()
          break
        case 'wantCommands':
          this.chat.prepare()
          break
        case 'newChat':
          this.chat.reset()
          break
        case 'agent':
          this.chat.setAgent(String(m.agent))
          break
        case 'option':
          await this.chat.setOption(String(m.option), String(m.value))
          break
        case 'attach':
          await vscode.commands.executeCommand(
            m.what === 'files' ? 'radium.attachFiles' : m.what === 'file' ? 'radium.attachFile' : m.what === 'image' ? 'radium.attachImage' : 'radium.attachSelection',
          )
          break
        case 'pasteImage': {
          // An image pasted into the input: no file, sent as inline data.
          const chip = pastedImageChip(this.chat.chips, m.mimeType, m.data, m.size)
          if (typeof chip === 'string') {
            this.post({ type: 'error', message: chip })
            this.host.fail(chip, false)
          } else {
            this.chat.chips.push(chip)
            this.post(this.chat.chipsMessage())
          }
          break
        }
        case 'removeChip':
          this.chat.removeChip(Number(m.index))
          break
        case 'permission':
          this.chat.answer(String(m.id), m.choice === 'always' ? 'always' : m.choice === 'reject' ? 'reject' : 'once')
          break
        case 'toolReview':
          this.chat.reviewToolCall(String(m.id))
          break
        case 'review':
          await this.chat.onReview(m)
          break
        case 'undo':
          await this.chat.undoRedo('undo', typeof m.tag === 'string' ? m.tag : undefined)
          break
        case 'restore':
          if (typeof m.tag === 'string') await this.chat.restore(m.tag)
          break
        case 'link':
          if (typeof m.href === 'string' && /^https?:\/\//.test(m.href)) await vscode.env.openExternal(vscode.Uri.parse(m.href))
          break
        case 'latency':
          this.host.log(`chat: time to screen over ${m.count} text message(s): p50 ${m.p50} ms, p95 ${m.p95} ms, max ${m.max} ms`)
          break
      }
    } catch (e) {
      this.host.fail(e instanceof Error ? e.message : String(e))
    }
  }

  /** Shows the view and puts the cursor in its input. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`)
    this.post({ type: 'focus' })
  }

  private html(webview: vscode.Webview, media: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64')
    const src = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(media, name)).toString()
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${src('chat.css')}">
<title>Radium chat</title></head>
<body>
<div id="top"><select id="agent" title="Agent" aria-label="Agent"></select><select id="mode" title="The agent's mode" aria-label="Mode" hidden></select><select id="model" title="The agent's model" aria-label="Model" hidden></select><select id="effort" title="The agent's reasoning effort" aria-label="Reasoning effort" hidden></select><button id="new" title="New chat (radium.newChat)">New chat</button></div>
<div id="log" role="log" aria-live="polite"></div>
<div id="usage" title="The agent's usage: tokens of its context used, its size, the cost" hidden></div>
<div id="composer">
  <div id="chips"></div>
  <div id="slash" role="listbox" aria-label="The agent's commands" hidden></div>
  <textarea id="input" rows="3" placeholder="Ask the agent (Enter sends, Shift+Enter: new line)" aria-label="Prompt"></textarea>
  <div id="actions"><button id="addSel" title="Attach the selection">+ Selection</button><button id="addFile" title="Attach the current file">+ File</button><button id="addFiles" title="Pick files to attach">+ Files…</button><button id="addImage" title="Pick image files to attach (or paste an image into the input)">+ Image…</button><span class="grow"></span><button id="stop" disabled>Stop</button><button id="send">Send</button></div>
</div>
<div id="stats" hidden></div>
<script nonce="${nonce}" src="${src('markdown.js')}"></script>
<script nonce="${nonce}" src="${src('virtual.js')}"></script>
<script nonce="${nonce}" src="${src('answer.js')}"></script>
<script nonce="${nonce}" src="${src('chat.js')}"></script>
</body></html>`
  }

  dispose(): void {
    this.chat.dispose()
  }
}

/** Registers the view and the chat commands. */
export function registerChat(context: vscode.ExtensionContext, host: ChatHost): ChatView {
  const config = vscode.workspace.getConfiguration('radium')
  const initial = config.get<string>('chat.agent', '').trim() || config.get<string>('agent', 'example').trim()
  const view = new ChatView(context.extensionUri, host, initial)
  const chat = view.chat
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, chat.docs),
    vscode.workspace.onDidChangeTextDocument((e) => chat.onDocumentChange(e)),
    vscode.commands.registerCommand('radium.chat', async () => {
      const editor = vscode.window.activeTextEditor
      if (editor && !editor.selection.isEmpty) chat.addSelection(editor)
      await view.reveal()
    }),
    vscode.commands.registerCommand('radium.newChat', async () => {
      chat.reset()
      await view.reveal()
    }),
    vscode.commands.registerCommand('radium.chatHistory', async () => {
      // The view is revealed after the pick: revealed before, it takes the
      // focus and the quick pick closes.
      const id = await reopenConversation(chat, host)
      if (id) await view.reveal()
      return id
    }),
    vscode.commands.registerCommand('radium.stop', () => chat.stop()),
    vscode.commands.registerCommand('radium.attachSelection', () => chat.addSelection(vscode.window.activeTextEditor)),
    vscode.commands.registerCommand('radium.attachFile', () => {
      const uri = vscode.window.activeTextEditor?.document.uri
      if (uri) chat.addFiles([uri])
      else void vscode.window.showInformationMessage('Radium: no file is open')
    }),
    vscode.commands.registerCommand('radium.attachFiles', async () => {
      const uris = await vscode.workspace.findFiles('**/*', '**/{node_modules,.git,.radium}/**', 2000)
      const picked = await vscode.window.showQuickPick(
        uris.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })).sort((a, b) => a.label.localeCompare(b.label)),
        { canPickMany: true, title: 'Radium: files to attach to the chat' },
      )
      if (picked && picked.length > 0) chat.addFiles(picked.map((p) => p.uri))
    }),
    vscode.commands.registerCommand('radium.attachImage', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri
      const uris = await vscode.window.showOpenDialog({
        canSelectMany: true,
        defaultUri: folder,
        filters: { Images: ['png', 'jpg', 'jpeg', 'gif', 'webp'] },
        openLabel: 'Attach',
        title: 'Radium: images to attach to the chat',
      })
      if (uris && uris.length > 0) chat.addFiles(uris)
    }),
    vscode.commands.registerCommand('radium.trust', async () => {
      const { engine, workspace } = host.engine()
      if (!workspace) return host.fail('open a folder first: trust is given to a workspace')
      const choice = await vscode.window.showWarningMessage(
        `Radium: trust ${workspace}? Its .radium/agents.toml agents and hooks will run.`,
        'Trust',
        'Revoke trust',
      )
      if (!choice) return
      const r = engine.request({ command: 'trust', args: { path: workspace, revoke: choice === 'Revoke trust' } })
      if (!r.ok) return host.fail(`trust failed: ${r.error} [${r.code}]`)
      host.log(`trust: ${JSON.stringify(r.data)}`)
      void vscode.window.showInformationMessage(`Radium: ${workspace} is ${r.data?.trusted ? 'trusted' : 'not trusted'}`)
    }),
    vscode.commands.registerCommand('radium.undo', () => chat.undoRedo('undo')),
    vscode.commands.registerCommand('radium.redo', () => chat.undoRedo('redo')),
    view,
  )
  return view
}
