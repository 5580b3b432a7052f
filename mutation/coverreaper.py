"""The reaper under coverage, for the scenario maps: `python -I coverreaper.py RCFILE CONTEXT
REAPER_FILE REAPER_ARGS...`.

A process that ends by a signal saves no coverage. The reaper ends that way on purpose: when
the CLI was killed by a signal, `reaper.exit_as` kills the reaper with the same one (by
`os.kill` of its own pid), so that its own parent sees the CLI's end. Under `coverage run`
every scenario whose CLI was killed (the timeouts, a CLI killed by SIGKILL) lost the whole of
its reaper's lines, and a mutant of the reaper's signal relay was judged by the scenarios that
never relay one. Here what the reaper ran is saved when it signals itself (tracing goes on,
in case the signal does not end it); `os._exit` is saved by the rc file's `patch = _exit`, and
a normal end here. Only `os.kill` of its own pid is watched: that is how `exit_as` ends it.
The forked child that execs the CLI saves before its exec (the rc file's `patch = execv`):
until 2026-11-27 it saved only when the exec failed, so its lines (the CLI's signal mask, its
process group) were judged by the two scenarios whose CLI cannot start, and unblocking the
CLI's signals could be deleted unseen.
"""

from __future__ import annotations

import os
import runpy
import sys

import coverage


def main(argv: list[str]) -> None:
    rcfile, context, reaper_file, *rest = argv
    cov = coverage.Coverage(config_file=rcfile, context=context)
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid == os.getpid():
            cov.save()
        real_kill(pid, sig)

    os.kill = kill
    sys.argv = [reaper_file, *rest]
    cov.start()
    try:
        runpy.run_path(reaper_file, run_name="__main__")
    finally:
        cov.stop()
        cov.save()


if __name__ == "__main__":
    main(sys.argv[1:])
