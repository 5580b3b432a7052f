"""The `agent-tck` console script, as installed: every subcommand wired, every documented
command line runnable.

The documented command lines are read from README.md, CONTRIBUTING.md, docs/ and
.pre-commit-hooks.yaml; each one's subcommand must answer `--help` through the installed
script, and every option the document uses must be one that subcommand lists.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.kit.cli import FORWARDED, HANDLERS
from agent_tck.kit.paths import ROOT

SCRIPT = shutil.which("agent-tck", path=str(Path(sys.executable).parent))
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / ".pre-commit-hooks.yaml",
             *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"agent-tck ([a-z][a-z-]*)((?: +(?:\S+))*)")
OPTION = re.compile(r"(?<![\w/.-])(--[a-z][a-z-]*|-[a-zA-Z])(?![\w-])")
SUBCOMMANDS = [*FORWARDED, *HANDLERS]
# The subcommands whose documented command lines are checked (other words after `agent-tck`
# may be prose).
WORDS = ("run", "smoke", "record", "gherkin", "install-clis", "validate", "serve", "ask", "docs")


def documented() -> list[tuple[str, str, list[str]]]:
    """(where, subcommand, options) for every `agent-tck SUBCOMMAND ...` in the documents."""
    found = []
    for path in DOCUMENTS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in COMMAND.finditer(line):
                if match[1] not in WORDS and not match[1].startswith("-"):
                    continue  # prose such as "agent-tck exists to ..."
                words = re.split(r"&&|\|\||[|;#`]", match[2])[0]  # this command only
                options = OPTION.findall(words)
                found.append((f"{path.relative_to(ROOT)}:{number}", match[1], options))
    return found


def help_of(*words: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None, "the agent-tck console script is not installed beside python"
    return subprocess.run([SCRIPT, *words, "--help"], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
def test_every_subcommand_answers_help_through_the_console_script(subcommand: str) -> None:
    done = help_of(subcommand)
    assert done.returncode == 0, done.stderr
    assert f"agent-tck {subcommand}" in done.stdout, done.stdout[:300]


def test_top_level_help_lists_every_subcommand_and_version_works() -> None:
    done = help_of()
    assert done.returncode == 0
    assert all(re.search(rf"^    {s}\b", done.stdout, re.M) for s in SUBCOMMANDS), done.stdout
    assert SCRIPT is not None
    version = subprocess.run([SCRIPT, "--version"], capture_output=True, text=True, check=True)
    assert re.fullmatch(r"agent-tck \d+\.\d+\.\d+\S*\n", version.stdout), version.stdout


def test_python_dash_m_agent_tck_is_the_console_script() -> None:
    done = subprocess.run([sys.executable, "-m", "agent_tck", "--version"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.startswith("agent-tck "), done.stderr


def test_a_usage_error_exits_2_with_the_subcommands_usage() -> None:
    assert SCRIPT is not None
    done = subprocess.run([SCRIPT, "run", "--component", "nope"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: agent-tck run ") and "'nope'" in done.stderr


def test_every_documented_command_line_is_wired() -> None:
    lines = documented()
    assert len(lines) >= 15 and {s for _, s, _ in lines} >= {"run", "validate", "serve", "ask"}
    helps: dict[str, str] = {}
    unwired = []
    for where, subcommand, options in lines:
        if subcommand not in helps:
            done = help_of(subcommand)
            helps[subcommand] = done.stdout if done.returncode == 0 else ""
        text = helps[subcommand]
        missing = [o for o in options
                   if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)]
        if not text or missing:
            unwired.append(f"{where}: agent-tck {subcommand} {missing or '(no --help)'}")
    assert unwired == []
