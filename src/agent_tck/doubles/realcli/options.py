"""The command-line options of the pinned real CLIs, read from their own `--help`.

`python -m agent_tck.doubles.realcli.options` runs `claude --help`, `codex --help`,
`codex exec --help` and `codex exec resume --help` in the loopback-only namespace and writes
fixtures/cli-options.json: for each command, its usage lines and every option (its flags as
the help prints them, whether it takes a value, the allowed choices). The fake harness reads
that file and refuses an argv the real CLI refuses, with the real CLI's message and exit
code (`doubles.harness.fake`); tests/test_cli_options.py checks both agree on the same argvs,
and that the file is current.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.realcli import clis, isolation
from agent_tck.doubles.realcli.sandbox import SCRUBBED
from agent_tck.kit.paths import FIXTURES

OPTIONS_FILE = FIXTURES / "cli-options.json"
# Accepted by the pinned CLI but not listed by its --help; the SDKs pass them. Claude's are
# probed (its "argument missing" message gives the value's name); codex's is checked by the
# fidelity test in tests/test_realcli.py.
HIDDEN = {"codex exec": [{"flags": "--experimental-json", "names": ["--experimental-json"],
                          "value": "none", "choices": []}]}
CLAUDE_SDK_FLAGS = ("--max-turns", "--max-thinking-tokens", "--permission-prompt-tool",
                    "--session-mirror", "--system-prompt-file", "--task-budget", "--thinking",
                    "--thinking-display")
# Values the pinned claude takes without listing them among the choices (the SDKs send them).
UNLISTED_CHOICES = {"--permission-mode": ["default"]}
RUST_DEBUG = ("RUST_BACKTRACE", "RUST_LIB_BACKTRACE")
MISSING = re.compile(r"error: option '(--[\w-]+) (<[^>]+>)' argument missing")
# Commander (claude): "  -p, --print   text", "  --allowedTools, --allowed-tools <tools...>".
CLAUDE_OPTION = re.compile(r"^  ((?:-\w, )?--[\w-]+(?:, --[\w-]+)?)(?: ([<\[][^>\]]+[>\]]))?")
# clap (codex): "  -c, --config <key=value>", "      --json".
CODEX_OPTION = re.compile(r"^\s{2,6}((?:-\w, )?--[\w-]+)(?: <([^>]+)>(\.\.\.)?)?\s*$")
# clap's list of subcommands: "  exec              Run Codex non-interactively [aliases: e]".
CODEX_COMMAND = re.compile(r"^  ([a-z][\w-]*)\s")
ALIASES = re.compile(r"\[aliases: ([^\]]+)\]")
CHOICES = re.compile(r'\(choices: ((?:"[^"]*"(?:, )?)+)')
POSSIBLE = re.compile(r"\[possible values: ([^\]]+)\]")


def parse_claude(text: str) -> dict[str, Any]:
    """Options of `claude --help` (commander.js)."""
    options = []
    for match, words in _blocks(text, CLAUDE_OPTION):
        names, arg = match[1].split(", "), match[2] or ""
        value = ("none" if not arg else "optional" if arg.startswith("[")
                 else "variadic" if arg.endswith("...>") else "required")
        found = CHOICES.search(words)
        options.append({"flags": f"{names[-1]} {arg}".strip(), "names": names, "value": value,
                        "choices": re.findall(r'"([^"]*)"', found[1]) if found else []})
    return {"usage": _usage(text), "options": options}


def parse_codex(text: str) -> dict[str, Any]:
    """Options of `codex [exec [resume]] --help` (clap), and the subcommands it lists (each
    name and alias, to the name)."""
    options = []
    for match, words in _blocks(text, CODEX_OPTION):
        names = match[1].split(", ")
        value = "none" if not match[2] else "variadic" if match[3] else "required"
        found = POSSIBLE.search(words)
        options.append({"flags": f"{names[-1]} <{match[2]}>" if match[2] else names[-1],
                        "names": names, "value": value,
                        "choices": [c.strip() for c in found[1].split(",")] if found else []})
    subcommands: dict[str, str] = {}
    for line in _section(text, "Commands:") if "Commands:" in text.splitlines() else []:
        if named := CODEX_COMMAND.match(line):
            aliases = ALIASES.search(line)
            for name in [named[1], *(aliases[1].split(", ") if aliases else [])]:
                subcommands[name] = named[1]
    return {"usage": _usage(text), "options": options, "subcommands": subcommands}


def _blocks(text: str, option: re.Pattern[str]) -> list[tuple[re.Match[str], str]]:
    """Each option line of the Options section with its description, joined on one line."""
    blocks: list[tuple[re.Match[str], list[str]]] = []
    for line in _section(text, "Options:"):
        if match := option.match(line):
            blocks.append((match, [line[match.end():]]))
        elif blocks:
            blocks[-1][1].append(line)
    return [(match, " ".join(" ".join(words).split())) for match, words in blocks]


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace()),
               len(lines))
    return lines[start:end]


def _usage(text: str) -> list[str]:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Usage: "))
    usage = [lines[first]]
    usage += [line for line in lines[first + 1:first + 3] if line.startswith("       ")]
    return usage


def run_real(backend: str, *words: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real CLI run with `words` and stdin empty, in a loopback-only network namespace
    (it never reaches a vendor), with an empty HOME of its own: what it prints does not depend
    on the user's configuration, and it writes nothing there. It may warn about that HOME
    first (codex: a home under the temporary directory). A CLI still running at `timeout` is killed
    with its process group and reported with return code None and what it had written."""
    binary = clis.binary(backend)
    problem = isolation.problem() or (clis.not_installed(backend) if binary is None else None)
    if problem or binary is None:
        raise SystemExit(f"cannot run the real {backend}: {problem}")
    script = 'ip link set lo up && exec "$@"'
    argv = [*isolation.unshare_argv(), "sh", "-c", script, "sh", str(binary), *words]
    with tempfile.TemporaryDirectory(prefix=f"agent-tck-{backend}-home-") as home:
        # A backtrace asked for (codex prints one after its error) is the user's, not the CLI's.
        env = {name: value for name, value in os.environ.items()
               if not re.match(SCRUBBED, name) and name not in RUST_DEBUG}
        tmp = Path(home, "tmp")  # what it keeps there (Claude: a socket, a probe) goes too
        tmp.mkdir(mode=0o700)  # as XDG_RUNTIME_DIR must be
        env.update(HOME=home, XDG_CONFIG_HOME=str(Path(home, ".config")), TMPDIR=str(tmp),
                   XDG_RUNTIME_DIR=str(tmp))
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                env=env)
        try:
            out, err = proc.communicate(timeout=timeout)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code = None
    return subprocess.CompletedProcess(argv, code, out, err)  # type: ignore[arg-type]


def help_text(backend: str, *words: str) -> str:
    done = run_real(backend, *words, "--help")
    if done.returncode != 0:
        raise SystemExit(f"{backend} {' '.join(words)} --help failed: {done.stderr}")
    return done.stdout


def probe_claude(flag: str) -> dict[str, Any] | None:
    """A flag claude accepts without listing it, as an option; None when it refuses it."""
    done = run_real("claude", "-p", flag)
    if "unknown option" in done.stderr:
        return None
    missing = MISSING.search(done.stderr)
    value = "required" if missing else "none"
    flags = f"{flag} {missing[2]}" if missing else flag
    return {"flags": flags, "names": [flag], "value": value, "choices": []}


def measure() -> dict[str, Any]:
    commands = {"claude": parse_claude(help_text("claude")),
                "codex": parse_codex(help_text("codex")),
                "codex exec": parse_codex(help_text("codex", "exec")),
                "codex exec resume": parse_codex(help_text("codex", "exec", "resume"))}
    for command, extra in HIDDEN.items():
        commands[command]["options"] += extra
    listed = {n for o in commands["claude"]["options"] for n in o["names"]}
    probed = [probe_claude(flag) for flag in CLAUDE_SDK_FLAGS if flag not in listed]
    commands["claude"]["options"] += [o for o in probed if o is not None]
    for option in commands["claude"]["options"]:
        option["unlisted"] = UNLISTED_CHOICES.get(option["names"][-1], [])
    versions = {pin.package: pin.pinned for pin in clis.pins() if pin.backend in PROFILES}
    return {"about": "Options of the pinned real CLIs, from their --help: "
                     "python -m agent_tck.doubles.realcli.options",
            "versions": versions, "commands": commands}


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else OPTIONS_FILE
    path.write_text(json.dumps(measure(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
