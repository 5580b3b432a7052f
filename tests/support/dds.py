"""Shared by the DDS tests: distinct domain ids, served agents started and stopped by pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from agent_tck.kit.drivers import domains
from agent_tck.kit.drivers.dds import xdist_worker
from agent_tck.kit.errors import UsageError
from agent_tck.reference.dds.config import LOOPBACK

ROOT = Path(__file__).resolve().parents[2]
# Each process of the project's tests takes a slot of PER_SLOT domain ids of its own and claims
# them for its lifetime by the kit's own locks (kit/drivers/domains.py), so that no two
# workers' DDS tests ever meet and no run of the suite nested in another process can move onto
# them (a default pair that is held gives way to the next free one; a run nested in this
# process itself could, which only a plain run risks: its default pair is 100 + pid % 100).
# Slots 0..9 fill 133..232 from the top (232 is the highest id of DDS's port mapping); 10..15
# go below the pairs of xdist workers and mutation judges (100..131, sixteen of each at most),
# down to 39 (above the CLIs' default, 0). A process starts at its own slot (an xdist worker's
# by its number, a plain run's by its pid) and takes the next whose domains are all free where
# another process holds one: another run of the tests on the machine (a second CI job, a
# mutation judge) has the same worker numbers. Held domains are never shared, so at most
# sixteen processes of the tests run at a time; a seventeenth is an error naming who holds
# its slot.
SLOTS, PER_SLOT = 16, 10
_WORKER = xdist_worker()


def _base(slot: int) -> int:
    return 223 - PER_SLOT * slot if slot < 10 else 89 - PER_SLOT * (slot - 10)


def _claim_a_slot(own: int) -> int:
    """The first domain of the slot this process now holds: `own`, or the next one whose
    domains no other process holds."""
    refused = ""
    for slot in [*range(own, SLOTS), *range(own)]:
        claimed: list[int] = []
        try:
            for first in range(_base(slot), _base(slot) + PER_SLOT, 2):
                claimed.append(domains.claim(first, chosen=True))
        except UsageError as exc:
            refused = str(exc)
            for first in claimed:  # part of a slot is no use: what this try took goes back
                domains.release(first)
            continue
        return _base(slot)
    raise UsageError(f"every slot of DDS domains for the tests is held: {refused}")


BASE_DOMAIN = _claim_a_slot((os.getpid() if _WORKER is None else _WORKER) % SLOTS)


def domain(offset: int) -> int:
    """This worker's DDS domain number `offset` (0..PER_SLOT - 1)."""
    if not 0 <= offset < PER_SLOT:
        raise ValueError(f"DDS test domain offset {offset} is outside 0..{PER_SLOT - 1}")
    return BASE_DOMAIN + offset


def start_served(name: str, domain_id: int, path: str, *args: str,
                 env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m agent_tck.reference.dds serve` with `path` as its PATH (the fake harness)."""
    full_env = {**os.environ, **(env or {}), "PATH": path,
                "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                            os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "agent_tck.reference.dds", "serve", "--backend", "claude",
            "--name", name, "--domain", str(domain_id), *args]
    return subprocess.Popen(argv, env=full_env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    """Signal by pid, wait, SIGKILL if it hangs; always reaped."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
    finally:
        if proc.stdout is not None:
            proc.stdout.close()


LOOPBACK_URI = f"file://{LOOPBACK}"
