"""The normalized stream events every backend's `parse_line` yields (decision D-2).

One raw line of a CLI's JSON-lines stream becomes zero or more `Event`s; the agent reads only
these, never the raw CLI shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["init", "text", "tool_start", "tool_result", "done", "error"]
KINDS: tuple[Kind, ...] = ("init", "text", "tool_start", "tool_result", "done", "error")


@dataclass(frozen=True)
class Event:
    """One normalized event; `raw` is the parsed line it came from."""

    kind: Kind
    session_id: str | None = None
    text: str | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_output: Any = None
    tool_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (schemas/events.schema.json); unset fields are omitted."""
        out: dict[str, Any] = {"kind": self.kind}
        for name in ("session_id", "text", "tool_name", "tool_input", "tool_output", "tool_id"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["raw"] = self.raw
        return out
