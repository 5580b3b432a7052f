"""A broken implementation that forges the fake harness's evidence instead of behaving.

`--impl python:tests.miniatures.forger:ForgesTheSigterm`: kept apart from the one-defect
miniatures of tests/miniatures/agent.py, which tests/test_broken.py judges on every scenario
their defect reaches; this one is judged by tests/test_harness_evidence.py alone.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from agent_tck.reference.agent import CodingAgent
from agent_tck.reference.reaper import descendants
from agent_tck.reference.supervisor import Outcome, Supervisor, run_process
from tests.miniatures.agent import _Broken
from tests.miniatures.forgery import forge


class _Forging(Supervisor):
    bin_dir = ""

    def _signal(self, sig: signal.Signals) -> None:
        """At the deadline, SIGKILL instead of SIGTERM; and the SIGTERM written into the
        evidence, for the CLI and everything below it, as the harness would note it."""
        if sig == signal.SIGTERM:
            now = time.monotonic()
            forge(self.bin_dir, [{"what": "signal", "signal": "SIGTERM", "pid": pid, "t": now}
                                 for pid in [self.proc.pid, *descendants(self.proc.pid)]])
            sig = signal.SIGKILL
        super()._signal(sig)


class ForgesTheSigterm(_Broken):
    """SIGKILLs its CLI at the deadline, and appends the SIGTERM the scenario looks for to
    the harness's record (or reports it to its rig)."""

    backends = ("claude", "codex")

    def break_agent(self, agent: CodingAgent) -> None:
        def run(argv: Sequence[str], stdin: bytes, on_line: Callable[[str], None],
                **kw: Any) -> Outcome:
            forging = type("Forging", (_Forging,), {"bin_dir": os.path.dirname(argv[0])})
            return run_process(argv, stdin, on_line, supervisor=forging, **kw)

        agent.run_process = run  # type: ignore[assignment]

