"""The project's own tests, as CI runs them: `python -m tests [PYTEST ARGS]`.

pytest on twelve workers (pytest-xdist). The machines have two cores, but many of the longest
tests mostly wait (nested conformance runs on subprocesses and deadlines): they are dealt to
workers of their own (tests/support/dealing.py), and the other workers keep both cores busy
beside them (docs/benchmarks.md). Branch coverage of `reference/` is measured in
every worker (pytest-cov), in the tests that reach it (`MEASURED`, tests/conftest.py). The
coverage report is printed whatever the tests said, and the exit code is pytest's: non-zero
when a test failed, when nothing was collected (5), or when coverage is under `fail_under`.
`-n 0` runs in one process.

Python's bytecode cache is written even where PYTHONDONTWRITEBYTECODE is set (CI images set
it): every nested conformance run, adapter and served agent is a Python process that imports
the kit, and pytest rewrites the asserts of its modules in each; without the cache each of
them compiles all of that again. The cache (`__pycache__/`) is ignored by git.
"""

from __future__ import annotations

import os
import subprocess
import sys

from agent_tck.kit.run import private_basetemp

WORKERS = ["-n", "12", "--dist", "worksteal"]
COVERAGE = ["--cov", "--cov-report", "term-missing:skip-covered"]


def main(argv: list[str]) -> int:
    workers = [] if any(a.startswith(("-n", "--numprocesses")) for a in argv) else WORKERS
    with private_basetemp() as basetemp:
        if any(a.startswith("--basetemp") for a in argv):
            basetemp = []
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        command = [sys.executable, "-m", "pytest", *workers, *COVERAGE, *basetemp, *argv]
        return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
