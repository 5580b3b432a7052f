"""Codex: `codex exec --json`, prompt on stdin (`-`)."""

from __future__ import annotations

from typing import Any

from agent_tck.reference.backends.base import (
    Invocation,
    RunOptions,
    load_object,
    text_of,
)
from agent_tck.reference.events import Event

TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search"})


# What makes the CLI act without asking (`serve` refuses it beyond loopback).

class CodexBackend:
    """Builds the `codex exec` command line and reads its `--json` output."""

    name = "codex"
    key_variables: tuple[str, ...] = ("OPENAI_API_KEY", "CODEX_API_KEY")
    login_command = "`codex login`"

    def __init__(self, command: str = "codex") -> None:
        self.command = command

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        argv = [self.command, "exec", "--json", "--skip-git-repo-check"]
        if options.model:
            argv += ["-m", options.model]
        argv += list(options.extra_args)
        # Flags go before `resume`; `-` makes codex read the prompt from stdin.
        if options.resume_session:
            argv += ["resume", options.resume_session]
        argv.append("-")
        return Invocation(tuple(argv), prompt.encode("utf-8"))


    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line)
        if obj is None:
            return []
        kind = text_of(obj.get("type"))
        if kind == "thread.started":
            return [Event("init", session_id=text_of(obj.get("thread_id")), raw=obj)]
        if kind == "turn.completed":
            return [Event("done", raw=obj)]
        if kind == "turn.failed":
            return [Event("error", text=_failure_text(obj), raw=obj)]
        if kind in ("item.started", "item.completed"):
            return _item(obj, completed=kind == "item.completed")
        # A top-level `error` is often a transient notice (reconnecting); the turn fails
        # through `turn.failed` or the exit code, so it is not an event.
        return []


def _failure_text(obj: dict[str, Any]) -> str:
    error = obj.get("error")
    message = text_of(error.get("message")) if isinstance(error, dict) else None
    return message or "codex reported a failed turn"


def _item(obj: dict[str, Any], completed: bool) -> list[Event]:
    item = obj.get("item")
    if not isinstance(item, dict):
        return []
    kind = text_of(item.get("type"))
    if kind == "agent_message" and completed and isinstance(item.get("text"), str):
        return [Event("text", text=item["text"], raw=obj)]
    if kind is None or kind not in TOOL_ITEMS:
        return []
    item_id = text_of(item.get("id"))
    if not completed:
        return [
            Event(
                "tool_start", tool_name=kind, tool_input=_tool_input(item), tool_id=item_id, raw=obj
            )
        ]
    return [
        Event(
            "tool_result", tool_name=kind, tool_output=_tool_output(item), tool_id=item_id, raw=obj
        )
    ]


def _tool_input(item: dict[str, Any]) -> Any:
    for key in ("command", "changes", "arguments", "query"):
        if key in item:
            return item[key]
    return None


def _tool_output(item: dict[str, Any]) -> Any:
    for key in ("aggregated_output", "result", "error", "changes"):
        if item.get(key) is not None:
            return item[key]
    return None
