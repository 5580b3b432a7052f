"""The kit and the reference on a kernel without pidfds or child subreapers (Linux before 5.3
and 3.4, or a container whose seccomp policy refuses them; macOS has neither): every process
of a whole `agent-tck run` is refused both (tests/support/oldkernel.py), and the agent
component judges the reference's fallbacks as it judges its defaults."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.kit.paths import ROOT
from tests.support.runsuite import CLAUDE_ONLY

try:
    import pyseccomp  # noqa: F401  (raises RuntimeError where libseccomp is missing)
except (ImportError, RuntimeError) as exc:
    pytest.skip(f"no seccomp filters here: {exc}", allow_module_level=True)

OLD_KERNEL = (sys.executable, "-m", "tests.support.oldkernel")
# A whole conformance run of the agent component's claude slice, serial.
pytestmark = pytest.mark.timeout(600)


def test_the_old_kernel_refuses_pidfds_and_subreapers_to_every_process_it_starts() -> None:
    probe = ("import ctypes, errno, os, subprocess, sys\n"
             "try:\n    os.pidfd_open(os.getpid())\nexcept OSError as e:\n"
             "    print(errno.errorcode[e.errno])\n"
             "libc = ctypes.CDLL(None, use_errno=True)\n"
             "print(libc.prctl(36, 1, 0, 0, 0), errno.errorcode[ctypes.get_errno()])\n"
             "print(libc.prctl(15, b'probe', 0, 0, 0))\n")  # PR_SET_NAME: other calls work
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-I', '-S', '-c', {probe!r}])"
    done = subprocess.run([*OLD_KERNEL, sys.executable, "-c", child], cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split("\n") == ["ENOSYS", "-1 EINVAL", "0", ""], done


def test_without_pidfds_or_subreapers_only_the_process_that_hides_is_out_of_reach(
        tmp_path: Path) -> None:
    """A process whose parent exits leaves the reaper's tree there, and the run tag finds it;
    one that also empties its environment is found by nothing. The scenarios of that subject
    fail, and every other passes. (What stops a CLI is code every backend shares: the claude
    scenarios judge it.)"""
    report = tmp_path / "report.json"
    done = subprocess.run([*OLD_KERNEL, sys.executable, "-m", "agent_tck", "run", "--impl",
                           "reference", "--component", "agent", "-k", CLAUDE_ONLY, "--json",
                           str(report)], cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]  # AG-D6.1: SHOULD
    scenarios = json.loads(report.read_text())["scenarios"]
    bad = sorted((s["reqs"], s["title"]) for s in scenarios if s["verdict"] != "passed"
                 and s["verdict"] != "not applicable")
    assert bad == [
        (["AG-D6.1"], "A harness that exits after starting a process that hides from it"),
        (["AG-D6.1"], "A harness that times out after starting a process that hides from it"),
        (["AG-D6.1"], "A process that hides behind a name that reads as another parent"),
    ], [(s["title"], s["message"]) for s in scenarios if s["verdict"] in ("failed", "errored")]
    assert sum(s["verdict"] == "passed" for s in scenarios) > 100


@pytest.mark.parametrize(("command", "said"), [
    (["smoke", "--impl", f"{sys.executable} -m agent_tck.reference.adapter"],
     ["ok   stop: exit code 0", "note keeper: the kernel refused PR_SET_CHILD_SUBREAPER"]),
    (["run", "--impl", "dds", "--component", "transport", "--req", "TR-8"],
     [" requirements judged, all passed"]),
], ids=["adapter", "served agent"])
def test_an_adapter_and_a_served_agent_work_without_pidfds_or_subreapers(
        command: list[str], said: list[str]) -> None:
    """The kit's keeper of an adapter (kit/drivers/subreaper.py) and the DDS driver, whose
    fork server needs pidfds; TR-8's harness ignores SIGTERM, so the served agent's stop
    signals it by its pid and then kills it. What the keeper cannot do it says as its own,
    never on the adapter's stderr."""
    done = subprocess.run([*OLD_KERNEL, sys.executable, "-m", "agent_tck", *command],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert [text for text in said if text not in done.stdout] == [], done.stdout
    assert "wrote to stderr" not in done.stdout, done.stdout
