"""What a runner is: one agent iteration, a prompt in, the agent's output and signal out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.limits import seconds
from agent_tck.reference.runner.signals import Signal


@dataclass(frozen=True)
class RunOptions:
    """Per-iteration options (seed 004 `RunOptions`); `timeout` None means no deadline."""

    trust: bool = False
    timeout: float | None = None
    model: str | None = None

    def __post_init__(self) -> None:
        """Bad options are refused here, before any process is started (ConfigError)."""
        if self.timeout is not None:
            object.__setattr__(self, "timeout", seconds("timeout", self.timeout))
        if not isinstance(self.trust, bool):
            raise ConfigError(f"trust must be true or false, got {self.trust!r:.80}")
        if self.model is not None and (not isinstance(self.model, str) or not self.model
                                       or self.model.startswith("-") or "\0" in self.model):
            raise ConfigError(f"model must be a model name, got {self.model!r:.80}")


@dataclass(frozen=True)
class RunResult:
    """One iteration's outcome (seed 004 `RunResult`).

    `exit_code` is -1 when the process died by a signal, as Go's `ExitCode()` reports it;
    `killed_by` then names the signal. `timed_out` says the per-iteration deadline ended it.
    """

    output: str = ""
    exit_code: int = 0
    signal: Signal = Signal.NONE
    blocked_reason: str = ""
    timed_out: bool = False
    killed_by: str | None = None


class Runner(Protocol):
    """Runs the agent once. Raises only when it cannot run at all; a non-zero exit is a
    result, because the agent may have produced output (seed 004)."""

    def run(self, prompt: str, options: RunOptions) -> RunResult: ...
