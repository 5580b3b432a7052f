"""Network isolation: a fresh network namespace with loopback alone, or no real CLI at all.

A real CLI runs only inside such a namespace (`unshare -n`, then `ip link set lo up`): outside
one it reaches for its vendor's hosts. As root the namespace is made directly; otherwise inside
a new user namespace (`unshare -r -n`). Where neither can be made, `problem()` says why and the
real-CLI scenarios are reported "not run" with that reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

UP_AND_LIST = "ip link set lo up && ip -o link show"


def unshare_argv() -> list[str]:
    """The command prefix that runs a program in a new network namespace."""
    return ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]


def nsenter_argv(pid: int) -> list[str]:
    """The command prefix that runs a program in the network namespace of process `pid`."""
    argv = ["nsenter", f"--net=/proc/{pid}/ns/net"]
    if os.geteuid() != 0:
        argv[1:1] = [f"--user=/proc/{pid}/ns/user", "--preserve-credentials"]
    return argv


def only_loopback(link_listing: str) -> bool:
    """Whether `ip -o link show` lists the loopback interface and nothing else."""
    names = [line.split(":")[1].strip() for line in link_listing.splitlines() if ":" in line]
    return names == ["lo"]


@functools.cache
def problem() -> str | None:
    """None when a loopback-only namespace can be made here; else why not."""
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"no network isolation: {tool!r} is not installed (util-linux, iproute2)"
    try:
        done = subprocess.run(
            [*unshare_argv(), "sh", "-c", UP_AND_LIST],
            capture_output=True, text=True, timeout=30, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no network isolation: {' '.join(unshare_argv())} failed: {exc}"
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        return (f"no network isolation: {' '.join(unshare_argv())} exited {done.returncode}"
                f"{': ' + said[-1] if said else ''}")
    if not only_loopback(done.stdout):
        return f"no network isolation: the new namespace is not loopback alone: {done.stdout!r}"
    return None
