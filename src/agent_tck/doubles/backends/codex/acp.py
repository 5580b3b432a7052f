"""Codex as an agent of the Agent Client Protocol: `codex-acp` (the npm package
@agentclientprotocol/codex-acp, which runs the pinned Codex), as version 2.6.0 answered offline
in the sandbox (fixtures/transcripts/acp/codex-acp-*.jsonl; its modes, models and commands cut
to a few of each). The fake harness plays these answers (`doubles.harness.acpagent`) when it
is started as `codex-acp`.

What it does that `gemini --acp` does not: it says how it is authenticated
(`_auth/status_update`) before it answers `session/new`; it lists its commands and says its
thread is active once the turn begins; it reports the context's use (`usage_update`), says
the thread is idle and titles the session before it answers the prompt, whose answer carries
the turn's `usage`; each chunk names the model item it belongs to (`messageId`); a command
is reported as a terminal, in progress, then completed with its exit code."""

from __future__ import annotations

from typing import Any

from agent_tck.doubles.backends.acp.lines import Message, Shapes, text_block, update

INITIALIZED: dict[str, Any] = {
    "protocolVersion": 1,
    "agentInfo": {"name": "@agentclientprotocol/codex-acp", "title": "Codex",
                  "version": "2.6.0"},
    "agentCapabilities": {
        "auth": {"logout": {}}, "providers": {}, "loadSession": True,
        "promptCapabilities": {"embeddedContext": True, "image": True},
        "sessionCapabilities": {"resume": {}, "list": {}, "close": {}, "delete": {},
                                "fork": {}, "title": {}, "additionalDirectories": {},
                                "subagents": {}, "systemPrompt": {}},
        "mcpCapabilities": {"acp": False, "http": True, "sse": False},
        "_meta": {"authStatus": {}}},
    "authMethods": [
        {"id": "api-key", "name": "API Key", "description": "Use an API key to authenticate",
         "_meta": {"api-key": {"provider": "openai"}}},
        {"id": "chat-gpt", "name": "ChatGPT", "description": "Use ChatGPT to authenticate"}],
    "_meta": {"steering": {"supported": True}},
}
ANNOUNCED = [{"method": "_auth/status_update", "params": {"authStatus": {
    "kind": "gateway", "label": "Custom model gateway", "detail": "scripted"}}}]
_MODES = [("read-only", "Read-only", "Requires approval to edit files and access the internet."),
          ("agent", "Auto review", "Only ask for actions detected as potentially unsafe")]
OPENED: dict[str, Any] = {
    "models": {"availableModels": [
        {"modelId": "gpt-5.5[medium]", "name": "5.5 (medium)",
         "description": "Balances speed and reasoning depth for everyday tasks"}],
        "currentModelId": "gpt-5.5[medium]"},
    "modes": {"availableModes": [{"id": i, "name": n, "description": d} for i, n, d in _MODES],
              "currentModeId": "agent"},
    "configOptions": [
        {"id": "mode", "name": "Mode",
         "description": "Approval and sandboxing preset for the session", "category": "mode",
         "type": "select", "currentValue": "agent",
         "options": [{"value": i, "name": n, "description": d} for i, n, d in _MODES]}],
}
USAGE = {"totalTokens": 20, "inputTokens": 12, "cachedReadTokens": 0, "cachedWriteTokens": 0,
         "outputTokens": 8, "thoughtTokens": 0}
# Its permission request's options for a command (src/permissions/options.ts).
PERMISSION_OPTIONS = [
    {"optionId": "allow_once", "name": "Yes, proceed", "kind": "allow_once"},
    {"optionId": "allow_for_session",
     "name": "Yes, and don't ask again for this command in this session",
     "kind": "allow_always"},
    {"optionId": "decline", "name": "No, continue without running it", "kind": "reject_once"},
    {"optionId": "cancel", "name": "No, and tell Codex what to do differently",
     "kind": "reject_once"},
]
_TOKENS = {"totalTokens": 20, "inputTokens": 12, "cachedInputTokens": 0,
           "cacheWriteInputTokens": 0, "outputTokens": 8, "reasoningOutputTokens": 0}
STOPPED = {"usage": USAGE, "_meta": {"quota": {"token_count": _TOKENS, "model_usage": [
    {"model": "gpt-5.5", "token_count": _TOKENS}]}}}
START = {
    "options": [], "initialize": INITIALIZED, "announce": ANNOUNCED, "opened": OPENED,
    "commands": None, "permission": PERMISSION_OPTIONS, "stopped": STOPPED,
    "opening": [
        update("available_commands_update", availableCommands=[
            {"name": "plan", "description": "Turn plan mode on.", "input": None},
            {"name": "skills", "description": "List available skills.", "input": None}]),
        update("session_info_update",
               _meta={"codex": {"threadStatus": {"type": "active", "activeFlags": []}}})],
    "closing": [
        update("usage_update", used=20, size=258400),
        update("session_info_update", _meta={"codex": {"threadStatus": {"type": "idle"}}}),
        update("session_info_update", title="Scripted session")],
}


class CodexAcpShapes(Shapes):
    """A turn's messages as codex-acp sends them."""

    def __init__(self) -> None:
        self.items = 0

    def _item(self, kind: str) -> str:
        self.items += 1
        return f"{kind}_{self.items:04d}"

    def message_chunk(self, text: str) -> list[Message]:
        return [update("agent_message_chunk", messageId=self._item("msg"),
                       content=text_block(text))]

    def thought_chunk(self, text: str) -> list[Message]:
        return [update("agent_thought_chunk", messageId=self._item("rs"),
                       content=text_block(text))]

    def tool_call(self, tool_id: str, command: str = "ls") -> list[Message]:
        """Codex parses the command: a listing is reported as a read, named for what it
        does."""
        kind, title = ("read", "List files") if command == "ls" else ("execute", command)
        return [update("tool_call", toolCallId=tool_id, name="exec_command", kind=kind,
                       title=title, status="in_progress",
                       content=[{"type": "terminal", "terminalId": tool_id}],
                       rawInput={"command": command},
                       _meta={"terminal_info": {"terminal_id": tool_id}})]

    def tool_call_done(self, tool_id: str, command: str = "ls") -> list[Message]:
        return [update("tool_call_update", toolCallId=tool_id, status="completed",
                       rawOutput={"exit_code": 0}, _meta={"terminal_output_delta": {
                           "data": "hello.txt\n", "terminal_id": tool_id}})]
