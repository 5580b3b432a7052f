"""Claude Code's stream lines: `claude -p --output-format stream-json --verbose`."""

from __future__ import annotations

from typing import Any

from agent_tck.doubles.backends.base import Line
from agent_tck.doubles.backends.lines import complete, next_id, uid


def shape_of(line: Line) -> str:
    """`type`, and `subtype` for `system` and `result` lines: `system/init`."""
    kind = str(line.get("type"))
    return f"{kind}/{line.get('subtype')}" if kind in ("system", "result") else kind


def last_text(lines: list[Line]) -> str | None:
    """The text of the last assistant message among `lines`, its text blocks joined: what a
    success `result` repeats ("" when that message has none; None when no message came)."""
    for line in reversed(lines):
        if line.get("type") == "assistant" and isinstance(line.get("message"), dict):
            blocks = line["message"].get("content") or []
            return "".join(b.get("text", "") for b in blocks
                           if isinstance(b, dict) and b.get("type") == "text")
    return None


def _complete(line: Line) -> Line:
    return complete("claude", shape_of, line)


class ClaudeLines:
    """`claude -p --output-format stream-json --verbose`."""

    def __init__(self, session_id: str = "5d1c2b7e-0000-4000-8000-000000000001") -> None:
        self.session_id = session_id

    def init(self, session_id: str | None = None) -> Line:
        if session_id:
            self.session_id = session_id
        return _complete({
            "type": "system",
            "subtype": "init",
            "cwd": "/workspace",
            "session_id": self.session_id,
            "tools": ["Bash", "Edit", "Read", "Write"],
            "mcp_servers": [],
            "model": "claude-sonnet-4-5",
            "permissionMode": "default",
            "apiKeySource": "ANTHROPIC_API_KEY",
            "claude_code_version": "2.1.330",
            "uuid": uid(),
        })

    def _assistant(self, *blocks: Line) -> Line:
        return _complete({
            "type": "assistant",
            "message": {
                "id": f"msg_{next_id():024d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": list(blocks),
                "stop_reason": None,
                "usage": {"input_tokens": 12, "output_tokens": 7},
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": uid(),
        })

    def text(self, *texts: str) -> Line:
        return self._assistant(*({"type": "text", "text": t} for t in texts))

    def thinking(self, text: str) -> Line:
        return self._assistant({"type": "thinking", "thinking": text, "signature": "c2ln"})

    def tool_use(self, tool_id: str, name: str = "Bash", **tool_input: Any) -> Line:
        block = {
            "type": "tool_use",
            "id": tool_id,
            "name": name,
            "input": tool_input or {"command": "ls"},
        }
        return self._assistant(block)

    def tool_result(self, tool_id: str, content: Any = "ok", is_error: bool = False) -> Line:
        return _complete({
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_id,
                        "content": content,
                        "is_error": is_error,
                    },
                ],
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": uid(),
        })

    def result(
        self,
        text: str | None = None,
        *,
        subtype: str = "success",
        is_error: bool = False,
        errors: list[str] | None = None,
    ) -> Line:
        # Key order as Claude Code 2.1.330 prints it: `type` is not first.
        line: Line = {
            "duration_api_ms": 812,
            "duration_ms": 1023,
            "is_error": is_error,
            "num_turns": 1,
            "session_id": self.session_id,
            "total_cost_usd": 0.0012,
            "type": "result",
            "subtype": subtype,
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 12, "output_tokens": 7},
            "uuid": uid(),
        }
        if text is not None or subtype == "success":
            # A success always has `result`: empty when the last message had no text.
            line["result"] = text or ""
        if errors is not None:
            line["errors"] = errors
        return _complete(line)
