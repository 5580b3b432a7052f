"""An implementation that takes the suite's process down with it: for the self-tests of a run
whose pytest-xdist worker dies in the middle of a scenario.

`--impl python:tests.miniatures.worker_crash:EndsItsProcess`
"""

from __future__ import annotations

import os
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver


class EndsItsProcess(InProcessDriver):
    """Ends the process it runs in when asked to parse a signal (a crash in native code, the
    out-of-memory killer)."""

    def signal_parse(self, output: str) -> dict[str, Any]:
        os._exit(70)
