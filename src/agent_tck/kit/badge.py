"""`agent-tck run --badge FILE`: the run's verdict as a shields.io endpoint badge.

shields.io draws a badge from a small JSON document at a public URL
(https://shields.io/badges/endpoint-badge): `{"schemaVersion": 1, "label", "message",
"color"}`. The message says the verdict and the count behind it, in the words of the other
reports: "conformant · 234/234" (requirements passed of those judged), "conformant · 6 known
failures" (a baseline excused them: never a bare "conformant"), "not conformant · 12 failed".
A partial run (--component, -k, --req, -m) says so first: its verdict speaks only of what it
judged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent_tck.kit import verdicts
from agent_tck.kit.reports import Run
from agent_tck.kit.verdicts import ERRORED, FAILED, PASSED

LABEL = "agent-tck"
# shields.io's named colours: a pass, a pass with failures a baseline excuses, a fail.
GREEN, YELLOW, RED = "green", "yellow", "red"


@dataclass(frozen=True)
class Badge:
    """What shields.io shows: the label on the left, the message on a `color` ground."""

    message: str
    color: str

    def to_json(self) -> str:
        """The endpoint document shields.io reads."""
        body = {"schemaVersion": 1, "label": LABEL, "message": self.message,
                "color": self.color}
        return json.dumps(body, ensure_ascii=False) + "\n"


def badge(run: Run, partial: bool = False) -> Badge:
    """The badge of `run`; `partial`: the user chose what to judge."""
    shown = _conformant(run) if run.conformant else _not_conformant(run)
    return Badge(f"partial · {shown.message}", shown.color) if partial else shown


def render(run: Run, partial: bool = False) -> str:
    return badge(run, partial).to_json()


def _conformant(run: Run) -> Badge:
    known = verdicts.known_failures(run.verdicts, run.expected)
    if known:
        return Badge(f"conformant · {known} known failure{'s' * (known != 1)}", YELLOW)
    judged = [v.verdict for v in run.verdicts if v.verdict in (PASSED, FAILED, ERRORED)]
    return Badge(f"conformant · {judged.count(PASSED)}/{len(judged)}", GREEN)


def _not_conformant(run: Run) -> Badge:
    return Badge(f"not conformant · {_why_not(run)}", RED)


def _why_not(run: Run) -> str:
    """The count that makes `run` not conformant: its failures a baseline does not excuse;
    else its stale baseline entries; else that it judged nothing, or no MUST."""
    unexcused = [v.verdict for v in run.verdicts if v.req.id not in run.expected]
    counts = [f"{unexcused.count(kind)} {kind}" for kind in (FAILED, ERRORED)
              if kind in unexcused]
    if counts:
        return ", ".join(counts)
    if run.stale:
        return f"{len(run.stale)} stale baseline entr{'ies' if len(run.stale) != 1 else 'y'}"
    if verdicts.vacuous(run.verdicts):
        return "nothing judged"
    return "no MUST judged"
