"""Claude Code: `claude -p --output-format stream-json --verbose`, prompt on stdin."""

from __future__ import annotations

from typing import Any

from agent_tck.reference.backends.base import (
    Invocation,
    RunOptions,
    load_object,
    text_of,
)
from agent_tck.reference.events import Event

# What makes the CLI act without asking (`serve` refuses it beyond loopback).
# Inherited from a parent Claude Code session, these make `claude` believe it runs nested: the
# agent (AG-H11) and the loop's runner (RUN-CMD-6) never pass them on.
NESTING_VARIABLES = ("CLAUDECODE",)

class ClaudeBackend:
    """Builds the `claude` command line and reads its stream-json output."""

    name = "claude"
    key_variables: tuple[str, ...] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    login_command = "`claude` and its /login command"

    def __init__(self, command: str = "claude") -> None:
        self.command = command

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        argv = [self.command, "-p", "--output-format", "stream-json", "--verbose"]
        if options.model:
            argv += ["--model", options.model]
        if options.resume_session:
            argv += ["--resume", options.resume_session]
        argv += list(options.extra_args)
        return Invocation(tuple(argv), prompt.encode("utf-8"))

    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line)
        if obj is None:
            return []
        parser = _PARSERS.get(text_of(obj.get("type")) or "")
        return parser(obj) if parser else []



def _system(obj: dict[str, Any]) -> list[Event]:
    if obj.get("subtype") != "init":
        return []
    return [Event("init", session_id=text_of(obj.get("session_id")), raw=obj)]


def _blocks(obj: dict[str, Any]) -> list[Any]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _assistant(obj: dict[str, Any]) -> list[Event]:
    events: list[Event] = []
    for block in _blocks(obj):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            events.append(Event("text", text=block["text"], raw=obj))
        elif block.get("type") == "tool_use":
            events.append(
                Event(
                    "tool_start",
                    tool_name=text_of(block.get("name")),
                    tool_input=block.get("input"),
                    tool_id=text_of(block.get("id")),
                    raw=obj,
                )
            )
    return events


def _user(obj: dict[str, Any]) -> list[Event]:
    return [
        Event(
            "tool_result",
            tool_output=_tool_output(block.get("content")),
            tool_id=text_of(block.get("tool_use_id")),
            raw=obj,
        )
        for block in _blocks(obj)
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def _tool_output(content: Any) -> Any:
    """A tool result's content as text when it is text blocks, else as given."""
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict)]
        if texts and all(isinstance(t, str) for t in texts):
            return "".join(t for t in texts if isinstance(t, str))
    return content


def _result(obj: dict[str, Any]) -> list[Event]:
    session = text_of(obj.get("session_id"))
    failed = obj.get("is_error") is True or obj.get("subtype") != "success"
    if not failed:
        return [Event("done", session_id=session, text=text_of(obj.get("result")), raw=obj)]
    return [Event("error", session_id=session, text=_error_text(obj), raw=obj)]


def _error_text(obj: dict[str, Any]) -> str:
    errors = obj.get("errors")
    if isinstance(errors, list) and errors:
        return "; ".join(str(e) for e in errors)
    result = text_of(obj.get("result"))
    return result or f"claude reported {text_of(obj.get('subtype')) or 'an error'}"


_PARSERS = {"system": _system, "assistant": _assistant, "user": _user, "result": _result}
