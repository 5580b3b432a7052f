"""Processes that left the CLI's process group: found by a tag in their environment.

A CLI's tools may start processes in a session or process group of their own (Claude Code's
Bash tool does; `nohup cmd &` in such a tool then outlives the CLI), so a signal to the CLI's
group does not reach them. Every process the CLI starts inherits its environment unless a tool
clears it, so the supervisor tags the CLI's environment with a run id and signals every process
that carries it (decision D-6: no descendant survives the request). Linux only: elsewhere, and
for processes of other users, nothing is found.

Here too is how the reference signals a process it knows by its pid (`pinned`): pinned by a
pidfd where the kernel has them, by `os.kill` after its check where it has none.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

RUN_TAG = "CODING_AGENT_RUN_ID"
PROC = Path("/proc")
PF_KTHREAD = 0x00200000
EXEC_PAUSES = (0.001, 0.005, 0.02, 0.05, 0.1, 0.3)  # about half a second mid-exec
_pause = time.sleep
UNSUPPORTED = (errno.ENOSYS, errno.EPERM)  # no such call here, or a policy refuses it
Send = Callable[[int], None]


def tag_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """A copy of `env` (or of os.environ) with a fresh run id, and that id."""
    run_id = uuid.uuid4().hex
    return {**(os.environ if env is None else env), RUN_TAG: run_id}, run_id


def tagged(run_id: str, tag: str = RUN_TAG) -> list[int]:
    """Pids of live processes whose environment carries `run_id` (in the variable `tag`)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if entry.name.isdigit() and _carries(int(entry.name), run_id, tag):
                found.append(int(entry.name))
    return found


def signal_tagged(run_id: str, sig: signal.Signals, rounds: int = 5, tag: str = RUN_TAG
                  ) -> int:
    """Send `sig` to every live process tagged `run_id`, again while new ones appear (a
    process may fork between a scan and its signal), at most `rounds` scans; how many
    processes were signalled. Each is pinned (`pinned`) and its tag read again
    before the signal, so a pid reused meanwhile is not signalled."""
    done: set[int] = set()
    for _ in range(rounds):
        fresh = [pid for pid in tagged(run_id, tag) if pid not in done]
        if not fresh:
            break
        for pid in fresh:
            done.add(pid)
            _signal(pid, run_id, sig, tag)
    return len(done)


def _carries(pid: int, run_id: str, tag: str) -> bool:
    environ = _environ(pid)
    return environ is not None and f"{tag}={run_id}".encode() in environ.split(b"\0")


def _environ(pid: int) -> bytes | None:
    """The environment `pid` was started with; None if it is gone or not ours to read.

    A process in the middle of exec shows no environment at all: the kernel has given it
    the new program's memory but not yet the stack that holds its environment (Popen has
    returned by then). Such a process is read again, a few times, until it shows one."""
    pauses = iter(EXEC_PAUSES)
    while True:
        try:
            environ = (PROC / str(pid) / "environ").read_bytes()
        except OSError:
            return None
        pause = next(pauses, None)
        if environ or pause is None or not _in_exec(pid):
            return environ
        _pause(pause)


def _in_exec(pid: int) -> bool:
    """Whether `pid` has no environment yet (its end, `env_end`, field 51 of its stat, is 0)
    though it is neither a kernel thread nor a zombie, which have none for good. A process
    started with an empty environment has one: its end is an address like any other."""
    try:
        fields = (PROC / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    state, flags, env_end = fields[0], int(fields[6]), int(fields[48]) if len(fields) > 48 else 1
    return state != b"Z" and not flags & PF_KTHREAD and env_end == 0


def _signal(pid: int, run_id: str, sig: signal.Signals, tag: str) -> None:
    with pinned(pid) as send:
        if send is not None and _carries(pid, run_id, tag):
            send(sig)


def pidfd(pid: int) -> int | None:
    """A pidfd of `pid`; None where pidfds are not to be had. OSError when `pid` has ended
    and been waited for (a zombie still has one)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        return int(pidfd_open(pid))
    except OSError as exc:
        if exc.errno in UNSUPPORTED:
            return None
        raise


@contextlib.contextmanager
def pinned(pid: int) -> Iterator[Send | None]:
    """A way to signal `pid` without reaching a later process given its pid (nothing once it
    has ended), or None when it has ended already.

    Where the kernel has pidfds (Linux 5.3), `pid` is pinned by one before the caller checks
    it, and the signal goes through it. Where there are none (macOS, an older kernel, a
    seccomp policy that refuses the call), the check and `os.kill` are a moment apart, and a
    pid reused in that moment would be signalled: the fallback narrows that window, it
    cannot close it."""
    try:
        fd = pidfd(pid)
    except OSError:
        yield None
        return
    if fd is None:
        yield lambda sig: _quietly(os.kill, pid, sig)
        return
    try:
        yield lambda sig: _quietly(signal.pidfd_send_signal, fd, sig)
    finally:
        os.close(fd)


def _quietly(send: Callable[[int, int], None], target: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        send(target, sig)
