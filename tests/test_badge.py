"""`agent-tck run --badge FILE`: the verdict as a shields.io endpoint badge, in the three kinds
a run comes to (conformant, conformant with known failures, not conformant), and written by a
real run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_tck.kit import badge, registry, verdicts
from agent_tck.kit.cli import main
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.reports import Run
from agent_tck.kit.verdicts import ERRORED, FAILED, NA, NOT_RUN, PASSED, ReqVerdict

# https://shields.io/badges/endpoint-badge: the fields shields.io reads, and their types.
ENDPOINT: dict[str, Any] = {
    "type": "object",
    "required": ["schemaVersion", "label", "message"],
    "additionalProperties": False,
    "properties": {
        "schemaVersion": {"const": 1},
        "label": {"type": "string"},
        "message": {"type": "string", "minLength": 1},
        "color": {"type": "string"},
        "labelColor": {"type": "string"},
        "isError": {"type": "boolean"},
        "namedLogo": {"type": "string"},
        "logoSvg": {"type": "string"},
        "logoColor": {"type": "string"},
        "logoWidth": {"type": "number"},
        "style": {"type": "string"},
        "cacheSeconds": {"type": "integer", "minimum": 300},
    },
}
NAMED_COLORS = {"brightgreen", "green", "yellowgreen", "yellow", "orange", "red", "blue",
                "lightgrey", "success", "important", "critical", "informational", "inactive"}
MUSTS = [r for r in registry.load().values() if r.level == "MUST"][:14]
SHOULD = next(r for r in registry.load().values() if r.level == "SHOULD")
RUNNER = sum(r.component == "runner" for r in registry.load().values())


def run_of(outcomes: list[str], expected: dict[str, str] | None = None,
           should: str = PASSED, stale: list[str] | None = None) -> Run:
    """A run whose MUSTs came to `outcomes` and one SHOULD to `should`, judged as
    `agent-tck run` judges it (`verdicts.conformant`)."""
    folded = [ReqVerdict(r, v) for r, v in zip(MUSTS, outcomes, strict=False)]
    folded.append(ReqVerdict(SHOULD, should))
    excused = expected or {}
    ok = verdicts.conformant(folded, expected=excused) and not stale
    info = ImplInfo("wrapper", "python", "1.0", ("agent",), ("claude",))
    return Run(info, [], folded, ok, excused, stale or [])


def shown(run: Run, partial: bool = False) -> tuple[str, str]:
    document = json.loads(badge.render(run, partial))
    jsonschema.validate(document, ENDPOINT)
    assert document["label"] == "agent-tck" and document["color"] in NAMED_COLORS
    return document["message"], document["color"]


def test_a_conformant_run_is_green_with_passed_of_judged() -> None:
    assert shown(run_of([PASSED] * 14)) == ("conformant · 15/15", "green")
    # A SHOULD failed: still conformant (without --strict), and the count shows it.
    assert shown(run_of([PASSED] * 14, should=FAILED)) == ("conformant · 14/15", "green")
    # Not applicable and not run are not judged: they count on neither side.
    assert shown(run_of([PASSED] * 12 + [NA, NOT_RUN])) == ("conformant · 13/13", "green")


def test_failures_a_baseline_excuses_are_yellow_and_counted_never_a_bare_conformant() -> None:
    excused = {MUSTS[0].id: "upstream bug", MUSTS[1].id: "not yet"}
    run = run_of([FAILED, ERRORED] + [PASSED] * 12, expected=excused)
    assert run.conformant
    assert shown(run) == ("conformant · 2 known failures", "yellow")
    one = run_of([FAILED] + [PASSED] * 13, expected={MUSTS[0].id: "upstream bug"})
    assert shown(one) == ("conformant · 1 known failure", "yellow")


def test_a_run_that_is_not_conformant_is_red_with_its_failures_counted() -> None:
    assert shown(run_of([FAILED] * 12 + [PASSED] * 2)) == ("not conformant · 12 failed", "red")
    mixed = run_of([FAILED, ERRORED, ERRORED] + [PASSED] * 11, should=FAILED)
    assert shown(mixed) == ("not conformant · 2 failed, 2 errored", "red")
    # An excused failure is not counted among those that make the run fail.
    excused = run_of([FAILED, FAILED] + [PASSED] * 12, expected={MUSTS[0].id: "known"})
    assert shown(excused) == ("not conformant · 1 failed", "red")


def test_a_run_not_conformant_without_a_failure_says_why() -> None:
    stale = run_of([PASSED] * 14, expected={MUSTS[0].id: "was failing"}, stale=[MUSTS[0].id])
    assert shown(stale) == ("not conformant · 1 stale baseline entry", "red")
    nothing = run_of([NA] * 14, should=NA)
    assert shown(nothing) == ("not conformant · nothing judged", "red")
    shoulds_only = run_of([NA] * 14, should=PASSED)
    assert shown(shoulds_only) == ("not conformant · no MUST judged", "red")


def test_a_partial_run_says_so_first() -> None:
    assert shown(run_of([PASSED] * 14), partial=True) == ("partial · conformant · 15/15",
                                                         "green")
    assert shown(run_of([FAILED] + [PASSED] * 13), partial=True) == (
        "partial · not conformant · 1 failed", "red")


@pytest.mark.timeout(300)
def test_a_real_run_writes_a_valid_endpoint_badge(tmp_path: Path) -> None:
    written = tmp_path / "badge.json"
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", "--component", "runner", "--badge", str(written)], out, err)
    assert code == 0, out.getvalue() + err.getvalue()
    document = json.loads(written.read_text(encoding="utf-8"))
    jsonschema.validate(document, ENDPOINT)
    assert document == {"schemaVersion": 1, "label": "agent-tck",
                        "message": f"partial · conformant · {RUNNER}/{RUNNER}", "color": "green"}
    assert not [p.name for p in tmp_path.iterdir() if p != written]  # no temporary file left
