"""The adapter-protocol commands of the `responses` and `runner` components: JSON in, JSON out.

Each command takes the request object (schemas/adapter/<cmd>.request.schema.json) and returns
the response's fields (<cmd>.response.schema.json), so the reference's adapter serves them as
they are (`COMMANDS`) and the in-process driver calls them directly. An outcome the spec
defines (a rejected payload, a CLI that cannot start, a blocked loop) is part of the answer;
only a request that cannot be served raises (KeyError, TypeError, ValueError).

`loop.run` plays a scripted runner described as data: each step is a scripted result
{output, signal, reason, exit_code} and may also stand for what a real run does to the session:
`complete_balls` (ids), `append_progress` (a line), or `fail` (the run cannot start).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agent_tck.reference.exceptions import AgentError, BlockedError, LaunchError, ResponsesError
from agent_tck.reference.responses import parse_response
from agent_tck.reference.runner import (
    ClaudeRunner,
    LoopResult,
    MemorySession,
    Runner,
    RunOptions,
    RunResult,
    ScriptedRunner,
    Signal,
    parse_signal,
    run_loop,
)

Request = dict[str, Any]
Answer = dict[str, Any]
Loop = Callable[..., LoopResult]


def responses_parse(request: Request) -> Answer:
    """`{"messages": [...]}`, or `{"rejected": {"message", "path"}}`."""
    try:
        return {"messages": parse_response(request["payload"])}
    except ResponsesError as exc:
        return {"rejected": {"message": str(exc), "path": exc.path}}


def signal_parse(request: Request) -> Answer:
    """`{"signal": "COMPLETE" | "BLOCKED" | "NONE", "reason"}`."""
    signal, reason = parse_signal(str(request["output"]))
    return {"signal": signal.value, "reason": reason}


def runner_run(request: Request,
               make_runner: Callable[..., Runner] = ClaudeRunner) -> Answer:
    """One run of the Claude runner with `env` added to the environment; the result, or
    `{"launch_failed": {"message"}}` when the CLI cannot be started."""
    runner = make_runner(env=dict(request.get("env", {})))
    try:
        result = runner.run(str(request["prompt"]), RunOptions(**request.get("options", {})))
    except LaunchError as exc:
        return {"launch_failed": {"message": str(exc)}}
    return {"output": result.output, "exit_code": result.exit_code,
            "signal": result.signal.value, "reason": result.blocked_reason,
            "timed_out": result.timed_out, "killed_by": result.killed_by}


def loop_run(request: Request, loop: Loop = run_loop,
             scripted: Callable[[list[RunResult]], ScriptedRunner] = ScriptedRunner) -> Answer:
    """`{"outcome", "iterations", "failure": {"message", "reason"} | null, "calls"}`."""
    session = MemorySession.from_dict(request["session"])
    script: list[dict[str, Any]] = list(request.get("script", []))
    runner = scripted([_scripted(step) for step in script])
    answer: Answer = {"outcome": None, "iterations": None, "failure": None}
    try:
        result = loop(session, _Playing(runner, session, script), **request["settings"])
        answer.update(outcome=result.outcome, iterations=result.iterations)
    except BlockedError as exc:
        answer["failure"] = {"message": str(exc), "reason": exc.reason}
    except AgentError as exc:
        answer["failure"] = {"message": str(exc), "reason": None}
    answer["calls"] = [{"prompt": c.prompt, "trust": c.options.trust,
                        "timeout": c.options.timeout, "model": c.options.model}
                       for c in runner.calls]
    return answer


def _scripted(step: dict[str, Any]) -> RunResult:
    return RunResult(output=str(step.get("output", "")), exit_code=int(step.get("exit_code", 0)),
                     signal=Signal(step.get("signal", "NONE")),
                     blocked_reason=str(step.get("reason", "")))


class _Playing:
    """Plays the script through the scripted runner, and does to the session what the step
    says the run did."""

    def __init__(self, runner: ScriptedRunner, session: MemorySession,
                 script: list[dict[str, Any]]) -> None:
        self.runner, self.session, self.script = runner, session, script

    def run(self, prompt: str, options: RunOptions) -> RunResult:
        index = len(self.runner.calls)
        step = self.script[index] if index < len(self.script) else {}
        result = self.runner.run(prompt, options)
        if "fail" in step:
            raise LaunchError(str(step["fail"]))
        done = set(step.get("complete_balls", ()))
        self.session.ball_list = [replace(b, state="complete") if b.id in done else b
                                  for b in self.session.ball_list]
        if "append_progress" in step:
            lines = [self.session.progress_text, str(step["append_progress"])]
            self.session.progress_text = "\n".join(line for line in lines if line)
        return result


COMMANDS: dict[str, Callable[[Request], Answer]] = {
    "responses.parse": responses_parse,
    "signal.parse": signal_parse,
    "runner.run": runner_run,
    "loop.run": loop_run,
}
