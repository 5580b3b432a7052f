#!/usr/bin/env node
// An agent-tck adapter for OpenAI's TypeScript Codex SDK (`@openai/codex-sdk`), as a user would
// write one. It declares the `agent` component for the `codex` backend and answers each request
// with one turn of a thread (`startThread`, or `resumeThread` with the request's session id),
// run with `runStreamed` and read as the SDK's own `run()` reads it: the answer is the turn's
// last agent message. The SDK starts the `codex` on the PATH the suite hands it
// (`codexPathOverride`, never the CLI the SDK depends on).
//
// It adds no behaviour the SDK lacks, with two exceptions a wrapper needs to be judged at all:
// a request's `timeout` aborts the turn (the SDK has none of its own; it takes an AbortSignal),
// and each line the SDK parsed is reported as the `events` the protocol asks for. So its
// verdicts are the SDK's: baseline.yaml names the SDK behaviour behind each expected failure.
//
// Install: npm ci --prefix examples/codex-sdk (package.json pins the SDK)
// Run:     agent-tck run --impl "node examples/codex-sdk/adapter.mjs" --component agent
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Codex } from "@openai/codex-sdk";

const SDK_VERSION = JSON.parse(fs.readFileSync(new URL(
  "node_modules/@openai/codex-sdk/package.json", import.meta.url), "utf8")).version;
const CODES = { READY: 2, BUSY: 3 };
const TOOL_ITEMS = new Set(["command_execution", "file_change", "mcp_tool_call", "web_search"]);

const state = (name, previous, reason) =>
  ({ state: name, state_code: CODES[name], previous, reason });

// The first `codex` on `searchPath`, executable or not: the SDK, not the adapter, reports it.
function onPath(name, searchPath) {
  for (const folder of (searchPath || "").split(path.delimiter)) {
    const candidate = path.join(folder, name);
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

// The protocol's normalized events (decision D-2) for one line the SDK parsed.
function events(line) {
  const at = (kind, fields) => ({ kind, ...fields, raw: line });
  const item = line.item || {};
  if (line.type === "thread.started") return [at("init", { session_id: line.thread_id })];
  if (line.type === "turn.completed") return [at("done", {})];
  if (line.type === "turn.failed") return [at("error", { text: line.error?.message })];
  if (line.type === "item.completed" && item.type === "agent_message") {
    return [at("text", { text: item.text })];
  }
  if (TOOL_ITEMS.has(item.type) && ["item.started", "item.completed"].includes(line.type)) {
    const kind = line.type === "item.started" ? "tool_start" : "tool_result";
    return [at(kind, { tool_name: item.type, tool_id: item.id })];
  }
  return [];
}

class Agent {
  constructor(settings) {
    this.settings = settings;
    this.busy = false;
  }

  async ask(message, sessionId, seen) {
    const { settings } = this;
    const env = { ...process.env, ...(settings.env || {}) };
    const response = { message: "", status: 0, backend: "codex", tool_calls: 0,
                       session_id: null, error: null };
    const cli = onPath("codex", env.PATH);
    if (cli === null) {
      return { ...response, status: 4, message: "codex: not found on PATH",
               error: "codex: not found on PATH" };
    }
    const codex = new Codex({ codexPathOverride: cli, env });
    const options = { workingDirectory: settings.working_dir, skipGitRepoCheck: true,
                      model: settings.model };
    const thread = sessionId ? codex.resumeThread(sessionId, options) : codex.startThread(options);
    const abort = new AbortController();
    const timeout = settings.timeout;
    const timer = timeout ? setTimeout(() => abort.abort(), timeout * 1000) : null;
    let answer = "";
    const tools = new Set();
    try {
      const { events: stream } = await thread.runStreamed(message, { signal: abort.signal });
      for await (const event of stream) {
        seen.push(event);
        if (event.type === "item.completed" && event.item.type === "agent_message") {
          answer = event.item.text; // the SDK's run(): the turn's last agent message
        } else if (TOOL_ITEMS.has(event.item?.type)) {
          tools.add(event.item.id);
        } else if (event.type === "turn.failed") {
          response.status = 1;
          response.error = event.error.message;
          break;
        }
      }
    } catch (error) {
      const text = String(error?.message ?? error);
      if (abort.signal.aborted) {
        response.status = 3;
        response.error = `codex timed out after ${timeout} s`;
      } else if (error?.code === "ENOENT" || error?.code === "EACCES") {
        response.status = 4;
        response.error = text;
      } else {
        response.status = /exited with signal/.test(text) ? 2 : 1;
        response.error = text;
      }
    } finally {
      clearTimeout(timer);
    }
    response.session_id = thread.id;
    response.tool_calls = tools.size;
    response.message = (response.error || "").split("\n")[0] || answer;
    return response;
  }
}

class Adapter {
  constructor() {
    this.agents = new Map();
  }

  async handle(request) {
    const { cmd } = request;
    if (cmd === "start") {
      return { version: 1, implementation: {
        name: "codex-sdk", language: "typescript", version: SDK_VERSION,
        components: ["agent"], backends: ["codex"] } };
    }
    if (cmd === "stop") return { stopped: true };
    if (cmd === "agent.create") {
      const backend = request.settings.backend ?? "codex";
      if (backend !== "codex") throw new Error(`unknown backend "${backend}": this adapter serves codex`);
      const id = String(this.agents.size + 1);
      this.agents.set(id, new Agent(request.settings));
      return { agent: id, states: [state("READY", null, "agent created")] };
    }
    const agent = this.agents.get(request.agent);
    if (agent === undefined) throw new Error(`no agent "${request.agent}"`);
    if (cmd === "agent.info") {
      return { state: agent.busy ? "BUSY" : "READY", timeout: agent.settings.timeout ?? null };
    }
    if (cmd === "agent.request") {
      return this.request(agent, request.message, request.session_id ?? null);
    }
    if (cmd === "agent.request_concurrently") {
      const answers = await Promise.all(request.messages.map((m) => this.request(agent, m, null)));
      return { results: answers.map((a) => ({ response: a.response })) };
    }
    throw new Error(`unknown command "${cmd}"`);
  }

  async request(agent, message, sessionId) {
    const seen = [];
    agent.busy = true;
    let response;
    try {
      response = await agent.ask(message, sessionId, seen);
    } finally {
      agent.busy = false;
    }
    const ended = response.status === 0 ? "request completed"
      : `request ended with status ${response.status}: ${response.error}`;
    return { response,
             states: [state("BUSY", "READY", "request received"), state("READY", "BUSY", ended)],
             events: seen.flatMap(events) };
  }
}

const adapter = new Adapter();
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  let answer;
  try {
    answer = await adapter.handle(request);
  } catch (error) {
    answer = { error: { message: `${error?.name ?? "Error"}: ${error?.message ?? error}` } };
  }
  process.stdout.write(`${JSON.stringify({ seq: request.seq, ...answer })}\n`);
  if (request.cmd === "stop") break;
}
