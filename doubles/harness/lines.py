"""Real-format stream lines of Claude Code and Codex, written from their documented shapes.

Each function returns one JSON object as the CLI prints it on one line (decision D-1). The
suite never emits flat shapes that no real CLI prints: the builders write the fields that
matter and `complete` adds every other field a recorded line of the same shape has, so each
line is valid against schemas/cli/ with its required fields (tests/test_transcripts.py).
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import uuid
from typing import Any

from agent_tck.doubles.realcli.shapes import FREE_FORM, shape_of

_ids = itertools.count(1)
Line = dict[str, Any]


def _uid() -> str:
    return str(uuid.uuid4())


@functools.cache
def _templates(backend: str) -> dict[str, Line]:
    """The first real line of each shape of `backend`: recorded runs first, then the
    documented lines (fixtures/transcripts), the sources of schemas/cli/."""
    from agent_tck.doubles.realcli.fixtures import documented, index

    recorded = [raw for t in index() if t.backend == backend for raw in t.lines()]
    found: dict[str, Line] = {}
    for raw in [*recorded, *documented(backend)]:
        value = json.loads(raw)
        found.setdefault(shape_of(backend, value), value)
    return found


def complete(backend: str, line: Line) -> Line:
    """`line` with the fields it leaves out taken from a recorded line of its shape; its own
    fields and their order are kept. A shape never recorded is returned as it is."""
    template = _templates(backend).get(shape_of(backend, line))
    return line if template is None else _merge(line, template)


def as_printed(backend: str, text: str) -> str:
    """A line of a feature as the CLI prints it: a JSON object `complete`d, anything else as
    written (junk and malformed lines are the scenario's point)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return json.dumps(complete(backend, value)) if isinstance(value, dict) else text


def _merge(line: Line, template: Line) -> Line:
    merged = dict(line)
    for key, value in template.items():
        if key not in merged:
            merged[key] = copy.deepcopy(value)
        elif isinstance(merged[key], dict) and isinstance(value, dict) and key not in FREE_FORM:
            merged[key] = _merge(merged[key], value)
    return merged


class Claude:
    """`claude -p --output-format stream-json --verbose`."""

    def __init__(self, session_id: str = "5d1c2b7e-0000-4000-8000-000000000001") -> None:
        self.session_id = session_id

    def init(self, session_id: str | None = None) -> Line:
        if session_id:
            self.session_id = session_id
        return complete("claude", {
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
            "uuid": _uid(),
        })

    def _assistant(self, *blocks: Line) -> Line:
        return complete("claude", {
            "type": "assistant",
            "message": {
                "id": f"msg_{next(_ids):024d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": list(blocks),
                "stop_reason": None,
                "usage": {"input_tokens": 12, "output_tokens": 7},
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": _uid(),
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
        return complete("claude", {
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
            "uuid": _uid(),
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
            "uuid": _uid(),
        }
        if text is not None or subtype == "success":
            # A success always has `result`: empty when the last message had no text.
            line["result"] = text or ""
        if errors is not None:
            line["errors"] = errors
        return complete("claude", line)


class Codex:
    """`codex exec --json`."""

    def __init__(self) -> None:
        self.items = itertools.count(0)

    def thread_started(self, thread_id: str = "019c7199-0000-7000-8000-000000000001") -> Line:
        return complete("codex", {"type": "thread.started", "thread_id": thread_id})

    def turn_started(self) -> Line:
        return complete("codex", {"type": "turn.started"})

    def _item(self, event: str, item: Line, item_id: str | None = None) -> Line:
        line = {"type": event, "item": {"id": item_id or f"item_{next(self.items)}", **item}}
        return complete("codex", line)

    def agent_message(self, text: str) -> Line:
        return self._item("item.completed", {"type": "agent_message", "text": text})

    def reasoning(self, text: str) -> Line:
        return self._item("item.completed", {"type": "reasoning", "text": text})

    def command(
        self,
        item_id: str,
        command: str = "bash -lc ls",
        *,
        completed: bool,
        output: str = "README.md\n",
        exit_code: int = 0,
    ) -> Line:
        item: Line = {
            "type": "command_execution",
            "command": command,
            "aggregated_output": output if completed else "",
            "exit_code": exit_code if completed else None,
            "status": "completed" if completed else "in_progress",
        }
        return self._item("item.completed" if completed else "item.started", item, item_id)

    def file_change(self, item_id: str, path: str = "src/app.py") -> Line:
        item = {
            "type": "file_change",
            "changes": [{"path": path, "kind": "update"}],
            "status": "completed",
        }
        return self._item("item.completed", item, item_id)

    def turn_completed(self) -> Line:
        return complete("codex", {
            "type": "turn.completed",
            "usage": {"input_tokens": 24, "cached_input_tokens": 0, "output_tokens": 9},
        })

    def turn_failed(self, message: str) -> Line:
        return complete("codex", {"type": "turn.failed", "error": {"message": message}})

    def error(self, message: str) -> Line:
        return complete("codex", {"type": "error", "message": message})


class Gemini:
    """`gemini --output-format stream-json`."""

    def __init__(self) -> None:
        self.tools = itertools.count(0)

    def init(self, session_id: str = "9ed9cfb8-0000-4000-8000-000000000001") -> Line:
        return complete("gemini", {"type": "init", "session_id": session_id})

    def message(self, text: str, role: str = "assistant") -> Line:
        line: Line = {"type": "message", "role": role, "content": text}
        return complete("gemini", {**line, "delta": True} if role == "assistant" else line)

    def tool_use(self, tool_id: str, name: str = "run_shell_command", **parameters: Any) -> Line:
        return complete("gemini", {"type": "tool_use", "tool_name": name, "tool_id": tool_id,
                                   "parameters": parameters or {"command": "ls"}})

    def tool_result(self, tool_id: str, output: str = "README.md\n") -> Line:
        return complete("gemini", {"type": "tool_result", "tool_id": tool_id,
                                   "status": "success", "output": output})

    def result(self) -> Line:
        return complete("gemini", {"type": "result", "status": "success"})

    def failed(self, message: str) -> Line:
        return complete("gemini", {"type": "result", "status": "error",
                                   "error": {"type": "unknown", "message": message}})
