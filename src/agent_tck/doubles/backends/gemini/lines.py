"""Gemini CLI's stream lines: `gemini --output-format stream-json`."""

from __future__ import annotations

import itertools
from typing import Any

from agent_tck.doubles.backends.base import Line
from agent_tck.doubles.backends.lines import complete


def shape_of(line: Line) -> str:
    """`type`, and the role of a message or the status of a result: `message/assistant`."""
    kind = str(line.get("type"))
    if kind == "message":
        return f"message/{line.get('role')}"
    return f"result/{line.get('status')}" if kind == "result" else kind


def _complete(line: Line) -> Line:
    return complete("gemini", shape_of, line)


class GeminiLines:
    """`gemini --output-format stream-json`."""

    def __init__(self) -> None:
        self.tools = itertools.count(0)

    def init(self, session_id: str = "9ed9cfb8-0000-4000-8000-000000000001") -> Line:
        return _complete({"type": "init", "session_id": session_id})

    def message(self, text: str, role: str = "assistant") -> Line:
        line: Line = {"type": "message", "role": role, "content": text}
        return _complete({**line, "delta": True} if role == "assistant" else line)

    def tool_use(self, tool_id: str, name: str = "run_shell_command", **parameters: Any) -> Line:
        return _complete({"type": "tool_use", "tool_name": name, "tool_id": tool_id,
                                   "parameters": parameters or {"command": "ls"}})

    def tool_result(self, tool_id: str, output: str = "README.md\n") -> Line:
        return _complete({"type": "tool_result", "tool_id": tool_id,
                                   "status": "success", "output": output})

    def result(self) -> Line:
        return _complete({"type": "result", "status": "success"})

    def failed(self, message: str) -> Line:
        return _complete({"type": "result", "status": "error",
                                   "error": {"type": "unknown", "message": message}})
