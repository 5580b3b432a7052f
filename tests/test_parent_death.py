"""The suite's children end with the process that started them, and only then."""

from __future__ import annotations

import os
import subprocess
import sys

from agent_tck.kit.drivers.base import end_with_parent


def _child_exit_of_a_start_in_a_fork() -> int:
    """In a process forked from this one: start a child as the drivers start an adapter and
    wait for it; its exit code is the forked process's."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"],
                                     preexec_fn=end_with_parent)
            code = child.wait() & 0xFF
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_child_started_by_a_process_forked_from_the_suite_runs_to_its_end() -> None:
    """A process forked from the suite after the kit was imported (a test runner that forks
    per test) starts adapters and served agents as its children: they must not take it for a
    dead suite and end themselves at once."""
    assert _child_exit_of_a_start_in_a_fork() == 0  # -SIGTERM would read 241


def test_a_child_whose_parent_is_gone_before_it_runs_ends_itself() -> None:
    """The other half of the check: a parent that died between the fork and the hook."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the parent that will be gone: starts the child and exits at once
        os.close(reader)
        child = subprocess.Popen(
            [sys.executable, "-c", "import os, sys, time; time.sleep(0.5); "
             "os.write(int(sys.argv[1]), b'ran')", str(writer)],
            preexec_fn=lambda: (os.kill(os.getppid(), 9), __import__("time").sleep(0.3),
                                end_with_parent()),
            pass_fds=(writer,))
        os._exit(0 if child else 1)
    os.close(writer)
    os.waitpid(pid, 0)
    with os.fdopen(reader, "rb") as out:
        assert out.read() == b"", "the child ran although its parent was gone"
