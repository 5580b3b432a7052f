"""Per-request overhead and timeout precision of the reference agent, with the fake harness.

Overhead: a request whose harness prints one line and exits, against spawning and reaping the
same harness bare (`subprocess.run`). Precision: the agent's own deadline against the moment
SIGTERM reaches the harness (the harness stamps it) and the end of the grace period against
the moment the process the agent started ends (a pidfd watched from a thread): the reaper,
which exits once it has killed and reaped the harness.
"""

from __future__ import annotations

import functools
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from agent_tck.doubles.harness.script import Script
from agent_tck.reference.agent import create_agent
from agent_tck.reference.supervisor import Supervisor, run_process
from benchmarks.report import Row, median, ms, p95
from benchmarks.rig import harness, one_line

PROMPT = "What is 2 + 2?"


def overhead(runs: int) -> Row:
    with harness(one_line("claude")) as rig:
        agent = create_agent(backend="claude", env={"PATH": rig.path()})
        argv = [str(rig.bin / "claude")]
        agent_times: list[float] = []
        bare_times: list[float] = []
        for _ in range(runs):  # interleaved, so both see the same load
            agent_times.append(_timed(lambda: agent.process(PROMPT)))
            bare_times.append(
                _timed(lambda: subprocess.run(argv, input=PROMPT.encode(), capture_output=True))
            )
    a, b = median(agent_times), median(bare_times)
    return Row(
        f"per-request overhead: median request vs bare spawn+reap ({runs} each)",
        ms(a),
        ms(b),
        f"{(a - b) * 1000:+.1f} ms",
        "<= +5 ms",
        a - b <= 0.005,
    )


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


class _Marks:
    """Deadlines the agent set and when each harness process died, by pid."""

    def __init__(self) -> None:
        self.deadline: dict[int, float] = {}
        self.died: dict[int, float] = {}
        self.watchers: list[threading.Thread] = []

    def supervisor(self) -> type[Supervisor]:
        """The agent's supervisor, noting its deadline and watching the pid it supervises."""
        marks = self

        class Marked(Supervisor):
            def __init__(
                self, proc: subprocess.Popen[bytes], timeout: float, grace: float, run_id: str
            ) -> None:
                super().__init__(proc, timeout, grace, run_id)
                marks.deadline[proc.pid] = self.deadline
                watcher = threading.Thread(target=marks._watch, args=(proc.pid,), daemon=True)
                marks.watchers.append(watcher)
                watcher.start()

        return Marked

    def _watch(self, pid: int) -> None:
        fd = os.pidfd_open(pid)
        try:
            select.select([fd], [], [])
            self.died[pid] = time.monotonic()
        finally:
            os.close(fd)


def precision(runs: int, timeout: float = 0.3, grace: float = 0.1) -> list[Row]:
    script = Script("claude").add("on_term", "ignore").add("sleep", 60)
    marks = _Marks()
    with harness(script) as rig:
        agent = create_agent(
            backend="claude", env={"PATH": rig.path()}, timeout=timeout, grace_period=grace
        )
        agent.run_process = functools.partial(run_process, supervisor=marks.supervisor())
        for _ in range(runs):
            assert agent.process(PROMPT)["status"] == 3
        record = rig.record()
    # The agent supervises the reaper (reference/reaper.py), the harness's parent: a harness
    # start names it as its ppid.
    harness_of = {e["ppid"]: e["pid"] for e in record if e["what"] == "start"}
    terms = {e["pid"]: e["t"] for e in record if e["what"] == "signal"}
    noted_by = time.monotonic() + 10.0  # each reaper was reaped: its watcher notes it soon
    for watcher in marks.watchers:
        watcher.join(timeout=max(0.0, noted_by - time.monotonic()))
    unnoted = [pid for pid in marks.deadline if harness_of.get(pid) not in terms]
    if unnoted:
        raise LookupError(
            f"no SIGTERM noted by the harness of reaper {unnoted} before its grace of {grace:g} s "
            f"ended: harnesses started, by reaper: {harness_of}; harnesses that noted a "
            f"signal: {sorted(terms)}")
    if alive := [pid for pid in marks.deadline if pid not in marks.died]:
        raise LookupError(f"reapers {alive}: no watcher noted their end within 10 s of the "
                          "last request's answer")
    term = [terms[harness_of[pid]] - deadline for pid, deadline in marks.deadline.items()]
    kill = [marks.died[pid] - d - grace for pid, d in marks.deadline.items()]
    return [
        _latency("deadline -> SIGTERM at the harness", term, runs),
        _latency("end of grace -> harness killed and its reaper gone", kill, runs),
    ]


def _latency(what: str, samples: list[float], runs: int) -> Row:
    worst = p95(samples)
    return Row(
        f"timeout precision: {what} (p95 of {runs})",
        ms(worst),
        f"median {ms(median(samples))}",
        "",
        "p95 <= 50 ms",
        worst <= 0.05,
    )
