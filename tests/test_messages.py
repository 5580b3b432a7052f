"""`agent-tck run --messages FILE`: Cucumber Messages that Cucumber's own library reads."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from cucumber_messages import Envelope, message_converter

from agent_tck.kit import registry, reports
from agent_tck.kit.cli import main
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.messages import render
from agent_tck.kit.verdicts import ERRORED, ReqVerdict, ScenarioResult

Json = dict[str, Any]


def messages(tmp_path: Path, *argv: str) -> tuple[int, list[Json]]:
    path = tmp_path / "run.ndjson"
    code = main(["run", "--messages", str(path), *argv], io.StringIO(), io.StringIO())
    return code, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def of(kind: str, envelopes: list[Json]) -> list[Json]:
    return [e[kind] for e in envelopes if kind in e]


@pytest.fixture(scope="module")
def passing(tmp_path_factory: pytest.TempPathFactory) -> list[Json]:
    code, envelopes = messages(tmp_path_factory.mktemp("passing"), "--component", "backends")
    assert code == 0
    return envelopes


def test_every_envelope_is_one_cucumber_reads_back_unchanged(passing: list[Json]) -> None:
    """Cucumber's own messages library: every key known, every required field there."""
    for envelope in passing:
        assert message_converter.to_dict(message_converter.from_dict(envelope, Envelope)) == \
            envelope


def test_the_stream_is_in_cucumbers_order_and_its_references_hold(passing: list[Json]) -> None:
    kinds = [next(iter(e)) for e in passing]
    assert kinds[0] == "meta" and kinds[-1] == "testRunFinished"
    assert kinds.index("testRunStarted") > max(i for i, k in enumerate(kinds) if k == "pickle")
    assert of("testRunFinished", passing)[0]["success"] is True
    nodes = json.dumps(of("gherkinDocument", passing))
    pickles = {p["id"]: p for p in of("pickle", passing)}
    assert all(f'"id": "{p["astNodeIds"][0]}"' in nodes for p in pickles.values())
    cases = of("testCase", passing)
    assert sorted(c["pickleId"] for c in cases) == sorted(pickles)  # one case per pickle
    step_ids = {s["id"] for c in cases for s in c["testSteps"]}
    finished = of("testStepFinished", passing)
    assert {f["testStepId"] for f in finished} == step_ids
    assert {f["testStepResult"]["status"] for f in finished} == {"PASSED"}


def test_each_scenario_run_is_its_own_pickle(passing: list[Json]) -> None:
    """Scenarios of one feature file often run the same step texts (their doc strings
    differ): each run is given the pickle of the scenario written where it ran, so no two
    runs share a name."""
    names = [p["name"] for p in of("pickle", passing)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_a_scenario_that_errored_before_its_first_step_fails_the_run() -> None:
    """A fixture's error stops a scenario before its first step: it has no place in a
    feature file, so no pickle, and the run is still no success."""
    req = next(iter(registry.load().values()))
    errored = ScenarioResult("node", "test_x", "agent", (req.id,), ERRORED,
                             evidence="the driver would not start", error="RuntimeError")
    info = ImplInfo("wrapper", "go", "1.0", ("agent",), ("claude",))
    run = reports.Run(info, [errored], [ReqVerdict(req, ERRORED, [errored])], False, {}, [])
    envelopes = [json.loads(line) for line in render(run).splitlines()]
    assert of("pickle", envelopes) == []
    assert of("testRunFinished", envelopes)[0]["success"] is False


def _seconds(timestamp: Json) -> float:
    assert 0 <= timestamp["nanos"] < 10**9
    return float(timestamp["seconds"]) + timestamp["nanos"] / 1e9


def test_the_run_is_laid_out_in_the_past_first_attempts_only(passing: list[Json]) -> None:
    """Times run forward from the run's start, which lies as far in the past as its scenarios
    took; every test case is a first attempt that will not be retried; every id is unique."""
    stamps = [_seconds(body["timestamp"]) for e in passing for body in e.values()
              if isinstance(body, dict) and "timestamp" in body]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0]
    assert stamps[-1] <= time.time()  # it ends when it was written, not after
    assert {s["attempt"] for s in of("testCaseStarted", passing)} == {0}
    assert {f["willBeRetried"] for f in of("testCaseFinished", passing)} == {False}
    ids = [step["id"] for p in of("pickle", passing) for step in p["steps"]]
    ids += [p["id"] for p in of("pickle", passing)]
    assert len(ids) == len(set(ids))


def test_a_run_per_backend_is_a_pickle_of_its_own(passing: list[Json]) -> None:
    names = [p["name"] for p in of("pickle", passing)]
    lines = [n for n in names if n.startswith("Codex lines that carry no event [")]
    assert len(lines) == len(set(lines)) == 6  # one per Examples row, each named by it
    assert not any(n.startswith("Codex lines that carry no event [[") for n in lines)
    rows = [p for p in of("pickle", passing) if p["name"] in lines]
    steps = {json.dumps(p["steps"] and [(s["text"], s.get("argument")) for s in p["steps"]])
             for p in rows}
    assert len(steps) == 6  # each the steps of its own row, with the row's values


def _ids(value: Any) -> list[str]:
    """Every `id` in a message, however deep."""
    if isinstance(value, dict):
        own = [value["id"]] if "id" in value else []
        return own + [i for v in value.values() for i in _ids(v)]
    return [i for v in value for i in _ids(v)] if isinstance(value, list) else []


def test_the_runs_of_one_scenario_for_each_backend_share_no_id(tmp_path: Path) -> None:
    """A scenario run once per backend is three pickles from one compiled scenario: each
    pickle, step and test case has an id of its own (a reader keys its results by them)."""
    code, envelopes = messages(tmp_path, "--component", "agent", "-k",
                                "configured_working_directory or no_working_directory")
    assert code == 0
    title = "Subprocess runs in configured working directory."
    assert sorted(p["name"] for p in of("pickle", envelopes) if p["name"].startswith(title)) == [
        f"{title} [{backend}]" for backend in ("claude", "codex", "gemini")]
    made = [i for kind in ("pickle", "testCase", "testCaseStarted")
            for body in of(kind, envelopes) for i in _ids(body)]
    assert len(made) == len(set(made)) > 3 * len(of("pickle", envelopes))


def test_a_failed_step_is_failed_with_its_evidence_and_the_run_unsuccessful(
        tmp_path: Path) -> None:
    """A SHOULD fails (AG-D5.1: a prompt that looks like a flag) beside MUST scenarios that
    pass (RP-5.1's): the run is conformant, yet Cucumber's run is no success."""
    code, envelopes = messages(tmp_path, "--impl",
                               "python:tests.miniatures.agent:PromptAsArgument",
                               "--component", "agent", "-k",
                               "flag or configured_working_directory or no_working_directory")
    assert code == 0
    assert of("testRunFinished", envelopes)[0]["success"] is False
    failed = [f["testStepResult"] for f in of("testStepFinished", envelopes)
              if f["testStepResult"]["status"] == "FAILED"]
    assert failed and all("the prompt is among the options" in r["message"] for r in failed)
    by_case: dict[str, list[str]] = {}
    for finished in of("testStepFinished", envelopes):
        by_case.setdefault(finished["testCaseStartedId"], []).append(
            finished["testStepResult"]["status"])
    for steps in by_case.values():  # the steps after a failed one are skipped, not run
        first = steps.index("FAILED") if "FAILED" in steps else len(steps)
        assert set(steps[:first]) <= {"PASSED"} and set(steps[first + 1:]) <= {"SKIPPED"}, steps
    assert {s for steps in by_case.values() for s in steps} == {"PASSED", "FAILED", "SKIPPED"}
