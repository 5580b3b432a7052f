"""Codex's stream lines: `codex exec --json`."""

from __future__ import annotations

import itertools

from agent_tck.doubles.backends.base import Line
from agent_tck.doubles.backends.lines import complete


def shape_of(line: Line) -> str:
    """`type`, and the item's `type` for item events: `item.completed/agent_message`."""
    kind, item = str(line.get("type")), line.get("item")
    return f"{kind}/{item.get('type')}" if isinstance(item, dict) else kind


def _complete(line: Line) -> Line:
    return complete("codex", shape_of, line)


class CodexLines:
    """`codex exec --json`."""

    def __init__(self) -> None:
        self.items = itertools.count(0)

    def thread_started(self, thread_id: str = "019c7199-0000-7000-8000-000000000001") -> Line:
        return _complete({"type": "thread.started", "thread_id": thread_id})

    def turn_started(self) -> Line:
        return _complete({"type": "turn.started"})

    def _item(self, event: str, item: Line, item_id: str | None = None) -> Line:
        line = {"type": event, "item": {"id": item_id or f"item_{next(self.items)}", **item}}
        return _complete(line)

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
        return _complete({
            "type": "turn.completed",
            "usage": {"input_tokens": 24, "cached_input_tokens": 0, "output_tokens": 9},
        })

    def turn_failed(self, message: str) -> Line:
        return _complete({"type": "turn.failed", "error": {"message": message}})

    def error(self, message: str) -> Line:
        return _complete({"type": "error", "message": message})
