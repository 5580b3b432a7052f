"""What a test session makes once and its pytest-xdist workers share: made by the first worker
that asks, under a lock, in the directory every worker of the session has in common."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def session_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The directory the session's workers share (one process alone: its own basetemp)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


def made_once(root: Path, name: str, make: Callable[[Path], None]) -> Path:
    """`root / name`, made by `make(path)` if no worker has made it yet; `make` writes to a
    path of its own, renamed only once it returns, so a failure leaves nothing half made (and
    the next worker that asks starts again from nothing)."""
    out = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            part = root / f"{name}.part"
            shutil.rmtree(part, ignore_errors=True)
            part.unlink(missing_ok=True)
            make(part)
            part.rename(out)
    return out
