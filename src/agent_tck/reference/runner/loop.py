"""The agent loop of seed 004: run the agent on a session until it is done.

Each iteration reads the session afresh (the agent changes it as it works), builds the prompt
(`<context>`, `<progress>`, `<balls>`, `<instructions>` with the one-ball-per-iteration rule
and the COMPLETE and BLOCKED markers), and runs the runner once with the caller's trust,
model and per-iteration timeout. The loop ends when the agent signals COMPLETE, when every
ball is complete, or after `max_iterations` (not an error); BLOCKED raises `BlockedError`
with the agent's reason, and a runner that cannot run raises `LoopError`. A session with no
ball left to do never runs the agent (decision D-9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tck.reference.exceptions import AgentError, BlockedError, ConfigError, LoopError
from agent_tck.reference.limits import seconds
from agent_tck.reference.runner.base import Runner, RunOptions
from agent_tck.reference.runner.signals import COMPLETE_MARKER, Signal

COMPLETE_STATE = "complete"

INSTRUCTIONS = f"""ONE BALL PER ITERATION: pick the most important ball that is not complete,
work on that ball only, and stop when it is done or you cannot go on.
Verify the ball against its acceptance criteria, then record what you did in the progress log.
When every ball is complete, print {COMPLETE_MARKER}
If you cannot continue without a human, print <promise>BLOCKED: the reason</promise>"""


@dataclass(frozen=True)
class Ball:
    """One unit of work of a session."""

    id: str
    intent: str
    acceptance_criteria: tuple[str, ...] = ()
    priority: str = "medium"
    state: str = "pending"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ball:
        """From `{id, intent, acceptance_criteria?, priority?, state?}`; other keys ignored."""
        return cls(str(data["id"]), str(data["intent"]),
                   tuple(str(c) for c in data.get("acceptance_criteria", ())),
                   str(data.get("priority", "medium")), str(data.get("state", "pending")))


class Session(Protocol):
    """The session store, as the loop reads it at every iteration."""

    def description(self) -> str: ...

    def context(self) -> str: ...

    def progress(self) -> str: ...

    def balls(self) -> Sequence[Ball]: ...


@dataclass
class MemorySession:
    """A session held in memory."""

    description_text: str = ""
    context_text: str = ""
    progress_text: str = ""
    ball_list: list[Ball] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemorySession:
        """From `{description?, context?, progress?, balls?}`; other keys ignored."""
        return cls(str(data.get("description", "")), str(data.get("context", "")),
                   str(data.get("progress", "")),
                   [Ball.from_dict(b) for b in data.get("balls", ())])

    def description(self) -> str:
        return self.description_text

    def context(self) -> str:
        return self.context_text

    def progress(self) -> str:
        return self.progress_text

    def balls(self) -> Sequence[Ball]:
        return self.ball_list


@dataclass(frozen=True)
class LoopResult:
    """How a loop that did not fail ended: `complete` (signalled), `balls_complete`,
    `max_iterations`, or `nothing_to_do` (no runner call)."""

    outcome: str
    iterations: int


def build_prompt(session: Session) -> str:
    """The prompt of one iteration."""
    context = "\n\n".join(t for t in (session.description(), session.context()) if t)
    return "\n\n".join([
        _section("context", context),
        _section("progress", session.progress()),
        _section("balls", "\n".join(_ball_text(b) for b in session.balls())),
        _section("instructions", INSTRUCTIONS),
    ]) + "\n"


def _section(tag: str, body: str) -> str:
    return f"<{tag}>\n{body.strip()}\n</{tag}>"


def _ball_text(ball: Ball) -> str:
    lines = [f"- id: {ball.id}", f"  intent: {ball.intent}", f"  priority: {ball.priority}",
             f"  state: {ball.state}"]
    if ball.acceptance_criteria:
        lines.append("  acceptance criteria:")
        lines += [f"    - {c}" for c in ball.acceptance_criteria]
    return "\n".join(lines)


def all_balls_complete(session: Session) -> bool:
    return all(b.state == COMPLETE_STATE for b in session.balls())


def run_loop(session: Session, runner: Runner, max_iterations: int, trust: bool = False,
             timeout: float | None = None, model: str | None = None) -> LoopResult:
    """Run the agent on `session`; raises BlockedError, LoopError, or ConfigError."""
    options = _options(max_iterations, trust, timeout, model)
    if all_balls_complete(session):
        return LoopResult("nothing_to_do", 0)
    for iteration in range(1, max_iterations + 1):
        outcome = _iterate(session, runner, options)
        if outcome is not None:
            return LoopResult(outcome, iteration)
    return LoopResult("max_iterations", max_iterations)


def _options(max_iterations: int, trust: bool, timeout: float | None,
             model: str | None) -> RunOptions:
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) \
            or max_iterations < 1:
        raise ConfigError(f"max_iterations must be a positive integer, got {max_iterations!r}")
    if timeout is not None:
        timeout = seconds("timeout", timeout)
    return RunOptions(trust=trust, timeout=timeout, model=model)


def _iterate(session: Session, runner: Runner, options: RunOptions) -> str | None:
    """One iteration; the outcome when the loop should end, else None."""
    try:
        result = runner.run(build_prompt(session), options)
    except AgentError as exc:
        raise LoopError(f"agent execution failed: {exc}") from exc
    if result.signal is Signal.COMPLETE:
        return "complete"
    if result.signal is Signal.BLOCKED:
        raise BlockedError(result.blocked_reason)
    return "balls_complete" if all_balls_complete(session) else None
