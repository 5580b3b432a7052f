"""What an ACP agent sends during a turn, built as the protocol's schema defines it: its
`session/update` notifications and its own requests to the client. The session's id is written
"{session}": the fake agent puts in the id of the session it serves
(`doubles.harness.acpagent`).

`Shapes` builds them as `gemini --acp` sends them; each other agent's shapes are a subclass
beside its answers (`doubles.backends.claude.acp`, `doubles.backends.codex.acp`): the protocol
leaves an agent free in how many updates report a tool call, what ids and `_meta` they carry."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
SESSION_PLACEHOLDER = "{session}"


def update(kind: str, /, **fields: Any) -> Message:
    """A `session/update` notification of the kind `kind` (its `sessionUpdate`)."""
    return {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": SESSION_PLACEHOLDER, "update": {"sessionUpdate": kind, **fields}}}


def text_block(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


class Shapes:
    """A turn's messages as one agent sends them (these: as `gemini --acp` does). One instance
    tells one turn: an agent that numbers its messages counts them here."""

    # Whether it reports a tool call before it asks leave to run it (gemini asks first, and
    # reports a refused call never).
    reports_before_asking = False

    def message_chunk(self, text: str) -> list[Message]:
        return [update("agent_message_chunk", content=text_block(text))]

    def thought_chunk(self, text: str) -> list[Message]:
        """A thought as gemini --acp sends one: its subject in bold (empty where the model
        gave none, as the scripted model does), a newline, then its text."""
        return [update("agent_thought_chunk", content=text_block(f"****\n{text}"))]

    def tool_call(self, tool_id: str, command: str = "ls") -> list[Message]:
        """A tool call that runs the shell command `command` begins, as gemini reports one it
        runs without asking (in progress)."""
        return [update("tool_call", toolCallId=tool_id, status="in_progress", title=command,
                       content=[{"type": "content", "content": text_block(f"[{command}]")}],
                       locations=[], kind="execute")]

    def tool_call_done(self, tool_id: str, command: str = "ls") -> list[Message]:
        return [update("tool_call_update", toolCallId=tool_id, status="completed",
                       title=command, content=[], locations=[], kind="execute")]

    def permission_request(self, tool_id: str, options: list[dict[str, Any]],
                           command: str = "ls") -> tuple[str, Message]:
        """The agent asks leave to run the shell command `command` (the tool call
        `tool_id`), offering `options` (its own): the method and its params."""
        return "session/request_permission", {
            "sessionId": SESSION_PLACEHOLDER, "options": options,
            "toolCall": {"toolCallId": tool_id, "status": "pending", "title": command,
                         "content": [{"type": "content",
                                      "content": text_block(f"[{command}]")}],
                         "locations": [], "kind": "execute"}}


def plan(*steps: str) -> Message:
    return update("plan", entries=[{"content": step, "priority": "medium", "status": "pending"}
                                   for step in steps])
