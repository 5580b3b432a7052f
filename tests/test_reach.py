"""The reach of a broken agent's defect: places in reference/ and the scenarios that run them."""

from __future__ import annotations

import inspect
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tck.reference import supervisor
from tests.miniatures import agent as miniatures
from tests.miniatures import pipeline as pipeline_miniatures
from tests.support import reach

ENFORCE = "reference/supervisor.py:Supervisor._enforce"


def _line_of(text: str) -> int:
    source, first = inspect.getsourcelines(supervisor.Supervisor._enforce)
    return first + next(n for n, line in enumerate(source) if text in line)


def test_a_place_is_a_functions_lines_or_those_of_them_that_hold_a_text() -> None:
    where, whole = reach.lines_of(ENFORCE)
    source, first = inspect.getsourcelines(supervisor.Supervisor._enforce)
    assert (where, whole) == ("reference/supervisor.py", set(range(first, first + len(source))))
    assert reach.lines_of(f"{ENFORCE}:self.timed_out = True")[1] == {
        _line_of("self.timed_out = True")}


@pytest.mark.parametrize(("place", "said"), [
    ("reference/supervisor.py:Supervisor._nowhere", "_nowhere is not defined there"),
    (f"{ENFORCE}:no such text", "no line of Supervisor._enforce contains 'no such text'"),
])
def test_a_place_that_names_nothing_is_an_error_that_says_which(place: str, said: str) -> None:
    with pytest.raises(LookupError, match=said):
        reach.lines_of(place)


def test_the_scenarios_of_a_reach_are_those_that_ran_its_lines_in_the_agent_or_the_reaper(
) -> None:
    line = str(_line_of("self.timed_out = True"))
    found = {"files": {"reference/supervisor.py": {line: ["test_late", ""], "1": ["test_x"]}},
             "spawned": {"reference/supervisor.py": {line: ["test_reaped"]}}}
    places = (f"{ENFORCE}:self.timed_out = True",)
    assert reach.scenarios(places, found) == {"test_late", "test_reaped"}
    assert reach.keyword(places, found) == "test_late or test_reaped"
    with pytest.raises(LookupError, match="no scenario of the agent component runs the reach"):
        reach.keyword(places, {"files": {}, "spawned": {}})


@pytest.mark.parametrize("name", [n for n in dir(miniatures)
                                  if getattr(getattr(miniatures, n), "reach", ())])
def test_every_broken_agents_reach_names_lines_of_the_reference(name: str) -> None:
    """Where the reference changes under a reach, this fails before a broken agent is judged
    on the wrong scenarios."""
    for place in getattr(miniatures, name).reach:
        assert reach.lines_of(place)[1], place


def test_the_map_is_made_once_per_session_and_kept_when_a_reference_scenario_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit 1 with a map written: a scenario of the reference failed in it (a flake); each
    broken agent still judges on it. No map, or another exit code, is an error naming it.
    The agent component's map is made by its shards, each once, and merged."""
    made: list[list[str]] = []

    def run(argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        made.append(argv)
        failed = argv[-1] == "2/4"  # one shard's scenario failed: the map did not pass
        line = {"reference/agent.py": {"7": [f"test_of_shard_{argv[-1][0]}"]}}
        Path(argv[4]).write_text(json.dumps({"passed": not failed, "files": line,
                                             "spawned": {}}))
        return subprocess.CompletedProcess(argv, int(failed), "1 failed" * failed, "")

    monkeypatch.setattr(reach.subprocess, "run", run)
    found = reach.shared_map(tmp_path)
    assert found["passed"] is False
    assert found["files"] == {"reference/agent.py": {"7": [f"test_of_shard_{k}"
                                                           for k in "1234"]}}
    assert reach.shared_map(tmp_path) == found
    assert sorted(argv[-1] for argv in made) == ["1/4", "2/4", "3/4", "4/4"]
    monkeypatch.setattr(reach.subprocess, "run", lambda argv, **kw: subprocess.CompletedProcess(
        argv, 2, "", "usage: ..."))
    (tmp_path / "other").mkdir()
    with pytest.raises(RuntimeError, match=r"the agent component's map failed \(2\)"):
        reach.shared_map(tmp_path / "other")


def test_a_text_on_a_statements_later_line_selects_what_runs_the_statement() -> None:
    """Coverage records a statement written over several lines by its first, as the mutation
    tool reads it: the refusal's message, on the line after its `raise`."""
    place = "reference/limits.py:seconds:got {value!r}"
    (later,) = reach.lines_of(place)[1]
    found = {"files": {"reference/limits.py": {str(later - 1): ["test_refused"]}},
             "spawned": {}}
    assert reach.scenarios((place,), found) == {"test_refused"}


def test_the_scenarios_of_a_function_are_those_that_ran_its_lines() -> None:
    """A pipeline miniature's reach is functions (tests/miniatures/pipeline.py): the
    scenarios that ran any line of one of them, wherever in it."""
    source, first = inspect.getsourcelines(supervisor.Supervisor._enforce)
    last = str(first + len(source) - 1)
    found = {"files": {"reference/supervisor.py": {last: ["test_end", ""], "1": ["test_x"]}},
             "spawned": {}}
    assert reach.functions_scenarios((supervisor.Supervisor._enforce,), found) == {"test_end"}
    assert reach.functions_scenarios((supervisor.Supervisor._enforce,), {"files": {}}) == set()


def test_every_pipeline_miniature_has_a_reach_in_the_reference() -> None:
    """Each is judged on the scenarios that call functions of `reference/`: one without
    would be judged on no scenario, or on functions the suite never calls."""
    for miniature in pipeline_miniatures.EXPECTED:
        functions = pipeline_miniatures.reach(miniature)
        assert functions, miniature.__name__
        for function in functions:
            where = inspect.getsourcefile(function) or ""
            assert "/reference/" in where, (miniature.__name__, function, where)
