"""Gemini CLI: `gemini --output-format stream-json`, prompt on stdin.

With stdin not a terminal and no `-p`, the CLI runs headless and takes its prompt from
stdin. Its stream: `init` (the session id), `message` (the user's prompt, then the
assistant's text in chunks, `delta: true`), `tool_use` and `tool_result`, and one `result`
whose `status` says how the turn ended (`error` carries the message).
"""

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

class GeminiBackend:
    """Builds the `gemini` command line and reads its stream-json output."""

    name = "gemini"
    key_variables: tuple[str, ...] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    login_command = "`gemini` and its Login with Google"

    def __init__(self, command: str = "gemini") -> None:
        self.command = command

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        argv = [self.command, "--output-format", "stream-json"]
        if options.model:
            argv += ["-m", options.model]
        if options.resume_session:
            argv += ["--resume", options.resume_session]
        argv += list(options.extra_args)
        return Invocation(tuple(argv), prompt.encode("utf-8"))


    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line)
        if obj is None:
            return []
        kind = text_of(obj.get("type"))
        if kind == "init":
            return [Event("init", session_id=text_of(obj.get("session_id")), raw=obj)]
        if kind == "message" and obj.get("role") == "assistant":
            text = obj.get("content")
            return [Event("text", text=text, raw=obj)] if isinstance(text, str) else []
        if kind == "tool_use":
            return [Event("tool_start", tool_name=text_of(obj.get("tool_name")),
                          tool_input=obj.get("parameters"), tool_id=text_of(obj.get("tool_id")),
                          raw=obj)]
        if kind == "tool_result":
            return [Event("tool_result", tool_output=_output(obj),
                          tool_id=text_of(obj.get("tool_id")), raw=obj)]
        if kind == "result":
            if obj.get("status") == "success":
                return [Event("done", raw=obj)]
            return [Event("error", text=_failure_text(obj), raw=obj)]
        return []


def _output(obj: dict[str, Any]) -> Any:
    error = obj.get("error")
    return obj.get("output") if obj.get("status") == "success" or error is None else error


def _failure_text(obj: dict[str, Any]) -> str:
    error = obj.get("error")
    message = text_of(error.get("message")) if isinstance(error, dict) else None
    return message or f"gemini reported a turn that ended {obj.get('status')!r}"
