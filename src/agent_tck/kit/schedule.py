"""How `agent-tck run -n N` hands the scenarios to its workers: the longest first.

Most of a run's time is scenarios waiting (a real CLI, a served DDS agent, a deadline that must
pass), not computing. pytest-xdist's work stealing gives each worker a contiguous slice of the
collection, so the long scenarios of one feature land on one worker, and the longest can
start late and end the run alone while the other workers are idle. Here the scenarios are
dealt longest first, each to the worker with the least expected time so far (the classic
longest-processing-time rule), from the times `durations.json` records of a run against the
reference; idle workers steal the rest, as under work stealing. The report does not depend
on this: verdicts are ordered by collection, which is unchanged. A time recorded for a
scenario that no longer exists, or none for a new one, costs speed only.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import WorkStealingScheduling

DURATIONS = Path(__file__).with_name("durations.json")


@cache
def recorded(path: Path = DURATIONS) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds a scenario took (those of a second or more) and a module's mean of the others,
    by node id and by module file name (`benchmarks/durations.py` writes them)."""
    data: dict[str, dict[str, float]] = json.loads(path.read_text(encoding="utf-8"))
    return data["scenarios"], data["modules"]


def module_of(nodeid: str) -> str:
    """The file name of a scenario's module: `test_agent.py` for `steps/suite/test_agent.py::x`."""
    return nodeid.partition("::")[0].rpartition("/")[2]


def expected(nodeid: str, path: Path = DURATIONS) -> float:
    scenarios, modules = recorded(path)
    return scenarios.get(nodeid, modules.get(module_of(nodeid), 0.0))


def deal(collection: list[str], workers: int, path: Path = DURATIONS) -> list[list[int]]:
    """The indexes of `collection` for each of `workers`, longest expected first (by the
    times `path` records), each to the worker whose hand is expected to take least so far
    (fewest scenarios on a tie)."""
    times = [expected(nodeid, path) for nodeid in collection]
    return lpt(list(range(len(collection))), times, workers)


def lpt(indexes: list[int], times: list[float], workers: int) -> list[list[int]]:
    """`indexes` dealt longest first by `times` (indexed as they are), each to the worker
    expected to be free first (fewest on a tie)."""
    hands: list[list[int]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for index in sorted(indexes, key=lambda i: -times[i]):
        worker = min(range(workers), key=lambda w: (loads[w], len(hands[w])))
        hands[worker].append(index)
        loads[worker] += times[index]
    return hands


class LongestFirst(WorkStealingScheduling):  # type: ignore[misc]
    """Work stealing, with the first slices dealt by `deal`, by the times `durations`
    records."""

    dealt = False
    durations = DURATIONS

    def check_schedule(self) -> None:
        if not self.dealt and self.pending and self.collection:
            self.dealt = True
            nodes = [node for node in self.node2pending if not node.shutting_down]
            hands = self.hands(len(nodes))
            for node, hand in zip(nodes, hands, strict=True):
                if hand:
                    self.node2pending[node].extend(hand)
                    node.send_runtest_some(hand)
            self.pending[:] = []
            return
        super().check_schedule()

    def hands(self, workers: int) -> list[list[int]]:
        """The first slice of each of `workers`: `deal`'s."""
        return deal(self.collection, workers, self.durations)


class Scheduler:
    """A pytest plugin for the run's controller: `scheduling` (`LongestFirst`) where work
    stealing was asked, by the times `durations` records (the project's own tests have theirs,
    and their own dealing)."""

    def __init__(self, durations: Path = DURATIONS,
                 scheduling: type[LongestFirst] = LongestFirst) -> None:
        self.durations = durations
        self.scheduling = scheduling

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "worksteal":
            return None
        scheduler = self.scheduling(config, log)
        scheduler.durations = self.durations
        return scheduler
