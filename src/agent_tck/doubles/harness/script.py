"""Scripts for the fake harness, and the bin directory that puts it on PATH.

A `Script` is a list of steps (see `doubles.harness.fake`); its backend's profile
(`doubles.backends`) prints the normalized events the spec talks about in that CLI's format.
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from agent_tck.doubles.backends import PROFILES, profile
from agent_tck.doubles.harness import fake
from agent_tck.doubles.realcli.shapes import off_schema
from agent_tck.kit.errors import SuiteError
from agent_tck.kit.files import write_atomically
from agent_tck.kit.paths import SCHEMAS

# The start facts of an ACP agent's own command (`claude-agent-acp`): no options it copies.
AGENT_START: dict[str, Any] = {"stream_input": None, "workdir_options": [], "subcommand": [],
                               "options": None, "parser": None}


def _clis() -> dict[str, dict[str, Any]]:
    """How the harness is started as each CLI the profiles name and as each ACP agent that
    runs one: its start facts, and what it answers as that agent (`acp`; None: it is none)."""
    clis = {name: {**p.start, "acp": None, "env_prefixes": list(p.env_prefixes)}
            for name, p in PROFILES.items()}
    for p in PROFILES.values():
        if p.acp_agent is not None:
            start = clis.setdefault(p.acp_agent.command,
                                    {**AGENT_START, "env_prefixes": list(p.env_prefixes)})
            start["acp"] = p.acp_agent.fake
    return clis


CLIS = _clis()
HARNESS_NAMES = tuple(CLIS)  # the commands the fake harness plays


@dataclass
class Script:
    """What the fake harness will do, step by step."""

    backend: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    emitted: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # of its text events, in order
    read_stdin: bool = True
    time_scale: float = 1.0

    def __post_init__(self) -> None:
        self.profile = profile(self.backend)

    def add(self, op: str, arg: Any = True) -> Script:
        self.steps.append({op: arg})
        return self

    def line(self, value: dict[str, Any]) -> Script:
        self.emitted.append(value)
        return self.add("line", value)

    # Normalized events, printed the way the backend's CLI prints them (its profile).
    def init(self, session_id: str | None = None) -> Script:
        self.line(self.profile.init(session_id))
        echo = self.profile.prompt_echo()
        return self.add("line_stdin", echo) if echo is not None else self

    def text(self, text: str) -> Script:
        self.texts.append(text)
        return self.line(self.text_line(text))

    def done(self, text: str | None = None) -> Script:
        """The turn ends well. Where the CLI's end line repeats the turn's last message
        (claude's `result`), it does so here: `text`, when given, is that message, printed
        first unless it is the last message already; without `text`, the last message's
        text is repeated."""
        if self.profile.done_carries_text:
            last = self.profile.last_message(self.emitted)
            if text is None:
                text = last or ""
            elif text != last:
                self.text(text)
        return self.line(self.done_line(text))

    def done_after(self, last: str) -> Script:
        """The turn ends well after lines printed raw (a burst, a trickle: the script does not
        know them) whose last message is `last`, which a CLI whose end line repeats its last
        message (claude) repeats there."""
        return self.line(self.done_line(last))

    def text_line(self, text: str) -> dict[str, Any]:
        """A text event as the backend's CLI prints it, not yet scripted."""
        return self.profile.text(text)

    def done_line(self, text: str | None = None) -> dict[str, Any]:
        return self.profile.done(text)

    def failure_line(self, message: str) -> dict[str, Any]:
        """The turn failed, as the backend's CLI reports it in the stream."""
        return self.profile.failure(message)

    def tool(self, tool_id: str, *, result: bool) -> Script:
        return self.line(self.profile.tool(tool_id, result=result))

    def echo(self, prefix: str = "echo: ") -> Script:
        """A final answer that repeats the prompt: `prefix` + what stdin said, in the lines
        that end the CLI's turn (those that carry it printed with stdin in its place)."""
        for line in self.profile.echo(prefix):
            if "{stdin}" in json.dumps(line):
                self.add("line_stdin", line)
            else:
                self.line(line)
        return self

    def completes(self) -> bool:
        """The script plays a turn that ends well: the stream says the turn completed without
        an error, and the CLI neither exits non-zero nor dies by a signal."""
        done = any(self.profile.ends_well(line) for line in self.emitted)
        failing = any(s.get("exit", 0) != 0 or "die" in s for s in self.steps)
        return done and not failing

    def cli_lines(self) -> list[dict[str, Any]]:
        """Every line this script prints as the CLI's own output (not raw bytes of `out`)."""
        ops = [s[op] for s in self.steps for op in ("line", "line_stdin") if op in s]
        ops += [v for s in self.steps if "login_fails" in s for v in s["login_fails"]["lines"]]
        return [*self.emitted, *(v for v in ops if v not in self.emitted)]

    def schema(self) -> str:
        """Where the lines it prints are defined."""
        return f"schemas/cli/{self.backend}"

    def off_schema(self) -> list[str]:
        """Each line it prints that breaks its schema, with what breaks it."""
        return [f"{line}: {p}" for line in self.cli_lines()
                for p in off_schema(self.backend, line)]

    def unfaithful(self) -> list[str]:
        """What no real CLI prints in the order it prints its lines, in words."""
        return self.profile.unfaithful(self.emitted)

    def to_json(self) -> dict[str, Any]:
        head = [{"read_stdin": True}] if self.read_stdin else []
        return {"steps": head + self.steps, "time_scale": self.time_scale}

    @property
    def last_step(self) -> int:
        """The number the harness gives its last step as it notes it (`HarnessRig.began`),
        counted from 0 over the steps it plays: its read of stdin first, when it reads it."""
        return len(self.to_json()["steps"]) - 1


def harness_command() -> list[str]:
    """How a shim starts the fake harness: this Python, isolated (-I: no PYTHON* variable of
    the implementation's environment, no user site, no current directory on sys.path; -S: no
    site) and importing the harness by its file's directory rather than running the file, so
    Python reads its cached bytecode instead of compiling it on every start. A rig knows its
    harnesses by this command line (`doubles.harness.switchboard`)."""
    harness = Path(fake.__file__).resolve()
    start = (f"import sys; sys.path.insert(0, {str(harness.parent)!r}); "
             f"import {harness.stem}; {harness.stem}.main()")
    return [sys.executable, "-I", "-S", "-c", start]


def reporting_command(address: str, token: str) -> list[str]:
    """The command line of the harness of the rig `token` at `address`, before its name."""
    return [*harness_command(), fake.RIG, address, token]


def install(bin_dir: Path, script: Path, record: Path) -> None:
    """Write shims into `bin_dir` that play the script in the file `script` and note to the
    file `record`: the harness alone, with no rig (benchmarks, tests of the harness)."""
    _shims(bin_dir, [*harness_command(), str(script), str(record)])


def install_reporting(bin_dir: Path, address: str, token: str) -> None:
    """Write shims into `bin_dir` whose harness reports to the rig `token` at `address`."""
    _shims(bin_dir, reporting_command(address, token))


def _shims(bin_dir: Path, command: list[str]) -> None:
    """A shim per CLI the harness plays, running `command` NAME ARGS...; it `exec`s, so the
    pid the implementation started is the harness's pid."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in HARNESS_NAMES:
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {shlex.join([*command, name])} "$@"\n')
        shim.chmod(0o755)


def script_document(script: Script, **context: Any) -> dict[str, Any]:
    """What the harness reads: `script`, how each CLI is started (`clis`, from the profiles)
    and `context` (`cli_options`: the pinned CLIs' options, see `doubles.harness.fake`). A
    script that breaks schemas/harness/script.schema.json (a typo in a step) is an error of
    the suite."""
    document = {**script.to_json(), "clis": CLIS, **context}
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(the script)"
        raise SuiteError(f"error of the suite: the fake harness's script is invalid at {where}: "
                         f"{errors[0].message}")
    return document


def write_script(path: Path, script: Script, **context: Any) -> None:
    """Write `script_document` atomically, so a harness never reads half a script."""
    write_atomically(path, json.dumps(script_document(script, **context)))


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / "harness" / "script.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def read_record(path: Path) -> list[dict[str, Any]]:
    """Every entry the harness wrote, in order; nothing when it never started."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
