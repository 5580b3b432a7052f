"""`agent-tck smoke --impl CMD`: does the adapter start, answer `start`, and stop cleanly?

Prints one line per check and a readable diagnosis of the first failure.
"""

from __future__ import annotations

import os
import shlex
import shutil
from typing import TextIO

from steps.drivers.protocol import PROTOCOL_VERSION
from steps.drivers.stdio import AdapterProcess, StdioDriver
from steps.exceptions import DriverError, UsageError


def diagnose_command(command: str) -> str | None:
    """Why `command` cannot be started, or None when it looks startable."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"cannot parse the command {command!r}: {exc}"
    if not argv:
        return "the command is empty"
    program = argv[0]
    if os.sep in program:
        if not os.path.exists(program):
            return f"{program!r} does not exist"
        if not os.access(program, os.X_OK):
            return f"{program!r} is not executable (chmod +x?)"
        return None
    if shutil.which(program) is None:
        return f"{program!r} was not found on PATH"
    return None


def smoke(command: str, out: TextIO, timeout: float = 30.0) -> int:
    problem = diagnose_command(command)
    if problem:
        raise UsageError(f"--impl {command!r}: {problem}")
    try:
        driver = StdioDriver(command, timeout=timeout)
    except DriverError as exc:
        print(f"FAIL start: {_diagnosis(str(exc))}", file=out)
        return 1
    info = driver.info
    print(
        f"ok   start: {info.name} {info.version} ({info.language}), protocol "
        f"{PROTOCOL_VERSION}, components {', '.join(info.components) or 'none'}, "
        f"backends {', '.join(info.backends) or 'none'}",
        file=out,
    )
    process = driver.process
    driver.close()
    return _report_stop(process, out)


def _report_stop(process: AdapterProcess | None, out: TextIO) -> int:
    if process is None:
        print("FAIL stop: the adapter broke during the handshake", file=out)
        return 1
    code = process.proc.returncode
    noise = process.stderr_tail().strip()
    print(f"{'ok  ' if code == 0 else 'FAIL'} stop: exit code {code}", file=out)
    if noise:
        print(f"note stderr: the adapter wrote to stderr: {noise[-300:]!r}", file=out)
    return 0 if code == 0 else 1


def _diagnosis(error: str) -> str:
    hints = (
        ("speaks protocol version", "wrong protocol version"),
        ("no response within", "the adapter did not answer `start` (hang)"),
        ("stray output", "the adapter printed something that is not a protocol message"),
        ("closed stdout", "the adapter exited before answering"),
        ("breaks start.response", "the `start` response does not match its schema"),
    )
    for needle, hint in hints:
        if needle in error:
            return f"{hint}\n{error}"
    return error
