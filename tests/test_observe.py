"""What the kit observes of processes: a CLI reaped just after the answer is reaped (decision
D-6); one nobody reaps is left a zombie, and said so."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from agent_tck.kit.observe import process_state, unreaped


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
