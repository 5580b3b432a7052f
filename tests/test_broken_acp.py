"""The ACP scenarios can fail: each broken ACP wrapper (tests/miniatures/acp.py) fails exactly the
requirements its defect breaks, and the reference driving the same agent fails none."""

from __future__ import annotations

import pytest

from tests.support.runsuite import failing_in, scenario_results

# Nested conformance runs: each scenario has its own deadline in it (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

CASES = {
    "OpensItsSessionInItsOwnDirectory": {"AG-ACP.1"},
    "AnswersWithItsThoughts": {"AG-ACP.2"},
    "TakesAnyStopForSuccess": {"AG-ACP.3"},
    "ApprovesEveryToolCall": {"AG-ACP.4"},
    "LeavesRequestsItDoesNotServeUnanswered": {"AG-ACP.5"},
    "StartsANewSessionToResume": {"AG-ACP.6"},
    "LeavesTheAgentAZombie": {"AG-ACP.7"},
    "KeepsLateUpdates": {"AG-ACP.8"},
    "TakesAnyAnswerForThePrompts": {"AG-ACP.9"},
}
ACP = [f"AG-ACP.{n}" for n in range(1, 10)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_broken_acp_wrapper_fails_exactly_its_requirements(name: str) -> None:
    results = scenario_results(f"python:tests.miniatures.acp:{name}", ["agent"], reqs=ACP)
    assert failing_in(results, ["agent"], selected=True) == CASES[name]
