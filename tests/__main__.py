"""The project's own tests, as CI runs them: `python -m tests [PYTEST ARGS]`.

Runs pytest under coverage, then prints the coverage report whatever pytest said, and exits
with pytest's code if it was not 0 (a failed test, or 5 when nothing was collected), else
with the report's (non-zero below `fail_under`). A plain `&&` chain would hide the figure
exactly when a test fails.
"""

from __future__ import annotations

import subprocess
import sys


def main(argv: list[str]) -> int:
    tests = subprocess.run([sys.executable, "-m", "coverage", "run", "-m", "pytest", *argv])
    report = subprocess.run([sys.executable, "-m", "coverage", "report"])
    return tests.returncode or report.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
