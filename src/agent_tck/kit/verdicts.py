"""Verdicts: what each scenario and each requirement came to in a conformance run.

Where a scenario runs (the session itself, or a pytest-xdist worker), the suite's plugin
reads its outcome from the exception and puts it on pytest's report (`outcome`, as a user
property); the `Collector` reads the reports where they arrive (the session, or xdist's
controller), so a run with workers gives the same verdicts as one without. The functions
below fold them into requirement verdicts and the run's verdict. A MUST whose
scenarios did not run counts as failed; SHOULD failures make the run not conformant only with
`strict`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

import _pytest
import pluggy
import pytest
from _pytest._code import Traceback
from pytest_bdd import reporting as bdd_reporting

from agent_tck.kit.errors import DriverError, SuiteError
from agent_tck.kit.registry import Requirement

if TYPE_CHECKING:
    from agent_tck.kit.drivers.base import Driver

KEY = "agent-tck"  # the user property a report's outcome travels in
WHERE = re.compile(r"\s*\+\s+(where|and)\s")  # pytest's line that tells where a value came from
NOT_APPLICABLE = "not applicable"


class NotApplicable(pytest.skip.Exception):  # type: ignore[name-defined,misc]
    """A scenario skipped because it does not apply to the implementation: its verdict is
    "not applicable", told apart from other skips by its type, never by its words."""


def not_applicable(reason: str) -> NoReturn:
    """Skip the running scenario as not applicable, for `reason`."""
    raise NotApplicable(f"{NOT_APPLICABLE}: {reason}")


def require_backend(impl: Driver, backend: str) -> None:
    """Skip, as not applicable, when the implementation does not declare `backend`."""
    if backend not in impl.info.backends:
        not_applicable(f"backend {backend!r} not declared")


# The steps of a running scenario that judged nothing of the implementation, each with why:
# [step text, reason]. The scenario goes on; its other steps still judge it.
UNJUDGED = pytest.StashKey[list[list[str]]]()
STEP = pytest.StashKey[str]()  # the text of the step that runs now (the plugin sets it)
# What the implementation declared in the `start` of the session that judges it (a worker's,
# with -n): every report carries it, so a run can tell it was one implementation throughout.
DECLARED = pytest.StashKey[dict[str, Any]]()
# The session's driver, asked for the last of its exchange when a scenario fails.
DRIVER = pytest.StashKey[Any]()
# What the scenario's doubles did, in words (where the fake CLI got to), for its failure; and
# why its setup never happened, when it did not: the scenario is then not judged (errored,
# whatever its steps found), its why's first line the cause.
SEEN = pytest.StashKey[str]()
UNSET = pytest.StashKey[str]()
NOT_JUDGED = "NotJudged: "  # the error of a scenario whose setup never happened


def step_not_judged(node: pytest.Item, reason: str) -> None:
    """The running step of `node`'s scenario does not apply to the implementation, for
    `reason` (it checks what the implementation does not report): the step is "not
    applicable" in the reports, and the scenario's verdict comes from its other steps."""
    node.stash.setdefault(UNJUDGED, []).append([node.stash.get(STEP, ""), reason])


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
    # The Gherkin scenario, known once its first step started: its title, where it is written
    # (feature file:line), and [keyword, text, passed / failed / skipped] per step.
    title: str = ""
    where: str = ""
    steps: list[list[str]] = field(default_factory=list)
    # A failure as a person reads it: what happened in full (the assertion's message or the
    # error's, no traceback), the failed step's docstring or table as the feature writes it,
    # and the last of the exchange with the implementation.
    message: str = ""
    argument: str = ""
    exchange: str = ""


@dataclass
class ReqVerdict:
    req: Requirement
    verdict: str
    scenarios: list[ScenarioResult] = field(default_factory=list)


class Collector:
    """pytest plugin: one ScenarioResult per selected scenario, from the outcomes the reports
    carry (`outcome`), in collection order. A pytest-xdist worker that dies sends no outcome:
    the scenario it was running is errored with what happened as its evidence (`crashes`),
    and, if the run then ended before them, so are the scenarios no worker reported on."""

    def __init__(self) -> None:
        self.results: dict[str, ScenarioResult] = {}
        self.order: list[str] = []
        self.declared: dict[str, dict[str, Any]] = {}  # each declaration seen, by its JSON
        self.crashes: list[str] = []  # one line per worker that died

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Without workers: every selected scenario, "not run" until its reports arrive."""
        for item in items:
            self.results[item.nodeid] = ScenarioResult(item.nodeid, *_identity(item))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """With workers: the order the scenarios were collected in (every worker's is one)."""
        self.order = self.order or list(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = dict(report.user_properties).get(KEY)
        if not isinstance(data, dict):
            return
        result = self.results.get(report.nodeid)
        if result is None:
            result = ScenarioResult(report.nodeid, data["name"], data["component"],
                                    tuple(data["reqs"]))
            self.results[report.nodeid] = result
        result.duration += report.duration
        _apply(result, data)
        if data.get("declared"):
            self.declared[json.dumps(data["declared"], sort_keys=True)] = data["declared"]

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport) -> None:
        """A worker died running `crashitem` (xdist's report of it carries no outcome)."""
        gateway = getattr(getattr(report, "node", None), "gateway", None)
        line = f"worker {getattr(gateway, 'id', '?')} crashed while running {crashitem}"
        self.crashes.append(line)
        result = self.results.get(crashitem) or _unreported(crashitem)
        self.results[crashitem] = _errored(result, f"WorkerCrashed: {line}", f"{line}: its "
                                           "scenario is errored (no verdict on its steps)")

    def pytest_sessionfinish(self) -> None:
        if self.crashes:
            self._error_unreported()
        for nodeid in self.order:  # with workers, a run stopped early: the rest did not run
            self.results.setdefault(nodeid, _unreported(nodeid))
        if self.order:
            rank = {nodeid: i for i, nodeid in enumerate(self.order)}
            ordered = sorted(self.results.items(), key=lambda kv: rank.get(kv[0], len(rank)))
            self.results = dict(ordered)

    def _error_unreported(self) -> None:
        """The scenarios no worker reported on after workers died: xdist gives a dead
        worker's scenarios to a new one, up to a number of crashes; then the run ends."""
        for nodeid in self.order:
            if nodeid not in self.results:
                self.results[nodeid] = _errored(
                    _unreported(nodeid), "WorkerCrashed: not run", f"not run: the run ended "
                    f"after {len(self.crashes)} crashed worker(s), the last: {self.crashes[-1]}")


def _errored(result: ScenarioResult, error: str, evidence: str) -> ScenarioResult:
    """`result`, errored by a worker's crash."""
    result.verdict, result.error, result.evidence = ERRORED, error, evidence
    return result


def _unreported(nodeid: str) -> ScenarioResult:
    """A scenario known by its node id alone (`steps/suite/test_<component>.py::<name>`): no
    worker sent a report of it, so its requirements are unknown."""
    module, _, name = nodeid.rpartition("::")
    component = module.rpartition("/")[2].removeprefix("test_").removesuffix(".py")
    return ScenarioResult(nodeid, name, component.replace("_", "-"), ())


def _identity(item: pytest.Item) -> tuple[str, str, tuple[str, ...]]:
    component = item.get_closest_marker("component")
    # Sorted: pytest-bdd keeps tags in a set, whose order changes with each process's hashing.
    reqs = tuple(sorted({m.args[0] for m in item.iter_markers("req")}))
    return item.name, component.args[0] if component else "", reqs


def outcome(item: pytest.Item, report: pytest.TestReport,
            call: pytest.CallInfo[None]) -> dict[str, Any]:
    """What one phase of a scenario came to, as plain data that travels with its report:
    `kind` (passed, not applicable, skipped, errored, failed, or None for a phase that
    decides nothing), `evidence`, `error`, the scenario's name, component and reqs, and what
    `_gherkin` tells of it."""
    name, component, reqs = _identity(item)
    found: dict[str, Any] = {"name": name, "component": component, "reqs": list(reqs),
                             "kind": None, "evidence": "", "error": "", **_gherkin(item),
                             "unjudged": item.stash.get(UNJUDGED, []),
                             "declared": item.config.stash.get(DECLARED, None)}
    skip = call.excinfo.value if call.excinfo is not None else None
    if report.passed and report.when == "call":
        found["kind"] = PASSED
        found["evidence"] = "\n".join(f"not judged: {step}: {why}"
                                      for step, why in found["unjudged"])
    elif report.skipped:
        found["kind"] = NA if isinstance(skip, NotApplicable) else SKIPPED
        # An xfail's reason (its exception, whatever its words, is the expected failure); a
        # skip's own words.
        found["evidence"] = str(report.wasxfail if hasattr(report, "wasxfail") else
                                getattr(skip, "msg", "") or "")
    elif report.failed:
        broke = call.excinfo is not None and call.excinfo.errisinstance((DriverError, SuiteError))
        found["kind"] = ERRORED if broke or report.when != "call" else FAILED
        found["evidence"] = _clip(report.longreprtext)
        if call.excinfo is not None:
            first = (str(call.excinfo.value).strip().splitlines() or [""])[0]
            found["error"] = f"{call.excinfo.typename}: {first}" if first else (
                call.excinfo.typename)
            found["message"] = _clip(_told(call.excinfo.value) or call.excinfo.typename)
            found["cause"] = _cause(call.excinfo.value) if broke else ""
            told = "transcript:" in found["message"]  # a DriverError's evidence has it
            found["exchange"] = "" if told else _exchange(item)
    if report.when == "call" and found["kind"] in (PASSED, FAILED, ERRORED):
        _doubles(item, found)
    return found


def _doubles(item: pytest.Item, found: dict[str, Any]) -> None:
    """What the scenario's doubles tell of it: where they got to, in a failure's message; a
    setup that never happened makes the scenario not judged, whatever its steps found."""
    seen, unset = item.stash.get(SEEN, ""), item.stash.get(UNSET, "")
    if unset:  # its why says where the fake CLI got to
        first = unset.splitlines()[0]
        steps = f"\n\nIts steps found:\n{found['message']}" if found["kind"] != PASSED else ""
        found.update(kind=ERRORED, error=NOT_JUDGED + first, cause=NOT_JUDGED + first,
                     message=f"not judged: {unset}{steps}", evidence=f"not judged: {unset}")
    elif seen and found["kind"] != PASSED:
        found["message"] = f"{found['message']}\n\nWhat the fake CLI did:\n{seen}"


def _told(exc: BaseException) -> str:
    """What an exception says, without the lines in which pytest's assertion rewriting
    tells where each value came from ("+  where 3 = <built-in method get of dict ...>"):
    the values compared, not the objects of the kit that held them."""
    lines = str(exc).strip().splitlines()
    return "\n".join(line for line in lines if not WHERE.match(line))


def _cause(exc: BaseException) -> str:
    """What broke, the same words for the same break in any request: the error's kind, the
    command and its message's first line, without the request's seq (kit/failfast.py)."""
    if isinstance(exc, DriverError):
        first = (exc.message.strip().splitlines() or [""])[0]
        return f"{type(exc).__name__}: {exc.command + ': ' if exc.command else ''}{first}"
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"


def _exchange(item: pytest.Item) -> str:
    """The last of what the suite and the implementation said to each other, from a driver
    that keeps it (an adapter's transcript); "" from one in this process."""
    exchange = getattr(item.config.stash.get(DRIVER, None), "exchange", None)
    return str(exchange()) if callable(exchange) else ""


def _gherkin(item: pytest.Item) -> dict[str, Any]:
    """The scenario's `title`, `where` it is written and its `steps`, from pytest-bdd's report
    of it; empty values when it stopped (a skip, a fixture's error) before its first step.
    The registry is not pytest-bdd's documented API: without it, only the steps are missing."""
    report = getattr(bdd_reporting, "scenario_reports_registry", {}).get(item)
    if report is None:
        return {"title": "", "where": "", "steps": [], "argument": ""}
    scenario = report.scenario
    unjudged = {step for step, _ in item.stash.get(UNJUDGED, [])}
    steps = [[keyword, text, NA if status == PASSED and text in unjudged else status]
             for keyword, text, status in _steps(report)]
    failed = [step for step, (_, _, status) in zip(scenario.steps, steps, strict=True)
              if status == FAILED]
    # The suite reads features/<component>/: pytest-bdd names files from <component>/ on.
    return {"title": scenario.name,
            "where": f"features/{scenario.feature.rel_filename}:{scenario.line_number}",
            "steps": steps, "argument": _argument(failed[0]) if failed else ""}


def _argument(step: Any) -> str:
    """A step's docstring or data table, as the feature writes it ("" if it has none)."""
    if step.docstring:
        return f'"""\n{step.docstring}\n"""'
    if step.datatable is not None:
        return "\n".join("| " + " | ".join(map(str, row)) + " |" for row in step.datatable.raw())
    return ""


def _steps(report: Any) -> list[list[str]]:
    """Each step with how it went: after the failed step (pytest-bdd marks the rest failed
    too) and from a step that never finished (a skip inside it), the rest did not run."""
    ran, steps, went_on = report.step_reports, [], True
    for index, step in enumerate(report.scenario.steps):
        done = ran[index] if index < len(ran) else None
        status = SKIPPED
        if went_on and done is not None and done.stopped is not None:
            status = FAILED if done.failed else PASSED
        went_on = status == PASSED
        steps.append([step.keyword, step.name, status])
    return steps


def _apply(result: ScenarioResult, data: dict[str, Any]) -> None:
    kind = data["kind"]
    if data.get("steps"):
        result.title, result.where, result.steps = data["title"], data["where"], data["steps"]
    if kind == PASSED and result.verdict == NOT_RUN:
        result.verdict, result.evidence = PASSED, data["evidence"]
    elif kind in (NA, SKIPPED):
        result.verdict, result.evidence = kind, data["evidence"]
    elif kind in (FAILED, ERRORED) and result.verdict not in (FAILED, ERRORED):
        result.verdict, result.evidence, result.error = kind, data["evidence"], data["error"]
        result.message, result.exchange = data.get("message", ""), data.get("exchange", "")
        result.argument = data.get("argument", "")


# pytest's and pluggy's own frames: between pytest-bdd and a step, pytest's call of the step
# function (`call_fixture_func`) says nothing of the scenario, and showing a frame makes pytest
# parse its whole file (`_pytest/fixtures.py`, 2,000 lines) for each failure: 16% of the CPU
# of a broken agent's run that fails 16 scenarios (docs/benchmarks.md).
MACHINERY = tuple(str(Path(module.__file__ or "").parent) + os.sep for module in (_pytest, pluggy))


def prune(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Take pytest's and pluggy's frames out of the exception's traceback, keeping the frame
    that raised it: the traceback starts at the first frame of another's (the test's own, or
    pytest-bdd's call of it), and none of theirs is left between the frames after it. In the
    traceback itself: pytest reads it again from there when it reports."""
    start: TracebackType = excinfo.tb
    while start.tb_next is not None and _machinery(start):
        start = start.tb_next
    tb: TracebackType | None = start
    while tb is not None:
        after = tb.tb_next
        while after is not None and after.tb_next is not None and _machinery(after):
            after = after.tb_next
        tb.tb_next = after
        tb = after
    excinfo.traceback = Traceback(start)


def _machinery(tb: TracebackType) -> bool:
    return tb.tb_frame.f_code.co_filename.startswith(MACHINERY)


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


def conformant(verdicts: list[ReqVerdict], strict: bool = False, expected: Iterable[str] = (),
               selected: bool = False) -> bool:
    """No MUST failed or errored (with `strict`, no SHOULD either), except `expected` ones;
    and the run is not vacuous (see `vacuous`) and judged a MUST, unless `strict` (the SHOULDs
    count as MUSTs) or the user `selected` what to judge (--component, -k, --req, -m): see
    `_why_not`. A run that judged no MUST is judged on its SHOULDs, all it judged (a whole run
    only with `strict`: `_why_not`): else a gate on a component of SHOULDs alone (`backends`)
    would pass whatever failed."""
    bad, excused = {FAILED, ERRORED}, set(expected)
    every_level = strict or judged_no_must(verdicts)
    return not _why_not(verdicts, strict or selected) and not any(
        v.verdict in bad and v.req.id not in excused and (every_level or v.req.level == "MUST")
        for v in verdicts
    )


def vacuous(verdicts: list[ReqVerdict]) -> bool:
    """The run judged nothing: no requirement passed or failed (all not applicable or not
    run), or every one it tried errored (an implementation that answers nothing)."""
    judged = [v.verdict for v in verdicts if v.verdict in (PASSED, FAILED, ERRORED)]
    return all(verdict == ERRORED for verdict in judged)


def judged_no_must(verdicts: list[ReqVerdict]) -> bool:
    """No MUST passed, failed or errored: the components declared have none (`backends`), or
    none of theirs ran. Such a whole run has shown none of what the seeds require, so it is
    not conformant, however its SHOULDs went, unless `strict` makes them count; a partial run
    is judged on its SHOULDs (`conformant`)."""
    return not any(v.req.level == "MUST" and v.verdict in (PASSED, FAILED, ERRORED)
                   for v in verdicts)


def known_failures(verdicts: list[ReqVerdict], expected: Iterable[str]) -> int:
    """How many requirements failed or errored that the baseline (`expected`) lists."""
    excused = set(expected)
    return sum(v.verdict in (FAILED, ERRORED) and v.req.id in excused for v in verdicts)


def word(verdicts: list[ReqVerdict], ok: bool, expected: Iterable[str] = ()) -> str:
    """The run's verdict, as every report leads with it: a failure a baseline excuses is
    never hidden behind a bare CONFORMANT."""
    if not ok:
        return "NOT CONFORMANT"
    known = known_failures(verdicts, expected)
    return f"CONFORMANT WITH {known} KNOWN FAILURE{'S' * (known != 1)}" if known else (
        "CONFORMANT")


def table(verdicts: list[ReqVerdict], expected: Iterable[str] = (), all_rows: bool = False,
          selected: bool = False) -> str:
    """The terminal summary: requirement, level, verdict, and its scenarios that passed of
    those that ran. A component none of whose requirements applies (one the implementation
    does not declare) is a line of its own below, and so are the requirements a selection
    (`selected`: -k, --req, -m) left out, unless `all_rows`."""
    excused = set(expected)
    apart = set() if all_rows else _not_applicable_components(verdicts)
    unselected = [v for v in verdicts if selected and not all_rows and v.verdict == NOT_RUN]
    rows = [("requirement", "level", "verdict", "passed/run")]
    for v in verdicts:
        if v.req.component in apart or v in unselected:
            continue
        ran = sum(s.verdict in (PASSED, FAILED, ERRORED) for s in v.scenarios)
        passed = sum(s.verdict == PASSED for s in v.scenarios)
        mark = " (expected)" if v.req.id in excused and v.verdict in (FAILED, ERRORED) else ""
        rows.append((v.req.id, v.req.level, v.verdict + mark, f"{passed}/{ran}"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for component in sorted(apart):
        count = sum(v.req.component == component for v in verdicts)
        lines.append(f"{component}: {count} requirements not applicable (--all lists them)")
    if unselected:
        lines.append(f"{len(unselected)} requirements not run: the selection left their "
                     "scenarios out (--all lists them)")
    return "\n".join(lines)


def _not_applicable_components(verdicts: list[ReqVerdict]) -> set[str]:
    """The components every requirement of which is not applicable."""
    seen: dict[str, set[str]] = {}
    for v in verdicts:
        seen.setdefault(v.req.component, set()).add(v.verdict)
    return {component for component, found in seen.items() if found == {NA}}


def summary(verdicts: list[ReqVerdict], ok: bool, total: int | None = None,
            expected: Iterable[str] = (), any_level: bool = False, baseline: str = "") -> str:
    """The one-line verdict. A partial run (`total`: the registry's size, given when the user
    chose components or scenarios) never says a bare CONFORMANT: it says how much it judged.
    Failures excused by a baseline (`expected`, read from the file `baseline`) are counted
    and the baseline named, never hidden behind "no MUST failed". `any_level`: a run judged
    on any requirement, not only MUSTs (see `conformant`)."""
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    parts = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    why = _why_not(verdicts, any_level)
    known = known_failures(verdicts, expected) if ok else 0
    listed = f" (listed in {baseline or 'the baseline'})" if known else ""
    if total is None:
        if why:
            return f"NOT CONFORMANT: {why} ({parts})"
        return f"{word(verdicts, ok, expected)}{listed}: {len(verdicts)} requirements ({parts})"
    judged = len(verdicts) - counts.get(NOT_RUN, 0)
    if why:
        outcome = f"NOT CONFORMANT, {why} ({parts})"
    elif not ok:
        outcome = f"NOT CONFORMANT ({parts})"
    elif known:
        outcome = f"{known} known failure{'s' * (known != 1)}{listed} and no other ({parts})"
    else:
        outcome = "all passed" if judged == counts.get(PASSED, 0) else f"no MUST failed ({parts})"
    return (f"PARTIAL: {judged} of {total} requirements judged, {outcome}; "
            "the rest were not judged")


def _why_not(verdicts: list[ReqVerdict], any_level: bool) -> str:
    """Why a run cannot be conformant whatever failed: it judged nothing, or no MUST (unless
    `any_level`: a SHOULD judged is enough)."""
    if vacuous(verdicts):
        return "nothing was judged"
    if judged_no_must(verdicts) and not any_level:
        return ("no MUST was judged: the components it declares have none that ran "
                "(--strict judges it on their SHOULDs)")
    return ""
