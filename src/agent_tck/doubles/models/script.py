"""A model script: the turns a scripted model server answers, one per API request.

A script is a JSON object `{"turns": [TURN, ...]}`. Each TURN is exactly one of:

- `{"say": TEXT}`: a streamed text answer that ends the turn;
- `{"tool": NAME | [NAME, ...], "input": {...}}`: a tool call; the first NAME among the tools
  the request offers is called, and a request that offers none of them is answered with an
  HTTP 400 saying so (and recorded as a problem);
- `{"fail": STATUS, "message": TEXT}`: an HTTP error in the API's own error shape (401, 429,
  500, 529 "overloaded", ...);
- `{"stall": SECONDS}`: the response starts and then nothing comes for SECONDS.

Options on any turn: `"think": TEXT`, a reasoning block streamed before a `say` or `tool`
answer (Claude's thinking block, a Responses API reasoning summary); `"delay": SECONDS`
between streamed events (a slow stream); and
`"repeat": true`, which answers this turn to every later request too (a model that stays down
while the CLI retries). A request after the last turn is answered 500 "script exhausted".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("say", "tool", "fail", "stall")
OPTIONS = ("input", "message", "think", "delay", "repeat")


class ScriptError(ValueError):
    """A model script that cannot be played; the message names the file and the turn."""


@dataclass(frozen=True)
class Turn:
    kind: str
    value: Any
    input: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    think: str = ""
    delay: float = 0.0
    repeat: bool = False

    def tool_names(self) -> list[str]:
        return [self.value] if isinstance(self.value, str) else list(self.value)


def parse(data: Any, where: str = "script") -> list[Turn]:
    """The turns of a decoded script; ScriptError names `where` and the bad turn."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise ScriptError(f'{where}: expected an object with a list "turns"')
    return [_turn(raw, f"{where}: turn {i + 1}") for i, raw in enumerate(data["turns"])]


def load(path: Path) -> list[Turn]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScriptError(f"{path}: cannot read the model script: {exc}") from exc
    return parse(data, str(path))


def _turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: expected an object, got {raw!r}")
    kinds = [k for k in KINDS if k in raw]
    unknown = sorted(set(raw) - set(KINDS) - set(OPTIONS))
    if len(kinds) != 1 or unknown:
        raise ScriptError(
            f"{where}: give exactly one of {', '.join(KINDS)}"
            + (f"; unknown keys {unknown}" if unknown else f"; got {kinds or 'none'}")
        )
    kind, value = kinds[0], raw[kinds[0]]
    _check(where, kind, value, raw)
    return Turn(
        kind,
        value,
        input=raw.get("input", {}),
        message=raw.get("message", ""),
        think=raw.get("think", ""),
        delay=float(raw.get("delay", 0.0)),
        repeat=bool(raw.get("repeat", False)),
    )


def _check(where: str, kind: str, value: Any, raw: dict[str, Any]) -> None:
    problems = {
        "say": not isinstance(value, str),
        "tool": not (
            isinstance(value, str)
            or (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
        )
        or not isinstance(raw.get("input", {}), dict),
        "fail": isinstance(value, bool) or not isinstance(value, int) or not 400 <= value <= 599,
        "stall": not _seconds(value),
    }
    options_bad = (
        not _seconds(raw.get("delay", 0))
        or not isinstance(raw.get("think", ""), str)
        or not isinstance(raw.get("message", ""), str)
        or not isinstance(raw.get("repeat", False), bool)
    )
    if problems[kind] or options_bad:
        wanted = {
            "say": "a text",
            "tool": 'a tool name or a list of names, with an object "input"',
            "fail": "an HTTP status from 400 to 599",
            "stall": "a number of seconds",
        }[kind]
        raise ScriptError(
            f"{where}: {kind!r} wants {wanted}; delay is seconds, think and message are "
            f"texts, repeat is true or false; got {raw!r}"
        )


def _seconds(value: Any) -> bool:
    """A finite number of seconds, zero or more."""
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value) and value >= 0)


def offered_tools(request: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model (both APIs list them as `tools`)."""
    return [t["name"] for t in request.get("tools") or [] if isinstance(t, dict) and "name" in t]


def by_schema(request: dict[str, Any], wanted: object) -> Turn | None:
    """The answer to a request of the CLI's own that offers no tool and asks, by the format
    `wanted` (where its API puts it), for JSON by a schema (a session's title): each field the
    schema requires is given the text "Scripted session". None for any other request."""
    if request.get("tools") or not isinstance(wanted, dict) or wanted.get("type") != "json_schema":
        return None
    schema = wanted.get("schema")
    required = schema.get("required") if isinstance(schema, dict) else None
    fields = [str(name) for name in required] if isinstance(required, list) else []
    return Turn("say", json.dumps(dict.fromkeys(fields, "Scripted session")))
