"""What a backend is: how to start its CLI for one request, and how to read its stream."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tck.reference.events import Event
from agent_tck.reference.feed import Feed

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class RunOptions:
    """Per-agent options a backend turns into command-line flags."""

    model: str | None = None
    resume_session: str | None = None
    extra_args: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    working_dir: str | None = None  # where the CLI runs; None: the agent's own directory


class Conversation(Protocol):
    """A CLI that is talked with (an ACP agent): what it is told as it speaks goes to `feed`,
    and `parse_line` reads each of its lines in order, sending to the feed as it must."""

    feed: Feed
    warnings: list[str]  # what the answer should say of the talk (a refused permission)

    def parse_line(self, line: str) -> list[Event]: ...


@dataclass(frozen=True)
class Invocation:
    """A command line and the bytes to write to its stdin (the prompt, decision D-5), or the
    conversation it is talked with (its stdin and its reader)."""

    argv: tuple[str, ...]
    stdin: bytes
    conversation: Conversation | None = None


class Backend(Protocol):
    """A coding CLI: `claude`, `codex`, ..."""

    name: str
    command: str
    # The variables that carry an API key to the CLI (decision D-21): withheld when the agent
    # uses the CLI's own login, one of them required when it uses a key.
    key_variables: tuple[str, ...]
    # How a person logs the CLI in (named when no credentials work, decision D-22).
    login_command: str

    def build(self, prompt: str, options: RunOptions) -> Invocation: ...

    def parse_line(self, line: str) -> list[Event]: ...


def load_object(line: str) -> dict[str, Any] | None:
    """The JSON object on `line`, or None for anything else (banners, arrays, junk).

    Lines are decoded before they get here; non-objects are skipped by design (seed 001,
    "Parse Errors": malformed lines are silently skipped).
    """
    stripped = line.strip()
    if not stripped.startswith("{"):
        return None
    try:
        # json.loads would skip whitespace around the value with two regex matches per line;
        # the line is already stripped, so decoding it whole is the same test, and faster.
        value, end = _DECODER.raw_decode(stripped)
    except (ValueError, RecursionError):
        return None
    return value if end == len(stripped) and isinstance(value, dict) else None


def text_of(value: Any) -> str | None:
    """A string field, or None when absent or not a string."""
    return value if isinstance(value, str) else None
