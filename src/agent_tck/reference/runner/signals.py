"""Completion signals in an agent's output, exactly as seed 004's `ParseSignal`.

COMPLETE is looked for first, anywhere in the output, so an output carrying both signals is
COMPLETE (decision D-9). Otherwise the first `<promise>BLOCKED:` counts when a `</promise>`
follows it; its reason is the text between them with surrounding whitespace trimmed (it may
span lines, and may be empty). Markers are matched byte for byte: other case or spacing is
not a signal.
"""

from __future__ import annotations

import enum

COMPLETE_MARKER = "<promise>COMPLETE</promise>"
BLOCKED_OPEN = "<promise>BLOCKED:"
CLOSE = "</promise>"


class Signal(enum.Enum):
    """What an iteration's output says about the loop."""

    NONE = "NONE"
    COMPLETE = "COMPLETE"
    BLOCKED = "BLOCKED"


def parse_signal(output: str) -> tuple[Signal, str]:
    """The signal in `output` and, for BLOCKED, its trimmed reason (else "")."""
    if COMPLETE_MARKER in output:
        return Signal.COMPLETE, ""
    start = output.find(BLOCKED_OPEN)
    if start == -1:
        return Signal.NONE, ""
    start += len(BLOCKED_OPEN)
    end = output.find(CLOSE, start)
    if end == -1:
        return Signal.NONE, ""
    return Signal.BLOCKED, output[start:end].strip()
