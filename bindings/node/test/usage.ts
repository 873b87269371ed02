// Type-checked (never run) against the generated ../index.d.ts:
//   npx tsc --noEmit -p test/tsconfig.json
// It exercises every export with the types a TypeScript user writes, and
// `@ts-expect-error` lines prove that wrong uses are refused.

import {
  abiVersion,
  Engine,
  hookTypes,
  pendingChains,
  version,
  type ChainOutcome,
  type HookContext,
  type HookFn,
  type HookInfo,
  type HookOptions,
  type HookResult,
  type HookRun,
  type HookType,
  type RadiumError,
  type Response,
  type ScriptHookOptions,
} from '..'

const v: string = version()
const abi: number = abiVersion()
const types: HookType[] = hookTypes()
const inFlight: number = pendingChains()
console.log(v, abi, types.length, inFlight)

const engine = new Engine({ workspace: process.cwd() })
new Engine()
new Engine(null)
// @ts-expect-error the options are an object
new Engine('/tmp')

interface ToolData {
  tool_name: string
  arguments?: Record<string, unknown>
}

// Synchronous hooks: return a result, or nothing to continue.
engine.register('add-flag', 'before_tool', (ctx: HookContext<ToolData>): HookResult => {
  return { action: 'modify', data: { ...ctx.data, arguments: { ...ctx.data.arguments, dry_run: true } } }
}, { priority: 150, matcher: 'create|str-replace' })
engine.register('observe', 'after_tool', (ctx) => {
  console.log(ctx.hook_type, ctx.data, ctx.metadata)
})
engine.register('guard', 'tool_selection', (ctx) => {
  if (ctx.data.tool_name === 'rm') return { action: 'stop', reason: 'no rm' }
  return undefined
})
engine.register('fails', 'error_logging', () => ({ action: 'error', message: 'told so' }))
engine.register('short', 'before_model', (ctx) => ({ data: { input: String(ctx.data.input).toUpperCase() } }))
engine.register('nothing', 'custom_logging', () => null)

// Asynchronous hooks: async functions (awaited by executeAsync).
const slow: HookFn<ToolData> = async (ctx) => {
  await new Promise((resolve) => setTimeout(resolve, 10))
  return ctx.data.tool_name === 'view' ? undefined : { action: 'continue' }
}
const options: HookOptions = { timeoutMs: 2000, enabled: false }
engine.register('slow', 'before_tool', slow, options)

// @ts-expect-error not a hook type
engine.register('typo', 'before_lunch', () => undefined)
// @ts-expect-error unknown action
engine.register('bad', 'before_tool', () => ({ action: 'explode' }))
// @ts-expect-error options use camelCase
engine.register('snake', 'before_tool', () => undefined, { timeout_ms: 5 })

const scriptOptions: ScriptHookOptions = { cwd: '/tmp', timeoutMs: 5000, priority: 10 }
engine.registerScript('lint', 'before_tool', ['./hooks/lint.sh', '--fast'], scriptOptions)
// @ts-expect-error the command is an array
engine.registerScript('lint2', 'before_tool', './hooks/lint.sh')

engine.disable('slow')
engine.enable('slow')
engine.unregister('slow')

const listed: HookInfo[] = engine.list()
for (const h of listed) {
  const t: HookType = h.hook_type
  const matcher: string | null = h.matcher
  const limit: number | null = h.timeout_ms
  console.log(h.name, t, h.priority, h.enabled, matcher, limit)
}

const outcome: ChainOutcome<ToolData> = engine.execute('before_tool', { tool_name: 'create' })
const runs: HookRun[] = outcome.hooks
if (outcome.status === 'stopped' && outcome.stopped_by !== null) {
  console.log(outcome.stopped_by.hook, outcome.stopped_by.reason)
}
console.log(outcome.data.tool_name, outcome.duration_ns, runs.map((r) => [r.name, r.status, r.duration_ns, r.error]))
// @ts-expect-error not a hook type
engine.execute('before_lunch', {})

async function nonBlocking(): Promise<void> {
  const out = await engine.executeAsync('before_tool', { tool_name: 'view' }, { timeoutMs: 5000 })
  if (out.status === 'deadline_exceeded') console.log('too slow')
  await engine.executeAsync('after_model')
  try {
    await engine.executeAsync('after_model', {}, { timeoutMs: -1 })
  } catch (e) {
    const err = e as RadiumError
    console.log(err.code, err.message)
  }
}
void nonBlocking()

async function requests(): Promise<void> {
  const later: Response = await engine.requestAsync({ command: 'hooks-execute', args: { hook_type: 'before_tool', data: {} } })
  if (later.ok) console.log((later.data as ChainOutcome).status)
  // @ts-expect-error a request is an object with a command
  await engine.requestAsync({ args: {} })
}
void requests()

const pong: Response = engine.request({ command: 'ping' })
const failed: Response = engine.request({ command: 'hooks-enable', args: { name: 'x' }, cwd: '/tmp' })
if (!failed.ok) console.log(failed.code, failed.error)
console.log(pong.data)
// @ts-expect-error a request is an object with a command
engine.request('ping')

try {
  engine.unregister('missing')
} catch (e) {
  const err = e as RadiumError
  if (err.code === 'unknown_hook') console.log(err.message)
}
