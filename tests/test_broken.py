"""The suite can fail: each broken agent fails exactly the requirements its defect breaks."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tck.kit import registry
from tests.miniatures import agent as miniatures
from tests.miniatures.agent import ALL_BACKENDS
from tests.support import once, reach
from tests.support.runsuite import CLAUDE_ONLY, failing, failing_in, scenario_results

# A nested conformance run of each broken agent: each scenario has its own deadline in it; the
# project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

CASES = {
    # A zombie is a harness left behind: every scenario that checks for one catches it.
    "NoReap": {
        *("EH-1.1", "EH-2.2", "AG-D6.1", "AG-D6.2"),
        *("AG-H1", "AG-H2", "AG-H3", "AG-H6", "AG-H7", "AG-H8", "AG-H9", "AG-H13", "AG-H16"),
        "AG-H17", "AG-H21", "AG-H24", "AG-H25",
    },
    # AG-D6.6 too: its harness, in the agent's own group, has no parent-death signal.
    "SignalsOnlyTheChild": {"AG-D6.1", "AG-H24", "AG-D6.6"},
    # No state ends its timed-out request, so none gives the timeout as its reason (AG-D7.2).
    "StaysBusyAfterTimeout": {"EH-1.1", "EH-5.1", "AG-D4.5", "AG-D7.2", "AG-H17", "AG-H21"},
    "KeepsMalformedLines": {"EH-3.1", "EH-3.2", "AG-D6.5", "AG-H2", "AG-H3", "AG-H4", "AG-H5",
                            "AG-H22"},
    "CountsToolResults": {"RP-3.1", "AG-D1.1", "AG-D1.2", "AG-D3.1", "AG-D3.2"},
    # AG-C5 too: given a directory removed since, it runs the CLI in its own.
    "IgnoresWorkingDir": {"RP-5.1", "AG-C5"},
    "DropsTheModel": {"AG-M1"},
    # A 1 MB prompt in argv exceeds the kernel's limit (E2BIG): AG-H13 catches that too.
    "PromptAsArgument": {"AG-D5.1", "AG-H13", "AG-H21"},
    # AG-K6 too: the CLI that is not logged in says so in its stream and exits 0.
    "TrustsExitCodeOnly": {"AG-D4.1", "AG-D4.2", "AG-D4.3", "AG-H8", "AG-K6"},
    "StopsAtBlankLine": {"AG-H2"},
    "DropsUnterminatedLastLine": {"AG-H3"},
    "AssumesObjects": {"AG-H4"},
    "CatchesOnlyDecodeErrors": {"AG-H5"},
    "KeepsOnlyRecentLines": {"AG-H6", "AG-H23"},
    "DecodesEachRead": {"AG-H7"},
    "NoLineLimit": {"AG-H1"},
    "ReadsTheEndOfASkippedLine": {"AG-H1"},
    "SkipsALineAtTheLimit": {"AG-H1"},
    "CountsOnFromTheLastLine": {"AG-H1"},
    # AG-H15 too: its answer, to which nothing went wrong, has no warning at all.
    "WarnsOfASkippedLineAlways": {"AG-H1", "AG-H15"},
    # EH-2.1 too: a CLI that exits 1 after its turn, with nothing on stderr, is answered as a
    # success, and seed 001 says "the agent must report the error" of a non-zero exit.
    "CompletedTurnIgnoresExitCode": {"AG-H9", "EH-2.1"},
    # AG-C5 too: a working directory removed since creation is a launch error it does not name.
    "VagueLaunchError": {"AG-H10", "AG-C5"},
    "BlamesTheCliForItsInterpreter": {"AG-H10"},
    "GivesTheSignalsNumber": {"AG-D4.5"},
    "TakesSignalOneForAnExit": {"AG-D4.5"},
    "KeepsNestingVariable": {"AG-H11"},
    "IgnoresStripEnv": {"AG-H12"},
    "CrashesOnBrokenPipe": {"AG-H13", "AG-H21"},
    # Its deadline is a limit on silence (reset by each line), or starts at the first line.
    "RestartsItsTimerOnEachLine": {"EH-1.1"},
    "CountsItsTimeoutFromTheFirstLine": {"EH-1.1"},
    "KillsLate": {"AG-D6.2"},
    "WaitsForTheExitAfterTheTurn": {"AG-D6.7"},
    "TermsTwice": {"AG-D6.2"},
    # Without the reaper, what the CLI started in a session of its own outlives a killed
    # agent (the CLI itself has a parent-death signal; its descendants have none): AG-D6.6.
    "WaitsForEof": {"AG-D6.1", "AG-D6.6"},
    "FindsStraysByTagOnly": {"AG-D6.1", "AG-D6.6"},
    # Gemini echoes the prompt after its init line: read as text, it ends up in the answer.
    "AnswersWithTheEchoedPrompt": {
        "AG-GM.1", "EH-3.2",
        *("AG-H1", "AG-H2", "AG-H3", "AG-H4", "AG-H5", "AG-H6", "AG-H7", "AG-H14", "AG-H15"),
        "AG-H20", "AG-H22", "AG-H23",
    },
    "ForgetsTheTurnCompleted": {"AG-H9"},
    # The day AG-C2 gives it is forgotten as well; and it has no default (EH-1.2).
    "ForgetsItsTimeout": {"EH-1.2", "EH-1.3", "AG-C2"},
    # Values checked on a request that failed for another reason prove nothing: RP-3.2's
    # "tool_calls 0" fails too, since the turn completed and the request did not succeed.
    "RequiresSessionId": {"EH-3.1", "EH-4.1", "RP-2.3", "RP-3.1", "RP-3.2", "AG-GM.2"},
    "StopsAtUnknownShapes": {"AG-H14"},
    "HidesAnUnfinishedTurn": {"AG-H15"},
    "WarnsOfAPartialAnswerAlways": {"AG-H15"},
    "KeepsAllStderr": {"AG-H16"},
    "WaitsForTheFirstLine": {"AG-H17"},
    "DropsTheAnswerOnExit": {"AG-H9"},
    # Asked to probe its credentials, it runs the CLI a second time, unmarked, at creation.
    "ProbesTheCliAtCreation": {"AG-H18", "AG-K4"},
    "TrustsSessionIds": {"AG-H19"},
    "ResumesAnAlias": {"AG-H27"},
    "ParsesStderrToo": {"AG-H20"},
    "ResumesTheLastSession": {"AG-S1"},
    "AnswersWithTheAskedSession": {"AG-S2"},
    "AnswersWithTheLastSession": {"RP-4.1"},
    "TakesTheSessionFromInitOnly": {"AG-S3"},
    "SaysEveryRequestCompleted": {"AG-D7.2"},
    "RunsClaudeForAnyBackend": {"AG-C1"},
    "TakesAnyDeadline": {"AG-C2"},
    "CapsItsDeadlines": {"AG-C2"},
    "ReadsDeadlinesAsNumbers": {"AG-C2"},
    "StripsOnlyWhatItCan": {"AG-C3"},
    "ReadsSettingsAsText": {"AG-C4"},
    "BlamesTheCliForItsDirectory": {"AG-C5"},
    "DropsWhatItSetsAndStrips": {"AG-C6"},
    "WritesThePromptBlocking": {"AG-H21"},
    "StopsACliThatPausesMidTurn": {"AG-D6.7"},
    "StopsACliASecondAfterItsTurn": {"AG-D6.7"},
    # EH-3.2 too: one of its invalid lines is a whole text line with more after it
    "ReadsTheFirstValueOfALine": {"AG-H22", "EH-3.2"},
    "StopsWhenOnePipeCloses": {"AG-H23"},
    "TermsTheGroupOnly": {"AG-H24"},
    "LeaksADescriptorPerRequest": {"AG-H25"},
    "WithholdsOneKey": {"AG-K1"},
    "TakesAnyKeyMode": {"AG-K2"},
    "LoginOverridesEnv": {"AG-K3"},
    "ProbesByTheExitCode": {"AG-K5", "AG-K6"},
    "ProbesWithTheKeys": {"AG-K4", "AG-K5"},
    "LeavesTheProbeUnmarked": {"AG-K4"},
    "MarksEveryRequest": {"AG-K4"},
    "SaysNotWhyTheLoginFailed": {"AG-K5", "AG-K6"},
    "FindsABadPromptLate": {"AG-H26"},
    "LeadsWithTheLastWordOfStderr": {"AG-D4.6"},
    "RefusedWithoutCredentials": {"AG-K6"},
    "LetsAMonitorFailTheRequest": {"AG-L1"},
    "LosesTheRequestWhenItFails": {"AG-L2"},
}


# Where the requirement a defect breaks fails for another defect of the same miniature too,
# the scenario that proves this one (its title, in part) must be among the failed.
PROVEN_BY = {
    "WaitsForEof": "exits while its grandchild holds stdout open",
    "FindsStraysByTagOnly": "process that hides from it",
}


# Declared for every backend because other tests show their failures once per backend
# (tests/test_cli_run.py, tests/test_html_report.py). Their defects are in code every backend
# shares, so here, as for the others, the claude scenarios judge them (all of them with
# AGENT_TCK_MINIATURE_BACKENDS=all).
EVERY_BACKEND = {"NoReap", "IgnoresWorkingDir", "PromptAsArgument"}


@pytest.fixture(scope="session")
def agent_map(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Any]:
    return reach.shared_map(once.session_dir(tmp_path_factory, worker_id))


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_agent_fails_exactly_its_requirements(name: str, request: pytest.FixtureRequest,
                                                     ) -> None:
    """Each on the scenarios that run its defect's reach (tests/support/reach.py), the rest
    being the reference's; one whose defect has no reach (it shows in every request) on the
    scenarios of the requirements it breaks; every scenario with AGENT_TCK_BROKEN=whole."""
    keyword = CLAUDE_ONLY if name in EVERY_BACKEND and not ALL_BACKENDS else None
    places = getattr(getattr(miniatures, name), "reach", ())
    reqs = None
    if places and not reach.WHOLE:
        reached = reach.keyword(places, request.getfixturevalue("agent_map"))
        keyword = f"({keyword}) and ({reached})" if keyword else reached
    elif not reach.WHOLE:
        reqs = sorted(CASES[name])
    results = scenario_results(f"python:tests.miniatures.agent:{name}", ["agent"], keyword,
                               reqs=reqs)
    selected = keyword is not None or reqs is not None
    assert failing_in(results, ["agent"], selected=selected) == CASES[name]
    if name in PROVEN_BY:
        failed = [r.title for r in results if r.verdict in ("failed", "errored")]
        assert any(PROVEN_BY[name] in title for title in failed), failed


def test_reference_fails_nothing() -> None:
    """The control of the runs above. The agent component's is the one-backend tests below:
    the reference declaring claude alone (as the broken agents do), codex alone, and gemini
    alone, each failing nothing, are every agent scenario of the reference run this way."""
    assert failing("reference", ["backends"]) == set()


def test_the_same_facts_in_other_words_pass() -> None:
    keyword = "cannot_be_started or success_result_then_exit"
    impl = "python:tests.miniatures.agent:RewordsItsMessages"
    ran = [r for r in scenario_results(impl, ["agent"], keyword) if r.verdict != "not run"]
    assert {rid for r in ran for rid in r.reqs} == {"AG-H9", "AG-H10"}
    assert [r.verdict for r in ran] == ["passed"] * 11, [(r.name, r.evidence) for r in ran]


@pytest.mark.parametrize(("name", "keyword", "reqs"), [
    ("ReadsLinesUpTo64MiB", "AG-H1 and skipped", {"AG-H1"}),
    ("AnswersCodexWithItsLastMessage", "RP-2.1 or AG-H6 or (AG-H1 and skipped)",
     {"RP-2.1", "AG-H6", "AG-H1"}),
    ("ReplacesLoneSurrogates", "AG-H26", {"AG-H26"}),
])
def test_each_correct_choice_passes(name: str, keyword: str, reqs: set[str]) -> None:
    """D-33: where correct implementations choose differently (a line limit above 16 MiB,
    codex's last agent message as its answer, a lone surrogate carried rather than refused),
    each choice passes."""
    results = scenario_results(f"python:tests.miniatures.agent:{name}", ["agent"], keyword)
    judged = [r for r in results if r.verdict in ("passed", "failed", "errored")]
    assert {rid for r in judged for rid in r.reqs} == reqs
    assert [(r.name, r.message) for r in judged if r.verdict != "passed"] == []


def test_an_agent_that_answers_claude_with_its_result_passes() -> None:
    """D-34: the official Claude SDKs answer with the result line's text. The fake claude's
    result repeats the turn's last message, as the real CLI's does, so such an implementation
    passes (a fake that printed an empty result after a text would fail it in 14)."""
    impl = "python:tests.miniatures.agent:AnswersClaudeWithItsResult"
    results = scenario_results(impl, ["agent"], CLAUDE_ONLY)
    assert sum(r.verdict == "passed" for r in results) > 100
    assert [(r.name, r.message) for r in results if r.verdict in ("failed", "errored")] == []


def test_a_working_directory_the_agent_made_a_repository_is_removed_whole_for_ag_c5() -> None:
    """AG-C5's directory removed after creation is removed with what the agent put in it when
    created (GENESIS runs `git init` there): the request that finds it gone is judged."""
    results = scenario_results("python:tests.miniatures.agent:InitialisesItsWorkingDir",
                               ["agent"], "AG-C5")
    judged = [r for r in results if r.verdict in ("passed", "failed", "errored")]
    assert "AG-C5" in {rid for r in judged for rid in r.reqs}
    assert [(r.name, r.message) for r in judged if r.verdict != "passed"] == []


def test_a_sigterm_after_an_implementations_own_fixed_wait_still_passes_eh_1_1() -> None:
    """D-32: the fake CLI of EH-1.1 outlasts a fixed 5 s wait before the SIGTERM, whatever the
    time scale (it ended first, and EH-1.1 said "the harness got no SIGTERM")."""
    results = scenario_results("python:tests.miniatures.agent:TermsAfterItsOwnWait", ["agent"],
                               "EH-1.1 and subprocess_exceeds_timeout")
    judged = [r for r in results if r.verdict in ("passed", "failed", "errored")]
    assert judged and {rid for r in judged for rid in r.reqs} == {"EH-1.1"}
    assert [(r.name, r.message) for r in judged if r.verdict != "passed"] == []


def test_an_answer_without_the_optional_warnings_list_has_no_warnings() -> None:
    """AG-H1 and AG-H15 check that an answer to which nothing went wrong warns of nothing: an
    answer that leaves out the optional list says the same."""
    results = scenario_results("python:tests.miniatures.agent:LeavesOutNoWarnings", ["agent"],
                               "AG-H1 or AG-H15")
    judged = [r for r in results if r.verdict in ("passed", "failed", "errored")]
    assert {"AG-H1", "AG-H15"} <= {rid for r in judged for rid in r.reqs}
    assert [(r.name, r.message) for r in judged if r.verdict != "passed"] == []


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini"])
def test_an_implementation_of_one_backend_can_be_conformant(backend: str) -> None:
    """Every backend-neutral MUST runs for the declared backend; those of the others are not
    applicable, and no agent of another of the kit's backends is ever asked for."""
    impl = f"python:tests.miniatures.agent:{backend.capitalize()}Only"
    results = scenario_results(impl, ["agent"])
    verdicts = {}
    for r in results:
        for rid in r.reqs:
            verdicts.setdefault(rid, set()).add(r.verdict)
    musts = {r.id: r for r in registry.load().values()
             if r.component == "agent" and r.level == "MUST"}
    for rid, req in musts.items():
        expected = {"passed"} if backend in req.backends else {"not applicable"}
        if backend in req.backends and len(req.backends) > 1:
            expected = {"passed", "not applicable"}  # the other backend's run
        assert verdicts[rid] == expected, (rid, [(r.name, r.evidence) for r in results
                                                 if rid in r.reqs])
    assert not {v for vs in verdicts.values() for v in vs} & {"failed", "errored"}, [
        (r.name, r.evidence) for r in results if r.verdict in ("failed", "errored")]


def test_an_implementation_of_claude_and_codex_stays_conformant_beside_gemini() -> None:
    """The third backend's requirements are not applicable to what does not declare it (the
    declared ones' runs are the one-backend tests' above: here RP-2.1's, run for each, and
    every scenario with AGENT_TCK_BROKEN=whole)."""
    results = scenario_results("python:tests.miniatures.agent:ClaudeAndCodex",
                               ["agent", "backends"],
                               None if reach.WHOLE else "gemini or AG-GM or BK-GM or RP-2.1")
    assert not [r for r in results if r.verdict in ("failed", "errored")]
    gemini = [r for r in results if "gemini" in r.name or "GM" in "".join(r.reqs)]
    assert gemini and {r.verdict for r in gemini} == {"not applicable"}
    assert {r.verdict for r in results if r not in gemini} >= {"passed"}


# The requirements whose scenarios read the timeout an agent says it has (agent.info).
TIMEOUT_READERS = ["AG-C2", "EH-1.2", "EH-1.3"]


def test_an_implementation_without_a_default_timeout_fails_that_must_alone() -> None:
    """What an implementation declares never makes a MUST of a declared component not
    applicable: no default timeout fails EH-1.2, saying why, and nothing else of the
    requirements whose scenarios read the timeout it says it has (every scenario with
    AGENT_TCK_BROKEN=whole)."""
    verdicts = {}
    impl = "python:tests.miniatures.agent:HasNoDefaultTimeout"
    for r in scenario_results(impl, ["agent"], reqs=None if reach.WHOLE else TIMEOUT_READERS):
        if r.verdict == "not applicable" and "not declared" in r.evidence:
            continue  # another backend's scenario: it declares claude alone (ALL_BACKENDS)
        for rid in r.reqs:
            verdicts.setdefault(rid, set()).add((r.verdict, r.error))
    reason = ("AssertionError: the agent has no timeout (agent.info says null), and the seed "
              "requires 300 seconds by default: a request whose CLI never ends would never end "
              "either")
    assert verdicts.pop("EH-1.2") == {("failed", reason)}
    assert {v for vs in verdicts.values() for v, _ in vs} == {"passed"}


def test_a_backend_that_reads_geminis_echoed_prompt_as_text_fails_its_requirements() -> None:
    impl = "python:tests.miniatures.backends:GeminiEchoesThePrompt"
    assert failing(impl, ["backends"]) == {"BK-GM.2", "BK-GM.5"}


@pytest.mark.parametrize(("name", "expected"), [
    ("DropsEmptyText", {"BK-CL.7"}),
    ("KeepsTheFirstLine", {"BK-CX.6"}),
    ("TrustsItemShapes", {"BK-CX.7"}),
    ("ReadsAnyTextField", {"BK-CL.2"}),
    ("EmptiesResultsWithoutText", {"BK-CL.3"}),
    # BK-CX.4 passes: what its done event is, not where it came from, is its text's subject.
    ("BuildsTheDoneEventBare", {"BK-EV.1"}),
    ("TakesAnyChunkContentForText", {"BK-ACP.1"}),
    ("EndsToolCallsOnAnyUpdate", {"BK-ACP.2"}),
    ("ReadsThoughtsAsText", {"BK-ACP.3"}),
])
def test_a_backend_broken_in_one_way_fails_exactly_its_requirement(name: str,
                                                                   expected: set[str]) -> None:
    assert failing(f"python:tests.miniatures.backends:{name}", ["backends"]) == expected


def test_an_agent_that_omits_claudes_verbose_fails_every_claude_request_and_nothing_else() -> None:
    """`claude -p --output-format stream-json` without `--verbose` is refused by the real CLI
    (exit 1, before any line), so the fake refuses it too: every request to claude fails; the
    other backends' requests (RP-2.1's, run for each) do not."""
    results = scenario_results("python:tests.miniatures.agent:OmitsVerbose", ["agent"],
                               None if reach.WHOLE else f"({CLAUDE_ONLY}) or RP-2.1")
    failed = [r for r in results if r.verdict in ("failed", "errored")]
    assert {"RP-1.1", "RP-2.1", "EH-3.1"} <= {rid for r in failed for rid in r.reqs}
    others = [r for r in results if "[codex" in r.name or "[gemini" in r.name]
    assert {r.verdict for r in others} == {"passed"}, [(r.name, r.verdict) for r in others]
    refused = "requires --verbose"
    assert any(refused in r.evidence for r in failed), [r.evidence[:300] for r in failed[:3]]


def test_an_agent_that_omits_codexs_exec_fails_every_codex_request() -> None:
    """`codex --json ... -` without `exec` is the interactive CLI, which refuses `--json` (exit
    2, before any line): the fake refuses it as the real CLI does, so every codex request
    fails. (Its defect is in the codex command line alone: the codex scenarios judge it.)"""
    results = scenario_results("python:tests.miniatures.agent:OmitsExec", ["agent"], "codex")
    failed = [r for r in results if r.verdict in ("failed", "errored")]
    assert {"RP-1.2", "RP-2.1", "EH-3.1"} <= {rid for r in failed for rid in r.reqs}
    refused = "error: unexpected argument '--json' found"
    assert any(refused in r.evidence for r in failed), [r.evidence[:300] for r in failed[:3]]


# Seed 000's steps about the agent's own parser, in RP-1.1 and EH-3.1 (EH-3.2 for codex).
PARSER_STEPS = "simple_text_response_from_claude or malformed_json_line or mixed_valid"


def test_an_implementation_that_reports_no_events_is_judged_on_its_answers() -> None:
    """Its parser's steps are not judged, each saying why; the rest of each scenario is."""
    results = scenario_results("python:tests.miniatures.agent:ReportsNoEvents", ["agent"],
                               f"({PARSER_STEPS}) and not gemini")
    ran = [r for r in results if r.verdict != "not run"]
    assert {rid for r in ran for rid in r.reqs} == {"RP-1.1", "EH-3.1", "EH-3.2"}
    assert {r.verdict for r in ran} == {"passed"}, [(r.name, r.evidence) for r in ran]
    unjudged = {text for r in ran for _, text, status in r.steps if status == "not applicable"}
    assert unjudged == {"the subprocess stdout is read line by line.",
                        "each line is passed to ClaudeBackend.parse_line.",
                        "the valid result event is processed normally."}
    assert all("not judged:" in r.evidence and "reports_events: false" in r.evidence
               for r in ran if r.reqs != ("EH-3.2",)), ran


def test_an_implementation_that_reports_no_events_still_fails_on_its_answers() -> None:
    impl = "python:tests.miniatures.agent:ReportsNoEventsNorTheText"
    results = scenario_results(impl, ["agent"], f"({PARSER_STEPS}) and not gemini")
    assert failing_in(results, ["agent"], selected=True) == {"RP-1.1", "EH-3.1", "EH-3.2"}


def test_a_scenario_whose_setup_never_happened_is_not_judged() -> None:
    """A wrapper that leaves the CLI's stdin open and never sends SIGKILL: the fake CLI,
    which reads its stdin to the end first, never gets to ignore SIGTERM, so AG-D6.2's
    scenarios (which it would pass, the fake ending at the first SIGTERM) are not judged,
    with the cause and where the fake was; AG-D5.2, whose subject the open stdin is, fails."""
    results = scenario_results("python:tests.miniatures.agent:LeavesStdinOpen", ["agent"],
                               "AG-D6.2 or AG-D5.2")
    judged = {r.title: (r.verdict, r.error) for r in results}
    sigterm = [r for r in results if "AG-D6.2" in r.reqs]
    assert sigterm and all(r.verdict == "errored" for r in sigterm), judged
    for r in sigterm:
        assert r.error.startswith("NotJudged: the fake ") and "stdin to end" in r.error, judged
        assert "no end of file): nothing after its step 1 of" in r.message, r.message
        assert "(charged to AG-D5.2, whose subject that is)" in r.error, r.error
    own = [r for r in results if "AG-D5.2" in r.reqs]
    assert own and all(r.verdict == "failed" for r in own), judged
    for r in own:  # the values compared, not pytest's "+ where" lines with the kit's objects
        assert "assert 3 == 0" in r.message and "object at 0x" not in r.message, r.message
        assert "was still waiting for its stdin to end" in r.message, r.message
