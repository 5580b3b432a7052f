"""Judges at work side by side, each in a copy of the checkout of its own: what `run` and
`check` share."""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TypeVar

from cosmic_ray.work_item import MutationSpec, WorkResult

from mutation.workers import Worker, make_copy, sandbox

TIMEOUT = 300.0  # a judge stuck this long has hung: the mutant counts as killed
MAX_JOBS = 16  # a judge's DDS pair, 100 + 2 x its slot (mutation.workers), and its slot of
# the project's tests' domains (tests/support/dds.py: sixteen), each its own

Item = TypeVar("Item")
Tries = tuple[tuple[str, ...], ...]  # the scenarios to try in turn (mutation.plan)
# What to judge: the mutant, the scenarios to try (mutation.plan), those to try first.
Task = tuple[MutationSpec, Tries, list[str]]


def judge_all(folder: Path, jobs: int, items: list[Item], task: Callable[[Item], Task],
              judged: Callable[[Item, WorkResult], None], timeout: float = TIMEOUT) -> None:
    """Judge each of `items`, `jobs` at a time, in the order given. `task` says what to judge
    for an item when a judge is free (so it can learn from the results so far); `judged`
    hears each result as it comes. A judge past `timeout` seconds counts its mutant killed.
    Interrupted (Ctrl-C, SIGTERM), the running judges end and
    the process exits 130."""
    jobs = min(jobs, len(items))
    if not jobs:
        return
    copies = folder / "workers"  # fresh: an interrupted session may have left a mutant
    shutil.rmtree(copies, ignore_errors=True)
    copies.mkdir(parents=True)
    isolated = sandbox()
    if not isolated:
        print("mutation: this machine allows no PID namespaces (unshare): judges run "
              "beside your other processes, which a mutant of the code that signals "
              "processes (reference/strays.py, reference/reaper.py) may reach",
              file=sys.stderr, flush=True)
    workers = [Worker(make_copy(copies), timeout, slot, isolated) for slot in range(jobs)]
    idle, pending = list(workers), list(items)
    running: dict[Future[WorkResult], tuple[Item, Worker]] = {}
    signal.signal(signal.SIGTERM, _interrupt)
    with ThreadPoolExecutor(jobs) as pool, _stopping(workers):
        while pending or running:
            while pending and idle:
                item = pending.pop(0)
                worker = idle.pop()
                # (the worker is replaced in `idle`, never changed, while it judges)
                running[pool.submit(worker.judge, *task(item))] = (item, worker)
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in finished:
                item, worker = running.pop(future)
                idle.append(worker)
                judged(item, future.result())


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def _stopping(workers: list[Worker]) -> Iterator[None]:
    """Interrupted (Ctrl-C, SIGTERM): the running judges end; their mutants stay pending."""
    try:
        yield
    except KeyboardInterrupt:
        for worker in workers:
            worker.stop()
        print("interrupted: the same command resumes", file=sys.stderr)
        raise SystemExit(130) from None
