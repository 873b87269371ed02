#!/usr/bin/env node
// cancel-then-prompt.mjs — a chat with a real agent through rad's daemon
// (scripts/test-agents.sh): a turn cancelled mid-answer, then two prompts,
// each of whose answers must land under it (Claude Code's adapter, left to
// itself, answers the first at once and empty, then every answer one prompt
// late). Against tests/agents/model-server.mjs's `chat:` prompts.
//
//   node tests/agents/cancel-then-prompt.mjs SOCKET WORKSPACE AGENT
//
// Prints each turn's events as JSON lines; exits 0 when both answers are
// under their prompts, 1 (saying why) otherwise.
import net from "node:net";

const [socketPath, cwd, agent] = process.argv.slice(2);
if (!socketPath || !cwd || !agent) {
  console.error("usage: cancel-then-prompt.mjs SOCKET WORKSPACE AGENT");
  process.exit(2);
}

// One request on its own connection: a 4-byte big-endian length, then JSON.
function request(command, args) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const body = Buffer.from(JSON.stringify({ command, args, cwd }));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    let got = Buffer.alloc(0);
    socket.on("connect", () => socket.write(Buffer.concat([head, body])));
    socket.on("data", (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= 4 + got.readUInt32BE(0)) {
        socket.end();
        resolve(JSON.parse(got.subarray(4, 4 + got.readUInt32BE(0)).toString("utf8")));
      }
    });
    socket.on("error", reject);
  });
}

async function must(command, args) {
  const r = await request(command, args);
  if (!r.ok) fail(`${command} failed: ${JSON.stringify(r)}`);
  return r.data;
}

function fail(why) {
  console.error(`cancel-then-prompt: ${why}`);
  process.exit(1);
}

// One turn: its events to the end; `cancelOn`: cancel once text holding it came.
async function turn(session, prompt, cancelOn) {
  await must("session-prompt", { session, prompt });
  const events = [];
  // The text so far: an agent may send a word in several chunks.
  let text = "";
  let cancelled = false;
  const started = Date.now();
  while (Date.now() - started < 120000) {
    const { events: got } = await must("session-events", { session, wait_ms: 1000 });
    for (const event of got) {
      console.log(JSON.stringify({ prompt, ...event }));
      events.push(event);
      if (event.type === "text") text += event.text;
      if (cancelOn && !cancelled && text.includes(cancelOn)) {
        cancelled = true;
        await must("session-cancel", { session });
      }
      if (event.type === "turn_end" || event.type === "error") return events;
    }
  }
  fail(`the turn of "${prompt}" did not end within 120 s`);
}

const { session } = await must("session-new", { agent });
const first = await turn(session, "chat: slow", "thinking");
const end = first[first.length - 1];
if (end.type !== "turn_end" || end.stop_reason !== "cancelled") fail(`the slow turn did not end cancelled: ${JSON.stringify(end)}`);
for (const words of ["two", "three"]) {
  const events = await turn(session, `chat: ${words}`);
  const last = events[events.length - 1];
  if (last.type !== "turn_end") fail(`"chat: ${words}" ended with ${JSON.stringify(last)}`);
  if (!String(last.text).includes(`pong: ${words}`)) {
    fail(`the answer under "chat: ${words}" is ${JSON.stringify(last.text)}, not "pong: ${words}"`);
  }
}
await must("session-close", { session });
console.error("cancel-then-prompt: each answer landed under its prompt");
