"""The project's own tests, as CI runs them: `python -m tests [PYTEST ARGS]`.

pytest on eight workers (pytest-xdist; the machines have two cores, and much of the time goes
to nested conformance runs that wait on subprocesses and deadlines, so workers beyond the cores
fill the waits: on the 2-core CI machine, 17 min 44 s with four workers and 16 min 2 s with
six, the same afternoon, the two cores 81% and 90% busy; eight: docs/benchmarks.md), with branch
coverage of `reference/` measured in every worker (pytest-cov), in the tests that reach it
(`MEASURED`, tests/conftest.py). The coverage report is
printed whatever the tests said, and the exit code is pytest's: non-zero when a test failed,
when nothing was collected (5), or when coverage is under `fail_under`. `-n 0` runs in one
process.

Python's bytecode cache is written even where PYTHONDONTWRITEBYTECODE is set (CI images set
it): every nested conformance run, adapter and served agent is a Python process that imports
the kit, and pytest rewrites the asserts of its 130 modules in each; with the cache, a run of
the runner component takes 2.1 s of CPU instead of 3.6 s. The cache (`__pycache__/`) is
ignored by git.
"""

from __future__ import annotations

import os
import subprocess
import sys

from agent_tck.kit.run import private_basetemp

WORKERS = ["-n", "8", "--dist", "worksteal"]
COVERAGE = ["--cov", "--cov-report", "term-missing:skip-covered"]


def main(argv: list[str]) -> int:
    workers = [] if any(a.startswith(("-n", "--numprocesses")) for a in argv) else WORKERS
    with private_basetemp() as basetemp:
        if any(a.startswith("--basetemp") for a in argv):
            basetemp = []
        argv = [sys.executable, "-m", "pytest", *workers, *COVERAGE, *basetemp, *argv]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        return subprocess.run(argv, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
