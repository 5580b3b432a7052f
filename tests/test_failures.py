"""Failures as the spec reads them (kit/failures.py), on hand-made results."""

from __future__ import annotations

from agent_tck.kit import failures, registry
from agent_tck.kit.verdicts import ERRORED, FAILED, PASSED, SKIPPED, ReqVerdict, ScenarioResult

MUSTS = [r for r in registry.load().values() if r.level == "MUST"]


def failed(nodeid: str, *reqs: str, **told: str) -> ScenarioResult:
    return ScenarioResult(nodeid, f"test_{nodeid}[codex]", "agent", reqs, FAILED,
                          title=f"Title {nodeid}", where="features/agent/x.feature:7",
                          steps=[["Given", "a", PASSED], ["Then", "b", FAILED]], **told)


def test_a_failed_scenario_is_told_with_its_step_its_argument_and_what_happened() -> None:
    s = failed("one", MUSTS[0].id, message="assert 1 == 2", argument='"""\nx\n"""',
               exchange="-> {}\n<- {}")
    assert failures.scenario(s) == "\n".join([
        "Scenario: Title one [codex]  (features/agent/x.feature:7)",
        "  Then b", '    """', "    x", '    """',
        "  What happened:", "    assert 1 == 2",
        "  The last of the exchange with the implementation:", "    -> {}", "    <- {}"])


def test_a_scenario_of_two_requirements_is_told_once_and_a_long_list_in_a_line_each() -> None:
    """The first scenarios in full; the next in a line each (an outline's failed examples are
    what a reader compares); past those, a count."""
    first, second = MUSTS[:2]
    shared = failed("shared", first.id, second.id, message="m")
    many = [failed(f"n{i}", second.id, error=f"\nE: e{i}\nmore") for i in range(5)]
    told = failures.explain([ReqVerdict(first, FAILED, [shared]),
                             ReqVerdict(second, ERRORED, [shared, *many])], [second.id])
    assert told.count("Scenario: Title shared") == 1
    assert f"ERRORED {second.id} ({second.level}) (a known failure, in the baseline): " in told
    assert told.count("Scenario: Title n") == 5 and told.count("What happened:") == 4
    assert told.endswith("  Scenario: Title n3 [codex]  (features/agent/x.feature:7): E: e3\n"
                         "  Scenario: Title n4 [codex]  (features/agent/x.feature:7): E: e4\n\n"
                         + failures.EXPLAIN)
    lots = [failed(f"m{i}", second.id, error="E") for i in range(failures.SHOWN + 22)]
    told = failures.explain([ReqVerdict(second, FAILED, lots)])
    assert told.count("Scenario: Title m") == failures.SHOWN + failures.LISTED
    assert told.endswith("and 2 more failed scenarios (the reports have every one)\n\n"
                         + failures.EXPLAIN)
    assert failures.explain([ReqVerdict(first, PASSED, [])]) == ""


def test_one_cause_that_kept_several_scenarios_from_being_judged_leads_the_failures() -> None:
    """Told first, with how many scenarios it kept from their subject; a cause of a single
    scenario is told with that scenario only."""
    first, second = MUSTS[:2]
    stdin = "the fake codex was still waiting for its stdin to end"

    def unjudged(nodeid: str, req: str, cause: str) -> ScenarioResult:
        s = failed(nodeid, req, error=f"NotJudged: {cause}")
        s.verdict = ERRORED
        return s

    told = failures.explain([
        ReqVerdict(first, ERRORED, [unjudged("a", first.id, stdin),
                                    unjudged("b", first.id, "the fake never reached step 3")]),
        ReqVerdict(second, ERRORED, [unjudged("c", second.id, stdin),
                                     failed("d", second.id, error=f"NotJudged: {stdin}")])])
    assert told.startswith(f"2 scenarios were not judged, all for one cause: {stdin}. Fix that "
                           "first"), told
    assert "never reached step 3. Fix" not in told


def test_a_must_none_of_whose_scenarios_failed_says_why_it_failed() -> None:
    """Skipped scenarios (a MUST must be judged) give their reasons; scenarios that ran give
    the failure of the requirement they failed; none gives none."""
    first, second = MUSTS[:2]
    skipped = failed("s", first.id)
    skipped.verdict, skipped.evidence = SKIPPED, "not run: needs /proc"
    told = failures.explain([ReqVerdict(first, FAILED, [skipped])])
    assert f"FAILED {first.id} ({first.level}): {first.text}\n  its scenarios: none was " \
           "judged: not run: needs /proc\n\n" in told
    shared = failed("shared", first.id, second.id, message="m")
    told = failures.explain([ReqVerdict(first, FAILED, [shared]),
                             ReqVerdict(second, FAILED, [shared, skipped])])
    assert "its scenarios: another requirement's failure above" in told
    assert "its scenarios: no scenario ran" in failures.explain([ReqVerdict(first, FAILED, [])])
