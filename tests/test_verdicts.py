"""How scenario outcomes fold into requirement verdicts and the run's verdict: the rules every
report, verdict line and exit code rests on (kit/verdicts.py), checked on hand-made results,
and how the collector reads scenarios' outcomes, through small pytest runs of its own."""

from __future__ import annotations

import re
from pathlib import Path

import _pytest.fixtures
import pytest

from agent_tck.kit import registry, verdicts
from agent_tck.kit.registry import Requirement
from agent_tck.kit.verdicts import (
    ERRORED,
    FAILED,
    NA,
    NOT_RUN,
    PASSED,
    SKIPPED,
    ReqVerdict,
    ScenarioResult,
)

REQS = list(registry.load().values())
MUST = next(r for r in REQS if r.level == "MUST")
SHOULD = next(r for r in REQS if r.level == "SHOULD")


def judged(req: Requirement, *outcomes: str, selected: bool = False) -> str:
    """The verdict of `req` whose scenarios came to `outcomes`."""
    scenarios = [ScenarioResult(f"n{i}", f"s{i}", req.component, (req.id,), outcome)
                 for i, outcome in enumerate(outcomes)]
    [verdict] = verdicts.fold({req.id: req}, scenarios, selected)
    return verdict.verdict


@pytest.mark.parametrize(("outcomes", "verdict"), [
    ((PASSED, FAILED), FAILED),
    ((ERRORED, PASSED), ERRORED),
    ((ERRORED, FAILED), FAILED),  # the implementation's fault is the finding, before an error
    ((NA, PASSED, NOT_RUN), PASSED),
    ((NA, NA), NA),
    ((NA, SKIPPED), FAILED),  # a MUST that no scenario judged is not passed by silence
    ((SKIPPED,), FAILED),
])
def test_the_worst_outcome_of_a_musts_scenarios_is_its_verdict(
    outcomes: tuple[str, ...], verdict: str
) -> None:
    assert judged(MUST, *outcomes) == verdict


def test_a_should_no_scenario_judged_is_not_run_and_so_is_a_must_a_selection_left_out() -> None:
    """A selection (-k, --req, -m) that left a MUST's scenarios out has not judged it; one it
    ran that skipped has not shown it either, and fails it."""
    assert judged(SHOULD, SKIPPED) == NOT_RUN
    assert judged(MUST, NOT_RUN, selected=True) == NOT_RUN
    assert judged(MUST, selected=True) == NOT_RUN
    assert judged(MUST, SKIPPED, selected=True) == FAILED
    assert judged(MUST, NA, selected=True) == NA


def verdict_of(req: Requirement, verdict: str) -> ReqVerdict:
    return ReqVerdict(req, verdict, [ScenarioResult("n", "s", req.component, (req.id,), verdict)])


def test_a_failed_should_fails_only_a_strict_run_and_a_failed_must_any_run() -> None:
    passed, should = verdict_of(MUST, PASSED), verdict_of(SHOULD, FAILED)
    assert verdicts.conformant([passed, should])
    assert not verdicts.conformant([passed, should], strict=True)
    for bad in (FAILED, ERRORED):
        assert not verdicts.conformant([verdict_of(MUST, bad), verdict_of(SHOULD, PASSED)])


def test_only_the_failures_a_baseline_expects_are_excused() -> None:
    failed = [verdict_of(MUST, FAILED), verdict_of(SHOULD, FAILED)]
    assert verdicts.conformant(failed, strict=True, expected=[MUST.id, SHOULD.id])
    assert not verdicts.conformant(failed, strict=True, expected=[MUST.id])
    assert not verdicts.conformant(failed, expected=[SHOULD.id])


@pytest.mark.parametrize("outcomes", [(NA, NA), (NOT_RUN,), (ERRORED, ERRORED), ()])
def test_a_run_that_judged_nothing_is_never_conformant(outcomes: tuple[str, ...]) -> None:
    """Not applicable or not run everywhere, or every request errored (an implementation that
    answers nothing): nothing was shown to work."""
    run = [verdict_of(req, outcome) for req, outcome in zip(REQS, outcomes, strict=False)]
    assert verdicts.vacuous(run) and not verdicts.conformant(run)
    assert verdicts.summary(run, ok=True).startswith("NOT CONFORMANT: nothing was judged")


def test_the_verdict_line_of_a_whole_run_says_what_the_run_came_to() -> None:
    run = [verdict_of(MUST, PASSED), verdict_of(SHOULD, FAILED)]
    assert verdicts.summary(run, ok=True) == "CONFORMANT: 2 requirements (1 failed, 1 passed)"
    assert verdicts.summary(run, ok=False) == (
        "NOT CONFORMANT: 2 requirements (1 failed, 1 passed)")


@pytest.mark.parametrize(("should", "ok", "expected", "outcome"), [
    (PASSED, True, (), "all passed"),
    (FAILED, True, (), "no MUST failed (1 failed, 1 not run, 1 passed)"),
    (FAILED, True, (SHOULD.id,),
     "1 known failure (listed in the baseline) and no other (1 failed, 1 not run, 1 passed)"),
    (FAILED, False, (), "NOT CONFORMANT (1 failed, 1 not run, 1 passed)"),
])
def test_the_verdict_line_of_a_partial_run_says_how_much_it_judged_and_how_it_went(
    should: str, ok: bool, expected: tuple[str, ...], outcome: str
) -> None:
    other = next(r for r in REQS if r not in (MUST, SHOULD))
    run = [verdict_of(MUST, PASSED), verdict_of(SHOULD, should), ReqVerdict(other, NOT_RUN)]
    line = verdicts.summary(run, ok, total=len(REQS), expected=expected)
    assert line == (f"PARTIAL: 2 of {len(REQS)} requirements judged, {outcome}; "
                    "the rest were not judged")


def test_a_run_that_judged_no_must_is_not_conformant_unless_its_shoulds_are_asked_for() -> None:
    """An implementation of `backends` alone (no MUST there) is not conformant however its
    SHOULDs go. With --strict, or scenarios the user selected, SHOULDs judged are enough."""
    run = [verdict_of(SHOULD, PASSED), ReqVerdict(MUST, NA)]
    assert verdicts.judged_no_must(run)
    assert not verdicts.conformant(run)
    assert verdicts.conformant(run, strict=True) and verdicts.conformant(run, selected=True)
    line = verdicts.summary(run, ok=False)
    assert line == ("NOT CONFORMANT: no MUST was judged: the components it declares have none "
                    "that ran (--strict judges it on their SHOULDs) (1 not applicable, 1 passed)")
    assert verdicts.summary(run, ok=True, any_level=True) == (
        "CONFORMANT: 2 requirements (1 not applicable, 1 passed)")


def test_a_selected_run_that_judged_no_must_is_judged_on_its_shoulds() -> None:
    """`--component backends` (or `--req` of SHOULDs alone) judged SHOULDs alone: their
    failures decide, else such a gate would pass whatever failed. Where a MUST was judged,
    a SHOULD failure fails only a --strict run, as in a whole run; a baseline still excuses."""
    run = [verdict_of(SHOULD, FAILED), ReqVerdict(MUST, NOT_RUN)]
    assert not verdicts.conformant(run, selected=True)
    assert verdicts.conformant(run, selected=True, expected=[SHOULD.id])
    with_must = [verdict_of(SHOULD, FAILED), verdict_of(MUST, PASSED)]
    assert verdicts.conformant(with_must, selected=True)
    assert not verdicts.conformant(with_must, selected=True, strict=True)


def test_failures_a_baseline_excuses_are_named_in_the_verdict_itself() -> None:
    """A CI summary shows the verdict line: baselined MUST failures are counted there."""
    run = [verdict_of(MUST, FAILED), verdict_of(SHOULD, PASSED)]
    ok = verdicts.conformant(run, expected=[MUST.id])
    assert ok and verdicts.word(run, ok, [MUST.id]) == "CONFORMANT WITH 1 KNOWN FAILURE"
    assert verdicts.summary(run, ok, expected=[MUST.id], baseline="known.yaml") == (
        "CONFORMANT WITH 1 KNOWN FAILURE (listed in known.yaml): 2 requirements "
        "(1 failed, 1 passed)")
    two = [*run, verdict_of(next(r for r in REQS if r.level == "MUST" and r != MUST), ERRORED)]
    assert verdicts.word(two, True, [r.req.id for r in two]) == "CONFORMANT WITH 2 KNOWN FAILURES"
    assert verdicts.word(run, False, [MUST.id]) == "NOT CONFORMANT"
    assert verdicts.word([verdict_of(MUST, PASSED)], True, [MUST.id]) == "CONFORMANT"


def test_the_table_aligns_its_columns_and_marks_expected_failures() -> None:
    scenarios = [ScenarioResult("a", "a", MUST.component, (MUST.id,), FAILED),
                 ScenarioResult("b", "b", MUST.component, (MUST.id,), NA)]
    rows = [ReqVerdict(MUST, FAILED, scenarios), verdict_of(SHOULD, PASSED)]
    width = max(len(MUST.id), len(SHOULD.id), len("requirement"))
    lines = verdicts.table(rows, expected=[MUST.id, SHOULD.id]).splitlines()
    assert lines == [
        f"{'requirement'.ljust(width)}  level   verdict            passed/run",
        f"{'-' * width}  ------  -----------------  ----------",
        f"{MUST.id.ljust(width)}  MUST    failed (expected)  0/1",
        f"{SHOULD.id.ljust(width)}  SHOULD  passed             1/1",
    ]


def test_long_evidence_keeps_its_start_and_end_and_says_how_much_was_cut() -> None:
    """A failure's evidence is pytest's report of it: the error first, the transcript's last
    lines at the end. Up to 5,000 characters it is whole; beyond, its first and last
    thousands stay, with the count of what was cut between them."""
    whole = "a" * 2000 + "b" * 3000
    assert verdicts._clip(whole) == whole
    long = "a" * 2000 + "cut" * 1000 + "b" * 3000
    head, said, tail = verdicts._clip(long).split("\n")
    cut = re.fullmatch(r"\[\.\.\. (\d+) characters cut \.\.\.\]", said)
    assert cut is not None, said
    assert long.startswith(head) and long.endswith(tail) and min(len(head), len(tail)) >= 1000
    assert len(head) + int(cut[1]) + len(tail) == len(long)


SUITE = '''
import unittest

import pytest

from agent_tck.kit.verdicts import not_applicable

# Requirements without backends of their own: each test runs once, under its own name.
pytestmark = pytest.mark.component("agent")


@pytest.mark.req("AG-D1.1")
def test_passes():
    pass


@pytest.mark.req("AG-D1.2")
def test_does_not_apply():
    not_applicable("no such backend")


@pytest.mark.req("AG-D3.1")
def test_is_skipped_the_unittest_way():
    raise unittest.SkipTest("not here")


@pytest.mark.req("AG-D3.2")
@pytest.mark.xfail(reason="known to fail")
def test_is_expected_to_fail():
    pytest.fail("with words of its own")


@pytest.mark.req("AG-D3.2")
def test_fails():
    assert 1 == 2, "the wrong answer"


@pytest.mark.req("AG-D4.1")
def test_never_runs():
    pass
'''


class PhaseTimes:
    """Adds up the duration of each test's reports, as pytest measured them."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration


def collected(tmp_path: Path, name: str, suite: str,
              times: PhaseTimes) -> tuple[int, list[ScenarioResult]]:
    """pytest's exit code and the Collector's results of `suite` (a module of its own `name`:
    Python keeps a module by its name) run with the suite's plugin, stopping at a failure."""
    (tmp_path / f"{name}.py").write_text(suite)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    collector = verdicts.Collector()
    code = pytest.main([str(tmp_path), "-x", "-q", "-p", "agent_tck.kit.plugin", "-p",
                        "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"),
                        "--basetemp", str(tmp_path / "tmp")], plugins=[collector, times])
    return int(code), list(collector.results.values())


def test_the_collector_gives_each_selected_scenario_its_outcome_even_one_that_never_ran(
    tmp_path: Path,
) -> None:
    """Through the suite's own plugin: each scenario's verdict, evidence, component and
    requirements, its time as the sum of its phases', and a scenario the run never reached
    (here stopped by -x; in life, an interrupt) listed as "not run", with no time. A skip's
    evidence is its reason, whatever skipped it."""
    times = PhaseTimes()
    code, results = collected(tmp_path, "test_outcomes", SUITE, times)
    assert code == pytest.ExitCode.TESTS_FAILED
    assert [(r.name, r.verdict) for r in results] == [
        ("test_passes", PASSED), ("test_does_not_apply", NA),
        ("test_is_skipped_the_unittest_way", SKIPPED), ("test_is_expected_to_fail", SKIPPED),
        ("test_fails", FAILED),
        ("test_never_runs", NOT_RUN)]
    assert [r.reqs for r in results] == [("AG-D1.1",), ("AG-D1.2",), ("AG-D3.1",), ("AG-D3.2",),
                                         ("AG-D3.2",), ("AG-D4.1",)]
    assert {r.component for r in results} == {"agent"}
    assert [r.evidence for r in results[1:4]] == [
        "not applicable: no such backend", "not here", "known to fail"]
    assert results[4].error == "AssertionError: the wrong answer"
    assert "the wrong answer" in results[4].evidence
    assert [r.duration for r in results] == [times.seconds.get(r.nodeid, 0.0) for r in results]
    assert results[-1].duration == 0.0 and all(r.duration > 0 for r in results[:-1])


INTERRUPTED = """
import pytest

pytestmark = pytest.mark.component("agent")


@pytest.mark.req("AG-D1.1")
def test_is_interrupted():
    raise KeyboardInterrupt
"""


THROUGH_PYTEST = """
import pytest
from _pytest.fixtures import call_fixture_func

pytestmark = pytest.mark.component("agent")

def step():
    raise AssertionError("the step failed")

@pytest.mark.req("AG-D1.1")
def test_calls_a_step_as_pytest_bdd_does():
    call_fixture_func(step, None, {})
"""


def test_a_failures_evidence_leaves_out_pytests_call_of_the_step(tmp_path: Path) -> None:
    """Through the suite's own plugin: pytest-bdd has pytest call each step function, and that
    call is no evidence of what the scenario did."""
    code, results = collected(tmp_path, "test_steps_called", THROUGH_PYTEST, PhaseTimes())
    assert code == pytest.ExitCode.TESTS_FAILED
    (result,) = results
    assert "the step failed" in result.evidence and "def step" in result.evidence
    assert "fixtures.py" not in result.evidence, result.evidence  # no frame of pytest's


def test_a_scenario_interrupted_while_it_runs_is_not_run_not_passed(tmp_path: Path) -> None:
    """Its setup passed, and then the run was stopped (Ctrl-C, SIGTERM): it never showed
    anything, whatever its setup did."""
    code, results = collected(tmp_path, "test_interrupted", INTERRUPTED, PhaseTimes())
    assert code == pytest.ExitCode.INTERRUPTED
    assert [(r.name, r.verdict) for r in results] == [("test_is_interrupted", NOT_RUN)]


# A function in pytest's own fixtures module, as far as a traceback can tell: frames of code
# compiled under that file name are pytest's frames.
PYTEST_FILE = _pytest.fixtures.__file__
THROUGH = compile("def through(f):\n    return f()\n", PYTEST_FILE, "exec")


def _failure(callback: object) -> pytest.ExceptionInfo[BaseException]:
    space: dict[str, object] = {}
    exec(THROUGH, space)
    through = space["through"]

    def outer() -> object:
        return through(callback)  # type: ignore[operator]

    try:
        through(outer)  # type: ignore[operator]
    except Exception:
        return pytest.ExceptionInfo.from_current()
    raise AssertionError("no failure")


def test_evidence_shows_the_steps_frames_not_pytests_calls_between_them() -> None:
    """pytest calls each step (`call_fixture_func`): its frames are no evidence, and showing
    one costs pytest a parse of its whole file."""
    def step() -> None:
        raise ValueError("the step failed")

    excinfo = _failure(step)
    assert [e.name for e in excinfo.traceback] == ["_failure", "through", "outer", "through",
                                                   "step"]
    verdicts.prune(excinfo)
    assert [e.name for e in excinfo.traceback] == ["_failure", "outer", "step"]
    assert PYTEST_FILE not in str(excinfo.getrepr(style="short"))
    # A traceback that starts in pytest's frames (pytest cuts them when it reports, and a
    # failure's first frames may be its own): they go too, up to the first of another's.
    excinfo = _failure(step)
    assert excinfo.tb.tb_next is not None
    excinfo = pytest.ExceptionInfo.from_exc_info((excinfo.type, excinfo.value,
                                                  excinfo.tb.tb_next))
    verdicts.prune(excinfo)
    assert [e.name for e in excinfo.traceback] == ["outer", "step"]
    # pytest's own frames before the first of another's are pytest's to cut; the one that
    # raised is kept, whoever's it is (here: pytest's, calling what is no function).
    excinfo = _failure(None)
    verdicts.prune(excinfo)
    assert [e.name for e in excinfo.traceback] == ["_failure", "outer", "through"]
    assert excinfo.errisinstance(TypeError)
