'use strict'
// Agent sessions as async iterators, on top of the native
// `engine.sessionEvents(session)` (a Promise of the next batch of events,
// settled on the JS thread; the event loop never waits for the agent).
//
//   const { openSession } = require('radium-node/session')
//   const session = await openSession(engine, 'claude')
//   for await (const event of session.prompt('fix the bug', { context })) {
//     if (event.type === 'text') process.stdout.write(event.text)
//     if (event.type === 'permission') session.answer(event.id, 'allow')
//   }
//   session.close()

/** Every event of `session` until it ends. */
async function * sessionEvents (engine, session) {
  for (;;) {
    const batch = await engine.sessionEvents(session)
    if (batch === null) return
    yield * batch
  }
}

function checked (response) {
  if (!response.ok) {
    const error = new Error(response.error)
    error.code = response.code
    throw error
  }
  return response.data
}

/** An open session with a coding agent. */
class Session {
  constructor (engine, data) {
    this.engine = engine
    this.id = data.session
    this.agent = data.agent
    this.workspace = data.workspace
    this.events = sessionEvents(engine, this.id)
  }

  /**
   * Starts a turn and iterates over its events; the last one is `turn_end`
   * or `error`. `options`: `context` (an editor context), `buffers`
   * ({path: unsaved text}), `openFiles` ([{path, text}]), `images` (image
   * files of the workspace, for an agent that takes images). Throws (code
   * `invalid_argument`) when a turn is already running.
   */
  async * prompt (prompt, options = {}) {
    checked(this.engine.request({
      command: 'session-prompt',
      args: {
        session: this.id,
        prompt,
        context: options.context ?? null,
        buffers: options.buffers ?? null,
        open_files: options.openFiles ?? null,
        images: options.images ?? null
      }
    }))
    for (;;) {
      const { value, done } = await this.events.next()
      if (done) return
      yield value
      if (value.type === 'turn_end' || value.type === 'error') return
    }
  }

  /**
   * Answers permission request `id`: 'allow' or 'reject' (the agent's option
   * of that kind), or one of the request's options, sent by its exact id (an
   * entry of the event's `options`, or `{ option: id }`): its kind decides,
   * so an option with the id 'allow' whose kind rejects, rejects. An object
   * may keep only some hunks of the request's diffs: `{ answer: 'allow',
   * hunks: { [path]: [index, ...] } }` (the event's `hunks` numbering; the
   * engine takes the others back from the agent's write).
   */
  answer (id, choice) {
    const args = { session: this.id, id }
    if (choice !== null && typeof choice === 'object') {
      if (typeof choice.answer === 'string') args.answer = choice.answer
      else args.option = choice.option ?? choice.id
      if (choice.hunks !== undefined) args.hunks = choice.hunks
    } else args.answer = choice
    return checked(this.engine.request({ command: 'session-permission', args }))
  }

  /** Cancels the running turn (it ends with stop_reason 'cancelled'). */
  cancel () {
    return checked(this.engine.request({ command: 'session-cancel', args: { session: this.id } }))
  }

  /** Ends the session: the agent and its children end. */
  close () {
    return checked(this.engine.request({ command: 'session-close', args: { session: this.id } }))
  }
}

/** Opens a session with `agent` (an id from agents.toml) without blocking. */
async function openSession (engine, agent) {
  const response = await engine.requestAsync({ command: 'session-new', args: { agent } })
  return new Session(engine, checked(response))
}

module.exports = { openSession, sessionEvents, Session }
