"""Self-tests of the `responses` suite: each miniature parser (tests/miniatures/responses.py) has
one defect, and the suite fails exactly the requirements that defect breaks."""

from __future__ import annotations

import pytest

from agent_tck.kit.registry import load
from tests.support.runsuite import failing, verdicts_for

# Nested conformance runs of the broken responses: each scenario has its own deadline in it; the
# project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

# Every requirement whose scenarios expect a plain text message.
TEXT_SHAPED = {"RESP-001.1-a", "RESP-001.2-a", "RESP-001.2-b", "RESP-001.2-c", "RESP-001.4-a",
               "RESP-EC-a", "RESP-EC-c", "RESP-D8-output-text", "RESP-D8-real-shape",
               "RESP-D8-reasoning", "RESP-D8-incomplete", "RESP-D8-empty-text",
               "RESP-D8-usage-counts"}
CASES = {
    "EmitsNothing": TEXT_SHAPED | {"RESP-001.3-a", "RESP-001.3-b", "RESP-001.4-b",
                                   "RESP-D8-refusal", "RESP-D8-call-guard"},
    "UserRole": TEXT_SHAPED,
    "MergesParts": {"RESP-001.2-b", "RESP-D8-empty-text"},
    "DropsToolCalls": {"RESP-001.2-c", "RESP-001.3-a", "RESP-001.3-b", "RESP-D8-real-shape",
                      "RESP-D8-call-guard"},
    "NoIdFallback": {"RESP-001.3-b"},
    "PrefersItemId": {"RESP-001.3-b", "RESP-D8-real-shape"},
    # RESP-D8-usage-counts too: its usage message first, or as the API names it.
    "UsageFirst": {"RESP-001.4-a", "RESP-D8-real-shape", "RESP-D8-incomplete",
                   "RESP-D8-usage-counts"},
    "TakesAnyCount": {"RESP-D8-usage-counts"},
    "RawUsage": {"RESP-001.4-a", "RESP-001.4-b", "RESP-D8-real-shape", "RESP-D8-incomplete",
                 "RESP-D8-usage-counts"},
    "TextTypeOnly": {"RESP-D8-output-text", "RESP-D8-real-shape", "RESP-D8-reasoning",
                    "RESP-D8-incomplete", "RESP-D8-empty-text", "RESP-D8-usage-counts"},
    "CrashesOnUnknownItems": {"RESP-EC-a", "RESP-D8-reasoning", "RESP-D8-immutable"},
    "CrashesOnMissingContent": {"RESP-EC-b", "RESP-EC-c"},
    "NoTypeGuard": {"RESP-EC-c"},
    "EmptyTextKept": {"RESP-D8-empty-text"},
    "RefusalAsText": {"RESP-D8-refusal"},
    "RefusalByItsField": {"RESP-D8-refusal"},
    "ReasoningAsText": {"RESP-D8-reasoning"},
    "IgnoresIncomplete": {"RESP-D8-incomplete"},
    "AcceptsAnyObject": {"RESP-D8-not-a-response"},
    "EmptyForNonObject": {"RESP-D8-non-object"},
    "AcceptsFailed": {"RESP-D8-failed"},
    "Mutating": {"RESP-D8-immutable"},
    "NoCallGuard": {"RESP-D8-call-guard"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_parser_fails_exactly_its_requirements(name: str) -> None:
    assert failing(f"python:tests.miniatures.responses:{name}", ["responses"]) == CASES[name]


def test_reference_passes_every_requirement() -> None:
    verdicts = verdicts_for("reference", ["responses"])
    assert set(verdicts.values()) == {"passed"}, verdicts.failures


def test_every_requirement_has_a_broken_implementation_that_fails_it() -> None:
    required = {r.id for r in load().values() if r.component == "responses"}
    assert required - set().union(*CASES.values()) == set()
