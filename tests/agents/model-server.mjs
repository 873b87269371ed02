#!/usr/bin/env node
// model-server.mjs — a scripted model on 127.0.0.1 for real coding agents
// (scripts/test-agents.sh): it speaks enough of the Anthropic Messages API
// (Claude Code) and of the Gemini API (Gemini CLI) for one agent turn that
// edits one file. Node 20, no dependencies.
//
//   node tests/agents/model-server.mjs --file /abs/notes.txt --content 'new text'
//
// Options (or the environment variables after them):
//   --file PATH      MODEL_FILE     the file the agent is told to write (absolute)
//   --content TEXT   MODEL_CONTENT  its new whole content
//   --port N         MODEL_PORT     the port (default 0: a free one)
//   --via WAY        MODEL_VIA      "files" (default: the agent's own file
//                                   tools) or "mcp": Claude Code calls
//                                   radium's MCP tool str_replace instead,
//                                   or "bash": Claude Code runs one command
//                                   with its Bash tool (no file is written)
//   --command TEXT   MODEL_COMMAND  with --via bash: the command
//   --file2 PATH     MODEL_FILE2    (Claude Code, --via files) a second file
//                                   written in the same turn, after the
//                                   first: read it, then write it
//   --content2 TEXT  MODEL_CONTENT2 its new whole content
//   --old TEXT       MODEL_OLD      with --via mcp: the text replaced (default "hello\n")
//   (--via usermcp)                 Claude Code calls the user's MCP tool
//                                   mcp__<server>__<tool> with {text: CONTENT}
//   --mcp-server NAME MODEL_MCP_SERVER  its server (default "usertools")
//   --mcp-tool NAME  MODEL_MCP_TOOL the tool (default "write_marker")
//   --log-messages PATH  MODEL_LOG_MESSAGES  appends, for each Anthropic
//                                   request and each streamed Gemini
//                                   request, one JSON line: the messages
//                                   (Gemini: contents) it carries
//                                   ({role, text}), so a test can check
//                                   what the agent sent the model
//
// It prints `PORT <n>` as the first line on stdout once it listens, then runs
// until it is killed or, when its stdin is a pipe or a socket, until its
// stdin closes. Every request is logged on stderr, one line each (method,
// path, what was asked, what was answered); an Anthropic request and a
// streamed Gemini request also have a line `#<n> model <the model asked>`
// (Gemini's is in the path, /v1beta/models/<model>:streamGenerateContent).
//
// The script, in each API, decided from the conversation the request carries
// (so it needs no state, and a retried request gets the same answer):
//   - the last user message is a prompt (no tool result): some text and a
//     tool call: Claude Code reads the file first (its Edit and Write refuse a
//     file not read), Gemini CLI writes it at once (write_file);
//   - the result of that read comes back: some text and the write (Claude
//     Code's Write with the whole new content);
//   - the result of the write comes back: a final text, end of turn
//     (end_turn / STOP). A failed tool result also ends the turn, with the
//     error in the text.
// A prompt starting with `chat:` (both APIs) is a chat turn, not an
// edit: `chat: slow` streams `thinking` and then nothing for 60 s (a turn to
// cancel), `chat: recall` is answered `recall: ` and the words of the earlier
// `chat:` prompts the conversation carries (`|` between them; `nothing`), any
// other `chat: <words>` is answered `pong: <words>`, end of turn.
// `chat: image` is answered `image: ` and, for each image block of the last
// user message ({type: "image", source: {type: "base64", media_type, data}}),
// its media type and the SHA-256 of its decoded data (`none` when there is
// none), so a test checks the agent passed on the image it was given. In
// Gemini's API the same for a prompt holding `chat: image` and `inlineData`
// parts ({mimeType, data}).
// Side calls get short, valid answers: Claude Code's requests without the
// file tools (titles, summaries, checks) get plain text; Gemini CLI's
// `:generateContent` calls (its model router, its next-speaker check) ask for
// JSON with a schema, and get a value built from that schema.

import http from "node:http";
import fs from "node:fs";
import zlib from "node:zlib";
import { createHash, randomBytes } from "node:crypto";

function option(name, envName, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  return process.env[envName] ?? fallback;
}

const FILE = option("file", "MODEL_FILE", "");
const CONTENT = option("content", "MODEL_CONTENT", "");
const PORT = Number(option("port", "MODEL_PORT", "0"));
const VIA = option("via", "MODEL_VIA", "files");
const OLD = option("old", "MODEL_OLD", "hello\n");
const COMMAND = option("command", "MODEL_COMMAND", "printf 'radium-line-%s\\n' 1 2 3");
const FILE2 = option("file2", "MODEL_FILE2", "");
const CONTENT2 = option("content2", "MODEL_CONTENT2", "");
const MCP_SERVER = option("mcp-server", "MODEL_MCP_SERVER", "usertools");
const MCP_TOOL = option("mcp-tool", "MODEL_MCP_TOOL", "write_marker");
const LOG_MESSAGES = option("log-messages", "MODEL_LOG_MESSAGES", "");
if (!FILE || !FILE.startsWith("/")) {
  process.stderr.write("model-server: --file (or MODEL_FILE) must be an absolute path\n");
  process.exit(2);
}
if (FILE2 && !FILE2.startsWith("/")) {
  process.stderr.write("model-server: --file2 (or MODEL_FILE2) must be an absolute path\n");
  process.exit(2);
}

const log = (line) => process.stderr.write(`model-server: ${line}\n`);
const id = (prefix) => `${prefix}${randomBytes(8).toString("hex")}`;
const short = (s, n = 60) => {
  const t = String(s ?? "").replace(/\s+/g, " ");
  return t.length > n ? `${t.slice(0, n)}…` : t;
};

// ---------------------------------------------------------------- Anthropic

// An image a request carries: its type and the SHA-256 of its bytes.
function imageSummary(type, base64) {
  return `${type} sha256 ${createHash("sha256").update(Buffer.from(String(base64 ?? ""), "base64")).digest("hex")}`;
}

// The tool whose name is `name` or ends with `__name` (an MCP-wrapped one),
// among the tools the request offers.
function anthropicTool(body, name) {
  const names = (body.tools ?? []).map((t) => t?.name).filter(Boolean);
  return names.find((n) => n === name) ?? names.find((n) => n.endsWith(`__${name}`));
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (b?.type === "text" ? b.text : b?.type === "tool_result" ? textOf(b.content) : ""))
    .join("");
}

// The words after `chat:` of the main loop's last prompt (null: not a chat
// turn, or a side call).
function chatPrompt(body) {
  if (!anthropicTool(body, "Read")) return null;
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || toolResults(messages).length) return null;
  const m = /(?:^|\n)chat: ([^\n]*)/.exec(textOf(last.content));
  return m ? m[1].trim() : null;
}

// The tool results the conversation's last message carries (none when it is
// a prompt).
function toolResults(messages) {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  return last.content.filter((b) => b?.type === "tool_result");
}

// What the scripted model answers: {blocks: [{type: "text", text} |
// {type: "tool_use", name, input}], stop_reason, step}.
function anthropicScript(body) {
  const chat = chatPrompt(body);
  if (chat !== null) {
    if (chat === "slow") return { step: "slow", stop_reason: "end_turn", slow: true, blocks: [{ type: "text", text: "thinking" }] };
    if (chat === "recall") {
      const earlier = (body.messages ?? []).slice(0, -1).filter((m) => m?.role === "user")
        .flatMap((m) => [...textOf(m.content).matchAll(/(?:^|\n)chat: ([^\n]*)/g)].map((x) => x[1].trim()));
      return { step: "chat", stop_reason: "end_turn", blocks: [{ type: "text", text: `recall: ${earlier.join(" | ") || "nothing"}` }] };
    }
    if (chat === "image") {
      const messages = body.messages ?? [];
      const last = messages[messages.length - 1];
      const images = (Array.isArray(last?.content) ? last.content : [])
        .filter((b) => b?.type === "image" && b.source?.type === "base64")
        .map((b) => imageSummary(b.source.media_type, b.source.data));
      return { step: "image", stop_reason: "end_turn", blocks: [{ type: "text", text: `image: ${images.join(", ") || "none"}` }] };
    }
    const flood = /^flood (\d+)$/.exec(chat);
    if (flood) {
      // `chat: flood <n>`: the numbers 0 to n-1 (each with a space after
      // it), one text delta each: a flood of small chunks, to be checked
      // whole and in order.
      const n = Math.min(Number(flood[1]), 200000);
      const text = Array.from({ length: n }, (_, i) => `${i} `).join("");
      return { step: "flood", stop_reason: "end_turn", blocks: [{ type: "text", text, pieces: n }] };
    }
    return { step: "chat", stop_reason: "end_turn", blocks: [{ type: "text", text: `pong: ${chat}` }] };
  }
  if (VIA === "mcp") return anthropicMcpScript(body);
  if (VIA === "bash") return anthropicBashScript(body);
  if (VIA === "usermcp") return anthropicUserMcpScript(body);
  const read = anthropicTool(body, "Read");
  const write = anthropicTool(body, "Write");
  if (!read || !write) {
    // A side call (a title, a summary, a check): short plain text.
    return { step: "side", stop_reason: "end_turn", blocks: [{ type: "text", text: "Edit notes" }] };
  }
  const messages = body.messages ?? [];
  const results = toolResults(messages);
  if (results.length === 0) {
    return {
      step: "read",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: `I will read ${FILE} first.` },
        { type: "tool_use", name: read, input: { file_path: FILE } },
      ],
    };
  }
  // Which of our tool calls this result answers.
  const uses = new Map();
  const paths = new Map();
  for (const m of messages) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b?.type !== "tool_use") continue;
      uses.set(b.id, b.name);
      paths.set(b.id, b.input?.file_path);
    }
  }
  const result = results[results.length - 1];
  const tool = uses.get(result.tool_use_id) ?? "";
  // With --file2: the second file is read, then written, after the first.
  const second = FILE2 && paths.get(result.tool_use_id) === FILE2;
  if (result.is_error) {
    return {
      step: "failed",
      stop_reason: "end_turn",
      blocks: [{ type: "text", text: `The tool ${tool} failed: ${textOf(result.content)}` }],
    };
  }
  if (tool === read) {
    return {
      step: second ? "write2" : "write",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: "Now I will write the new content." },
        { type: "tool_use", name: write, input: second ? { file_path: FILE2, content: CONTENT2 } : { file_path: FILE, content: CONTENT } },
      ],
    };
  }
  if (FILE2 && !second) {
    return {
      step: "read2",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: `Now ${FILE2}.` },
        { type: "tool_use", name: read, input: { file_path: FILE2 } },
      ],
    };
  }
  return {
    step: "done",
    stop_reason: "end_turn",
    blocks: [{ type: "text", text: FILE2 ? `Done: ${FILE} and ${FILE2} have their new content.` : `Done: ${FILE} has its new content.` }],
  };
}

// With --via mcp: one call of radium's MCP tool str_replace (offered to
// Claude Code as mcp__radium__str_replace by the session), then the end.
function anthropicMcpScript(body) {
  const replace = anthropicTool(body, "str_replace");
  if (!replace) {
    return { step: "side", stop_reason: "end_turn", blocks: [{ type: "text", text: "Edit notes" }] };
  }
  const results = toolResults(body.messages ?? []);
  if (results.length === 0) {
    return {
      step: "mcp",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: `I will edit ${FILE} through radium.` },
        { type: "tool_use", name: replace, input: { path: FILE, old: OLD, new: CONTENT } },
      ],
    };
  }
  const result = results[results.length - 1];
  if (result.is_error) {
    return {
      step: "failed",
      stop_reason: "end_turn",
      blocks: [{ type: "text", text: `The tool ${replace} failed: ${textOf(result.content)}` }],
    };
  }
  return {
    step: "done",
    stop_reason: "end_turn",
    blocks: [{ type: "text", text: `Done: ${FILE} has its new content (${short(textOf(result.content), 80)}).` }],
  };
}

// With --via bash: one call of Claude Code's Bash tool, then the end (the
// final text quotes the command's output, as a model would).
function anthropicBashScript(body) {
  const bash = anthropicTool(body, "Bash");
  if (!bash) {
    return { step: "side", stop_reason: "end_turn", blocks: [{ type: "text", text: "Run a command" }] };
  }
  const results = toolResults(body.messages ?? []);
  if (results.length === 0) {
    return {
      step: "bash",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: "I will run a command." },
        { type: "tool_use", name: bash, input: { command: COMMAND, description: "Print three lines" } },
      ],
    };
  }
  const result = results[results.length - 1];
  const text = result.is_error
    ? `The tool ${bash} failed: ${textOf(result.content)}`
    : `Done: the command printed ${short(textOf(result.content), 80)}.`;
  return { step: result.is_error ? "failed" : "done", stop_reason: "end_turn", blocks: [{ type: "text", text }] };
}

// With --via usermcp: one call of the user's MCP tool (mcp__<server>__<tool>,
// offered to Claude Code from the session's mcpServers), then the end.
function anthropicUserMcpScript(body) {
  const name = `mcp__${MCP_SERVER}__${MCP_TOOL}`;
  const offered = (body.tools ?? []).some((t) => t?.name === name);
  if (!anthropicTool(body, "Read")) {
    return { step: "side", stop_reason: "end_turn", blocks: [{ type: "text", text: "Use a tool" }] };
  }
  if (!offered) {
    const names = (body.tools ?? []).map((t) => t?.name).filter((n) => n?.startsWith("mcp__"));
    return { step: "missing", stop_reason: "end_turn", blocks: [{ type: "text", text: `The tool ${name} is not offered (MCP tools: ${names.join(", ") || "none"}).` }] };
  }
  const results = toolResults(body.messages ?? []);
  if (results.length === 0) {
    return {
      step: "usermcp",
      stop_reason: "tool_use",
      blocks: [
        { type: "text", text: `I will call ${name}.` },
        { type: "tool_use", name, input: { text: CONTENT } },
      ],
    };
  }
  const result = results[results.length - 1];
  const text = result.is_error
    ? `The tool ${name} failed: ${textOf(result.content)}`
    : `Done: ${name} answered ${short(textOf(result.content), 80)}.`;
  return { step: result.is_error ? "failed" : "done", stop_reason: "end_turn", blocks: [{ type: "text", text }] };
}

// Splits a string in a few pieces, to stream it as several deltas.
function pieces(s, n = 3) {
  if (s.length < n * 2) return [s];
  const size = Math.ceil(s.length / n);
  const out = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function anthropicMessages(body, res) {
  const script = anthropicScript(body);
  const model = body.model ?? "claude-scripted";
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const content = script.blocks.map((b) =>
    b.type === "text" ? { type: "text", text: b.text } : { type: "tool_use", id: id("toolu_"), name: b.name, input: b.input },
  );
  const summary = `${script.step}: ${script.blocks.map((b) => (b.type === "text" ? `text "${short(b.text, 30)}"` : `${b.name}`)).join(" + ")} (${script.stop_reason})`;
  const message = {
    id: id("msg_"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: script.stop_reason,
    stop_sequence: null,
    usage,
  };
  if (!body.stream) {
    sendJson(res, 200, message);
    return summary;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": id("req_"),
  });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  event("ping", {});
  content.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      const parts = script.blocks[index].pieces ? block.text.match(/\d+ /g) : pieces(block.text);
      for (const text of parts) event("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else {
      event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input)))
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    event("content_block_stop", { index });
  });
  if (script.slow) {
    // Nothing more for 60 s, unless the client goes away first.
    const timer = setTimeout(() => {
      event("message_delta", { delta: { stop_reason: script.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
      event("message_stop", {});
      res.end();
    }, 60000);
    res.on("close", () => clearTimeout(timer));
    return summary;
  }
  event("message_delta", { delta: { stop_reason: script.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  event("message_stop", {});
  res.end();
  return summary;
}

// ------------------------------------------------------------------- Gemini

// A value that satisfies a JSON schema (the subset generateJson asks for):
// an enum's first value, preferring the choices that keep a turn simple and
// short ("user" speaks next, the "flash" model).
function fromSchema(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 8) return null;
  const type = String(Array.isArray(schema.type) ? schema.type[0] : schema.type ?? "").toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length) {
    return ["user", "flash"].find((v) => schema.enum.includes(v)) ?? schema.enum[0];
  }
  if (schema.anyOf?.length) return fromSchema(schema.anyOf[0], depth + 1);
  switch (type) {
    case "object": {
      const out = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = fromSchema(v, depth + 1);
      return out;
    }
    case "array":
      return [];
    case "string":
      return "A simple, bounded request.";
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default:
      return null;
  }
}

const geminiUsage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

function geminiCandidate(parts, finish) {
  const candidate = { content: { role: "model", parts }, index: 0 };
  if (finish) candidate.finishReason = "STOP";
  return candidate;
}

// The text of a Gemini content's parts.
function geminiTextOf(content) {
  return (content?.parts ?? []).map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
}

// The words after `chat:` of the main loop's last prompt (null: not a chat
// turn: a function response, or no `chat:` line). Gemini CLI puts its
// `<session_context>...</session_context>` right before the first prompt.
function geminiChatPrompt(contents) {
  const last = contents[contents.length - 1];
  if (last?.role !== "user" || (last.parts ?? []).some((p) => p?.functionResponse)) return null;
  const m = /(?:^|\n|>)chat: ([^\n]*)/.exec(geminiTextOf(last));
  return m ? m[1].trim() : null;
}

// The scripted answer to a streamed (main loop) request: {parts, step}.
function geminiScript(body) {
  const contents = body.contents ?? [];
  const last = contents[contents.length - 1];
  const chat = geminiChatPrompt(contents);
  if (chat === "recall") {
    const earlier = contents.slice(0, -1).filter((c) => c?.role === "user")
      .flatMap((c) => [...geminiTextOf(c).matchAll(/(?:^|\n|>)chat: ([^\n]*)/g)].map((x) => x[1].trim()));
    return { step: "chat", parts: [{ text: `recall: ${earlier.join(" | ") || "nothing"}` }] };
  }
  const responses = (last?.parts ?? []).filter((p) => p?.functionResponse);
  if (responses.length === 0 && (last?.parts ?? []).some((p) => /(?:^|\n)chat: image/.test(p?.text ?? ""))) {
    const images = last.parts.filter((p) => p?.inlineData).map((p) => imageSummary(p.inlineData.mimeType, p.inlineData.data));
    return { step: "image", parts: [{ text: `image: ${images.join(", ") || "none"}` }] };
  }
  if (chat !== null) return { step: "chat", parts: [{ text: `pong: ${chat}` }] };
  if (responses.length === 0) {
    return {
      step: "write",
      parts: [
        { text: `I will write the new content to ${FILE}.` },
        { functionCall: { name: "write_file", args: { file_path: FILE, content: CONTENT } } },
      ],
    };
  }
  const r = responses[responses.length - 1].functionResponse;
  const output = JSON.stringify(r.response ?? {});
  if (/error/i.test(Object.keys(r.response ?? {}).join(" "))) {
    return { step: "failed", parts: [{ text: `The tool ${r.name} failed: ${output}` }] };
  }
  return { step: "done", parts: [{ text: `Done: ${FILE} has its new content.` }] };
}

function geminiStream(body, res) {
  const script = geminiScript(body);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\r\n\r\n`);
  const texts = script.parts.filter((p) => p.text !== undefined);
  const calls = script.parts.filter((p) => p.text === undefined);
  // The text in a few chunks, then the function calls, the last chunk STOP.
  const chunks = [];
  for (const t of texts) for (const text of pieces(t.text)) chunks.push([{ text }]);
  if (calls.length) chunks.push(calls);
  chunks.forEach((parts, i) => {
    const lastChunk = i === chunks.length - 1;
    send({
      candidates: [geminiCandidate(parts, lastChunk)],
      usageMetadata: geminiUsage,
      modelVersion: "gemini-scripted",
      responseId: id("resp_"),
    });
  });
  res.end();
  return `${script.step}: ${script.parts.map((p) => (p.text !== undefined ? `text "${short(p.text, 30)}"` : p.functionCall.name)).join(" + ")} (STOP)`;
}

function geminiGenerate(body, res) {
  const config = body.generationConfig ?? body.config ?? {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  let text;
  if (schema || /json/.test(config.responseMimeType ?? "")) {
    text = JSON.stringify(fromSchema(schema ?? { type: "object" }) ?? {});
  } else {
    text = "Edit notes";
  }
  sendJson(res, 200, {
    candidates: [geminiCandidate([{ text }], true)],
    usageMetadata: geminiUsage,
    modelVersion: "gemini-scripted",
  });
  return `json ${short(text, 80)}`;
}

// ------------------------------------------------------------------- server

function sendJson(res, status, value) {
  const data = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("error", reject);
    req.on("end", () => {
      let buf = Buffer.concat(chunks);
      const encoding = String(req.headers["content-encoding"] ?? "").toLowerCase();
      try {
        if (encoding === "gzip") buf = zlib.gunzipSync(buf);
        else if (encoding === "deflate") buf = zlib.inflateSync(buf);
        else if (encoding === "br") buf = zlib.brotliDecompressSync(buf);
      } catch (e) {
        reject(e);
        return;
      }
      resolve(buf);
    });
  });
}

let requests = 0;
const server = http.createServer(async (req, res) => {
  const n = ++requests;
  const url = new URL(req.url, "http://127.0.0.1");
  const path = url.pathname;
  let body = {};
  try {
    const raw = await readBody(req);
    if (raw.length) body = JSON.parse(raw.toString("utf8"));
  } catch (e) {
    log(`#${n} ${req.method} ${req.url} -> 400 (unreadable body: ${e.message})`);
    sendJson(res, 400, { error: { message: `unreadable body: ${e.message}` } });
    return;
  }
  let answer;
  try {
    if (req.method === "POST" && path === "/v1/messages") {
      // The model each request asks for (test-agents.sh claude-modes reads it).
      log(`#${n} model ${body.model ?? "(none)"}`);
      const asked = `${body.messages?.length ?? 0} messages, ${body.tools?.length ?? 0} tools, stream ${!!body.stream}`;
      if (LOG_MESSAGES) {
        const messages = (body.messages ?? []).map((m) => ({ role: m?.role, text: textOf(m?.content) }));
        fs.appendFileSync(LOG_MESSAGES, JSON.stringify({ request: n, tools: body.tools?.length ?? 0, messages }) + "\n");
      }
      answer = `anthropic (${asked}) -> ${anthropicMessages(body, res)}`;
    } else if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: 10 });
      answer = "count_tokens";
    } else if (req.method === "POST" && /^\/v1(beta|alpha)?\/models\/[^/]+:streamGenerateContent$/.test(path)) {
      // The model is in the path (test-agents.sh gemini-modes reads it).
      log(`#${n} model ${decodeURIComponent(path.split("/").pop().split(":")[0])}`);
      if (LOG_MESSAGES) {
        const messages = (body.contents ?? []).map((c) => ({ role: c?.role, text: geminiTextOf(c) }));
        const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).length;
        fs.appendFileSync(LOG_MESSAGES, JSON.stringify({ request: n, tools, messages }) + "\n");
      }
      answer = `gemini stream (${body.contents?.length ?? 0} contents, ${(body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).length} tools) -> ${geminiStream(body, res)}`;
    } else if (req.method === "POST" && /^\/v1(beta|alpha)?\/models\/[^/]+:generateContent$/.test(path)) {
      answer = `gemini generate -> ${geminiGenerate(body, res)}`;
    } else if (req.method === "POST" && /^\/v1(beta|alpha)?\/models\/[^/]+:countTokens$/.test(path)) {
      sendJson(res, 200, { totalTokens: 10 });
      answer = "countTokens";
    } else if (req.method === "HEAD" || (req.method === "GET" && path === "/")) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(req.method === "HEAD" ? undefined : "scripted model server\n");
      answer = "200";
    } else {
      sendJson(res, 404, { error: { code: 404, message: `not scripted: ${req.method} ${path}`, status: "NOT_FOUND" } });
      answer = "404 (not scripted)";
    }
  } catch (e) {
    answer = `500 (${e.stack ?? e})`;
    if (!res.headersSent) sendJson(res, 500, { error: { message: String(e) } });
    else res.end();
  }
  log(`#${n} ${req.method} ${req.url} ${answer}`);
});

server.on("clientError", (err, socket) => {
  log(`client error: ${err.message}`);
  socket.destroy();
});

server.listen(PORT, "127.0.0.1", () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
  log(`listening on 127.0.0.1:${server.address().port}; file ${FILE}, content ${JSON.stringify(short(CONTENT))}`);
});

const stop = (why) => {
  log(`stopping (${why}) after ${requests} requests`);
  process.exit(0);
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
// Stdin closing ends the server only when stdin is a pipe or a socket (the
// caller holds it open): /dev/null or a terminal would end it at once or never.
try {
  const st = fs.fstatSync(0);
  if (st.isFIFO() || st.isSocket()) {
    process.stdin.on("end", () => stop("stdin closed"));
    process.stdin.on("error", () => stop("stdin error"));
    process.stdin.resume();
  }
} catch {
  // no stdin at all: run until killed
}
