"""The fake harness set up for a benchmark: a temporary bin directory and real-shaped lines."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_tck.doubles.backends.claude import ClaudeLines
from agent_tck.doubles.backends.codex import CodexLines
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.paths import ROOT


@contextmanager
def harness(script: Script) -> Iterator[HarnessRig]:
    """A rig in a fresh temporary directory, playing `script`."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-bench-") as tmp:
        rig = HarnessRig(Path(tmp))
        rig.use(script)
        yield rig


def turn(backend: str) -> list[dict[str, Any]]:
    """One tool-using turn as the CLI prints it: text, tool start, tool result, more text."""
    if backend == "claude":
        c = ClaudeLines()
        return [
            c.text("I will list the files first."),
            c.tool_use("toolu_01", "Bash", command="ls -la", description="List files"),
            c.tool_result("toolu_01", "README.md\npyproject.toml\nsrc\ntests\n"),
            c.thinking("The project has tests; look at them next."),
        ]
    x = CodexLines()
    return [
        x.agent_message("I will list the files first."),
        x.command("item_1", "bash -lc 'ls -la'", completed=False),
        x.command("item_1", "bash -lc 'ls -la'", completed=True, output="README.md\nsrc\n"),
        x.reasoning("The project has tests; look at them next."),
    ]


def stream(backend: str, count: int) -> Script:
    """An init line, `count` lines of repeated turns, and a successful end."""
    script = Script(backend).init()
    script.add("repeat", {"lines": turn(backend), "count": count})
    return script.done("done")


def one_line(backend: str) -> Script:
    """The smallest successful request: read the prompt, print the end line, exit."""
    return Script(backend).done("ok")


def child_env() -> dict[str, str]:
    """This environment, with the repository first on PYTHONPATH for child processes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env
