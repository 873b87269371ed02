// Finds and loads the radium native module (no dependency on VS Code, so it
// can be tested with plain Node).

import * as fs from 'fs'
import * as path from 'path'

/** The radium module's API, typed by the Node door's generated index.d.ts. */
export type Radium = typeof import('../../node')

/** An engine of the module. */
export type Engine = import('../../node').Engine

/** An answer of the engine's request door. */
export type Response = import('../../node').Response

/** A request to the engine's request door. */
export type Request = import('../../node').Request

/** The 13 hook types. */
export type HookType = import('../../node').HookType

/** A JS hook. */
export type HookFn = import('../../node').HookFn

/** A hook's registration options. */
export type HookOptions = import('../../node').HookOptions

/** The ABI this extension was written against (RADIUM_ABI_VERSION). */
export const EXPECTED_ABI = 1

/** A loaded module and where it came from. */
export interface Loaded {
  radium: Radium
  path: string
}

/**
 * Where the module may be, in order:
 * 1. `$RADIUM_NODE_MODULE` (a `.node` file or a package folder), for development;
 * 2. `radium.node` next to the extension (bundled by `npm run bundle-native`);
 * 3. the Node door's package in this repository (`../node`, built by
 *    `bash bindings/node/build.sh`).
 */
export function candidates(extensionPath: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const list: string[] = []
  const override = env.RADIUM_NODE_MODULE
  if (override) list.push(path.resolve(override))
  list.push(path.join(extensionPath, 'radium.node'))
  list.push(path.resolve(extensionPath, '..', 'node'))
  return list
}

function present(candidate: string): boolean {
  if (candidate.endsWith('.node')) return fs.existsSync(candidate)
  return fs.existsSync(path.join(candidate, 'index.js')) &&
    fs.readdirSync(candidate).some((name) => /^radium\..+\.node$/.test(name))
}

/** Loads the first module found; throws an Error listing what was tried. */
export function loadRadium(extensionPath: string, env: NodeJS.ProcessEnv = process.env): Loaded {
  const tried: string[] = []
  for (const candidate of candidates(extensionPath, env)) {
    if (!present(candidate)) {
      tried.push(`${candidate} (not found)`)
      continue
    }
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const radium = require(candidate) as Radium
      const abi = radium.abiVersion()
      if (abi !== EXPECTED_ABI) {
        tried.push(`${candidate} (ABI ${abi}, expected ${EXPECTED_ABI})`)
        continue
      }
      return { radium, path: candidate }
    } catch (e) {
      tried.push(`${candidate} (${e instanceof Error ? e.message : String(e)})`)
    }
  }
  throw new Error(`the radium native module was not found or did not load; tried:\n  ${tried.join('\n  ')}`)
}
