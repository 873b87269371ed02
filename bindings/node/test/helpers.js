'use strict'
// Shared helpers for the tests (not a test file itself).

const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const radium = require('..')

/** Asserts that `fn` throws a JS Error with `code` and a message containing `text`. */
function throwsCode(fn, code, text) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `expected an Error, got ${e}`)
    assert.equal(e.code, code, `code of: ${e.message}`)
    if (text !== undefined) assert.ok(e.message.includes(text), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(text)}`)
    return true
  })
}

/** Asserts that `promise` rejects with a JS Error with `code` and a message containing `text`. */
async function rejectsCode(promise, code, text) {
  assert.ok(promise instanceof Promise, 'expected a Promise')
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Error, `expected an Error, got ${e}`)
    assert.equal(e.code, code, `code of: ${e.message}`)
    if (text !== undefined) assert.ok(e.message.includes(text), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(text)}`)
    return true
  })
}

/** A hook that appends `name` to `data.trace` and answers modify. */
function tracer(name) {
  return (ctx) => {
    const data = ctx.data
    data.trace = (data.trace || []).concat(name)
    return { action: 'modify', data }
  }
}

/** The names of the hooks an outcome lists. */
const names = (outcome) => outcome.hooks.map((h) => h.name)

/** The run of hook `name` in an outcome. */
const run = (outcome, name) => outcome.hooks.find((h) => h.name === name)

/** The hooks a test registered, named `t-…` (the engine also has built-in ones). */
const mine = (engine, prefix = 't-') => engine.list().filter((h) => h.name.startsWith(prefix))

/**
 * A script hook command: a Node program that reads the context on stdin,
 * appends `label` to data.trace and answers modify, after `delayMs`.
 */
function traceScript(label, delayMs = 0) {
  const src = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>setTimeout(()=>{` +
    `const c=JSON.parse(s);c.data.trace=(c.data.trace||[]).concat(${JSON.stringify(label)});` +
    `process.stdout.write(JSON.stringify({action:'modify',data:c.data}))},${delayMs}))`
  return [process.execPath, '-e', src]
}

/** Runs a Node program in a child process; returns { status, stdout, stderr, ms }. */
function runChild(source, { timeout = 30000, args = [] } = {}) {
  const start = Date.now()
  const r = spawnSync(process.execPath, [...args, '-e', source], {
    cwd: path.join(__dirname, '..'),
    encoding: 'utf8',
    timeout,
  })
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - start }
}

// Asserts that a timer of `periodMs` kept firing over `ms` of waiting: the
// event loop ran. A loop held by the work would tick once at most, at its
// end. On a loaded machine an eighth of the ticks, and at least 2, are
// asked: the count follows the time that passed, never a fixed number.
function ticked (ticks, ms, periodMs, what) {
  assert.ok(ticks >= Math.max(2, ms / periodMs / 8),
    `${what}: the event loop kept running (${ticks} ticks of ${periodMs} ms in ${Math.round(ms)} ms)`)
}

// Removes a test's folder once a closed session's work in the background
// (its last records) is done writing into it: rmSync retries while the
// folder is not empty, waiting 50 ms longer each time, for about 10 s in all
// (2.75 s, 10 tries, was outrun on a machine busy with a release build).
function removeDir (dir) {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 })
}

module.exports = { radium, throwsCode, rejectsCode, tracer, names, run, mine, traceScript, runChild, ticked, removeDir }
