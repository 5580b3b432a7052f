#!/usr/bin/env node
// A minimal agent-tck adapter in JavaScript: component `backends`, backend `codex` only.
// It implements parse_line for `codex exec --json` lines from docs/adapter-protocol.md alone,
// to show that the protocol needs nothing from Python. Run it with:
//   agent-tck run --impl "node examples/node-codex-parser/adapter.js"
"use strict";
const readline = require("node:readline");

const TOOL_ITEMS = new Set(["command_execution", "file_change", "mcp_tool_call", "web_search"]);

function loadObject(line) {
  const text = line.trim();
  if (!text.startsWith("{")) return null;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

const str = (value) => (typeof value === "string" ? value : undefined);

function firstOf(item, keys) {
  for (const key of keys) if (item[key] !== undefined && item[key] !== null) return item[key];
  return undefined;
}

function event(kind, fields, raw) {
  const out = { kind };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  out.raw = raw;
  return out;
}

function parseItem(obj, completed) {
  const item = obj.item;
  if (item === null || typeof item !== "object" || Array.isArray(item)) return [];
  const kind = str(item.type);
  if (kind === "agent_message" && completed && typeof item.text === "string") {
    return [event("text", { text: item.text }, obj)];
  }
  if (!TOOL_ITEMS.has(kind)) return [];
  if (!completed) {
    const input = firstOf(item, ["command", "changes", "arguments", "query"]);
    return [event("tool_start", { tool_name: kind, tool_input: input, tool_id: str(item.id) }, obj)];
  }
  const output = firstOf(item, ["aggregated_output", "result", "error", "changes"]);
  return [event("tool_result", { tool_name: kind, tool_output: output, tool_id: str(item.id) }, obj)];
}

function parseCodex(line) {
  const obj = loadObject(line);
  if (obj === null) return [];
  switch (obj.type) {
    case "thread.started":
      return [event("init", { session_id: str(obj.thread_id) }, obj)];
    case "turn.completed":
      return [event("done", {}, obj)];
    case "turn.failed": {
      const error = obj.error && typeof obj.error === "object" ? str(obj.error.message) : undefined;
      return [event("error", { text: error || "codex reported a failed turn" }, obj)];
    }
    case "item.started":
    case "item.completed":
      return parseItem(obj, obj.type === "item.completed");
    default:
      return []; // turn.started, transient `error` notices, anything new
  }
}

const handlers = {
  start: () => ({
    version: 1,
    implementation: {
      name: "node-codex-parser", language: "javascript", version: "0.1.0",
      components: ["backends"], backends: ["codex"],
    },
  }),
  parse_line: (request) => {
    if (request.backend !== "codex") throw new Error(`unsupported backend ${request.backend}`);
    return { events: parseCodex(request.line) };
  },
  stop: () => ({ stopped: true }),
};

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  let request;
  let response;
  try {
    request = JSON.parse(line);
    const handler = handlers[request.cmd];
    response = handler
      ? { seq: request.seq, ...handler(request) }
      : { seq: request.seq, error: { message: `unknown command ${request.cmd}` } };
  } catch (err) {
    response = { seq: request ? request.seq : null, error: { message: String(err) } };
  }
  process.stdout.write(JSON.stringify(response) + "\n");
  if (request && request.cmd === "stop") input.close();
});
