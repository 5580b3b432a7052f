"""Failures as the spec reads them: for each requirement that failed or errored, its id,
level and text; each failed scenario's title and where it is written; the step that failed,
as the feature writes it, with its docstring or table; what happened, in full; and the last
of the exchange with the implementation. pytest is the engine of a run, never what a user
reads: no traceback through the kit, no object repr, no test function names."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from agent_tck.kit.verdicts import (
    ERRORED,
    FAILED,
    NOT_JUDGED,
    SKIPPED,
    ReqVerdict,
    ScenarioResult,
)

BAD = (FAILED, ERRORED)
SHOWN = 3  # scenarios told in full per requirement
LISTED = 20  # and after them, scenarios told in a line each; the reports have every one
EXPLAIN = ("`agent-tck explain REQ-ID` tells a requirement whole: every scenario that checks it "
           "and the real failures of other wrappers it guards against.")


def explain(verdicts: Iterable[ReqVerdict], expected: Iterable[str] = ()) -> str:
    """Every failed or errored requirement with its failed scenarios; "" when none failed.
    A scenario of several requirements is told once, under the first that failed."""
    verdicts = list(verdicts)
    excused, told, parts = set(expected), set[str](), blocked(verdicts)
    for v in verdicts:
        if v.verdict not in BAD:
            continue
        bad = [s for s in v.scenarios if s.verdict in BAD and s.nodeid not in told]
        told.update(s.nodeid for s in bad)
        parts.append(_requirement(v, bad, v.req.id in excused))
    return "\n\n".join([*parts, EXPLAIN] if parts else parts)


def blocked(verdicts: list[ReqVerdict]) -> list[str]:
    """A line for each cause that kept several scenarios from being judged (their setup never
    happened: `verdicts.UNSET`), most scenarios first: fixing it is the first thing to do."""
    causes: dict[str, set[str]] = {}
    for s in (s for v in verdicts for s in v.scenarios):
        if s.verdict == ERRORED and s.error.startswith(NOT_JUDGED):
            causes.setdefault(s.error.removeprefix(NOT_JUDGED), set()).add(s.nodeid)
    return [f"{len(ids)} scenarios were not judged, all for one cause: {cause}. Fix that "
            "first, then run again: the scenarios it kept from their subject will be judged."
            for cause, ids in sorted(causes.items(), key=lambda kv: -len(kv[1]))
            if len(ids) > 1]


def _requirement(v: ReqVerdict, bad: list[ScenarioResult], known: bool) -> str:
    mark = " (a known failure, in the baseline)" if known else ""
    lines = [f"{v.verdict.upper()} {v.req.id} ({v.req.level}){mark}: {v.req.text}"]
    if not bad:
        lines.append(_indent(f"its scenarios: {_why_none_failed(v)}"))
    lines += [_indent(scenario(s)) for s in bad[:SHOWN]]
    lines += [_indent(_heading(s) + f": {_first_line(s)}") for s in bad[SHOWN:SHOWN + LISTED]]
    if len(bad) > SHOWN + LISTED:
        lines.append(_indent(f"and {len(bad) - SHOWN - LISTED} more failed scenarios (the "
                             "reports have every one)"))
    return "\n".join(lines)


def _why_none_failed(v: ReqVerdict) -> str:
    """Why a requirement failed though none of its scenarios did: none ran, each was skipped
    (a MUST must be judged: the skips' reasons), or they ran and failed for another
    requirement, told above."""
    if not v.scenarios:
        return "no scenario ran"
    reasons = sorted({s.evidence.strip() for s in v.scenarios if s.verdict == SKIPPED})
    if reasons and all(s.verdict == SKIPPED for s in v.scenarios):
        return "none was judged: " + "; ".join(reasons)
    return "another requirement's failure above"


def scenario(s: ScenarioResult) -> str:
    """One failed scenario, told as the feature writes it."""
    lines = [_heading(s)]
    step = next((st for st in s.steps if st[2] == FAILED), None)
    if step is not None:
        lines.append(_indent(f"{step[0].strip()} {step[1]}"))
        lines += [_indent(s.argument, 4)] if s.argument else []
    lines += [_indent("What happened:"), _indent(_what(s), 4)]
    if s.exchange:
        lines += [_indent("The last of the exchange with the implementation:"),
                  _indent(s.exchange, 4)]
    return "\n".join(lines)


def _heading(s: ScenarioResult) -> str:
    """The scenario's title, its example (an outline's row: which of them failed is what a
    reader needs) and where the feature writes it."""
    run = s.name[s.name.find("["):] if s.name.endswith("]") else ""
    where = f"  ({s.where})" if s.where else ""
    return f"Scenario: {s.title or s.name} {run}".rstrip() + where


def _what(s: ScenarioResult) -> str:
    return s.message or s.error or s.evidence or s.verdict


def _first_line(s: ScenarioResult) -> str:
    return next((line.strip() for line in _what(s).splitlines() if line.strip()), s.verdict)


def _indent(text: str, by: int = 2) -> str:
    return textwrap.indent(text, " " * by, lambda _: True)
