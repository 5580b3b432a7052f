"""The code stays typed and linted: mypy strict on reference/ and steps/, ruff everywhere;
CI runs what the README says."""

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


def test_ci_runs_exactly_the_readme_s_second_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("## ")[0]
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    ")]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert len(commands) == 2 and commands[1] == ci, (commands, ci)
    assert commands[0].endswith("agent-tck run") and "install-clis" in commands[0]
