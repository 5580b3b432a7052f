"""The reaper ends as its CLI ended, and leaves nothing of its own behind."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from pathlib import Path

import pytest

from agent_tck.reference.supervisor import REAPER


def _allow_cores() -> None:
    """As on a machine whose user allows core files (`ulimit -c unlimited`)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def test_a_cli_killed_by_a_signal_that_dumps_core_leaves_no_core_of_the_reaper(
        tmp_path: Path) -> None:
    """The reaper kills itself with its CLI's signal, so the supervisor reads the CLI's own
    outcome. SIGABRT's default action dumps core: where the user allows core files, the reaper
    would leave one of its own (a Python interpreter's, misleading) beside the CLI's. The CLI
    here allows none, so a core dump in the status, or a file in the directory, is the
    reaper's."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        [*REAPER, str(write), str(os.getpid()), "/bin/sh", "-c", "ulimit -c 0; kill -ABRT $$"],
        cwd=tmp_path, pass_fds=(write,), preexec_fn=_allow_cores,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        _, status = os.waitpid(proc.pid, 0)  # the raw status: Popen keeps no core-dump flag
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        os.close(read)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGABRT, status
    assert not os.WCOREDUMP(status), "the reaper dumped core"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_descendant_gone_before_its_signal_does_not_spare_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A descendant can end between the listing of the tree and its signal: the reaper goes on
    to the next one, which still gets its signal."""
    from agent_tck.reference import reaper

    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid is listed, and no longer there
    child = subprocess.Popen(["sleep", "30"])
    try:
        monkeypatch.setattr(reaper, "descendants", lambda root: [gone.pid, child.pid])
        reaper.signal_tree(signal.SIGTERM)
        assert child.wait(timeout=10) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()
