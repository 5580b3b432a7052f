"""The code stays typed and linted: mypy strict on reference/ and steps/, ruff everywhere."""

from __future__ import annotations

import subprocess
import sys

from steps.paths import ROOT


def tool(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_mypy_strict() -> None:
    done = tool("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff() -> None:
    done = tool("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
