"""The reaper's lines, for the scenario maps: `python -I -S coverreaper.py DATA_DIR CONTEXT
REAPER_FILE REAPER_ARGS...`.

Runs REAPER_FILE as `__main__` with the standard library's line tracing on its frames alone,
and writes the lines it ran, as coverage records them (the line of each `line` event), to
DATA_DIR/reaper.PID.UNIQUE.json: {"context", "file", "lines"}, whole or not at all.
`mutation.scenarios` adds them to the map's `spawned` lines. It is not coverage itself:
importing coverage and writing its SQLite data in every reaper (one per request) would cost
most of a map's CPU, and a line tracer records the same line events for a fraction of it.

A process that ends by a signal saves nothing of its own accord. The reaper ends that way on
purpose: when the CLI was killed by a signal, `reaper.exit_as` kills the reaper with the same
one (by `os.kill` of its own pid), so that its own parent sees the CLI's end. Saved only at a
normal end, as `coverage run` saves, every scenario whose CLI was killed (the timeouts, a CLI
killed by SIGKILL) would lose the whole of its reaper's lines, and a mutant of the reaper's
signal relay would be judged by the scenarios that never relay one. So the lines are saved when
it signals itself (tracing goes on, in case the signal does not end it), before `os._exit`, and
at a normal end. The forked child that execs the CLI saves before its exec, not only when the
exec fails: otherwise its lines (the CLI's signal mask, its process group) would be judged
only by the scenarios whose CLI cannot start, and unblocking the CLI's signals could be
deleted unseen.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import uuid
from collections.abc import Callable
from types import FrameType
from typing import Any


def main(argv: list[str]) -> None:
    data, context, reaper_file, *rest = argv
    lines: set[int] = set()

    name = uuid.uuid4().hex  # a pid can be used again within a map's run

    def save() -> None:
        """Written to a file of its own, then renamed: a reaper killed while it writes leaves
        no half a record. A save that fails loses the record, never changes what the reaper
        does (its forked child's exec would report the error as the CLI's)."""
        record = {"context": context, "file": reaper_file, "lines": sorted(lines)}
        path = os.path.join(data, f"reaper.{os.getpid()}.{name}.json")
        try:
            with open(f"{path}.part", "w", encoding="utf-8") as out:
                json.dump(record, out)
            os.replace(f"{path}.part", path)
        except OSError:
            pass

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def traced(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == reaper_file else None

    _save_before(save)
    sys.argv = [reaper_file, *rest]
    sys.settrace(traced)
    try:
        runpy.run_path(reaper_file, run_name="__main__")
    finally:
        sys.settrace(None)
        save()


def _save_before(save: Callable[[], None]) -> None:
    """`save` before the ends that run no `finally`: os._exit, an exec (os.execv and
    os.execve, through which the other exec functions go), a signal to itself."""
    def saving(real: Callable[..., Any], when: Callable[..., bool] = lambda *_: True
               ) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            if when(*args):
                save()
            return real(*args)
        return call

    os._exit, os.execv, os.execve = saving(os._exit), saving(os.execv), saving(os.execve)
    os.kill = saving(os.kill, lambda pid, _sig: pid == os.getpid())


if __name__ == "__main__":
    main(sys.argv[1:])
