// A plain client of an ACP agent, written with the protocol's official TypeScript SDK (the
// package at $ACP_SDK, @agentclientprotocol/sdk as clis/ pins it): it starts the agent given
// as its arguments, says hello, opens a session, sends one prompt, allows every permission the
// agent asks, closes the agent's stdin and prints what it saw as one JSON line.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const { client, ndJsonStream, PROTOCOL_VERSION } = await import(
  pathToFileURL(process.env.ACP_SDK).href);
const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const updates = [];
const asked = [];
const app = client({ name: "agent-tck-test" })
  .onRequest("session/request_permission", ({ params }) => {
    asked.push(params.toolCall.toolCallId);
    return { outcome: { outcome: "selected", optionId: params.options[0].optionId } };
  })
  .onNotification("session/update", ({ params }) => {
    const { sessionUpdate, content } = params.update;
    updates.push(sessionUpdate === "agent_message_chunk" ? content.text : sessionUpdate);
  });
const result = await app.connectWith(stream, async (cx) => {
  const hello = await cx.request("initialize", { protocolVersion: PROTOCOL_VERSION,
                                                 clientCapabilities: {} });
  const session = await cx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  const answer = await cx.request("session/prompt", {
    sessionId: session.sessionId, prompt: [{ type: "text", text: "Hello" }] });
  return { protocolVersion: hello.protocolVersion, stopReason: answer.stopReason };
});
child.stdin.end();
const code = await new Promise((resolve) => child.on("exit", resolve));
console.log(JSON.stringify({ ...result, updates, asked, code }));
