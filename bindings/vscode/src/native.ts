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
  /** Where it came from: `RADIUM_NODE_MODULE`, the extension (`bundled`) or the repository's build. */
  origin: 'RADIUM_NODE_MODULE' | 'bundled' | 'repository'
}

/** The extension's own version (its package.json), or undefined when it has none. */
export function extensionVersion(extensionPath: string): string | undefined {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(extensionPath, 'package.json'), 'utf8')) as { version?: string }
    return pkg.version
  } catch {
    return undefined
  }
}

/**
 * The `rad` the engines offer to agents (radium's MCP tools): the one in the
 * extension (`bin/rad`, in a platform's .vsix), else `rad` on `PATH`;
 * undefined when there is none.
 */
export function radProgram(extensionPath: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const bundled = path.join(extensionPath, 'bin', 'rad')
  if (executable(bundled)) return bundled
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, 'rad'))) return path.join(dir, 'rad')
  }
  return undefined
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
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

/**
 * Loads the first module found; throws an Error listing what was tried. A
 * module of another version than the extension's is refused (the message
 * says how to update).
 */
export function loadRadium(extensionPath: string, env: NodeJS.ProcessEnv = process.env): Loaded {
  const tried: string[] = []
  const want = extensionVersion(extensionPath)
  const list = candidates(extensionPath, env)
  const origins: Loaded['origin'][] = env.RADIUM_NODE_MODULE ? ['RADIUM_NODE_MODULE', 'bundled', 'repository'] : ['bundled', 'repository']
  for (const [i, candidate] of list.entries()) {
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
      if (want !== undefined && radium.version() !== want) {
        tried.push(`${candidate} (version ${radium.version()}, but the extension is ${want}: install the extension's .vsix of ` +
          `version ${want} for this platform, or rebuild the module: bash bindings/node/build.sh)`)
        continue
      }
      return { radium, path: candidate, origin: origins[i] }
    } catch (e) {
      tried.push(`${candidate} (${e instanceof Error ? e.message : String(e)})`)
    }
  }
  throw new Error(`the radium native module was not found or did not load; tried:\n  ${tried.join('\n  ')}`)
}

/**
 * What Show Version says: the build loaded, where it came from, and whether
 * `rad` is reachable (a notification's message and the output's lines).
 */
export function describe(loaded: Loaded, rad: string | undefined): { message: string; lines: string[] } {
  const text = `Radium ${loaded.radium.version()} (ABI ${loaded.radium.abiVersion()})`
  return {
    message: `${text}, ${loaded.origin} module, rad ${rad ? 'reachable' : 'not found'}`,
    lines: [
      `${text}, native module: ${loaded.path} (${loaded.origin})`,
      rad ? `rad: ${rad}` : 'rad: not found (agents get no radium tools: install the .vsix of your platform, or put rad on PATH)',
    ],
  }
}
