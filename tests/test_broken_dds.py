"""The transport suite catches served agents that break one requirement each.

Each case runs the transport scenario of the requirement its defect breaks, in this test's
process (tests/support/runsuite.py), with `--impl "dds:serve=python tests/miniatures/dds.py
DEFECT serve"` on this worker's domain; the control serves the reference itself on the same
scenarios. In the test's process the 23 runs take less than half the CPU of a pytest process
each (docs/benchmarks.md): what a case runs is its scenario alone, and its served agent is
forked from the fork server the worker has already started (kit/drivers/forkserve.py).
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("cyclonedds")

from agent_tck.kit import verdicts
from tests.support.dds import ROOT, domain
from tests.support.runsuite import scenario_results

pytestmark = pytest.mark.timeout(240)

# defect -> (a scenario of the requirement it breaks, as a -k expression; the requirement)
CASES = {
    "twice": ("each_reply_carries", "TR-1"),
    "ignores-target": ("addressed_to_a_named_agent", "TR-5"),
    "no-offline": ("told_to_stop_publishes_offline", "TR-7"),
    "no-resume": ("resumes_the_session and claude", "TR-9"),
    "anonymous": ("told_apart", "TR-10"),
    "hidden-tools": ("tool_calls_appear", "TR-11"),
    "unnumbered": ("are_numbered", "TR-12"),
    "events-unnumbered": ("are_numbered", "TR-12"),
    "finds-every-cli": ("not_on_its_path", "TR-13"),
    "no-affinity": ("once_it_is_offline", "TR-14"),
    "strict-metadata": ("nested_deeper", "TR-15"),
    "holds-offers": ("never_grants", "TR-16"),
    "exits-0-refusing": ("cannot_use and exist", "TR-17"),
    "forgets-failed-session": ("failed_before", "TR-14"),
    "own-config": ("joins_with_that_file", "TR-19"),
    "stops-at-anothers": ("in_turn", "TR-5"),
    "spins": ("nothing_more_to_do", "TR-20"),
    "keeps-lost-offers": ("at_the_same_time", "TR-3"),
    "deaf-to-the-gone": ("dies_without", "TR-14"),
    "runs-unoffered-grants": ("never_offered", "TR-3"),
    "takes-zero-timeouts": ("timeout_is_0", "TR-15"),
    "keeps-the-probe-quiet": ("asked_to_probe", "TR-10"),
}
MINIATURE = ROOT / "tests" / "miniatures" / "dds.py"
DOMAIN = domain(6)  # and the one above it, which the driver takes too


def ran(serve: str, keyword: str) -> list[verdicts.ScenarioResult]:
    """The scenarios `keyword` selects, run against the served agents `serve` starts."""
    impl = f"dds:serve={serve};domain={DOMAIN};fork=on"
    return [r for r in scenario_results(impl, ["transport"], keyword)
            if r.verdict != verdicts.NOT_RUN]


@pytest.mark.parametrize("defect", sorted(CASES))
def test_the_suite_catches_a_served_agent_with_one_defect(defect: str) -> None:
    """Its scenario fails in a step that checks (an AssertionError), not because the served
    agent could not be started (a serve command that is not there fails every scenario)."""
    keyword, requirement = CASES[defect]
    results = ran(f"{sys.executable} {MINIATURE} {defect} serve", keyword)
    assert [(r.verdict, requirement in r.reqs) for r in results] == [(verdicts.FAILED, True)], [
        (r.name, r.verdict, r.evidence[-2000:]) for r in results]
    assert results[0].error.startswith("AssertionError"), results[0].evidence[-3000:]
    assert "Refused" not in results[0].evidence, results[0].evidence[-3000:]


def test_the_reference_passes_every_scenario_of_the_cases() -> None:
    """The control: the reference's own served agent, on every case's scenario."""
    everything = " or ".join(f"({k})" for k, _ in CASES.values())
    results = ran(f"{sys.executable} -m agent_tck.reference.dds serve", everything)
    assert {r.verdict for r in results} == {verdicts.PASSED}, [
        (r.name, r.verdict, r.evidence[-2000:]) for r in results if r.verdict != "passed"]
    assert {req for _, req in CASES.values()} <= {req for r in results for req in r.reqs}
