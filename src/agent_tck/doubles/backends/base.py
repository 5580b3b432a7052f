"""A backend profile: everything the kit knows of one coding CLI, in one place.

How the CLI is started (its command line, where the prompt goes, how it resumes), how it
prints a turn (its line shapes, built by the harness's line builders), and how the real CLI
is sandboxed (its model API, its configuration, where it stores sessions). The fake harness,
the steps and the checks of recorded transcripts ask the profile; none of them names a CLI.
Adding a backend is adding a profile (and its schema, fixtures and features): see
docs/new-backend.md.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agent_tck.doubles.backends.acp.lines import Shapes

Line = dict[str, Any]


@dataclass(frozen=True)
class AcpAgent:
    """The real agent of the Agent Client Protocol (ACP) that runs a CLI (backend
    `<cli>-acp`), as the sandbox starts it: the command it installs (`package`, pinned in
    clis/package.json; None: the CLI's own), the options that make it speak ACP, and what its
    sandbox sets beyond the CLI's (variables; a configuration of the CLI's HOME other than the
    profile's, given the model's URL). The fake harness plays it, started as `command`, from
    `fake` (what it answers: see `doubles.harness.acpagent`) and `shapes` (how it shapes a
    turn's messages)."""

    command: str
    fake: dict[str, Any]
    shapes: type[Shapes] = Shapes
    package: str | None = None
    options: tuple[str, ...] = ()
    environment: dict[str, str] = field(default_factory=dict)
    configure_home: Callable[[Path, str], None] | None = None


class Profile(ABC):
    name: ClassVar[str]  # the command the implementation runs, and the backend's name
    package: ClassVar[str]  # the npm package of the real, pinned CLI
    model_api: ClassVar[str]  # the scripted model server its real CLI is pointed at
    title: ClassVar[str]  # how it is run for its JSON-lines stream, as the docs name it
    # What the fake harness needs to be started as this CLI (plain data, written into the
    # harness's script): the option that makes stdin a stream of JSON messages and its value,
    # the options that name a working directory, the subcommand and option parser whose
    # refusals it copies (see fixtures/cli-options.json).
    start: ClassVar[dict[str, Any]]
    # Valid JSON of shapes no version of the CLI printed yet (AG-H14).
    unknown_shapes: ClassVar[list[Line]]
    # Whether the line that ends a turn carries the final text (else: the last message does).
    done_carries_text: ClassVar[bool]
    # Whether each text line is a whole message, not a piece of one: the turn's answer may then
    # be its last message alone (decision D-33).
    whole_messages: ClassVar[bool] = False
    # The prefixes of the environment variables that configure it (its keys, endpoints):
    # recorded by the fake harness, dropped by the real CLI's sandbox before its own are set.
    env_prefixes: ClassVar[tuple[str, ...]]
    # The variables that carry an API key to the CLI: what an agent using the CLI's own login
    # withholds (decision D-21).
    key_variables: ClassVar[tuple[str, ...]]
    # The real ACP agent that runs this CLI (backend `<name>-acp`), or None.
    acp_agent: ClassVar[AcpAgent | None] = None

    # The stream, in the CLI's own shapes. A profile instance keeps a turn's state (ids).
    @abstractmethod
    def init(self, session_id: str | None = None) -> Line: ...

    def prompt_echo(self) -> Line | None:
        """The line the CLI prints after `init` repeating the prompt (`{stdin}` stands for
        it), or None when it prints none."""
        return None

    @abstractmethod
    def text(self, text: str) -> Line: ...

    @abstractmethod
    def done(self, text: str | None = None) -> Line: ...

    def last_message(self, lines: list[Line]) -> str | None:
        """Where the line that ends a turn repeats the turn's last message (`done_carries_text`):
        the text of the last message among `lines`, as the CLI would repeat it ("" for a
        message without text, None when no message came)."""
        return None

    def unfaithful(self, lines: list[Line]) -> list[str]:
        """What no real CLI prints in this order among `lines` (a turn's lines, in order), in
        words; each line's own shape is checked against the CLI's schema elsewhere."""
        return []

    @abstractmethod
    def failure(self, message: str) -> Line:
        """The turn failed, as the CLI reports it in the stream."""

    @abstractmethod
    def tool(self, tool_id: str, *, result: bool) -> Line:
        """A tool call (`result=False`) or its result."""

    @abstractmethod
    def echo(self, prefix: str) -> tuple[Line, ...]:
        """The lines that end a turn whose answer is `prefix` + stdin (`{stdin}` stands for
        it), as the CLI prints them."""

    @classmethod
    @abstractmethod
    def ends_well(cls, line: Line) -> bool:
        """The line says the turn completed without an error."""

    @classmethod
    @abstractmethod
    def shape_of(cls, line: Line) -> str:
        """The shape a line belongs to in schemas/cli, e.g. `system/init`."""

    # The command line.
    @classmethod
    @abstractmethod
    def resumed_session(cls, argv: list[str]) -> str | None:
        """The session `argv` resumes, or None when it starts a new one."""

    model_options: ClassVar[tuple[str, ...]]  # the options that name the model
    # The tool name the CLI's stream gives a command run by `shell_tool` (codex names the item
    # it reports, command_execution, not the function the model called).
    shell_tool_reported: ClassVar[str]

    @classmethod
    def model_of(cls, argv: list[str]) -> str | None:
        """The model `argv` names with one of the CLI's model options, or None."""
        return option_value(argv, cls.model_options)

    @classmethod
    @abstractmethod
    def recording_argv(cls, args: tuple[str, ...]) -> list[str]:
        """argv that records the real CLI's stream, prompt on stdin, with extra `args`."""

    # The real CLI in its sandbox, against a scripted model.
    @classmethod
    @abstractmethod
    def configure_home(cls, home: Path, url: str) -> None:
        """Write the CLI's configuration under `home`: the model at `url`, no approvals."""

    @classmethod
    @abstractmethod
    def environment(cls, home: Path, url: str, key: str) -> dict[str, str]:
        """Variables that point the CLI at `home`, the scripted model at `url`, with `key`."""

    @classmethod
    @abstractmethod
    def shell_tool(cls, command: str) -> dict[str, Any]:
        """A scripted model turn that runs `command` with the CLI's shell tool."""

    @classmethod
    @abstractmethod
    def stored_sessions(cls, home: Path) -> list[str]:
        """The ids of the sessions the real CLI stored under `home`."""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def option_value(argv: list[str], names: tuple[str, ...]) -> str | None:
    """The value `argv` gives one of the options `names` (`--name VALUE` or `--name=VALUE`;
    the first given), or None; nothing after `--` is an option."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if eq and name in names:
            return value
        if arg in names and i + 1 < len(argv):
            return argv[i + 1]
    return None
