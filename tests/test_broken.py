"""The suite can fail: each broken agent fails exactly the requirements its defect breaks."""

from __future__ import annotations

import pytest

from tests.runsuite import failing

CASES = {
    "NoReap": {"EH-1.1", "EH-2.2", "AG-D6.1", "AG-D6.2"},
    "SignalsOnlyTheChild": {"AG-D6.1"},
    "StaysBusyAfterTimeout": {"EH-1.1", "EH-5.1", "AG-D4.5"},
    "KeepsMalformedLines": {"EH-3.1", "EH-3.2", "AG-D6.5"},
    "CountsToolResults": {"RP-3.1", "AG-D1.1", "AG-D1.2", "AG-D3.1", "AG-D3.2"},
    "IgnoresWorkingDir": {"RP-5.1"},
    "PromptAsArgument": {"AG-D5.1"},
    "TrustsExitCodeOnly": {"AG-D4.1", "AG-D4.2", "AG-D4.3"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_agent_fails_exactly_its_requirements(name: str) -> None:
    assert failing(f"python:tests.broken:{name}", ["agent"]) == CASES[name]


def test_reference_fails_nothing() -> None:
    assert failing("reference", ["agent", "backends"]) == set()
