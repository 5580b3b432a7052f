"""Per-scenario state of the agent steps: the harness rig and the agent under test.

The world arranges; drivers act; steps assert. Agents are created lazily, when the first WHEN
(or a GIVEN about the agent's state) needs one, so GIVEN steps can be in any order.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.steps.drivers import Driver, RequestResult
from agent_tck.steps.exceptions import SuiteError
from agent_tck.steps.harness.script import Script, install, read_record, write_script
from agent_tck.steps.realcli.options import OPTIONS_FILE
from agent_tck.steps.realcli.shapes import off_schema


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
        (self.root / "closed").touch()

    def record(self) -> list[dict[str, Any]]:
        return read_record(self.record_path)

    def starts(self) -> list[dict[str, Any]]:
        starts = [e for e in self.record() if e["what"] == "start"]
        foreign = [s for s in starts if s.get("rig") != self.token]
        if foreign:
            raise SuiteError(f"harness starts of another rig in {self.record_path}: {foreign}")
        return starts

    def last_start(self) -> dict[str, Any]:
        starts = self.starts()
        assert starts, "the harness was never started"
        return starts[-1]

    def signals(self, pid: int) -> list[str]:
        return [e["signal"] for e in self.record() if e["what"] == "signal" and e["pid"] == pid]

    def path(self) -> str:
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


@dataclass
class AgentWorld:
    driver: Driver
    rig: HarnessRig
    sandbox: Path
    time_scale: float
    backend: str = "claude"
    pinned: bool = False  # the backend is the run's, whatever the scenario's steps name
    settings: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)  # settings.env besides PATH
    script: Script | None = None
    agent: str | None = None
    created_states: list[dict[str, Any]] = field(default_factory=list)
    result: RequestResult | None = None
    results: list[RequestResult] = field(default_factory=list)
    final_text: str | None = None
    path_override: str | None = None
    elapsed: float | None = None  # seconds the last request took, as the caller saw it

    def new_script(self) -> Script:
        """The scenario's script, created on first use for the agent's backend."""
        if self.script is None:
            self.script = Script(self.backend, time_scale=self.time_scale)
        return self.script

    def ensure_agent(self) -> str:
        if self.agent is None:
            settings = {
                "backend": self.backend,
                **self.settings,
                "env": {**self.env, "PATH": self.path_override or self.rig.path()},
            }
            self.agent, self.created_states = self.driver.agent_create(settings)
        return self.agent

    def request(self, message: str = "What is 2 + 2?") -> RequestResult:
        if self.script is None:
            self.script = self.default_script()
        self.rig.use(self.script)
        agent = self.ensure_agent()
        started = time.monotonic()
        self.result = self.driver.agent_request(agent, message)
        self.elapsed = time.monotonic() - started
        return self.result

    def default_script(self) -> Script:
        """A realistic successful turn. Lines arrive in uneven writes (two lines in one
        write, one line split across two) so reading line by line is put to the test."""
        script = self.new_script()
        self.final_text = "2 + 2 = 4"
        if self.backend == "claude":
            first = [script.claude.init(), script.claude.text("2 + 2 = 4")]
            last = script.claude.result(self.final_text)
        else:
            first = [script.codex.thread_started(), script.codex.agent_message(self.final_text)]
            last = script.codex.turn_completed()
        script.emitted += [*first, last]
        script.add("out", "".join(_json_line(line) for line in first))
        half = len(_json_line(last)) // 2
        script.add("out", _json_line(last)[:half]).add("sleep", 0.5).add(
            "out", _json_line(last)[half:]
        )
        return script

    @property
    def response(self) -> dict[str, Any]:
        assert self.result is not None, "no request was made"
        return self.result.response


def _json_line(value: dict[str, Any]) -> str:
    return json.dumps(value) + "\n"


@dataclass
class ParseWorld:
    """Lines handed to a backend's parse_line and the events each one gave."""

    lines: list[str]
    events: list[list[dict[str, Any]]]

    def without_raw(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "raw"} for batch in self.events for e in batch]
