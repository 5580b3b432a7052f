"""What the suite can see of processes from the outside (/proc), and how it signals one it
has seen without reaching another that took its pid."""

from __future__ import annotations

import errno
import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def unobservable() -> str | None:
    """Why the suite cannot see processes here, in words ("needs ..."), or None when it can:
    it reads Linux's /proc, and its fake CLIs report on abstract UNIX sockets (Linux's too)."""
    if not sys.platform.startswith("linux"):
        return f"needs Linux's /proc and abstract UNIX sockets, which {sys.platform} has not"
    if not os.path.isfile("/proc/self/stat"):
        return "needs Linux's /proc, which is not mounted here"
    return None


def _fields(pid: int) -> list[str] | None:
    """The fields of `pid`'s stat after its name (state, ppid, ...), or None when it no
    longer exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()


def process_state(pid: int) -> str | None:
    """The one-letter state of `pid` ('Z' for a zombie), or None when it no longer exists."""
    fields = _fields(pid)
    return fields[0] if fields is not None else None


def cpu_seconds(pid: int) -> float | None:
    """The CPU time `pid` has used (user and system, its threads' included), or None when it
    no longer exists."""
    fields = _fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_wanted(pid: int) -> dict[str, int] | None:
    """The nanoseconds each thread of `pid` has spent on a CPU or runnable, waiting for one
    (Linux's schedstat), by thread id: what a busy machine does not take from a process that
    never waits, as it takes the CPU time. None when `pid` no longer exists or the kernel
    keeps no schedstat (no file, or none of the threads ever counted as running)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return None
    counts: dict[str, int] = {}
    running_at_all = False
    for task in tasks:
        try:
            running, waiting, _ = Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()
            counts[task] = int(running) + int(waiting)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue  # a thread that has ended, or a kernel without schedstat
        running_at_all = running_at_all or int(running) > 0
    return counts if running_at_all else None


def wanted_between(before: dict[str, int], after: dict[str, int]) -> float:
    """The seconds of `cpu_wanted` between two readings: each thread's growth, a thread
    started since counted whole, one ended since left out (not its whole life subtracted)."""
    return sum(ns - before.get(task, 0) for task, ns in after.items()) / 1e9


def started_at(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (its stat's 22nd field): with the pid,
    what tells a process from a later one given the same pid. None when it no longer
    exists."""
    fields = _fields(pid)
    return int(fields[19]) if fields is not None else None


def signal_if_same(pid: int, since: int | None, sig: int) -> bool:
    """Send `sig` to `pid` only if it is still the process that started at `since` (None:
    never); whether it was sent. The process is pinned by a pidfd before its start time is
    read, so the signal goes to the process that was checked, never to one that took its
    pid since: a pid read from a record is a claim, not a process of ours. (Without pidfds,
    the check comes just before the signal.)"""
    if since is None:
        return False
    try:
        fd = pidfd(pid)
    except OSError:
        return False  # gone
    try:
        if started_at(pid) != since:
            return False
        if fd is None:
            os.kill(pid, sig)
        else:
            signal.pidfd_send_signal(fd, sig)
        return True
    except OSError:
        return False  # ended meanwhile
    finally:
        if fd is not None:
            os.close(fd)


def pidfd(pid: int) -> int | None:
    """A pidfd of `pid` (Linux 5.3: it pins the process, its exit reads ready); None where
    there are none (macOS, an older kernel, a seccomp policy that refuses the call), where a
    check and a signal are a moment apart instead. OSError when `pid` has ended and been
    waited for."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        return int(pidfd_open(pid))
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EPERM):
            return None
        raise


# How long after its answer an implementation may take to reap its CLI: one on an event loop
# (Node, asyncio) reaps a child that ended as the loop next runs, which may be just after the
# answer went out. A child never reaped is still there after it.
REAP_SETTLE = 1.0


def unreaped(pid: int, parent: int, within: float = REAP_SETTLE) -> str | None:
    """What is left of a process `pid` started by `parent` (itself started by the
    implementation, or the implementation) once both should have been waited for, after up
    to `within` seconds: `pid` still there (running, or a zombie nobody reaped), or `parent`
    a zombie; None when nothing is."""
    deadline = time.monotonic() + within
    while (left := _left(pid, parent)) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


def _left(pid: int, parent: int) -> str | None:
    state = process_state(pid)
    if state is not None:
        return f"harness pid {pid} is still there in state {state!r} (Z = zombie)"
    if process_state(parent) == "Z":
        return f"the harness's parent {parent}, started by the implementation, is left a zombie"
    return None


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    return [pid for pid, fields in _stats() if int(fields[2]) == pgid and fields[0] != "Z"]


def _stats() -> Iterator[tuple[int, list[str]]]:
    """Every process's pid and the fields of its stat after the name (state, ppid, pgrp,
    ...); a process that ends during the scan is left out."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
                # the name may hold any bytes, ")" too; what follows its last ")" is ASCII
                yield int(entry.name), stat.rsplit(b")", 1)[1].decode().split()
            except OSError:
                continue


KERNEL_THREAD = 0x00200000  # PF_KTHREAD, in the flags of /proc/PID/stat


def carrying(variable: str, value: str, settle: float = 0.05) -> list[int]:
    """Live processes whose environment has `variable=value` (those this user may read).

    A process in the middle of an exec has an environment that reads empty for a moment, so
    one reading would miss it: a process (no kernel thread) whose environment reads empty is
    read again until it reads otherwise, ends, or `settle` seconds have passed."""
    marker = f"{variable}={value}".encode()
    found: list[int] = []
    unread = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    deadline = time.monotonic() + settle
    while True:
        environs = {pid: _environ(pid) for pid in unread}
        found += [pid for pid, env in environs.items() if env and marker in env.split(b"\0")]
        unread = [pid for pid, env in environs.items()
                  if env == b"" and not _kernel_thread(pid)]
        if not unread or time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    return sorted(found)


def _environ(pid: int) -> bytes | None:
    """`pid`'s environment, or None when it is gone or not ours to read."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None


def _kernel_thread(pid: int) -> bool:
    fields = _fields(pid)
    return fields is None or bool(int(fields[6]) & KERNEL_THREAD)


def still_running(pids: list[int], within: float = 1.0) -> dict[int, str]:
    """The pids among `pids` still running (not gone, not zombies) after up to `within`
    seconds: a process that was just sent SIGKILL takes a moment to die."""
    deadline = time.monotonic() + within
    while True:
        states = {pid: process_state(pid) for pid in pids}
        running = {pid: s for pid, s in states.items() if s is not None and s != "Z"}
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.01)


@dataclass(frozen=True)
class Held:
    """What a process holds that it must give back: its open file descriptors (how many), and
    its children that ended and were never waited for (zombies, by pid)."""

    fds: int
    zombies: frozenset[int]


def held_by(pid: int) -> Held | None:
    """What `pid` holds; None where /proc does not say (not Linux, or not ours to read)."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    return Held(fds, frozenset(child for child, state in children(pid).items() if state == "Z"))


def children(pid: int) -> dict[int, str]:
    """The children of `pid` and their one-letter states."""
    return {child: fields[0] for child, fields in _stats() if int(fields[1]) == pid}
