// The radium extension: loads the native engine in the extension host and,
// for now, reports its version. Editor commands will build on `loaded()`.

import * as vscode from 'vscode'

import { loadRadium, type Loaded } from './native'

let output: vscode.OutputChannel | undefined
let cached: Loaded | undefined

function channel(): vscode.OutputChannel {
  output ??= vscode.window.createOutputChannel('Radium')
  return output
}

/** The native module, loaded on first use. */
function loaded(context: vscode.ExtensionContext): Loaded {
  cached ??= loadRadium(context.extensionPath)
  return cached
}

function showVersion(context: vscode.ExtensionContext): void {
  const out = channel()
  try {
    const { radium, path } = loaded(context)
    const text = `Radium ${radium.version()} (ABI ${radium.abiVersion()})`
    out.appendLine(`${text}, native module: ${path}`)
    void vscode.window.showInformationMessage(text)
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    out.appendLine(`error: ${message}`)
    out.show(true)
    void vscode.window.showErrorMessage(`Radium: ${message.split('\n')[0]}`)
  }
}

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('radium.showVersion', () => showVersion(context)),
    { dispose: () => output?.dispose() },
  )
}

export function deactivate(): void {
  cached = undefined
}
