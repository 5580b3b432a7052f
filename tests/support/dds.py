"""Shared by the DDS tests: distinct domain ids, served agents started and stopped by pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from agent_tck.kit.drivers import domains
from agent_tck.kit.drivers.dds import xdist_worker
from agent_tck.reference.dds.config import LOOPBACK

ROOT = Path(__file__).resolve().parents[2]
# Each process of the project's tests takes a slot of PER_SLOT domain ids of its own (an xdist
# worker by its number, a plain run by its pid) and claims them for its lifetime by the kit's
# own locks (kit/drivers/domains.py), so that no two workers' DDS tests ever meet and no run of
# the suite nested in another process can move onto them (a default pair that is held gives
# way to the next free one; a run nested in this process itself could, which only a plain run
# risks: its default pair is 100 + pid % 100). Slots 0..9 fill 133..232 from the top (232 is
# the highest id of DDS's port mapping); 10..15 go below the pairs of xdist workers and
# mutation judges (100..131, sixteen of each at most), down to 39 (above the CLIs' default,
# 0). A slot another process holds is an error at once, naming it, rather than two tests
# answering each other's requests: so at most sixteen processes of the tests at a time.
SLOTS, PER_SLOT = 16, 10
_WORKER = xdist_worker()
SLOT = (os.getpid() if _WORKER is None else _WORKER) % SLOTS
BASE_DOMAIN = 223 - PER_SLOT * SLOT if SLOT < 10 else 89 - PER_SLOT * (SLOT - 10)
for _first in range(BASE_DOMAIN, BASE_DOMAIN + PER_SLOT, 2):
    domains.claim(_first, chosen=True)


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
