"""`agent-tck install-clis`: install the pinned CLIs, then say what each one reports itself.

A CLI's own `--version` is asked inside a loopback-only network namespace (a real CLI never
runs outside one), and only of an install that is as clis/package-lock.json says
(`integrity`); where no namespace can be made, the version installed by npm is all we say.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TextIO

from agent_tck.doubles.realcli import clis, isolation


def install_clis(where: Path | None, out: TextIO) -> int:
    installed = clis.install(where, out=out)
    problem = isolation.problem()
    shown = set()
    for pinned in installed:  # an ACP agent that is its CLI (gemini --acp) is shown once
        if pinned.binary in shown:
            continue
        shown.add(pinned.binary)
        says = f"not run: {problem}" if problem else self_reported(pinned.binary)
        print(f"{pinned.backend:10} {pinned.package} {pinned.installed}  {pinned.binary}  "
              f"(--version: {says})", file=out)
    return 0


def self_reported(binary: Path) -> str:
    """What `binary --version` prints, run in a fresh loopback-only network namespace."""
    argv = [*isolation.unshare_argv(), str(binary), "--version"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"failed: {exc}"
    lines = done.stdout.strip().splitlines()
    return lines[-1] if done.returncode == 0 and lines else f"exited {done.returncode}"
