"""The ACP scenarios can fail: each broken ACP wrapper (tests/miniatures/acp.py) fails exactly the
requirements its defect breaks, and the reference driving the same agent fails none."""

from __future__ import annotations

import pytest

from agent_tck.kit import registry
from tests.support.runsuite import failing_in, scenario_results

# Nested conformance runs: each scenario has its own deadline in it (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

ACP_REQS = [rid for rid in registry.load() if rid.startswith("AG-ACP.")]
CASES = {
    "OpensItsSessionInItsOwnDirectory": {"AG-ACP.1"},
    "AnswersWithItsThoughts": {"AG-ACP.2"},
    "TakesAnyStopForSuccess": {"AG-ACP.3"},
    # AG-ACP.14 and AG-ACP.15 too: the option it selects is no option to refuse, and it
    # warns of no refusal
    "ApprovesEveryToolCall": {"AG-ACP.4", "AG-ACP.14", "AG-ACP.15"},
    "RefusesByCancelling": {"AG-ACP.14"},
    "RefusesWithTheLastRejectOption": {"AG-ACP.14"},
    "RefusesToolCallsUnsaid": {"AG-ACP.15"},
    "AnswersAnInternalError": {"AG-ACP.16"},
    # AG-ACP.16 too: an unanswered request has no error code
    "LeavesRequestsItDoesNotServeUnanswered": {"AG-ACP.5", "AG-ACP.16"},
    "OffersWhatItDoesNotServe": {"AG-ACP.5"},
    # AG-ACP.13 too: it answers a request to resume a session the agent cannot load
    "StartsANewSessionToResume": {"AG-ACP.6", "AG-ACP.13"},
    # AG-ACP.13 too: the session it loaded then gets the prompt
    "LoadsSessionsAnAgentCannotLoad": {"AG-ACP.12", "AG-ACP.13"},
    "OpensANewSessionWhenItCannotLoad": {"AG-ACP.13"},
    # AG-ACP.10 and AG-ACP.11 too: an agent that ended after its answer, or once cancelled,
    # is left a zombie as well
    "LeavesTheAgentAZombie": {"AG-ACP.7", "AG-ACP.10", "AG-ACP.11"},
    "KeepsLateUpdates": {"AG-ACP.8"},
    "TakesAnyAnswerForThePrompts": {"AG-ACP.9"},
    # AG-ACP.8 too: one of its scenarios resumes a session
    "CountsTheReplayedConversation": {"AG-ACP.6", "AG-ACP.8"},
    # A request whose three-second deadline comes before the grace period after its turn (the
    # reference stops an agent that outlives its turn by one, D-38) runs to its deadline:
    # every such scenario that checks the answer of a turn that ended well fails. AG-ACP.4's
    # and AG-ACP.5's set a longer deadline and get their answer a grace period after the
    # turn; AG-ACP.10 sees the agent stopped by a signal, not by its stdin closing. AG-ACP.7's,
    # which waits for the deadline anyway, passes, and so does AG-ACP.1's, which checks what
    # was said. An agent that stops when cancelled is still waiting on its open stdin: it
    # gets SIGTERM (AG-ACP.11). In AG-ACP.12's and AG-ACP.13's, where the request fails after
    # the handshake, the agent is never told it is over: it waits for its stdin to end, and
    # the scenarios are not judged (errored, charged to AG-D5.2).
    "NeverClosesTheAgentsStdin": {f"AG-ACP.{n}" for n in (2, 3, 6, 8, 9, 10, 11, 12, 13)},
    "NeverCancelsTheTurn": {"AG-ACP.11"},
    # Every scenario that opens a session, which it never learns, fails with claude-agent-acp
    # and codex-acp (with gemini --acp alone none does): all but AG-ACP.12's and AG-ACP.13's.
    "TakesTheNextMessageForTheAnswer": set(ACP_REQS) - {"AG-ACP.12", "AG-ACP.13"},
    "TakesTheNextMessageForTheAnswerOfGemini": set(),
    "SignalsAsItCancels": {"AG-ACP.11"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_broken_acp_wrapper_fails_exactly_its_requirements(name: str) -> None:
    results = scenario_results(f"python:tests.miniatures.acp:{name}", ["agent"], reqs=ACP_REQS)
    assert failing_in(results, ["agent"], selected=True) == CASES[name]
