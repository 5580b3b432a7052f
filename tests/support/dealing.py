"""How `python -m tests` deals its tests to the workers: the waiting tests apart.

Many of the longest tests mostly wait (an SDK's fixed delays, served DDS agents, a deadline
that must pass) and use little CPU; most of the others compute. Dealt longest first together
(kit/schedule.py), the waiting tests open every worker's hand, and the cores are left idle
while the computing tests queue behind them. Here the tests tests/durations.json
records as waiting (their CPU under `WAITING` of their wall time) are dealt longest first to
some of the workers, as many as their share of the recorded time asks, and the rest to the
others, so that both kinds run from the start. Idle workers steal as before; a test with no
record is a computing one.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from agent_tck.kit.schedule import LongestFirst, expected, lpt

WAITING = 0.15  # CPU seconds per second of wall time below which a test mostly waits


@cache
def waiting(path: Path) -> frozenset[str]:
    """The tests `path` records as waiting: CPU under `WAITING` of their wall time."""
    data = json.loads(path.read_text(encoding="utf-8"))
    walls: dict[str, float] = data["scenarios"]
    cpu: dict[str, float] = data.get("cpu", {})
    return frozenset(t for t, s in cpu.items() if s < WAITING * walls.get(t, 0.0))


def deal(collection: list[str], workers: int, path: Path) -> list[list[int]]:
    """The indexes of `collection` for each of `workers`: the waiting tests to the first
    workers, as many as their share of the expected time (at least one, and one left for the
    rest while there are any), the others to the rest; each part longest first."""
    times = [expected(nodeid, path) for nodeid in collection]
    apart = waiting(path)
    slow = [i for i, nodeid in enumerate(collection) if nodeid in apart]
    rest = [i for i, nodeid in enumerate(collection) if nodeid not in apart]
    if not slow or not rest or workers < 2:
        return lpt(slow + rest, times, workers)
    share = sum(times[i] for i in slow) / (sum(times) or 1.0)
    first = min(max(round(workers * share), 1), workers - 1)
    return lpt(slow, times, first) + lpt(rest, times, workers - first)


class WaitingApart(LongestFirst):
    """Work stealing, with the first slices dealt by `deal`."""

    def hands(self, workers: int) -> list[list[int]]:
        return deal(self.collection, workers, self.durations)
