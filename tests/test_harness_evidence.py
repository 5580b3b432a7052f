"""Evidence the judged cannot forge or reach: what the fake harness records, and whom the kit
kills on the strength of it (docs/security.md, "The implementation runs with your
rights")."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.cli import main
from agent_tck.kit.observe import started_at
from agent_tck.kit.paths import ROOT
from tests.miniatures.forgery import forge, report

PY = sys.executable


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[HarnessRig]:
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude", read_stdin=False).text("hi"))
    yield rig
    rig.close()


@pytest.fixture
def victim() -> Iterator[subprocess.Popen[bytes]]:
    """A process of the test's own that nothing may kill."""
    with subprocess.Popen(["sleep", "120"]) as proc:
        try:
            yield proc
        finally:
            proc.kill()


def _harness(rig: HarnessRig, name: str = "claude") -> int:
    """Run the harness through its shim, as an implementation would; its pid."""
    subprocess.run([str(rig.bin / name)], capture_output=True, timeout=30, check=True)
    pid: int = rig.last_start()["pid"]
    return pid


def test_the_record_is_no_file_beside_what_the_implementation_is_given(rig: HarnessRig) -> None:
    _harness(rig)
    files = sorted(str(p.relative_to(rig.root)) for p in rig.root.rglob("*") if p.is_file())
    assert files == ["bin/claude", "bin/claude-agent-acp", "bin/codex", "bin/codex-acp",
                     "bin/gemini"]


def test_lines_appended_beside_the_harness_are_no_evidence(rig: HarnessRig) -> None:
    """The forgery of the hostile review: a SIGKILLed harness's record given the SIGTERM a
    scenario looks for, by appending a line next to the `bin` folder on PATH."""
    pid = _harness(rig)
    forge(str(rig.bin), [{"what": "signal", "signal": "SIGTERM", "pid": pid, "t": 0.0}])
    assert rig.signals(pid) == []
    assert [e["what"] for e in rig.record()] == ["start", "step", "end"]  # the harness's own


def test_a_process_that_is_not_a_harness_is_refused_by_the_rig(rig: HarnessRig) -> None:
    """The rig's address is in the shims, which the implementation can read: whoever
    connects must be the harness as its shim starts it."""
    forged = {"what": "signal", "signal": "SIGTERM", "pid": 1, "t": 0.0}
    answer = report(rig.bin, (json.dumps(forged) + "\n").encode())
    assert "refused" in json.loads(answer), answer
    assert rig.record() == []


def test_a_harness_reports_to_its_own_rig_only(tmp_path: Path) -> None:
    mine, other = HarnessRig(tmp_path / "mine"), HarnessRig(tmp_path / "other")
    try:
        for rig in (mine, other):
            rig.use(Script("claude", read_stdin=False).text("hi"))
        _harness(other, "gemini")
        assert (mine.record(), [s["name"] for s in other.starts()]) == ([], ["gemini"])
    finally:
        mine.close()
        other.close()


def test_closing_the_rig_kills_its_harness_and_no_process_that_merely_has_its_pid(
        tmp_path: Path, victim: subprocess.Popen[bytes]) -> None:
    """A pid from the record is signalled only while the process holding it is the one that
    started then: a start entry whose pid now names another process (reused) is no order
    to kill it."""
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude", read_stdin=False).add("sleep_real", 120))
    running = subprocess.Popen([str(rig.bin / "claude")], stdout=subprocess.DEVNULL)
    try:
        while not rig.starts():
            assert running.poll() is None, "the harness ended before it was recorded"
            time.sleep(0.01)
        # as if the victim had taken the pid of a harness that started before it and ended
        before = started_at(victim.pid) - 1  # type: ignore[operator]
        rig.log.entries.append({**rig.last_start(), "pid": victim.pid, "since": before})
        rig.close()
        assert running.wait(timeout=10) == -9
        assert victim.poll() is None, "the rig killed a process that was not its harness"
    finally:
        running.kill()
        running.wait()


def test_smoke_kills_no_process_a_forged_entry_names(
        tmp_path: Path, victim: subprocess.Popen[bytes]) -> None:
    """`agent-tck smoke` SIGKILLed any pid the record named, an unrelated one too."""
    named = tmp_path / "victim.pid"
    named.write_text(str(victim.pid))
    adapter = f"{PY} -m tests.miniatures.fake_adapter forges-record start 1 {named}"
    said = io.StringIO()
    code = main(["smoke", "--impl", adapter, "--timeout", "10"], said, said)
    out = said.getvalue()
    assert victim.poll() is None, f"smoke killed the process a forged entry named:\n{out}"
    assert code == 0, out


@pytest.mark.timeout(300)
def test_an_agent_that_sigkills_its_cli_and_forges_the_sigterm_fails_ag_d6_2(
        tmp_path: Path) -> None:
    """An agent that SIGKILLs its CLI at the deadline and appends a SIGTERM entry wherever it
    can write fails AG-D6.2: the record it would forge is in the kit's memory."""
    report_path = tmp_path / "run.json"
    done = subprocess.run(
        [PY, "-m", "agent_tck.kit.cli", "run", "--impl",
         "python:tests.miniatures.forger:ForgesTheSigterm", "--component", "agent", "--req",
         "AG-D6.2", "--time-scale", "0.02", "--json", str(report_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    verdicts = {r["id"]: r["verdict"] for r in json.loads(report_path.read_text())["requirements"]}
    assert verdicts["AG-D6.2"] == "failed", done.stdout + done.stderr


def test_a_harness_read_while_it_is_sent_its_script_keeps_its_record(
        rig: HarnessRig, monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite may read the record while the switchboard sends a harness its script, its
    socket then in timeout mode: that read waited for more, timed out and ended the link,
    and every later entry was lost (TR-8's SIGTERM note, on a busy machine)."""
    send = socket.socket.sendall

    def sendall(sock: socket.socket, data: bytes) -> None:
        send(sock, data)
        rig.record()  # as a step polls it, before the socket is non-blocking again

    monkeypatch.setattr(socket.socket, "sendall", sendall)
    rig.use(Script("claude", read_stdin=False).add("sleep_real", 6).text("late"))  # > 5 s quiet
    pid = _harness(rig)
    assert [e["what"] for e in rig.record() if e.get("pid") == pid] == [
        "start", "step", "step", "end"]
