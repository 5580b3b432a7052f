"""The reaper under coverage, for the scenario maps: `python coverreaper.py RCFILE CONTEXT
REAPER_FILE REAPER_ARGS...`.

`coverage run` saves what a process ran when it exits, and `patch = _exit` when it calls
`os._exit`; a process that ends by a signal saves nothing. The reaper ends that way on
purpose: when the CLI was killed by a signal, it kills itself with the same one, so that its
own parent sees the CLI's end. Under `coverage run` every scenario whose CLI was killed (the
timeouts, a CLI killed by SIGKILL) lost the whole of its reaper's lines, and a mutant of the
reaper's signal relay was judged by the scenarios that never relay one. Here the data is saved
before the reaper signals itself, and before it calls `os._exit`.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Any

import coverage


def main(argv: list[str]) -> None:
    rcfile, context, reaper_file, *rest = argv
    cov = coverage.Coverage(config_file=rcfile, context=context)
    real_kill, real_exit = os.kill, os._exit

    def save() -> None:
        cov.stop()
        cov.save()

    def kill(pid: int, sig: int) -> None:
        if pid == os.getpid():
            save()
        real_kill(pid, sig)

    def exit_now(code: int) -> Any:
        save()
        real_exit(code)

    os.kill, os._exit = kill, exit_now  # type: ignore[assignment]
    sys.argv = [reaper_file, *rest]
    cov.start()
    try:
        runpy.run_path(reaper_file, run_name="__main__")
    finally:
        save()


if __name__ == "__main__":
    main(sys.argv[1:])
