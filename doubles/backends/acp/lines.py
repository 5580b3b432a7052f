"""What an ACP agent sends during a turn, built as the protocol's schema defines it: its
`session/update` notifications and its own requests to the client. The session's id is written
"{session}": the fake agent puts in the id of the session it serves
(`doubles.harness.acpagent`)."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
SESSION_PLACEHOLDER = "{session}"


def update(kind: str, /, **fields: Any) -> Message:
    """A `session/update` notification of the kind `kind` (its `sessionUpdate`)."""
    return {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": SESSION_PLACEHOLDER, "update": {"sessionUpdate": kind, **fields}}}


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def message_chunk(text: str) -> Message:
    return update("agent_message_chunk", content=_text(text))


def thought_chunk(text: str, subject: str = "") -> Message:
    """A thought as gemini --acp sends one: its subject in bold (empty where the model gave
    none, as the scripted model does), a newline, then its text."""
    return update("agent_thought_chunk", content=_text(f"**{subject}**\n{text}"))


def tool_call(tool_id: str, title: str = "ls", kind: str = "execute") -> Message:
    """A tool call begins, as gemini reports one it runs without asking (in progress)."""
    return update("tool_call", toolCallId=tool_id, status="in_progress", title=title,
                  content=[{"type": "content", "content": _text(f"[{title}]")}], locations=[],
                  kind=kind)


def tool_call_done(tool_id: str, title: str = "ls", kind: str = "execute") -> Message:
    return update("tool_call_update", toolCallId=tool_id, status="completed", title=title,
                  content=[], locations=[], kind=kind)


def plan(*steps: str) -> Message:
    return update("plan", entries=[{"content": step, "priority": "medium", "status": "pending"}
                                   for step in steps])


def permission_request(tool_id: str, options: list[dict[str, Any]], title: str = "ls",
                       kind: str = "execute") -> tuple[str, Message]:
    """The agent asks leave to run the tool call `tool_id`, offering `options` (its CLI's):
    the method and its params. An agent that asks does so before it reports the call."""
    return "session/request_permission", {
        "sessionId": SESSION_PLACEHOLDER, "options": options,
        "toolCall": {"toolCallId": tool_id, "status": "pending", "title": title,
                     "content": [{"type": "content", "content": _text(f"[{title}]")}],
                     "locations": [], "kind": kind}}
