"""Verdicts: what each scenario and each requirement came to in a conformance run.

A pytest plugin (`Collector`) records every scenario's outcome with its `req` markers; the
functions below fold them into requirement verdicts and the run's verdict. A MUST whose
scenarios did not run counts as failed; SHOULD failures make the run not conformant only with
`strict`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import Any

import pytest

from agent_tck.kit.errors import DriverError, SuiteError
from agent_tck.kit.plugin import NotApplicable
from agent_tck.kit.registry import Requirement

PASSED, FAILED, ERRORED, NA, SKIPPED, NOT_RUN = (
    "passed",
    "failed",
    "errored",
    "not applicable",
    "skipped",
    "not run",
)


@dataclass
class ScenarioResult:
    nodeid: str
    name: str
    component: str
    reqs: tuple[str, ...]
    verdict: str = NOT_RUN
    evidence: str = ""  # pytest's report of the failure, or the reason of a skip
    error: str = ""  # what failed, in a line: the exception's type and first line
    duration: float = 0.0


@dataclass
class ReqVerdict:
    req: Requirement
    verdict: str
    scenarios: list[ScenarioResult] = field(default_factory=list)


class Collector:
    """pytest plugin: one ScenarioResult per selected scenario; `reqs` patterns (fnmatch)
    deselect scenarios that check none of the matching requirements."""

    def __init__(self, reqs: Iterable[str] = ()) -> None:
        self.results: dict[str, ScenarioResult] = {}
        self.patterns = list(reqs)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if self.patterns:
            keep = [
                i
                for i in items
                if any(fnmatch(m.args[0], p) for m in i.iter_markers("req") for p in self.patterns)
            ]
            config.hook.pytest_deselected(items=[i for i in items if i not in keep])
            items[:] = keep
        for item in items:
            component = item.get_closest_marker("component")
            reqs = tuple(m.args[0] for m in item.iter_markers("req"))
            self.results[item.nodeid] = ScenarioResult(
                item.nodeid, item.name, component.args[0] if component else "", reqs
            )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report: pytest.TestReport = yield
        result = self.results.get(item.nodeid)
        if result is not None:
            result.duration += report.duration
            _apply(result, report, call)
        return report


def _apply(result: ScenarioResult, report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    if report.passed and report.when == "call" and result.verdict == NOT_RUN:
        result.verdict = PASSED
    elif report.skipped:
        skip = call.excinfo.value if call.excinfo is not None else None
        result.verdict = NA if isinstance(skip, NotApplicable) else SKIPPED
        if isinstance(skip, pytest.skip.Exception):
            result.evidence = skip.msg or ""
        else:
            result.evidence = _reason(report)
    elif report.failed and result.verdict not in (FAILED, ERRORED):
        broke = call.excinfo is not None and call.excinfo.errisinstance((DriverError, SuiteError))
        result.verdict = ERRORED if broke or report.when != "call" else FAILED
        result.evidence = _clip(report.longreprtext)
        if call.excinfo is not None:
            first = (str(call.excinfo.value).strip().splitlines() or [""])[0]
            result.error = f"{call.excinfo.typename}: {first}" if first else call.excinfo.typename


def _reason(report: pytest.TestReport) -> str:
    """The reason pytest gives for a skip (an xfail, a skip mark), from its report."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return reason.removeprefix("Skipped: ")


def _clip(text: str, head: int = 2000, tail: int = 3000) -> str:
    """The start (the error) and the end (the transcript's last lines) of long evidence."""
    if len(text) <= head + tail:
        return text
    return f"{text[:head]}\n[... {len(text) - head - tail} characters cut ...]\n{text[-tail:]}"


def fold(
    requirements: dict[str, Requirement],
    scenarios: Iterable[ScenarioResult],
    selected: bool = False,
) -> list[ReqVerdict]:
    """One verdict per requirement, in registry order."""
    by_req: dict[str, list[ScenarioResult]] = {rid: [] for rid in requirements}
    for scenario in scenarios:
        for rid in scenario.reqs:
            by_req.setdefault(rid, []).append(scenario)
    return [
        ReqVerdict(req, _verdict(req, by_req[rid], selected), by_req[rid])
        for rid, req in requirements.items()
    ]


def _verdict(req: Requirement, scenarios: list[ScenarioResult], selected: bool) -> str:
    verdicts = {s.verdict for s in scenarios} - {NOT_RUN}
    for worst in (FAILED, ERRORED):
        if worst in verdicts:
            return worst
    if PASSED in verdicts:
        return PASSED
    if verdicts and verdicts <= {NA}:
        return NA
    if selected and not verdicts:
        return NOT_RUN
    return FAILED if req.level == "MUST" else NOT_RUN


def conformant(
    verdicts: list[ReqVerdict], strict: bool = False, expected: Iterable[str] = ()
) -> bool:
    """No MUST failed or errored (with `strict`, no SHOULD either), except `expected` ones;
    and the run is not vacuous (see `vacuous`)."""
    bad, excused = {FAILED, ERRORED}, set(expected)
    return not vacuous(verdicts) and not any(
        v.verdict in bad and v.req.id not in excused and (strict or v.req.level == "MUST")
        for v in verdicts
    )


def vacuous(verdicts: list[ReqVerdict]) -> bool:
    """The run judged nothing: no requirement passed or failed (all not applicable or not
    run), or every one it tried errored (an implementation that answers nothing)."""
    judged = [v.verdict for v in verdicts if v.verdict in (PASSED, FAILED, ERRORED)]
    return all(verdict == ERRORED for verdict in judged)


def table(verdicts: list[ReqVerdict], expected: Iterable[str] = ()) -> str:
    """The terminal summary: requirement, level, verdict, scenarios run."""
    rows = [("requirement", "level", "verdict", "scenarios")]
    excused = set(expected)
    for v in verdicts:
        ran = sum(s.verdict in (PASSED, FAILED, ERRORED) for s in v.scenarios)
        mark = " (expected)" if v.req.id in excused and v.verdict in (FAILED, ERRORED) else ""
        rows.append((v.req.id, v.req.level, v.verdict + mark, f"{ran}/{len(v.scenarios)}"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary(verdicts: list[ReqVerdict], ok: bool, total: int | None = None,
            expected: Iterable[str] = ()) -> str:
    """The one-line verdict. A partial run (`total`: the registry's size, given when the user
    chose components or scenarios) never says a bare CONFORMANT: it says how much it judged.
    Failures excused by a baseline (`expected`) are named as such, never as "no MUST failed"."""
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    parts = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    if total is None:
        if vacuous(verdicts):
            return f"NOT CONFORMANT: nothing was judged ({parts})"
        return f"{'CONFORMANT' if ok else 'NOT CONFORMANT'}: {len(verdicts)} requirements ({parts})"
    judged = len(verdicts) - counts.get(NOT_RUN, 0)
    if vacuous(verdicts):
        outcome = f"NOT CONFORMANT, nothing was judged ({parts})"
    elif not ok:
        outcome = f"NOT CONFORMANT ({parts})"
    elif any(v.req.id in set(expected) and v.verdict in (FAILED, ERRORED) for v in verdicts):
        outcome = f"no failure beyond the baseline ({parts})"
    else:
        outcome = "all passed" if judged == counts.get(PASSED, 0) else f"no MUST failed ({parts})"
    return (f"PARTIAL: {judged} of {total} requirements judged, {outcome}; "
            "the rest were not judged")
