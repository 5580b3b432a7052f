"""The reach of a broken agent's defect: places in reference/ and the scenarios that run them."""

from __future__ import annotations

import inspect

import pytest

from agent_tck.reference import supervisor
from tests.miniatures import agent as miniatures
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
