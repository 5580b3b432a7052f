"""What the kit observes of processes: a CLI reaped just after the answer is reaped (decision
D-6); one nobody reaps is left a zombie, and said so."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_tck.kit import observe
from agent_tck.kit.observe import process_state, unreaped
from tests.support.oldkernel import refusing, sleeper


def _ended_child() -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while process_state(child.pid) != "Z":
        time.sleep(0.01)
    return child


def test_a_child_reaped_just_after_the_answer_is_not_left() -> None:
    """An event loop reaps a child that ended as it next runs, which may be just after the
    answer went out."""
    child = _ended_child()
    later = threading.Timer(0.3, child.wait)
    later.start()
    try:
        assert unreaped(child.pid, os.getpid()) is None
    finally:
        later.join()


def test_a_child_nobody_reaps_is_left_a_zombie() -> None:
    child = _ended_child()
    try:
        assert unreaped(child.pid, os.getpid(), within=0.3) == (
            f"harness pid {child.pid} is still there in state 'Z' (Z = zombie)")
    finally:
        child.wait()


@pytest.mark.parametrize("refused", [errno.ENOSYS, errno.EPERM])
def test_where_pidfds_are_refused_a_process_is_signalled_by_its_pid(
        monkeypatch: pytest.MonkeyPatch, refused: int) -> None:
    """The start time is still checked first."""
    monkeypatch.setattr(os, "pidfd_open", refusing(refused))
    assert observe.pidfd(os.getpid()) is None
    with sleeper() as child:
        since = observe.started_at(child.pid)
        assert not observe.signal_if_same(child.pid, (since or 0) + 1, signal.SIGKILL)
        assert observe.signal_if_same(child.pid, since, signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL


def test_a_process_that_has_ended_has_no_pidfd(monkeypatch: pytest.MonkeyPatch) -> None:
    def gone(pid: int) -> int:
        raise ProcessLookupError(errno.ESRCH, "No such process")

    monkeypatch.setattr(os, "pidfd_open", gone)
    with pytest.raises(ProcessLookupError):
        observe.pidfd(os.getpid())


SCHEDSTAT = pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"),
                               reason="needs Linux's schedstat")


@SCHEDSTAT
def test_a_process_whose_environment_reads_empty_for_a_moment_is_found_by_its_mark() -> None:
    """As one caught in the middle of an exec: here a shell with an empty environment that,
    once told, execs a command carrying the mark; it is told while `carrying` looks. The shell
    execs that command itself: through `env`, the process would run a moment with what the
    shell exports (dash: PWD) and no mark, which is a process without the mark, not one
    mid-exec."""
    token = f"observe-{os.getpid()}-{time.monotonic_ns()}"
    child = subprocess.Popen(["env", "-i", "sh", "-c",
                              'read go; AGENT_TCK_TEST_MARK="$1" exec sleep 30', "sh", token],
                             stdin=subprocess.PIPE)
    try:
        while Path(f"/proc/{child.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sh":
            time.sleep(0.005)  # running the shell, with its empty environment
        assert child.stdin is not None
        tell = threading.Timer(0.2, lambda: (child.stdin.write(b"go\n"), child.stdin.flush()))
        tell.start()
        found = observe.carrying("AGENT_TCK_TEST_MARK", token, settle=5.0)
        tell.join()
        assert found == [child.pid]
        assert observe.carrying("AGENT_TCK_TEST_MARK", f"{token}-other", settle=0.05) == []
    finally:
        child.kill()
        child.communicate()


def test_a_loop_that_spins_wants_a_cpu_all_the_time_and_a_sleeper_next_to_never() -> None:
    """TR-20's measure: time running or waiting to run, whatever else the machine runs (the
    loop's whole second is one or the other; the sleeper wakes never)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen(["sleep", "30"])
    try:
        time.sleep(0.5)  # past the interpreter's start
        before = [observe.cpu_wanted(p.pid) for p in (spinner, idle)]
        time.sleep(1.0)
        after = [observe.cpu_wanted(p.pid) for p in (spinner, idle)]
    finally:
        for proc in (spinner, idle):
            proc.kill()
            proc.wait()
    assert None not in before and None not in after, (before, after)
    spun, slept = (observe.wanted_between(b, a)  # type: ignore[arg-type]
                   for b, a in zip(before, after, strict=True))
    assert spun > 0.5 and slept < 0.1, (spun, slept)
    assert observe.cpu_wanted(spinner.pid) is None  # reaped: no such process


def _schedstat(monkeypatch: pytest.MonkeyPatch, threads: dict[str, str]) -> None:
    """`/proc/PID/task` as `threads` says: thread id -> its schedstat line."""
    monkeypatch.setattr(observe.os, "listdir", lambda path: list(threads))

    class Fake:
        def __init__(self, path: str) -> None:
            self.task = str(path).split("/")[-2]

        def read_text(self) -> str:
            if self.task not in threads:
                raise FileNotFoundError(self.task)
            return threads[self.task]

    monkeypatch.setattr(observe, "Path", Fake)


def test_what_a_process_wanted_is_each_threads_running_and_waiting_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Both of schedstat's times count (a starved spinner mostly waits); a thread that ended
    between two readings is left out, not its whole life taken off; one started since counts
    whole."""
    _schedstat(monkeypatch, {"10": "100000000 900000000 5\n", "11": "5000000 0 2\n"})
    before = observe.cpu_wanted(10)
    assert before == {"10": 1_000_000_000, "11": 5_000_000}
    _schedstat(monkeypatch, {"10": "200000000 2800000000 9\n", "12": "1000000 1000000 1\n"})
    after = observe.cpu_wanted(10)
    assert after is not None
    assert observe.wanted_between(before, after) == pytest.approx(2.0 + 0.002)


def test_without_schedstat_what_a_process_wanted_is_not_known(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel that keeps no schedstat (no file, or zeros where its accounting is off, or a
    line it cannot read): None, and TR-20 judges by the CPU used alone."""
    _schedstat(monkeypatch, {"10": "0 0 0\n", "11": "0 0 0\n"})
    assert observe.cpu_wanted(10) is None
    _schedstat(monkeypatch, {"10": "not a number\n"})
    assert observe.cpu_wanted(10) is None
    _schedstat(monkeypatch, {})
    monkeypatch.setattr(observe.os, "listdir", lambda path: ["10"])
    assert observe.cpu_wanted(10) is None
