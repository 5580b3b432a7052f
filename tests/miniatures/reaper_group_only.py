"""The reference's reaper with one defect: at the deadline it relays SIGTERM to the CLI's
process group only, never to a descendant in a session of its own (SIGKILL, at the end of the
grace period, still finds it). Run as the reaper is: `python -I -S reaper_group_only.py ...`."""

import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reference"))

import reaper  # the reference's, found through the path set above

_signal_tree = reaper.signal_tree


def _group_only(sig: int, outside_group: int | None = None) -> None:
    if sig != signal.SIGTERM or outside_group is None:
        _signal_tree(sig, outside_group)


reaper.signal_tree = _group_only  # type: ignore[assignment]
reaper.main(sys.argv[1:])
