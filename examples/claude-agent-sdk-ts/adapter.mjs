#!/usr/bin/env node
// An agent-tck adapter for Anthropic's TypeScript Claude Agent SDK
// (`@anthropic-ai/claude-agent-sdk`), as a user would write one: the Python example
// (examples/claude-agent-sdk/adapter.py) in Node. It declares the `agent` component for the
// `claude` backend and answers each request with one `query()`, pointed at the `claude` on the
// PATH the suite hands it (`pathToClaudeCodeExecutable`, never the CLI bundled in the SDK's
// optional dependencies, which are not installed).
//
// It adds no behaviour the SDK lacks, with two exceptions a wrapper needs to be judged at all:
// a request's `timeout` aborts the query through the SDK's own `abortController` option (the
// SDK has no timeout; without one `agent.info` says null), and each raw stream message the SDK
// yields is reported as the `events` the protocol asks for. So its verdicts are the SDK's:
// baseline.yaml names the SDK behaviour behind each expected failure.
//
// Install: npm ci --omit=optional --prefix examples/claude-agent-sdk-ts (package.json pins the SDK)
// Run:     agent-tck run --impl "node examples/claude-agent-sdk-ts/adapter.mjs" --component agent
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { query } from "@anthropic-ai/claude-agent-sdk";

const SDK_VERSION = JSON.parse(fs.readFileSync(new URL(
  "node_modules/@anthropic-ai/claude-agent-sdk/package.json", import.meta.url), "utf8")).version;
const CODES = { READY: 2, BUSY: 3 };
// The SDK's classes of the errors it throws when the CLI cannot be started.
const NOT_STARTED = new Set(["executable_not_found", "executable_launch_failed", "spawn_failed"]);

const state = (name, previous, reason) =>
  ({ state: name, state_code: CODES[name], previous, reason });

// The first `claude` on `searchPath`, executable or not: the SDK, not the adapter, reports it.
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

function event(kind, line, fields) {
  const kept = Object.entries(fields).filter(([, value]) => value !== undefined && value !== null);
  return { kind, ...Object.fromEntries(kept), raw: line };
}

// The protocol's normalized events (decision D-2) for one raw message the SDK yielded.
function events(line) {
  const kind = line.type;
  const session = line.session_id;
  if (kind === "system" && line.subtype === "init") {
    return [event("init", line, { session_id: session })];
  }
  if (kind === "result") {
    const ok = line.subtype === "success" && !line.is_error;
    const text = ok ? line.result
      : ((line.errors || []).join("; ") || line.result || line.subtype);
    return [event(ok ? "done" : "error", line, { session_id: session, text })];
  }
  const blocks = line.message?.content;
  const found = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (block?.type === "text") {
      found.push(event("text", line, { text: block.text }));
    } else if (block?.type === "tool_use") {
      found.push(event("tool_start", line, { tool_name: block.name, tool_input: block.input,
                                             tool_id: block.id }));
    } else if (block?.type === "tool_result") {
      let content = block.content;
      if (Array.isArray(content)) content = content.map((b) => b?.text ?? "").join("");
      found.push(event("tool_result", line, { tool_output: content, tool_id: block.tool_use_id }));
    }
  }
  return found;
}

class Agent {
  constructor(settings) {
    this.settings = settings;
    this.busy = false;
  }

  async ask(message, sessionId, seen) {
    const { settings } = this;
    // The SDK's `env` replaces the CLI's environment: spread process.env, as its docs say.
    const env = { ...process.env, ...(settings.env || {}) };
    const response = { message: "", status: 0, backend: "claude", tool_calls: 0,
                       session_id: null, error: null };
    const cli = onPath("claude", env.PATH);
    if (cli === null) {
      return { ...response, status: 4, message: "claude: not found on PATH",
               error: "claude: not found on PATH" };
    }
    const abort = new AbortController();
    const options = { pathToClaudeCodeExecutable: cli, cwd: settings.working_dir ?? undefined,
                      env, resume: sessionId ?? undefined, model: settings.model ?? undefined,
                      abortController: abort };
    const timeout = settings.timeout;
    let timedOut = false; // the SDK aborts the same controller on failures of its own
    const timer = timeout ? setTimeout(() => { timedOut = true; abort.abort(); }, timeout * 1000)
      : null;
    let texts = [];
    const tools = new Set();
    try {
      for await (const msg of query({ prompt: message, options })) {
        seen.push(msg);
        if (msg.type === "assistant") {
          const blocks = msg.message?.content || [];
          texts.push(...blocks.filter((b) => b.type === "text").map((b) => b.text));
          for (const b of blocks) if (b.type === "tool_use") tools.add(b.id);
        } else if (msg.type === "system" && msg.subtype === "init") {
          response.session_id = msg.session_id;
        } else if (msg.type === "result") {
          // the init line's session, as RP-4.1 asks; the result's without one
          response.session_id = response.session_id || msg.session_id;
          if (msg.is_error) {
            response.status = 1;
            response.error = msg.result || msg.subtype;
          } else if (msg.result) {
            texts = [msg.result];
          }
        }
      }
    } catch (error) {
      const text = String(error?.message ?? error);
      if (timedOut) {
        response.status = 3;
        response.error = `claude timed out after ${timeout} s`;
      } else if (NOT_STARTED.has(error?.errorClass)) {
        response.status = 4;
        response.error = text;
      } else {
        response.status = error?.errorClass === "process_killed_by_signal" ? 2 : 1;
        response.error = text;
      }
    } finally {
      clearTimeout(timer);
    }
    response.tool_calls = tools.size;
    response.message = (response.error || "").split("\n")[0] || texts.join("");
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
        name: "claude-agent-sdk", language: "typescript", version: SDK_VERSION,
        components: ["agent"], backends: ["claude"] } };
    }
    if (cmd === "stop") return { stopped: true };
    if (cmd === "agent.create") {
      const backend = request.settings.backend ?? "claude";
      if (backend !== "claude") throw new Error(`unknown backend "${backend}": this adapter serves claude`);
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
