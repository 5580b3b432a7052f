"""`agent-tck explain REQ-ID` (kit/explain.py)."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from agent_tck.kit import registry
from agent_tck.kit.cli import main


def explained(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["explain", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_requirement_is_told_with_its_text_source_scenarios_and_hazards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reqs = registry.load()
    hazard = registry.Hazard("https://github.com/o/r/issues/7", "the request hung for ever")
    monkeypatch.setattr(registry, "load", lambda: {
        **reqs, "AG-H18": replace(reqs["AG-H18"], hazards=(hazard,))})
    code, out, _ = explained("ag-h18")
    assert code == 0
    assert out.startswith("AG-H18 (SHOULD, component agent; backends claude, codex, gemini)\n"
                          "  Creating an agent answers at once whatever the CLI does;")
    assert f"Source: {reqs['AG-H18'].source}\n" in out
    (where,) = registry.tags_in()["AG-H18"]
    assert (f"Scenarios:\n  features/{where}  Scenario: The CLI hangs on every run while the "
            "agent is created\n") in out
    assert out.endswith("Hazards (real failures it guards against):\n"
                        "  https://github.com/o/r/issues/7\n    the request hung for ever\n")


def test_every_scenario_of_a_requirement_is_listed_and_its_hazards_or_none() -> None:
    code, out, _ = explained("AG-H1")
    assert code == 0 and out.count("  features/agent/hostile.feature:") == len(
        registry.tags_in()["AG-H1"]) == 3, out
    for hazard in registry.load()["AG-H1"].hazards:
        assert f"\n  {hazard.url}\n    " in out
    bare = next(r.id for r in registry.load().values() if not r.hazards)
    assert explained(bare)[1].endswith("Hazards (real failures it guards against):\n"
                                       "  none listed\n")


def test_an_unknown_id_is_a_usage_error_with_the_nearest_ids() -> None:
    code, out, err = explained("AG-H99")
    assert (code, out) == (2, "")
    assert err == "agent-tck: error: no requirement 'AG-H99'; did you mean AG-H9, AG-H19, AG-H8?\n"
