"""The code stays typed and linted: mypy strict on reference/ and steps/, ruff everywhere;
CI runs what the README says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit.paths import ROOT


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
    assert commands[0].endswith("agent-tck run -n auto") and "install-clis" in commands[0]


def test_the_runner_deals_to_twelve_workers_unless_told_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What CI runs; the tests below give their own number of workers."""
    import tests.__main__ as runner

    started: list[list[str]] = []
    envs: list[dict[str, str]] = []

    def run(argv: list[str], env: dict[str, str], **_: Any) -> subprocess.CompletedProcess[str]:
        started.append(argv)
        envs.append(env)
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(runner.subprocess, "run", run)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert runner.main(["-k", "x"]) == 0 and runner.main(["-n", "2"]) == 0
    assert started[0][3:7] == ["-n", "12", "--dist", "worksteal"], started[0]
    assert started[1].count("-n") == 1 and "12" not in started[1], started[1]
    # every nested run, adapter and served agent imports the kit: without the bytecode cache
    # each would compile it again
    assert all("PYTHONDONTWRITEBYTECODE" not in env for env in envs)


def run_tests_module(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """`python -m tests` on one test file of `body`, its coverage data kept in `tmp_path`, on two
    workers (what is checked, the exit code and the coverage report, is the same on any number
    of them, and each of the default eight would import the project's plugins again)."""
    (tmp_path / "test_one.py").write_text(f"import reference.events\n\n\n{body}\n")
    env = {**os.environ, "COVERAGE_FILE": str(tmp_path / ".coverage")}
    # Its root is `tmp_path` (else the common folder of the checkout and `tmp_path`, such as
    # /tmp), and, as the project's configuration says, it keeps no cache there.
    done = subprocess.run(
        [sys.executable, "-m", "tests", "-n", "2", "-p", "no:agent_tck", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), "--basetemp", str(tmp_path / "basetemp"),
         str(tmp_path / "test_one.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert not (tmp_path / ".pytest_cache").exists(), "the run wrote a cache"
    return done


def test_a_failing_test_still_prints_coverage_and_fails_the_run(tmp_path: Path) -> None:
    done = run_tests_module(tmp_path, "def test_fails():\n    assert 1 == 2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "TOTAL" in done.stdout, done.stdout


def test_a_run_that_collects_nothing_fails(tmp_path: Path) -> None:
    done = run_tests_module(tmp_path, "def helper():\n    pass")
    assert done.returncode != 0, done.stdout + done.stderr
    assert "no tests ran" in done.stdout and "TOTAL" in done.stdout, done.stdout
