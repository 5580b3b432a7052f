"""`agent-tck record`: run a real CLI against a scripted model and save its raw stdout.

The CLI runs as an agent would run it (`claude -p --output-format stream-json --verbose`,
`codex exec --json --skip-git-repo-check -`, the prompt on stdin) in a sandbox
(doubles/realcli/sandbox.py). The transcript is written whole or not at all, so the fake harness
can replay it (fixtures/transcripts/, docs/real-clis.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.models.script import ScriptError, parse
from agent_tck.doubles.realcli import clis
from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable
from agent_tck.kit.errors import UsageError
from agent_tck.kit.files import write_atomically


@dataclass
class Recording:
    stdout: bytes
    stderr: bytes
    returncode: int | None  # None: killed at the timeout
    requests: list[dict[str, Any]]


def record(
    backend: str, script: dict[str, Any], prompt: str, timeout: float = 120.0,
    args: tuple[str, ...] = (),
) -> Recording:
    """One real run of `backend` against `script`; raises UsageError when it cannot run here."""
    if backend not in PROFILES:
        raise UsageError(f"--backend {backend!r}: expected one of {', '.join(PROFILES)}")
    reason = unavailable(backend)
    if reason:
        raise UsageError(f"cannot record {backend}: {reason}")
    cli = clis.binary(backend)
    assert cli is not None
    argv = PROFILES[backend].recording_argv(args)
    with (tempfile.TemporaryDirectory(prefix=f"agent-tck-record-{backend}-") as root,
          Sandbox(Path(root), backend, script, cli) as sandbox):
        proc = subprocess.Popen(argv, cwd=sandbox.work,
                                env={**os.environ, "PATH": sandbox.path()},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(prompt.encode(), timeout=timeout)
            code: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code = None
        return Recording(out, err, code, sandbox.requests())


def record_command(backend: str, script_path: Path, out_path: Path, prompt: str,
                   timeout: float, out: TextIO) -> int:
    try:
        script = json.loads(script_path.read_text(encoding="utf-8"))
        parse(script, str(script_path))  # a bad script is named with its file and turn
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{script_path}: cannot read the model script: {exc}") from exc
    except ScriptError as exc:
        raise UsageError(str(exc)) from exc
    if not out_path.parent.is_dir():
        raise UsageError(f"--out {out_path}: the directory {out_path.parent} does not exist")
    done = record(backend, script, prompt, timeout)
    if done.returncode is None:
        print(f"{backend} did not finish in {timeout:g} s; nothing written to {out_path}",
              file=out)
        return 1
    write_atomically(out_path, done.stdout)
    lines = done.stdout.count(b"\n")
    ended = "timed out" if done.returncode is None else f"exited {done.returncode}"
    print(f"{backend} {ended}; {lines} lines written to {out_path}; "
          f"the model received {len(done.requests)} requests", file=out)
    problems = [r["problem"] for r in done.requests if r.get("problem")]
    for problem in problems:
        print(f"model script problem: {problem}", file=out)
    if done.returncode not in (0, None) or problems:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-5:]
        for line in tail:
            print(f"  stderr: {line}", file=out)
    return 1 if problems else 0
