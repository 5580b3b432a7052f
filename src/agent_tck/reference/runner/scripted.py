"""`ScriptedRunner`: seed 004's mock runner, a runner that plays scripted results.

Each call is captured (prompt and options) before anything else. A handler, when given,
answers every call; otherwise the scripted results are returned in order, and once they are
used up every call answers COMPLETE, so a loop under test always ends (decision D-9).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_tck.reference.runner.base import RunOptions, RunResult
from agent_tck.reference.runner.signals import COMPLETE_MARKER, Signal

EXHAUSTED = RunResult(output=COMPLETE_MARKER, signal=Signal.COMPLETE)


@dataclass(frozen=True)
class ScriptedCall:
    """One captured call."""

    prompt: str
    options: RunOptions


class ScriptedRunner:
    """Returns `results` one per call, then COMPLETE."""

    def __init__(self, results: Sequence[RunResult] = (),
                 handler: Callable[[str, RunOptions], RunResult] | None = None) -> None:
        self.results = list(results)
        self.handler = handler
        self.calls: list[ScriptedCall] = []
        self.index = 0

    def run(self, prompt: str, options: RunOptions) -> RunResult:
        self.calls.append(ScriptedCall(prompt, options))
        if self.handler is not None:
            return self.handler(prompt, options)
        if self.index >= len(self.results):
            return EXHAUSTED
        result = self.results[self.index]
        self.index += 1
        return result
