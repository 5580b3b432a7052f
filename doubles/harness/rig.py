"""A scenario's fake-harness rig: a bin directory whose `claude` and `codex` are the harness."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path
from typing import Any

from agent_tck.doubles.harness.fake import GRANDCHILD
from agent_tck.doubles.harness.script import Script, install, read_record, write_script
from agent_tck.doubles.realcli.options import OPTIONS_FILE
from agent_tck.doubles.realcli.shapes import off_schema
from agent_tck.kit.errors import SuiteError


class HarnessRig:
    """A bin directory whose `claude` and `codex` are the fake harness, and its record.

    Each rig has a token of its own, written into every harness start it records; a start
    with another token is an error of the suite, never evidence. `close()` ends the rig's
    scenario: a harness started after it is a straggler, noted in `strays` (when given)."""

    def __init__(self, root: Path, strays: Path | None = None) -> None:
        self.root = root
        self.bin = root / "bin"
        self.script_path = root / "script.json"
        self.record_path = root / "record.jsonl"
        self.token = uuid.uuid4().hex
        self.strays = strays
        install(self.bin, self.script_path, self.record_path)

    def use(self, script: Script) -> None:
        """Play `script` from now on. A line no real CLI prints is an error of the suite."""
        off = [f"{line}: {p}" for line in script.cli_lines()
               for p in off_schema(script.backend, line)]
        if off:
            raise SuiteError("error of the suite: the fake harness would print lines that are "
                             f"not valid against schemas/cli/{script.backend}: {off[:5]}")
        strays = {"strays": str(self.strays)} if self.strays else {}
        write_script(self.script_path, script, rig=self.token, cli_options=str(OPTIONS_FILE),
                     **strays)

    def close(self) -> None:
        """End the scenario: later harness starts are stragglers, and its harnesses and the
        grandchildren they started are killed if the implementation left them running (the
        verdict was taken before; a test cleans up after itself even when it fails)."""
        (self.root / "closed").touch()
        for entry in self.record():
            if entry["what"] == "grandchild":
                end_grandchild(entry["pid"])
            elif entry["what"] == "start":  # left running by an agent killed mid-request
                end_marked(entry["pid"], str(self.record_path))

    def record(self) -> list[dict[str, Any]]:
        return read_record(self.record_path)

    def starts(self) -> list[dict[str, Any]]:
        starts = [e for e in self.record() if e["what"] == "start"]
        foreign = [s for s in starts if s.get("rig") != self.token]
        if foreign:
            raise SuiteError(f"harness starts of another rig in {self.record_path}: {foreign}")
        return starts

    def grandchildren(self) -> list[int]:
        """The pids of the processes its harnesses noted starting (their grandchildren)."""
        return [e["pid"] for e in self.record() if e["what"] == "grandchild"]

    def last_start(self) -> dict[str, Any]:
        starts = self.starts()
        assert starts, "the harness was never started"
        return starts[-1]

    def signals(self, pid: int) -> list[str]:
        return [e["signal"] for e in self.record() if e["what"] == "signal" and e["pid"] == pid]

    def path(self) -> str:
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


def end_grandchild(pid: int) -> None:
    """SIGKILL `pid` if it is still a harness's grandchild (its argv carries the marker): a
    pid reused by another process is left alone."""
    end_marked(pid, GRANDCHILD)


def end_marked(pid: int, marker: str) -> None:
    """SIGKILL `pid` if `marker` is still one of its arguments."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return  # gone
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if marker.encode() in cmdline.read().split(b"\0"):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass  # gone meanwhile
    finally:
        os.close(fd)
