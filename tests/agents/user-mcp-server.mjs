#!/usr/bin/env node
// user-mcp-server.mjs — a user's own MCP server for scripts/test-agents.sh
// (case claude-usermcp): radium passes it to the agent from the user's
// mcp.toml, and the agent calls its one tool. It speaks MCP over stdio (one
// JSON-RPC message a line), Node 20, no dependencies.
//
//   node tests/agents/user-mcp-server.mjs [--prefix TEXT]
//
// Tool `write_marker {text}` writes PREFIX + text to the file named by the
// environment variable MARKER_FILE (so the test sees that the arguments and
// the environment of mcp.toml arrived as given) and answers "marker written".
// Every message is logged on stderr.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const at = process.argv.indexOf("--prefix");
const PREFIX = at >= 0 ? process.argv[at + 1] ?? "" : "";
const MARKER = process.env.MARKER_FILE ?? "";
const log = (line) => process.stderr.write(`user-mcp-server: ${line}\n`);
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

const TOOL = {
  name: "write_marker",
  description: "Writes a marker file with the given text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { log(`not JSON: ${line.slice(0, 80)}`); return; }
  log(`${m.method ?? "answer"} ${m.id ?? ""}`);
  if (m.id === undefined) return; // a notification
  switch (m.method) {
    case "initialize":
      send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "user-mcp-server", version: "1.0.0" } } });
      break;
    case "ping":
      send({ id: m.id, result: {} });
      break;
    case "tools/list":
      send({ id: m.id, result: { tools: [TOOL] } });
      break;
    case "tools/call": {
      if (m.params?.name !== TOOL.name) {
        send({ id: m.id, result: { isError: true, content: [{ type: "text", text: `no tool ${m.params?.name}` }] } });
        break;
      }
      try {
        if (!MARKER) throw new Error("MARKER_FILE is not set");
        writeFileSync(MARKER, PREFIX + String(m.params?.arguments?.text ?? ""));
        send({ id: m.id, result: { content: [{ type: "text", text: "marker written" }] } });
      } catch (e) {
        send({ id: m.id, result: { isError: true, content: [{ type: "text", text: String(e.message) }] } });
      }
      break;
    }
    default:
      send({ id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
  }
});
