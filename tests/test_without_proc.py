"""The kit where it cannot see processes (no /proc, as on macOS): a run with /proc hidden (an
empty file system mounted over it, in a mount namespace of the run's own) judges what needs
no process table, and reports the scenarios that do "not run" with the reason, never a
traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.kit import observe
from agent_tck.kit.paths import ROOT

# The command after this runs with an empty /proc (root only: a mount namespace).
HIDDEN = ("unshare", "--mount", "--propagation", "private", "sh", "-c",
          'mount -t tmpfs none /proc && exec "$@"', "sh")
pytestmark = pytest.mark.timeout(300)


def _hidden(*command: str) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding /proc needs root and unshare (a mount namespace)")
    return subprocess.run([*HIDDEN, sys.executable, "-m", "agent_tck", *command], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, check=False)


def test_what_needs_no_process_table_is_judged_as_anywhere(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    done = _hidden("run", "--component", "backends", "--component", "responses", "--json",
                   str(report))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    judged = json.loads(report.read_text())
    assert {s["verdict"] for s in judged["scenarios"]} == {"passed"}
    assert len(judged["scenarios"]) > 50


def test_a_scenario_that_runs_a_fake_cli_is_not_run_and_says_why(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    done = _hidden("run", "--component", "agent", "--req", "EH-1.1", "--json", str(report))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    scenarios = json.loads(report.read_text())["scenarios"]
    assert scenarios and {(s["verdict"], s["evidence"]) for s in scenarios} == {
        ("skipped", "not run: judging this scenario needs Linux's /proc, which is not mounted "
                    "here")}
    assert ("FAILED EH-1.1 (MUST): Subprocess exceeds timeout.\n  its scenarios: none was "
            "judged: not run: judging this scenario needs Linux's /proc") in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(("platform", "proc", "why"), [
    ("linux", True, None),
    ("linux", False, "needs Linux's /proc, which is not mounted here"),
    ("darwin", True, "needs Linux's /proc and abstract UNIX sockets, which darwin has not"),
])
def test_the_kit_says_why_it_cannot_see_processes(monkeypatch: pytest.MonkeyPatch,
                                                  platform: str, proc: bool,
                                                  why: str | None) -> None:
    monkeypatch.setattr(observe.sys, "platform", platform)
    monkeypatch.setattr(observe.os.path, "isfile", lambda path: proc)
    assert observe.unobservable() == why
