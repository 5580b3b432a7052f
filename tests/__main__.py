"""The project's own tests, as CI runs them: `python -m tests [PYTEST ARGS]`.

pytest on two workers (pytest-xdist; the machines have two cores and most of the time goes to
nested conformance runs that wait on subprocesses), with branch coverage of `reference/`
measured in every worker (pytest-cov). The coverage report is printed whatever the tests said,
and the exit code is pytest's: non-zero when a test failed, when nothing was collected (5), or
when coverage is under `fail_under`. `-n 0` runs in one process.
"""

from __future__ import annotations

import subprocess
import sys

WORKERS = ["-n", "2", "--dist", "worksteal"]
COVERAGE = ["--cov", "--cov-report", "term-missing:skip-covered"]


def main(argv: list[str]) -> int:
    workers = [] if any(a == "-n" or a.startswith("-n") for a in argv) else WORKERS
    return subprocess.run([sys.executable, "-m", "pytest", *workers, *COVERAGE, *argv]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
