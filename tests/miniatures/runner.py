"""Miniature broken implementations of the `runner` component: a ParseSignal, a Claude runner,
a loop or a scripted runner, each the reference with one defect.

Each class is a driver for `--impl python:tests.miniatures.runner:<Name>`;
tests/test_broken_runner.py checks that the suite fails exactly the requirements its defect
breaks. Each answers one command of the protocol its own way and leaves the others to the
reference: its `functions` are the reference's commands it answers in place of, and it is
judged on the scenarios that call them (a scenario that calls none runs the reference).
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.reference import commands
from agent_tck.reference.exceptions import AgentError, BlockedError, LoopError
from agent_tck.reference.runner import (
    ClaudeRunner,
    LoopResult,
    RunOptions,
    RunResult,
    ScriptedRunner,
    Session,
    Signal,
    build_prompt,
    parse_signal,
)
from agent_tck.reference.runner.loop import all_balls_complete

# --- ParseSignal --------------------------------------------------------------------------


class SignalMiniature(InProcessDriver, ABC):
    """A ParseSignal given by `parse`."""

    functions = (commands.signal_parse,)

    def signal_parse(self, output: str) -> dict[str, Any]:
        signal, reason = self.parse(output)
        return {"signal": signal, "reason": reason}

    @abstractmethod
    def parse(self, output: str) -> tuple[str, str]:
        """The defective ParseSignal: (signal, reason)."""


class AlwaysNone(SignalMiniature):
    """Never sees a signal."""

    def parse(self, output: str) -> tuple[str, str]:
        return "NONE", ""


def _blocked(output: str, find: Callable[[str, str], int], trim: bool = True,
             closed: bool = True) -> tuple[str, str]:
    start = find(output, "<promise>BLOCKED:")
    if start == -1:
        return "NONE", ""
    rest = output[start + len("<promise>BLOCKED:"):]
    end = rest.find("</promise>")
    if end == -1 and closed:
        return "NONE", ""
    reason = rest[:end] if end != -1 else rest
    return "BLOCKED", reason.strip() if trim else reason


class BlockedFirst(SignalMiniature):
    """Checks BLOCKED before COMPLETE."""

    def parse(self, output: str) -> tuple[str, str]:
        signal = _blocked(output, str.find)
        if signal[0] == "NONE" and "<promise>COMPLETE</promise>" in output:
            return "COMPLETE", ""
        return signal


class Untrimmed(SignalMiniature):
    """Keeps the whitespace around a BLOCKED reason."""

    def parse(self, output: str) -> tuple[str, str]:
        if "<promise>COMPLETE</promise>" in output:
            return "COMPLETE", ""
        return _blocked(output, str.find, trim=False)


class LastBlocked(SignalMiniature):
    """Takes the reason of the last BLOCKED marker."""

    def parse(self, output: str) -> tuple[str, str]:
        if "<promise>COMPLETE</promise>" in output:
            return "COMPLETE", ""
        return _blocked(output, str.rfind)


class Unclosed(SignalMiniature):
    """Reads BLOCKED without a closing tag, up to the end of the output."""

    def parse(self, output: str) -> tuple[str, str]:
        if "<promise>COMPLETE</promise>" in output:
            return "COMPLETE", ""
        return _blocked(output, str.find, closed=False)


class EmptyReasonIsNone(SignalMiniature):
    """Ignores BLOCKED when it gives no reason."""

    def parse(self, output: str) -> tuple[str, str]:
        signal, reason = parse_signal(output)
        return ("NONE", "") if signal is Signal.BLOCKED and not reason else (signal.value, reason)


class Normalizing(SignalMiniature):
    """Normalizes the markers' case and spacing before looking for them."""

    def parse(self, output: str) -> tuple[str, str]:
        output = re.sub(r"(?i)<\s*promise\s*>\s*complete\s*<\s*/\s*promise\s*>",
                        "<promise>COMPLETE</promise>", output)
        output = re.sub(r"(?i)<\s*promise\s*>\s*blocked\s*:", "<promise>BLOCKED:", output)
        output = re.sub(r"(?i)<\s*/\s*promise\s*>", "</promise>", output)
        signal, reason = parse_signal(output)
        return signal.value, reason


# --- The Claude runner --------------------------------------------------------------------


class RunnerMiniature(InProcessDriver):
    """The runner made by `runner`, its answer rewritten by `after`; what it refuses, it
    refuses as the reference's adapter does (an `error` answer)."""

    functions = (commands.runner_run,)

    def __init__(self) -> None:
        super().__init__()
        self.adapter.handlers["runner.run"] = self.handle_run

    def handle_run(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.after(commands.runner_run(request, make_runner=self.runner))

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return ClaudeRunner(env=env)

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        return answer


class _ArgvRunner(ClaudeRunner):
    def __init__(self, env: dict[str, str], edit: Callable[[list[str], RunOptions], list[str]],
                 prompt_in_argv: bool = False) -> None:
        super().__init__(env=env)
        self.edit, self.prompt_in_argv, self.prompt = edit, prompt_in_argv, ""

    def argv(self, options: RunOptions) -> list[str]:
        argv = self.edit(super().argv(options), options)
        return [self.prompt if a == "-" and self.prompt_in_argv else a for a in argv]

    def run(self, prompt: str, options: RunOptions) -> RunResult:
        self.prompt = prompt
        return super().run("" if self.prompt_in_argv else prompt, options)


class PromptAsArgument(RunnerMiniature):
    """Puts the prompt on the command line instead of stdin."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _ArgvRunner(env, lambda argv, options: argv, prompt_in_argv=True)


def _without(argv: list[str], *words: str) -> list[str]:
    return [a for a in argv if a not in words]


class TrustIgnored(RunnerMiniature):
    """Never skips permissions, even when trusted."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _ArgvRunner(env, lambda argv, options: ClaudeRunner().argv(
            replace(options, trust=False)))


class NoPermissionMode(RunnerMiniature):
    """Adds no permission flag to an untrusted run."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _ArgvRunner(env, lambda argv, options: _without(argv, "--permission-mode",
                                                               "acceptEdits"))


class ModelIgnored(RunnerMiniature):
    """Drops the model override."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _ArgvRunner(env, lambda argv, options: argv[:-2] if options.model else argv)


class ShortSystemPrompt(RunnerMiniature):
    """Appends a system prompt of its own."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _ArgvRunner(env, lambda argv, options: [
            "You are autonomous." if a.startswith("CRITICAL") else a for a in argv])


class StdoutOnly(RunnerMiniature):
    """Leaves stderr out of the output."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _StdoutOnly(env=env)


class _StdoutOnly(ClaudeRunner):
    """Runs the CLI through a shell that sends its stderr to /dev/null."""

    def argv(self, options: RunOptions) -> list[str]:
        return ["sh", "-c", 'exec "$0" "$@" 2>/dev/null', *super().argv(options)]


class NonZeroIsError(RunnerMiniature):
    """Reports a run that exited non-zero as an error."""

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        if answer.get("exit_code", 0) != 0:
            return {"launch_failed": {"message": f"claude exited with {answer['exit_code']}"}}
        return answer


class RawExitCode(RunnerMiniature):
    """Reports death by a signal as a negative signal number, without naming it."""

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        if answer.get("killed_by") == "SIGKILL":
            return {**answer, "exit_code": -9, "killed_by": None}
        return answer


class TimeoutUnreported(RunnerMiniature):
    """Does not say that a run was stopped by its timeout."""

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        return {**answer, "timed_out": False} if "launch_failed" not in answer else answer


class ForgetsSignalOne(RunnerMiniature):
    """Names the signal that killed a run only when its negative number is below -1, so a
    run ended by SIGHUP (signal 1) gets none (the reference's `code < 0` moved by one)."""

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        return {**answer, "killed_by": None} if answer.get("killed_by") == "SIGHUP" else answer


class _KeepsNesting(ClaudeRunner):
    def _environment(self) -> dict[str, str]:
        return {**os.environ, **(self.env or {})}


class KeepsClaudecode(RunnerMiniature):
    """Hands claude every inherited variable, CLAUDECODE too."""

    def runner(self, env: dict[str, str]) -> ClaudeRunner:
        return _KeepsNesting(env=env)


class TakesAnyModel(RunnerMiniature):
    """Puts whatever model it is given after --model: an empty one, one that is an option,
    one with a NUL (which no process can be given: the start fails, not naming the model)."""

    def handle_run(self, request: dict[str, Any]) -> dict[str, Any]:
        model = request["options"].get("model")
        unchecked = {**request, "options": {**request["options"], "model": None}}
        return commands.runner_run(unchecked, make_runner=lambda env: _ArgvRunner(
            env, lambda argv, options: argv if model is None else [*argv, "--model", model]))


class MissingIsEmptySuccess(RunnerMiniature):
    """Reports a claude that cannot start as an empty, successful run (as seed 004's Go)."""

    def after(self, answer: dict[str, Any]) -> dict[str, Any]:
        if "launch_failed" in answer:
            return {"output": "", "exit_code": 0, "signal": "NONE", "reason": "",
                    "timed_out": False, "killed_by": None}
        return answer


# --- The loop and the scripted runner -----------------------------------------------------


def broken_loop(defect: str) -> Callable[..., LoopResult]:
    """The seed's loop, with one `defect`."""

    def loop(session: Session, runner: Any, max_iterations: int, trust: bool | None = None,
             timeout: float | None = None) -> LoopResult:
        trust = (defect == "trusts-by-default") if trust is None else trust
        if defect != "runs-empty" and all_balls_complete(session):
            return LoopResult("nothing_to_do", 0)
        options = RunOptions(trust=trust and defect != "drops-trust",
                             timeout=None if defect == "drops-timeout" else timeout)
        prompt = build_prompt(session)
        for iteration in range(1, max_iterations + 1):
            prompt = prompt if defect == "stale-prompt" else build_prompt(session)
            if defect == "short-prompt":
                prompt = prompt.replace("ONE BALL PER ITERATION", "")
            try:
                result = runner.run(prompt, options)
            except AgentError as exc:
                if defect == "swallows-failures":
                    continue
                raise LoopError(f"agent execution failed: {exc}") from exc
            if result.signal is Signal.COMPLETE and defect != "ignores-complete":
                return LoopResult("complete", iteration)
            if result.signal is Signal.BLOCKED and defect != "ignores-blocked":
                raise BlockedError(result.blocked_reason)
            if defect != "ignores-balls" and all_balls_complete(session):
                return LoopResult("balls_complete", iteration)
        if defect == "max-is-error":
            raise LoopError(f"reached the maximum of {max_iterations} iterations")
        return LoopResult("max_iterations", max_iterations)

    return loop


class LoopMiniature(InProcessDriver):
    """A loop with the defect `defect`."""

    functions = (commands.loop_run,)
    defect = ""

    def loop_run(self, session: dict[str, Any], script: list[dict[str, Any]],
                 settings: dict[str, Any]) -> dict[str, Any]:
        request = {"session": session, "script": script, "settings": settings}
        return commands.loop_run(request, loop=broken_loop(self.defect))


class RunsEmptySession(LoopMiniature):
    """Runs the agent before looking at the balls."""

    defect = "runs-empty"


class MaxIsError(LoopMiniature):
    """Treats reaching the maximum number of iterations as an error."""

    defect = "max-is-error"


class DropsTrust(LoopMiniature):
    """Never passes trust on to the runner."""

    defect = "drops-trust"


class TrustsByDefault(LoopMiniature):
    """Trusts the runner when it is told nothing about trust."""

    defect = "trusts-by-default"


class CountsOneMore(LoopMiniature):
    """Says it ran one iteration more than it called the runner (its count starts at one)."""

    def loop_run(self, session: dict[str, Any], script: list[dict[str, Any]],
                 settings: dict[str, Any]) -> dict[str, Any]:
        answer = super().loop_run(session, script, settings)
        iterations = answer["iterations"]
        return answer if iterations is None else {**answer, "iterations": iterations + 1}


class DropsTimeout(LoopMiniature):
    """Never passes the per-iteration timeout on to the runner."""

    defect = "drops-timeout"


class StalePrompt(LoopMiniature):
    """Builds the prompt once, before the first iteration."""

    defect = "stale-prompt"


class ShortPrompt(LoopMiniature):
    """Leaves the one-ball-per-iteration rule out of the prompt."""

    defect = "short-prompt"


class SwallowsFailures(LoopMiniature):
    """Goes on after a run that could not start."""

    defect = "swallows-failures"


class IgnoresComplete(LoopMiniature):
    """Does not stop on COMPLETE."""

    defect = "ignores-complete"


class IgnoresBlocked(LoopMiniature):
    """Does not stop on BLOCKED."""

    defect = "ignores-blocked"


class IgnoresBalls(LoopMiniature):
    """Does not stop when every ball is complete."""

    defect = "ignores-balls"


class _ExhaustedNone(ScriptedRunner):
    def run(self, prompt: str, options: RunOptions) -> RunResult:
        exhausted = self.handler is None and self.index >= len(self.results)
        result = super().run(prompt, options)
        return RunResult() if exhausted else result


class ExhaustedNone(InProcessDriver):
    """A scripted runner that answers NONE once its results are used up."""

    functions = (commands.loop_run,)

    def loop_run(self, session: dict[str, Any], script: list[dict[str, Any]],
                 settings: dict[str, Any]) -> dict[str, Any]:
        request = {"session": session, "script": script, "settings": settings}
        return commands.loop_run(request, scripted=_ExhaustedNone)


class RunnerOnlyAlwaysNone(AlwaysNone):
    """AlwaysNone, declaring the runner component alone (a whole run judges it in seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self.info = replace(self.info, components=("runner",))
