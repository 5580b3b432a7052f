#!/usr/bin/env node
// An agent-tck adapter for a wrapper written with the Agent Client Protocol's official
// TypeScript SDK (`@agentclientprotocol/sdk`), as a user would write one. It declares the
// `agent` component for the backends `gemini-acp`, `claude-acp` and `codex-acp`: each request
// starts the agent (`gemini --acp`, `claude-agent-acp`, `codex-acp`, found on the PATH the
// suite hands it), connects to it with the SDK's `client(...).connectWith`,
// says `initialize`, opens a session (`session/new`, or `session/load` with the request's
// session id), sends the prompt and answers with the turn's message chunks.
//
// What it decides itself, as any wrapper must: a permission request is refused (the option
// of kind reject_once, or `cancelled`), requests it does not handle are left to the SDK (which
// answers "Method not found"), and at the request's `timeout` the turn is cancelled
// (`session/cancel`); an agent that has not ended a grace period later gets SIGTERM, then
// SIGKILL after another. Once the turn is answered the agent's stdin is closed, and an agent
// that has not ended a grace period later is stopped the same way, its answer kept. Everything
// else is the SDK's; it passes every ACP requirement, so it has no baseline of known failures.
//
// Install: npm ci --prefix examples/acp-client-ts (package.json pins the SDK)
// Run:     agent-tck run --impl "node examples/acp-client-ts/adapter.mjs" --component agent
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const SDK_VERSION = JSON.parse(fs.readFileSync(new URL(
  "node_modules/@agentclientprotocol/sdk/package.json", import.meta.url), "utf8")).version;
const CODES = { READY: 2, BUSY: 3 };
// The agent each backend starts: its command and the options that make it speak ACP.
const AGENTS = { "gemini-acp": ["gemini", "--acp"], "claude-acp": ["claude-agent-acp"],
                 "codex-acp": ["codex-acp"] };
const state = (name, previous, reason) =>
  ({ state: name, state_code: CODES[name], previous, reason });

function onPath(name, searchPath) {
  for (const folder of (searchPath || "").split(path.delimiter)) {
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

class Agent {
  constructor(settings) {
    this.settings = settings;
    this.busy = false;
  }

  async ask(message, sessionId) {
    const { settings } = this;
    const env = { ...process.env, ...(settings.env || {}) };
    for (const name of settings.strip_env || []) delete env[name];  // withheld from the agent
    const backend = settings.backend ?? "gemini-acp";
    const [name, ...options] = AGENTS[backend];
    const response = { message: "", status: 0, backend, tool_calls: 0,
                       session_id: null, error: null, warnings: [] };
    const cli = onPath(name, env.PATH);
    if (cli === null) {
      return { ...response, status: 4, message: `${name}: not found on PATH`,
               error: `${name}: not found on PATH` };
    }
    const cwd = path.resolve(settings.working_dir || process.cwd());
    const child = spawn(cli, options, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const started = new Promise((resolve, reject) => {
      child.on("spawn", resolve);
      child.on("error", reject);
    });
    try {
      await started;
    } catch (error) {
      return { ...response, status: 4, message: `cannot start ${name}: ${error.message}`,
               error: `cannot start ${name}: ${error.message}` };
    }
    let stderr = "";
    child.stderr.on("data", (chunk) => { stderr = (stderr + chunk).slice(-4096); });
    const exited = new Promise((resolve) => child.on("close", (code, signal) =>
      resolve({ code, signal })));
    const texts = [];
    let said = "";
    let prompted = false;
    let answered = false;  // the prompt's answer, or its error, came: the turn is over
    const tools = new Set();
    let timedOut = false;
    const timeout = settings.timeout ?? 300;
    const grace = settings.grace_period ?? 5;
    let talk = null;  // the connection, once the prompt is sent: the turn can be cancelled
    const terminate = () => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), grace * 1000).unref();
    };
    let signals = null;
    let stopped = false;  // ended by us a grace period after its turn (decision D-38)
    const timer = setTimeout(() => {
      timedOut = true;
      if (talk === null) {
        terminate();
        return;
      }
      // Cancel the turn; an agent that has not ended a grace period later is terminated.
      talk.notify("session/cancel", { sessionId: response.session_id }).catch(() => {});
      signals = setTimeout(terminate, grace * 1000);
    }, timeout * 1000);
    const collect = (update) => {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        texts.push(update.content.text);
      } else if (update.sessionUpdate === "tool_call") {
        tools.add(update.toolCallId);
      }
    };
    const app = client({ name: "agent-tck-acp-client-example" })
      .onRequest("session/request_permission", ({ params }) => {
        const reject = params.options.find((o) => o.kind === "reject_once");
        response.warnings.push(`refused leave to run ${params.toolCall.title ?? "a tool"}`);
        return { outcome: reject ? { outcome: "selected", optionId: reject.optionId }
                                 : { outcome: "cancelled" } };
      })
      // Only the turn's updates: a loaded session's replay of its history comes before.
      .onNotification("session/update", ({ params }) => {
        if (prompted && !answered) collect(params.update);
      });
    const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    try {
      const turn = app.connectWith(stream, async (cx) => {
        const init = await cx.request("initialize", { protocolVersion: PROTOCOL_VERSION,
                                                      clientCapabilities: {} });
        if (sessionId) {
          if (init.agentCapabilities?.loadSession !== true) {  // the protocol's MUST: ask first
            throw new Error(`${name} cannot resume the session ${sessionId}: ` +
                            "it does not offer loadSession");
          }
          await cx.request("session/load", { sessionId, cwd, mcpServers: [] });
          response.session_id = sessionId;
        } else {
          response.session_id = (await cx.request("session/new", { cwd, mcpServers: [] }))
            .sessionId;
        }
        prompted = true;
        talk = cx;
        try {
          return await cx.request("session/prompt", {
            sessionId: response.session_id, prompt: [{ type: "text", text: message }] });
        } finally {
          answered = true;  // a later update is not the turn's, after an error answer too
          said = texts.join("");  // the turn: what came before the prompt's answer
        }
      });
      const ended = exited.then(() => { throw new Error("the agent exited"); });
      const answer = await Promise.race([turn, ended]);
      if (timedOut) {
        response.status = 3;
        response.error = `${name} timed out after ${timeout} s: its turn was cancelled`;
      } else if (answer.stopReason !== "end_turn") {
        response.status = 1;
        response.error = `the turn stopped: ${answer.stopReason}`;
      }
    } catch (error) {
      response.status = timedOut ? 3 : 1;
      response.error = timedOut ? `${name} timed out after ${timeout} s`
        : `${error?.message ?? error}${stderr ? `\nstderr: ${stderr}` : ""}`;
    } finally {
      clearTimeout(timer);
      child.stdin.end();
      if (!timedOut) {  // the turn is over: the agent has a grace period to end on its own
        signals = setTimeout(() => { stopped = true; terminate(); }, grace * 1000);
      }
    }
    const { signal } = await exited;
    clearTimeout(signals);
    if (stopped) {
      response.warnings.push(`${name} had not ended ${grace} s after its turn: it was stopped`);
    } else if (signal && !timedOut && response.status === 0) {
      response.status = 2;
      response.error = `${name} was killed by ${signal}`;
    }
    response.tool_calls = tools.size;
    response.message = (response.error || "").split("\n")[0] || said;
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
        name: "acp-client-ts", language: "typescript", version: SDK_VERSION,
        components: ["agent"], backends: Object.keys(AGENTS), reports_events: false } };
    }
    if (cmd === "stop") return { stopped: true };
    if (cmd === "agent.create") {
      const backend = request.settings.backend ?? "gemini-acp";
      if (!(backend in AGENTS)) {
        throw new Error(`unknown backend "${backend}": this adapter serves ` +
                        Object.keys(AGENTS).join(", "));
      }
      const id = String(this.agents.size + 1);
      this.agents.set(id, new Agent(request.settings));
      return { agent: id, states: [state("READY", null, "agent created")] };
    }
    const agent = this.agents.get(request.agent);
    if (agent === undefined) throw new Error(`no agent "${request.agent}"`);
    if (cmd === "agent.info") {
      return { state: agent.busy ? "BUSY" : "READY", timeout: agent.settings.timeout ?? 300 };
    }
    if (cmd === "agent.request") {
      agent.busy = true;
      let response;
      try {
        response = await agent.ask(request.message, request.session_id ?? null);
      } finally {
        agent.busy = false;
      }
      const ended = response.status === 0 ? "request completed"
        : `request ended with status ${response.status}: ${response.error}`;
      return { response,
               states: [state("BUSY", "READY", "request received"),
                        state("READY", "BUSY", ended)] };
    }
    throw new Error(`unknown command "${cmd}"`);
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
