"""Processes that left the CLI's process group: found by a tag in their environment.

A CLI's tools may start processes in a session or process group of their own (Claude Code's
Bash tool does; `nohup cmd &` in such a tool then outlives the CLI), so a signal to the CLI's
group does not reach them. Every process the CLI starts inherits its environment unless a tool
clears it, so the supervisor tags the CLI's environment with a run id and signals every process
that carries it (decision D-6: no descendant survives the request). Linux only: elsewhere, and
for processes of other users, nothing is found.
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Mapping
from pathlib import Path

RUN_TAG = "CODING_AGENT_RUN_ID"
PROC = Path("/proc")


def tag_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """A copy of `env` (or of os.environ) with a fresh run id, and that id."""
    run_id = uuid.uuid4().hex
    return {**(os.environ if env is None else env), RUN_TAG: run_id}, run_id


def tagged(run_id: str) -> list[int]:
    """Pids of live processes whose environment carries `run_id`."""
    marker = f"{RUN_TAG}={run_id}".encode()
    found = []
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue  # gone, or not ours to read
            if marker in environ.split(b"\0"):
                found.append(int(entry.name))
    return found


def signal_tagged(run_id: str, sig: signal.Signals) -> int:
    """Send `sig` to every live process tagged `run_id`; how many there were."""
    pids = tagged(run_id)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return len(pids)
