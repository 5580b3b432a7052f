"""A run as Cucumber Messages: NDJSON, one envelope per line, for the Cucumber tools.

`agent-tck run --messages FILE` writes what Cucumber's own runners write (meta, source,
gherkinDocument and pickle for each feature run, then testRunStarted, and per scenario
testCase, testCaseStarted, testStepStarted/Finished for each step, testCaseFinished, and
testRunFinished), so that formatters, report viewers and test-management tools that read
Cucumber's message stream can read an agent-tck run. The documents and pickles are the
official Gherkin parser's. A scenario the suite runs once per backend (or per Examples row)
is one pickle per run, its name ending with the run's parameters. agent-tck has no step
definitions to publish; steps it never reached are SKIPPED. `success` is Cucumber's: no
scenario failed or errored (a failure the baseline expects, or a SHOULD failing without
--strict, still makes it false). Times: each scenario's measured duration, shared evenly among
its steps, laid end to end from the run's start.
"""

from __future__ import annotations

import json
import platform
import re
import time
from collections.abc import Iterator
from typing import Any

from agent_tck.kit import reports, verdicts
from agent_tck.kit.gherkin import parse_document
from agent_tck.kit.paths import PACKAGE
from agent_tck.kit.text import json_written

PROTOCOL_VERSION = "27.0.0"
STATUS = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED"}
Envelope = dict[str, Any]


def render(run: reports.Run) -> str:
    """The run's messages, one JSON object per line, in UTF-8 (as Cucumber writes them); the
    evidence they quote made inert (kit/text.py)."""
    return json_written("".join(json.dumps(envelope, ensure_ascii=False) + "\n"
                                for envelope in envelopes(run)))


def envelopes(run: reports.Run) -> Iterator[Envelope]:
    from gherkin.stream.id_generator import IdGenerator

    ids = IdGenerator()
    ran = [r for r in run.scenarios if r.verdict != verdicts.NOT_RUN and r.where]
    yield {"meta": _meta(run)}
    pickles: dict[str, list[dict[str, Any]]] = {}
    for uri in dict.fromkeys(r.where.rsplit(":", 1)[0] for r in ran):
        source = (PACKAGE / uri).read_text(encoding="utf-8")
        document, compiled = _parse(uri, source, ids)
        yield {"source": {"uri": uri, "data": source,
                          "mediaType": "text/x.cucumber.gherkin+plain"}}
        yield {"gherkinDocument": document}
        pickles[uri] = compiled
    clock = _Clock(time.time() - sum(r.duration for r in ran))
    cases = [(result, _pickle(result, pickles, ids)) for result in ran]
    for _, pickle in cases:
        yield {"pickle": pickle}
    yield {"testRunStarted": {"timestamp": clock.now()}}
    for result, pickle in cases:
        yield from _test_case(result, pickle, ids, clock)
    # A scenario that errored before its first step (a fixture's error) has no place in a
    # feature file and so no pickle, but the run that had it is no success.
    clean = not any(r.verdict in (verdicts.FAILED, verdicts.ERRORED) for r in run.scenarios)
    yield {"testRunFinished": {"success": clean, "timestamp": clock.now()}}


def _meta(run: reports.Run) -> dict[str, Any]:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "implementation": {"name": "agent-tck", "version": run.impl.version},
        "runtime": {"name": platform.python_implementation(), "version": platform.python_version()},
        "os": {"name": platform.system(), "version": platform.release()},
        "cpu": {"name": platform.machine()},
    }


def _parse(uri: str, source: str, ids: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The Gherkin document and its pickles, each pickle told its scenario's line."""
    from gherkin.pickles.compiler import Compiler

    with_uri: Any = {**parse_document(source, uri, ids), "uri": uri}
    document: dict[str, Any] = dict(with_uri)
    scenarios = list(_scenarios(document["feature"]["children"]))
    lines = {scenario["id"]: scenario["location"]["line"] for scenario in scenarios}
    rows = {row["id"]: "-".join(cell["value"] for cell in row["cells"])
            for scenario in scenarios for examples in scenario.get("examples", ())
            for row in examples.get("tableBody", ())}
    pickles: list[dict[str, Any]] = [dict(p) for p in Compiler(ids).compile(with_uri)]
    for pickle in pickles:
        pickle["_line"] = lines.get(pickle["astNodeIds"][0], 0)
        pickle["_row"] = rows.get(pickle["astNodeIds"][-1], "")
    return document, pickles


def _scenarios(children: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every scenario, those inside rules too."""
    for child in children:
        if "scenario" in child:
            yield child["scenario"]
        elif "rule" in child:
            yield from _scenarios(child["rule"]["children"])


def _pickle(result: verdicts.ScenarioResult, pickles: dict[str, list[dict[str, Any]]],
            ids: Any) -> dict[str, Any]:
    """A pickle of its own for `result`: the compiled one whose steps it ran, renamed with
    the run's parameters (the backend of a run per backend) and given a fresh id."""
    uri, line = result.where.rsplit(":", 1)
    texts = [text for _, text, _ in result.steps]
    candidates = [p for p in pickles[uri] if p["_line"] == int(line)] or pickles[uri]
    same = [p for p in candidates if [s["text"] for s in p["steps"]] == texts] or candidates
    # The rows of an Outline run the same step texts: the row is the one pytest-bdd named the
    # run by (its values joined by "-", in the run's parameters; the longest, if one row's
    # values are part of another's).
    params = re.search(r"\[(.*)\]$", result.name)
    named = [p for p in same if p["_row"] and params and p["_row"] in params.group(1)]
    chosen = max(named, key=lambda p: len(p["_row"])) if named else same[0]
    pickle = json.loads(json.dumps({k: v for k, v in chosen.items() if k not in ("_line", "_row")}))
    pickle["id"] = ids.get_next_id()
    if params:
        pickle["name"] = f"{pickle['name']} [{params.group(1)}]"
    for step in pickle["steps"]:
        step["id"] = ids.get_next_id()
    return dict(pickle)


def _test_case(result: verdicts.ScenarioResult, pickle: dict[str, Any], ids: Any,
               clock: _Clock) -> Iterator[Envelope]:
    case_id, started_id = ids.get_next_id(), ids.get_next_id()
    steps = [{"id": ids.get_next_id(), "pickleStepId": s["id"], "stepDefinitionIds": [],
              "stepMatchArgumentsLists": []} for s in pickle["steps"]]
    yield {"testCase": {"id": case_id, "pickleId": pickle["id"], "testSteps": steps}}
    yield {"testCaseStarted": {"id": started_id, "testCaseId": case_id, "attempt": 0,
                               "timestamp": clock.now()}}
    outcomes = [outcome for _, _, outcome in result.steps]
    share = result.duration / max(len(steps), 1)
    for index, step in enumerate(steps):
        yield {"testStepStarted": {"testCaseStartedId": started_id, "testStepId": step["id"],
                                   "timestamp": clock.now()}}
        status = STATUS.get(outcomes[index], "SKIPPED") if index < len(outcomes) else "SKIPPED"
        step_result: dict[str, Any] = {"status": status, "duration": _duration(share)}
        if status == "FAILED":
            step_result["message"] = result.evidence or result.error
        clock.advance(share)
        yield {"testStepFinished": {"testCaseStartedId": started_id, "testStepId": step["id"],
                                    "testStepResult": step_result, "timestamp": clock.now()}}
    yield {"testCaseFinished": {"testCaseStartedId": started_id, "timestamp": clock.now(),
                                "willBeRetried": False}}


def _duration(seconds: float) -> dict[str, int]:
    whole = int(seconds)
    return {"seconds": whole, "nanos": int((seconds - whole) * 1e9)}


class _Clock:
    """Timestamps laid end to end from `start` (seconds since the epoch)."""

    def __init__(self, start: float) -> None:
        self.at = start

    def advance(self, seconds: float) -> None:
        self.at += seconds

    def now(self) -> dict[str, int]:
        return _duration(self.at)

