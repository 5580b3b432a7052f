"""Per-scenario state of the agent steps: the harness rig and the agent under test.

The world arranges; drivers act; steps assert. Agents are created lazily, when the first WHEN
(or a GIVEN about the agent's state) needs one, so GIVEN steps can be in any order.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.doubles.backends.base import Profile
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.drivers import Driver, RequestResult
from agent_tck.kit.errors import AdapterHung, OwnedElsewhere
from agent_tck.kit.observe import Held

# Why a step that checks the implementation's parser by its normalized events judges nothing.
NO_EVENTS = ("the implementation does not report the normalized events it parsed "
             "(reports_events: false), and this step checks its parser by them")


def sized(value: object, limit: int = 2000) -> str:
    """`value`'s repr, its middle cut past `limit` characters. A step whose values can be
    long (a scenario's longest line, an error carrying all of stderr) asserts a name it
    compared them into, and shows them through this: a run asks pytest for a failed
    assertion's values in full (kit/run.ini), and it would print them whole, for a report
    that keeps only the start and end of a failure's evidence."""
    shown = repr(value)
    cut = len(shown) - limit
    return shown if cut <= 0 else (
        f"{shown[:limit // 2]}[... {cut} characters cut ...]{shown[-limit // 2:]}")


@dataclass(repr=False)
class World:
    """The shape of every component's world: the implementation under test (`driver`), the
    scenario's own folder (`root`) and the factor applied to the spec's durations
    (`time_scale`). A component's world adds what its scenarios arrange and observe; one is
    made per scenario by its step module's fixture. tests/test_layout.py keeps every world
    in steps/ of this shape."""

    driver: Driver
    root: Path
    time_scale: float

    def __repr__(self) -> str:
        """Short, for every world (`repr=False` on each): a run shows a failed assertion's
        values in full (kit/run.ini), the world among them when a step asserts on one of its
        attributes, and a world holds its scenario's scripts and results, as long as the
        longest line a scenario sends."""
        return f"<{type(self).__name__} of {self.root}>"


@dataclass(repr=False)
class AgentWorld(World):
    rig: HarnessRig
    backend: str = "claude"
    pinned: bool = False  # the backend is the run's, whatever the scenario's steps name
    settings: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)  # settings.env besides PATH
    script: Script | None = None
    agent: str | None = None
    created_states: list[dict[str, Any]] = field(default_factory=list)
    refusal: str | None = None  # what the implementation said when it refused to create one
    result: RequestResult | None = None
    results: list[RequestResult] = field(default_factory=list)
    final_text: str | None = None
    path_override: str | None = None
    gone_interpreter: str | None = None  # the missing interpreter the CLI's `#!` line names
    elapsed: float | None = None  # seconds the last request took, as the caller saw it
    prompt: str | None = None  # the last request's prompt
    held_first: Held | None = None  # what the agent held after the first of its requests
    starts_before: int | None = None  # harness starts recorded before the request was made

    def new_script(self) -> Script:
        """The scenario's script, created on first use for the agent's backend (an ACP
        agent's, `<cli>-acp`, is its CLI's turn told in the protocol's messages)."""
        if self.script is None:
            cli = self.backend.removesuffix("-acp")
            self.script = (AcpScript(cli, time_scale=self.time_scale) if cli != self.backend
                           else Script(self.backend, time_scale=self.time_scale))
        return self.script

    def ensure_agent(self) -> str:
        if self.agent is None:
            settings = {  # an env in `settings` is one of the wrong kind, given as it is
                "backend": self.backend,
                "env": {**self.env, "PATH": self.path_override or self.rig.path()},
                **self.settings,
            }
            try:
                self.agent, self.created_states = self.driver.agent_create(settings)
            except AdapterHung as exc:  # a creation that does not answer at once is AG-H18's
                raise OwnedElsewhere("AG-H18", f"creating the agent did not answer: {exc}"
                                     ) from exc
        return self.agent

    def use_script(self) -> None:
        """Hand the harness the scenario's script (a realistic turn if it has none)."""
        if self.script is None:
            self.script = self.default_script()
        self.rig.use(self.script)

    def request(self, message: str = "What is 2 + 2?") -> RequestResult:
        self.use_script()
        agent = self.ensure_agent()
        self.prompt = message
        started = time.monotonic()
        self.result = self.driver.agent_request(agent, message)
        self.elapsed = time.monotonic() - started
        return self.result

    def default_script(self) -> Script:
        """A realistic successful turn. Lines arrive in uneven writes (two lines in one
        write, one line split across two) so reading line by line is put to the test."""
        script = self.new_script()
        self.final_text = FINAL_TEXT
        if isinstance(script, AcpScript):  # the answer in two chunks, then end_turn
            return script.text(FINAL_TEXT[:3]).add("sleep", 0.5).done(FINAL_TEXT[3:])
        turn = script.profile
        *first, last = default_turn(turn)
        script.emitted += [*first, last]
        echo = turn.prompt_echo()
        if echo is None:
            script.add("out", "".join(_json_line(line) for line in first))
        else:  # the CLI repeats the prompt between its init and its answer (gemini)
            script.add("out", _json_line(first[0])).add("line_stdin", echo)
            script.add("out", _json_line(first[1]))
        half = len(_json_line(last)) // 2
        script.add("out", _json_line(last)[:half]).add("sleep", 0.5).add(
            "out", _json_line(last)[half:]
        )
        return script

    @property
    def response(self) -> dict[str, Any]:
        assert self.result is not None, "no request was made"
        return self.result.response


FINAL_TEXT = "2 + 2 = 4"  # the default turn's answer


def default_turn(turn: Profile) -> list[dict[str, Any]]:
    """The lines of the default script's turn as `turn`'s CLI prints them: its start, the
    answer, the line that ends the turn."""
    return [turn.init(), turn.text(FINAL_TEXT), turn.done(FINAL_TEXT)]


def _json_line(value: dict[str, Any]) -> str:
    return json.dumps(value) + "\n"


@dataclass(repr=False)
class ParseWorld(World):
    """The backends component: lines handed to a backend's parse_line and the events each
    one gave."""

    lines: list[str] = field(default_factory=list)
    events: list[list[dict[str, Any]]] = field(default_factory=list)

    def without_raw(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "raw"} for batch in self.events for e in batch]
