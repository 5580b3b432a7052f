"""A scenario's fake-harness rig: a bin directory whose CLIs and ACP agents (`claude`, `codex`,
`gemini`, `claude-agent-acp`, `codex-acp`: `HARNESS_NAMES`) are the fake harness, and the
record of what its harnesses saw.

The record is not a file: each harness reports to this process's switchboard
(`doubles.harness.switchboard`), which answers only a harness this rig's shims started, and
keeps what it says in memory. Nothing beside the bin directory, in the implementation's
working directory or in its environment holds the record or leads to a file that does.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from agent_tck.doubles.harness.script import Script, install_reporting, script_document
from agent_tck.doubles.harness.switchboard import switchboard
from agent_tck.doubles.realcli.options import OPTIONS_FILE
from agent_tck.kit.errors import SuiteError
from agent_tck.kit.observe import REAP_SETTLE, signal_if_same, still_running

# How much longer a harness still running that noted no signal may take to note one: the
# handler of a signal sent runs when the process next gets the CPU, which on a machine loaded
# far past its cores can be seconds (a correct harness is only late, never silent).
HANDLER_SETTLE = 5.0


class HarnessRig:
    """A bin directory whose CLIs and ACP agents are the fake harness, and its record.

    Each rig has a token of its own, in its shims' command line: the switchboard hands a
    harness's record to the rig its command line names. `close()` ends the rig's scenario: a
    harness started after it is a straggler, noted in `strays` (when given)."""

    def __init__(self, root: Path, strays: Path | None = None) -> None:
        self.root = root
        self.bin = root / "bin"
        self.token = uuid.uuid4().hex
        self.board = switchboard()
        self.log = self.board.open(self.token, strays)
        install_reporting(self.bin, self.board.address, self.token)

    def use(self, script: Script) -> None:
        """Play `script` from now on. A line no real CLI prints, or lines in an order none
        prints them, is an error of the suite."""
        if off := script.off_schema():
            raise SuiteError("error of the suite: the fake harness would print lines that are "
                             f"not valid against {script.schema()}: {off[:5]}")
        if wrong := script.unfaithful():
            raise SuiteError("error of the suite: the fake harness would print what no real "
                             f"{script.backend} prints: {wrong[:5]}")
        self.board.play(self.log, script_document(script, cli_options=str(OPTIONS_FILE)))

    def close(self) -> None:
        """End the scenario: later harness starts are stragglers, and its harnesses and the
        grandchildren they started are killed if the implementation left them running (the
        verdict was taken before; a test cleans up after itself even when it fails). Only a
        process proven the one the record names is killed: its pid and its start time."""
        entries = self.record()
        self.board.close(self.log)
        for entry in entries:
            if entry["what"] in ("start", "grandchild"):
                signal_if_same(entry["pid"], entry.get("since"), signal.SIGKILL)

    def record(self) -> list[dict[str, Any]]:
        """Every entry its harnesses wrote so far, in the order they came."""
        return self.board.entries(self.log)

    def starts(self) -> list[dict[str, Any]]:
        return [e for e in self.record() if e["what"] == "start"]

    def grandchildren(self) -> list[int]:
        """The pids of the processes its harnesses noted starting (their grandchildren)."""
        return [e["pid"] for e in self.record() if e["what"] == "grandchild"]

    def last_start(self) -> dict[str, Any]:
        starts = self.starts()
        assert starts, "the harness was never started"
        return starts[-1]

    def began(self, step: int) -> bool:
        """A harness of this rig began step `step` of its script as it plays it (0: the
        first, its read of stdin where it reads it: `Script.last_step` is its last), every
        step before it done: what it printed there is in its stdout's pipe."""
        return any(e["what"] == "step" and e.get("n") == step for e in self.record())

    def signals(self, pid: int) -> list[str]:
        """The signals process `pid` caught, in order, read once it no longer runs (after up to
        REAP_SETTLE seconds): an implementation may answer as soon as it has sent SIGTERM, before
        the harness has run its handler and said so. A process still running that has noted no
        signal yet is given up to HANDLER_SETTLE seconds more to note one or end: on a busy
        machine a handler runs when the process next gets the CPU."""
        still_running([pid], within=REAP_SETTLE)
        deadline = time.monotonic() + HANDLER_SETTLE
        while not (caught := self._caught(pid)) and still_running([pid], within=0.0) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        return caught

    def _caught(self, pid: int) -> list[str]:
        return [e["signal"] for e in self.record() if e["what"] == "signal" and e["pid"] == pid]

    def path(self) -> str:
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
