// "Radium: Agents…": the agents of radium's catalogue and of agents.toml
// (the engine's `agents-list`) in a quick pick, each with its status; picking
// one that is not installed offers to install it (`agents-install`, off the
// extension host's thread, under a progress notification); picking another
// says where it is and how to sign in.

import * as vscode from 'vscode'
import type { Engine } from './native'
import { failureText, timedRequest, timedRequestAsync, type Log } from './requests'

/** One agent of the `agents-list` answer. */
export interface ListedAgent {
  id: string
  name: string
  protocol: string
  status: 'configured' | 'installed' | 'not_installed'
  ready: boolean
  found: string | null
  command: string[]
  source: string
  package: string | null
  version: string | null
  sign_in: string | null
  pitfalls: string[]
}

/** A quick pick item of an agent. */
export interface ListedItem extends vscode.QuickPickItem {
  agent: ListedAgent
}

/** Where an agent is, in words. */
export function whereOf(a: ListedAgent): string {
  if (a.status === 'not_installed') return `not installed: ${a.package}@${a.version}`
  if (a.status === 'configured') return `configured in ${a.source}`
  if (a.found === 'builtin') return 'built into radium'
  return `installed${a.found === 'cache' ? " in radium's cache" : ' on PATH'}: ${a.command[0] ?? ''}`
}

/** The quick pick items of the agents. */
export function agentListItems(agents: ListedAgent[]): ListedItem[] {
  return agents.map((a) => ({
    label: `${a.status === 'not_installed' ? '$(cloud-download)' : '$(check)'} ${a.id}`,
    description: whereOf(a),
    detail: a.sign_in ? `${a.name}. Sign in: ${a.sign_in}` : a.name,
    agent: a,
  }))
}

/** Installs catalogue agent `id` under a progress notification; says how it went. */
export async function installAgent(engine: Engine, agent: ListedAgent, log: Log): Promise<boolean> {
  const response = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Radium: installing ${agent.id} (${agent.package}@${agent.version}) with npm…` },
    () => timedRequestAsync(engine, { command: 'agents-install', args: { agent: agent.id } }, log),
  )
  if (!response.ok) {
    void vscode.window.showErrorMessage(`Radium: ${failureText(response, 'the install failed')}`)
    return false
  }
  const data = response.data as { package: string; path: string; fetched: boolean }
  log(`agents-install ${agent.id}: ${data.package} in ${data.path}`)
  void vscode.window.showInformationMessage(
    data.fetched ? `Radium: installed ${data.package} as agent ${agent.id}` : `Radium: ${data.package} is installed already (agent ${agent.id})`,
  )
  return true
}

/** "Radium: Agents…". */
export async function agentsCommand(engine: Engine, log: Log): Promise<void> {
  const response = timedRequest(engine, { command: 'agents-list' }, log)
  if (!response.ok) {
    void vscode.window.showErrorMessage(`Radium: ${failureText(response, 'the agents could not be listed')}`)
    return
  }
  const agents = ((response.data as { agents?: ListedAgent[] })?.agents ?? [])
  const picked = await vscode.window.showQuickPick<ListedItem>(agentListItems(agents), {
    title: 'Radium: agents (radium\'s catalogue and agents.toml)',
    placeHolder: 'Pick one that is not installed to install it, or one to see how to sign in',
    matchOnDescription: true,
  })
  if (!picked) return
  const a = picked.agent
  if (a.status === 'not_installed') {
    const choice = await vscode.window.showInformationMessage(
      `Radium: install ${a.id} (${a.package}@${a.version}) with npm into radium's cache?`,
      'Install',
    )
    if (choice === 'Install') await installAgent(engine, a, log)
    return
  }
  const notes = a.pitfalls.length > 0 ? ` Note: ${a.pitfalls.join(' ')}` : ''
  void vscode.window.showInformationMessage(
    `Radium: ${a.id} is ${whereOf(a)}.${a.sign_in ? ` Sign in: ${a.sign_in}.` : ''}${notes}`,
  )
}
