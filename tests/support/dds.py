"""Shared by the DDS tests: distinct domain ids, served agents started and stopped by pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from agent_tck.kit.drivers.dds import xdist_worker
from agent_tck.reference.dds.config import LOOPBACK

ROOT = Path(__file__).resolve().parents[2]
# The suite's runs under xdist use 100..(100 + 2 x workers) (see kit.drivers.dds; `-n auto` is
# at most 16 workers, so up to 131); tests take 137..232 (232 is the highest id of DDS's port
# mapping): 12 per slot (module offsets 0..11), eight slots, one for each of `python -m tests`'s
# eight workers, so their DDS tests never meet (with four slots, gw0 and gw4 shared one, and a
# served agent of one test could take another test's request); a plain run takes the slot of
# its pid.
SLOTS, PER_SLOT = 8, 12
_WORKER = xdist_worker()
BASE_DOMAIN = 233 - SLOTS * PER_SLOT + PER_SLOT * ((os.getpid() if _WORKER is None else _WORKER)
                                                  % SLOTS)


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
