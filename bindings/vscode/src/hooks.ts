// The JS hooks other extensions register through the extension's API, kept
// so that every engine gets them: the engines that exist when a hook is
// registered, and the ones created later. No dependency on VS Code, so it can
// be tested with plain Node.

import type { Engine, HookFn, HookOptions, HookType } from './native'

/** A hook as an extension registered it. */
export interface HookSpec {
  name: string
  hookType: HookType
  fn: HookFn
  options?: HookOptions
}

/** Something to call to undo a registration (shaped like `vscode.Disposable`). */
export interface Disposer {
  dispose(): void
}

/**
 * The registered JS hooks and the engines they go to. `register` throws
 * (a RadiumError with its `code`) when an existing engine refuses the hook,
 * e.g. a name already taken or an unknown hook type; nothing is kept then.
 */
export class HookSet {
  private readonly hooks = new Map<string, HookSpec>()
  private readonly engines = new Set<Engine>()

  /** @param log where failures of later registrations are reported */
  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** The registered hooks, in registration order. */
  list(): HookSpec[] {
    return [...this.hooks.values()]
  }

  /** Registers a hook on every engine, now and later; dispose removes it everywhere. */
  register(spec: HookSpec): Disposer {
    if (this.hooks.has(spec.name)) {
      throw Object.assign(new Error(`a hook named \`${spec.name}\` is already registered`), { code: 'duplicate_hook' })
    }
    const done: Engine[] = []
    try {
      for (const engine of this.engines) {
        engine.register(spec.name, spec.hookType, spec.fn, spec.options ?? null)
        done.push(engine)
      }
    } catch (e) {
      for (const engine of done) unregisterQuietly(engine, spec.name)
      throw e
    }
    this.hooks.set(spec.name, spec)
    let disposed = false
    return {
      dispose: () => {
        if (disposed || this.hooks.get(spec.name) !== spec) return
        disposed = true
        this.hooks.delete(spec.name)
        for (const engine of this.engines) unregisterQuietly(engine, spec.name)
      },
    }
  }

  /** Adds an engine: every registered hook is registered on it. */
  attach(engine: Engine): void {
    this.engines.add(engine)
    for (const spec of this.hooks.values()) {
      try {
        engine.register(spec.name, spec.hookType, spec.fn, spec.options ?? null)
      } catch (e) {
        this.log(`hook ${spec.name}: not registered on a new engine: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
  }

  /** Forgets every engine (the hooks stay, for the engines created next). */
  detachAll(): void {
    this.engines.clear()
  }
}

function unregisterQuietly(engine: Engine, name: string): void {
  try {
    engine.unregister(name)
  } catch {
    // Already gone: nothing to undo.
  }
}
