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
import tempfile

WORKERS = ["-n", "2", "--dist", "worksteal"]
COVERAGE = ["--cov", "--cov-report", "term-missing:skip-covered"]


def main(argv: list[str]) -> int:
    workers = [] if any(a == "-n" or a.startswith("-n") for a in argv) else WORKERS
    with tempfile.TemporaryDirectory(prefix="agent-tck-tests-", ignore_cleanup_errors=True) as tmp:
        # A folder of its own: sessions sharing /tmp/pytest-of-USER race cleaning it up.
        basetemp = [] if any(a.startswith("--basetemp") for a in argv) else [
            "--basetemp", f"{tmp}/basetemp"]
        argv = [sys.executable, "-m", "pytest", *workers, *COVERAGE, *basetemp, *argv]
        return subprocess.run(argv).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
