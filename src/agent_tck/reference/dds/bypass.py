"""Which `--cli-arg`s make a served CLI act without asking: `serve` refuses them on a DDS
configuration that reaches the network, unless told (`--allow-bypass-on-network`).

A bypass is an option that lifts the CLI's own checks altogether: Claude Code's permission
prompts (`bypassPermissions`), Codex's sandbox (`danger-full-access`, or no sandbox and no
approvals), Gemini CLI's approvals (YOLO), or the trust asked before running hooks. What
only narrows the prompts (accepting edits, Claude's `auto` mode, a tool allow-list, Codex's
`--approve-for-me` in its workspace sandbox) is not one; docs/security.md lists both.

Each CLI's parser takes more spellings of an option than its name: an attached value
(`--permission-mode=bypassPermissions`, `-sdanger-full-access`), a cluster of short flags
(`-dy`), a settings document (`--settings '{...}'`, or a file holding it), a config override
(`-c sandbox_mode=...`). `find_bypass` reads the arguments as that CLI's parser does, from its
table in PARSERS (fixtures/cli-options.json holds the pinned CLIs' own option tables, and
tests/test_dds_exposure.py checks these against them), and errs towards finding one: every
argument is read as an option, and also as the value of the one before it. A refusal costs
the operator a flag; a miss gives anyone on the network the machine.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A settings document larger than this is not judged (and so refused): Claude's are small.
MAX_SETTINGS = 1 << 20

Judge = Callable[[str, Path], bool]  # (an option's value, the CLI's working directory)


@dataclass(frozen=True)
class Parser:
    """What of one CLI's option parser the guard needs to know."""

    flags: frozenset[str]  # options that bypass by being given, in any spelling of their own
    values: Mapping[str, Judge]  # options whose value may bypass, each with its judge
    # Short options that take the rest of their cluster as their value (`-sVALUE`): clap and
    # commander.js read a cluster so; yargs sets every letter of one (`-my` sets y).
    short_values: frozenset[str] = frozenset()
    any_option: bool = False  # a CLI whose options are not tabled: each one may bypass


def find_bypass(args: tuple[str, ...], parser: Parser, cwd: Path) -> str | None:
    """The first of `args` that lets the CLI act without asking, as written (with its value
    when that is the next argument); None when there is none."""
    for i, arg in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else None
        for name, attached in _options(arg, parser.short_values):
            if parser.any_option or name in parser.flags:
                return arg
            judge = parser.values.get(name)
            value = following if attached is None else attached
            if judge is not None and value is not None and judge(value, cwd):
                return arg if attached is not None else f"{arg} {following}"
    return None


def _options(arg: str, short_values: frozenset[str]) -> list[tuple[str, str | None]]:
    """The options `arg` gives, each with its attached value (None: the value, if it takes
    one, is the next argument): `--name`, `--name=value`, a cluster `-abc`, `-sVALUE`,
    `-s=VALUE`."""
    if arg.startswith("--"):
        name, eq, value = arg.partition("=")
        return [(name, value if eq else None)]
    if not arg.startswith("-"):
        return []
    found: list[tuple[str, str | None]] = []
    for k, letter in enumerate(arg[1:], start=2):
        rest = arg[k:]
        if rest.startswith("=") or f"-{letter}" in short_values:
            return [*found, (f"-{letter}", rest.removeprefix("=") or None)]
        found.append((f"-{letter}", None))
    return found


def one_of(*values: str) -> Judge:
    """A value among `values`, in any case (a parser that refuses the case refuses the run
    anyway)."""
    wanted = {v.casefold() for v in values}
    return lambda value, _cwd: value.strip().casefold() in wanted


def claude_settings(value: str, cwd: Path) -> bool:
    """Claude Code's `--settings`/`--agents`: inline JSON, or a file relative to the CLI's
    working directory, that says `bypassPermissions` anywhere (`permissions.defaultMode`, an
    agent's `permissionMode`). A file that cannot be read, or no JSON, cannot be judged: it
    counts, since what the CLI makes of it is unknown."""
    text = value if value.lstrip().startswith("{") else _read(cwd / value)
    if text is None:
        return True
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return True
    return any(s.casefold() == "bypasspermissions" for s in _strings(document))


def codex_override(value: str, _cwd: Path) -> bool:
    """Codex's `-c key=value`: its value is read as TOML (`"..."` with escapes), or else
    taken as a string; one that names a dangerous mode anywhere counts
    (`sandbox_mode="danger-full-access"`, `default_permissions=":danger-full-access"`, in a
    profile or not)."""
    key, _, raw = value.partition("=")
    try:
        decoded: Any = tomllib.loads(f"v = {raw.strip()}")
    except tomllib.TOMLDecodeError:
        decoded = raw
    return any("danger" in s.casefold() for s in (key, raw, *_strings(decoded)))


def _read(path: Path) -> str | None:
    """The text of a regular file up to MAX_SETTINGS, or None (a named pipe would keep the
    check waiting for a writer)."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as file:
            data = file.read(MAX_SETTINGS + 1)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if len(data) <= MAX_SETTINGS else None


def _strings(value: Any) -> Iterator[str]:
    """Every string of a JSON or TOML value, keys too, without recursion (any depth)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item


# Claude Code (commander.js): fixtures/cli-options.json, command "claude".
CLAUDE = Parser(
    flags=frozenset({"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"}),
    values={"--permission-mode": one_of("bypassPermissions"),
            "--settings": claude_settings, "--agents": claude_settings},
    short_values=frozenset({"-d", "-n", "-r", "-w"}),
)
# Codex (clap): command "codex exec"; `--yolo` is an alias its help does not list.
CODEX = Parser(
    flags=frozenset({"--dangerously-bypass-approvals-and-sandbox", "--yolo",
                     "--dangerously-bypass-hook-trust"}),
    values={"-s": one_of("danger-full-access"), "--sandbox": one_of("danger-full-access"),
            "-c": codex_override, "--config": codex_override},
    short_values=frozenset({"-c", "-i", "-m", "-p", "-s", "-C", "-o"}),
)
# Gemini CLI (yargs, from its `parseArguments`): `-y` is `--yolo` and so is `--y`; yargs also
# takes the camel-case spelling of every option.
GEMINI = Parser(
    flags=frozenset({"--yolo", "-y", "--y"}),
    values={"--approval-mode": one_of("yolo"), "--approvalMode": one_of("yolo")},
)

# The ACP agents: `gemini --acp` reads gemini's options; claude-agent-acp's and codex-acp's are
# not tabled here, so every option given to them is refused on a network.
UNTABLED = Parser(flags=frozenset(), values={}, any_option=True)
PARSERS: dict[str, Parser] = {"claude": CLAUDE, "codex": CODEX, "gemini": GEMINI,
                              "gemini-acp": GEMINI, "claude-acp": UNTABLED,
                              "codex-acp": UNTABLED}
