"""Self-tests of the `runner` suite: each miniature (tests/miniatures/runner.py) has one defect,
and the suite fails exactly the requirements that defect breaks.

Each is judged on the scenarios that call the reference's commands it answers in place of
(tests/support/reach.py, from a map of the runner component made once per test session): the
others run the reference, whose verdicts are the control's. AGENT_TCK_BROKEN=whole runs every
scenario for each, the check that no reach is too narrow.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_tck.kit.registry import load
from tests.miniatures import runner as miniatures
from tests.support import once, reach
from tests.support.runsuite import failing_in, scenario_results, verdicts_for

# Nested conformance runs of the broken runners: each scenario has its own deadline in it; the
# project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

CASES = {
    # ParseSignal
    "AlwaysNone": {"RUN-SIG-1", "RUN-SIG-2", "RUN-SIG-3", "RUN-SIG-6", "RUN-SIG-7", "RUN-SIG-8"},
    "BlockedFirst": {"RUN-SIG-3"},
    "Untrimmed": {"RUN-SIG-2", "RUN-SIG-6", "RUN-SIG-7", "RUN-SIG-8"},
    "LastBlocked": {"RUN-SIG-8"},
    "Unclosed": {"RUN-SIG-4", "RUN-SIG-5"},
    "EmptyReasonIsNone": {"RUN-SIG-6"},
    "Normalizing": {"RUN-SIG-5", "RUN-SIG-7"},
    # The Claude runner
    "PromptAsArgument": {"RUN-CMD-1", "RUN-CMD-2", "RUN-CMD-3", "RUN-CMD-4", "RUN-CMD-5"},
    "TrustIgnored": {"RUN-CMD-2", "RUN-CMD-4"},
    "NoPermissionMode": {"RUN-CMD-1", "RUN-CMD-3"},
    "ModelIgnored": {"RUN-CMD-4"},
    "ShortSystemPrompt": {"RUN-CMD-1"},
    "StdoutOnly": {"RUN-OUT-1", "RUN-OUT-2"},
    "NonZeroIsError": {"RUN-OUT-2", "RUN-OUT-3", "RUN-OUT-4", "RUN-OUT-6"},
    "RawExitCode": {"RUN-OUT-3", "RUN-OUT-6"},
    "ForgetsSignalOne": {"RUN-OUT-3"},
    "KeepsClaudecode": {"RUN-CMD-6"},
    "TakesAnyModel": {"RUN-CMD-7"},
    "TimeoutUnreported": {"RUN-OUT-4"},
    "MissingIsEmptySuccess": {"RUN-OUT-5"},
    # The loop and the scripted runner
    # A loop that runs more or fewer iterations than it should says so in its count too
    # (RUN-LOOP-13's scenarios end each way a loop can end).
    "RunsEmptySession": {"RUN-LOOP-6", "RUN-LOOP-12", "RUN-LOOP-13"},
    "MaxIsError": {"RUN-LOOP-4", "RUN-LOOP-13"},
    "DropsTrust": {"RUN-LOOP-7"},
    "TrustsByDefault": {"RUN-LOOP-7"},
    "CountsOneMore": {"RUN-LOOP-13"},
    "DropsTimeout": {"RUN-LOOP-8"},
    "StalePrompt": {"RUN-LOOP-10"},
    "ShortPrompt": {"RUN-LOOP-5"},
    "SwallowsFailures": {"RUN-LOOP-11"},
    "IgnoresComplete": {"RUN-LOOP-1", "RUN-LOOP-3", "RUN-LOOP-13", "RUN-MOCK-1"},
    "IgnoresBlocked": {"RUN-LOOP-2"},
    "IgnoresBalls": {"RUN-LOOP-9", "RUN-LOOP-13"},
    "ExhaustedNone": {"RUN-MOCK-1"},
}


@pytest.fixture(scope="session")
def runner_map(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Any]:
    return reach.shared_map(once.session_dir(tmp_path_factory, worker_id), "runner")


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_runner_fails_exactly_its_requirements(name: str,
                                                      request: pytest.FixtureRequest) -> None:
    keyword = None if reach.WHOLE else reach.functions_keyword(
        getattr(miniatures, name).functions, request.getfixturevalue("runner_map"), "runner")
    results = scenario_results(f"python:tests.miniatures.runner:{name}", ["runner"], keyword)
    assert failing_in(results, ["runner"], selected=keyword is not None) == CASES[name]


def test_reference_passes_every_requirement() -> None:
    verdicts = verdicts_for("reference", ["runner"])
    assert set(verdicts.values()) == {"passed"}, verdicts.failures


def test_every_requirement_has_a_broken_implementation_that_fails_it() -> None:
    required = {r.id for r in load().values() if r.component == "runner"}
    assert required - set().union(*CASES.values()) == set()
