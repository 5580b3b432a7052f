"""Claude Code as an agent of the Agent Client Protocol: `claude-agent-acp` (the npm package
@agentclientprotocol/claude-agent-acp, which runs Claude Code through its SDK), as version
0.101.0 answered offline in the sandbox (fixtures/transcripts/acp/claude-acp-*.jsonl; its
modes, models and commands cut to a few of each). The fake harness plays these answers
(`doubles.harness.acpagent`) when it is started as `claude-agent-acp`.

What it does that `gemini --acp` does not: it says how it is authenticated
(`_auth/status_update`) before it answers `session/new`; it lists its commands, twice, and
titles the session once the turn begins; it reports the context's use (`usage_update`) as
the turn goes and twice before it answers the prompt, whose answer carries the turn's
`usage`; each chunk names the model message it belongs to (`messageId`); a tool call is
reported pending, titled "Terminal" until the next update gives its command, and completed
in two more updates."""

from __future__ import annotations

from typing import Any

from agent_tck.doubles.backends.acp.lines import Message, Shapes, text_block, update

INITIALIZED: dict[str, Any] = {
    "protocolVersion": 1,
    "agentCapabilities": {
        "_meta": {"claudeCode": {"promptQueueing": True}, "authStatus": {}},
        "promptCapabilities": {"image": True, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True},
        "auth": {"logout": {}}, "providers": {}, "loadSession": True,
        "sessionCapabilities": {"additionalDirectories": {}, "close": {}, "delete": {},
                                "fork": {}, "list": {}, "resume": {},
                                "systemPrompt": {"mode": {"override": {}}}}},
    "agentInfo": {"name": "@agentclientprotocol/claude-agent-acp", "title": "Claude Agent",
                  "version": "0.101.0"},
    "authMethods": [],
    "_meta": {"steering": {"supported": True}},
}
ANNOUNCED = [{"method": "_auth/status_update", "params": {"authStatus": {
    "kind": "api_key", "label": "Anthropic API key", "detail": "ANTHROPIC_API_KEY"}}}]
_MODES = [("default", "Manual", "Always ask before making changes"),
          ("acceptEdits", "Accept edits", "Automatically accept all file edits"),
          ("plan", "Plan", "Create a plan before making changes")]
OPENED: dict[str, Any] = {
    "modes": {"currentModeId": "acceptEdits", "availableModes": [
        {"id": i, "name": n, "description": d} for i, n, d in _MODES]},
    "configOptions": [
        {"id": "mode", "name": "Mode", "description": "Session permission mode",
         "category": "mode", "type": "select", "currentValue": "acceptEdits",
         "options": [{"value": i, "name": n, "description": d} for i, n, d in _MODES]},
        {"id": "model", "name": "Model", "description": "AI model to use", "category": "model",
         "type": "select", "currentValue": "default",
         "options": [{"value": "default", "name": "Default (recommended)",
                      "description": "Opus"}]}],
}
_COMMANDS = update("available_commands_update", availableCommands=[
    {"name": "review", "description": "Review a pull request", "input": None},
    {"name": "init", "description": "Initialize a new CLAUDE.md file", "input": None}])
_USAGE = update("usage_update", used=20, size=1000000,
                _meta={"_claude/model": "claude-opus-5-5"})
USAGE = {"inputTokens": 12, "outputTokens": 8, "cachedReadTokens": 0, "cachedWriteTokens": 0,
         "totalTokens": 20}
# Its permission request's options for a shell command (permissions/options/shell.js).
PERMISSION_OPTIONS = [
    {"optionId": "allow-once", "name": "Yes", "kind": "allow_once"},
    {"optionId": "allow-with-updates", "name": "Yes, and don't ask again for ls commands",
     "kind": "allow_always"},
    {"optionId": "reject", "name": "No", "kind": "reject_once"},
]
_TOKENS = {"totalTokens": 20, "inputTokens": 12, "cachedInputTokens": 0, "cachedWriteTokens": 0,
           "outputTokens": 8, "reasoningOutputTokens": 0}
STOPPED = {"usage": USAGE, "_meta": {"quota": {"token_count": _TOKENS, "model_usage": [
    {"model": "claude-opus-5-5", "token_count": _TOKENS}]}}}
START = {
    "options": [], "initialize": INITIALIZED, "announce": ANNOUNCED, "opened": OPENED,
    "commands": None, "permission": PERMISSION_OPTIONS, "stopped": STOPPED,
    "opening": [_COMMANDS, _COMMANDS,
                update("session_info_update", title="Scripted session",
                       updatedAt="2026-12-04T09:15:48.464Z"), _USAGE],
    "closing": [_USAGE, _USAGE],
}


class ClaudeAcpShapes(Shapes):
    """A turn's messages as claude-agent-acp sends them. It reports a tool call before it asks
    leave to run it ("Some ACP clients expect the `tool_call` a permission request references
    to already exist", its `requestPermissionFromClient`)."""

    reports_before_asking = True

    def __init__(self) -> None:
        self.messages = 0

    def _message_id(self) -> str:
        self.messages += 1
        return f"msg_{self.messages:04d}"

    def message_chunk(self, text: str) -> list[Message]:
        return [update("agent_message_chunk", content=text_block(text),
                       messageId=self._message_id())]

    def thought_chunk(self, text: str) -> list[Message]:
        return [update("agent_thought_chunk", content=text_block(text),
                       messageId=self._message_id())]

    def tool_call(self, tool_id: str, command: str = "ls") -> list[Message]:
        meta = {"claudeCode": {"toolName": "Bash"}}
        return [update("tool_call", _meta=meta, toolCallId=tool_id, name="Bash", rawInput={},
                       status="pending", title="Terminal", kind="execute", content=[]),
                update("tool_call_update", _meta=meta, toolCallId=tool_id,
                       rawInput={"command": command, "description": "Run it"}, title=command,
                       content=[{"type": "content", "content": text_block("Run it")}])]

    def tool_call_done(self, tool_id: str, command: str = "ls") -> list[Message]:
        output = {"stdout": "hello.txt", "stderr": "", "interrupted": False, "isImage": False,
                  "noOutputExpected": False}
        return [update("tool_call_update", toolCallId=tool_id, _meta={"claudeCode": {
                    "toolResponse": output, "toolName": "Bash"}}),
                update("tool_call_update", _meta={"claudeCode": {"toolName": "Bash"}},
                       toolCallId=tool_id, status="completed", rawOutput="hello.txt",
                       content=[{"type": "content",
                                 "content": text_block("```console\nhello.txt\n```")}])]
