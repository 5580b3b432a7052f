"""The flake hunt reads failures from the right place and cleans up its load."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tck.kit.observe import process_state
from benchmarks import flakes
from benchmarks.flakes import cpu_load, failures

NESTED = """\
tests/test_x.py F
E   AssertionError: nested run said
FAILED steps/suite/test_agent.py::test_nested - this is a test's evidence
=========================== short test summary info ============================
FAILED tests/test_x.py::test_outer - AssertionError
ERROR tests/test_y.py::test_setup
================== 1 failed, 1 error, 9 passed in 3.00s ===================
"""

TABLE = """\
requirement  level   verdict  scenarios
RP-1.1       MUST    passed   1/1
AG-H6        SHOULD  failed   1/2
EH-1.1       MUST    errored  0/1
NOT CONFORMANT: 3 requirements (1 errored, 1 failed, 1 passed)
"""


def test_only_the_last_pytest_summary_counts() -> None:
    assert failures(NESTED) == ["tests/test_x.py::test_outer", "tests/test_y.py::test_setup"]


def test_failed_and_errored_requirements_of_a_verdict_table_count() -> None:
    assert failures(TABLE) == ["AG-H6", "EH-1.1"]


def test_the_load_runs_during_the_block_and_is_gone_after_it() -> None:
    with cpu_load(2) as pids:
        assert len(pids) == 2 and all(process_state(pid) not in (None, "Z") for pid in pids)
        pinned = [os.pidfd_open(pid) for pid in pids]
    try:
        assert [_reaped(fd) for fd in pinned] == [True, True]  # ended, and no zombie left
    finally:
        for fd in pinned:
            os.close(fd)


def test_every_fresh_clone_of_a_hunt_checks_out_the_commit_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, logs = tmp_path / "repo", tmp_path / "logs"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for message in ("first", "second"):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", message], check=True)
    first = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD~1"], text=True,
                           capture_output=True, check=True).stdout.strip()
    monkeypatch.setattr(flakes, "ROOT", repo)
    code = flakes.main(["--runs", "2", "--fresh-clone", "--commit", "HEAD~1", "--logs", str(logs),
                        "--", "git", "rev-parse", "HEAD"])
    assert code == 0
    assert [(logs / f"run-{i}.log").read_text().strip() for i in (1, 2)] == [first] * 2
    assert f"| 2 | {first[:7]}" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "said"), [
    (["--commit", "HEAD"], "--commit HEAD needs --fresh-clone"),
    (["--fresh-clone", "--commit", "no-such-rev"], "'no-such-rev' names no commit"),
])
def test_a_commit_the_hunt_cannot_use_is_refused_by_name(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        flakes.main([*argv, "--runs", "1", "--", "true"])
    assert said in f"{ended.value.code} {capsys.readouterr().err}"



def _leaves_a_child(pidfile: Path, wait: bool) -> list[str]:
    """A command that starts a `sleep` in its own process group and notes its pid."""
    return ["sh", "-c", f'sleep 60 & echo $! > {pidfile}' + ("; wait" if wait else "")]


def _left(pidfile: Path) -> int:
    deadline = time.monotonic() + 30
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline, "the command never started its child"
        time.sleep(0.05)
    return int(pidfile.read_text())


def test_what_a_run_started_is_gone_when_the_run_ends(tmp_path: Path) -> None:
    pidfile = tmp_path / "left.pid"
    with (tmp_path / "log").open("w") as out:  # the command exits, its child would live on
        assert flakes.run_group(_leaves_a_child(pidfile, wait=False), tmp_path, out) == 0
    assert _gone(_left(pidfile))


def test_a_stopped_hunt_stops_its_run_and_its_load(tmp_path: Path) -> None:
    pidfile = tmp_path / "left.pid"
    hunt = subprocess.Popen([sys.executable, "-m", "benchmarks.flakes", "--runs", "1",
                             "--load", "1", "--logs", str(tmp_path / "logs"), "--",
                             *_leaves_a_child(pidfile, wait=True)],
                            cwd=flakes.ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pinned: dict[int, int] = {}  # pid -> pidfd: each process itself, whatever its pid becomes
    try:
        child = _left(pidfile)
        load = [p for p in _children(hunt.pid) if p != child]
        pinned = {pid: os.pidfd_open(pid) for pid in [child, *load]}
        hunt.send_signal(signal.SIGTERM)
        assert hunt.wait(timeout=30) == 128 + signal.SIGTERM
        left = [pid for pid, fd in pinned.items() if not _ended(fd)]
        assert not left, f"still running after the hunt stopped: {left} (the run's {child})"
        assert load, "the hunt started no load"
    finally:
        hunt.kill()
        hunt.wait()
        for fd in pinned.values():  # what a broken hunt left behind, killed by its pidfd
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
            os.close(fd)


def test_a_stop_while_the_run_starts_still_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stop comes inside Popen, after the fork (as a SIGTERM can): raised there, the run
    would be left running with no pid to kill it by. It waits until the run has its pid."""
    pidfile = tmp_path / "left.pid"
    real = subprocess.Popen
    started: list[subprocess.Popen[bytes]] = []

    def stopped_while_starting(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(real(*args, **kwargs))  # type: ignore[call-overload]
        _left(pidfile)  # the run is under way
        flakes._STOP(signal.SIGTERM, None)
        return started[-1]

    monkeypatch.setattr(flakes.subprocess, "Popen", stopped_while_starting)
    try:
        with (tmp_path / "log").open("w") as out, pytest.raises(SystemExit) as stop:
            flakes.run_group(_leaves_a_child(pidfile, wait=True), tmp_path, out)
        assert stop.value.code == 128 + signal.SIGTERM
        assert _gone(_left(pidfile)) and started[0].returncode == -signal.SIGKILL
    finally:  # what a broken run_group left running: the run's group, by the pid it had
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started[0].pid, signal.SIGKILL)
        started[0].wait()


def _gone(pid: int) -> bool:
    """Whether `pid` is gone within a few seconds (a killed process takes a moment)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return _ended(fd)
    finally:
        os.close(fd)


def _reaped(pidfd: int) -> bool:
    """Whether the process `pidfd` pins has ended and been waited for: the kernel then shows
    the pidfd's pid as -1."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        return "Pid:\t-1" in info.read().splitlines()


def _ended(pidfd: int) -> bool:
    """Whether the process `pidfd` pins has ended (a zombie has) within a few seconds: the
    pidfd answers for that process alone, even once its pid is free for another."""
    return bool(select.select([pidfd], [], [], 5)[0])


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in found]
