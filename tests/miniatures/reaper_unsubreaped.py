"""The reference's reaper where the kernel refuses it a child subreaper (as a seccomp policy or
a kernel before 3.4 would): the fallback configuration of reference/reaper.py. Run as the
reaper is: `python -I -S reaper_unsubreaped.py ...`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reference"))

import reaper  # the reference's, found through the path set above

_prctl = reaper._prctl


def _refused(option: int, value: int) -> bool:
    return option != reaper.PR_SET_CHILD_SUBREAPER and _prctl(option, value)


reaper._prctl = _refused
reaper.main(sys.argv[1:])
