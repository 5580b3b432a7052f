"""How `agent-tck run -n N` hands the scenarios to its workers: the ones that wait first.

Most of a run's time is scenarios waiting (a real CLI, a served DDS agent, a deadline that must
pass), not computing. pytest-xdist's work stealing gives each worker a contiguous slice of the
collection, so one worker's slice held every real-CLI scenario, and the longest of them (the
Gemini CLI's 30-second stall) started late and ended the run alone, 20 s after the others.
Here each worker's slice starts with its share of the waiting scenarios, dealt in turn; the
rest follow in their own order, and idle workers steal as before. The report does not depend
on this: verdicts are ordered by collection, which is unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import WorkStealingScheduling

# The suite's modules whose scenarios wait, the longest-waiting first (docs/benchmarks.md:
# real-cli 3.6 s a scenario, transport 1.7 s, agent 0.2 s; the others about 0.02 s).
WAITING = ("test_real_cli.py", "test_transport.py", "test_agent.py")


def deal(collection: list[str], workers: int) -> list[list[int]]:
    """The indexes of `collection` for each of `workers`: the waiting scenarios dealt in turn,
    then the rest in contiguous runs, so that every worker has as many as the next (one more
    for the first few)."""
    def rank(index: int) -> int:
        module = collection[index].partition("::")[0].rpartition("/")[2]
        return WAITING.index(module) if module in WAITING else len(WAITING)

    waiting = sorted((i for i in range(len(collection)) if rank(i) < len(WAITING)), key=rank)
    hands: list[list[int]] = [waiting[w::workers] for w in range(workers)]
    rest = [i for i in range(len(collection)) if rank(i) == len(WAITING)]
    size, extra = divmod(len(collection), workers)
    taken = 0
    for w, hand in enumerate(hands):
        more = max(0, size + (w < extra) - len(hand))
        hand += rest[taken:taken + more]
        taken += more
    hands[-1] += rest[taken:]  # nothing, unless a hand held more waiting ones than its share
    return hands


class WaitingFirst(WorkStealingScheduling):  # type: ignore[misc]
    """Work stealing, with the first slices dealt by `deal`."""

    dealt = False

    def check_schedule(self) -> None:
        if not self.dealt and self.pending and self.collection:
            self.dealt = True
            nodes = [node for node in self.node2pending if not node.shutting_down]
            for node, hand in zip(nodes, deal(self.collection, len(nodes)), strict=True):
                if hand:
                    self.node2pending[node].extend(hand)
                    node.send_runtest_some(hand)
            self.pending[:] = []
            return
        super().check_schedule()


class Scheduler:
    """A pytest plugin for the run's controller: `WaitingFirst` where work stealing was asked."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return WaitingFirst(config, log) if config.getvalue("dist") == "worksteal" else None
