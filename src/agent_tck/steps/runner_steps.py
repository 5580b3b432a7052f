"""Steps of the `runner` component: ParseSignal, the Claude runner, the agent loop.

The Claude runner runs for real against the fake harness on PATH as `claude`; its arguments
and stdin are read back from the harness record. The loop runs with a runner scripted as data
(see `Driver.loop_run`). A Gherkin doc string has no final newline; every line the harness
prints does, so expected outputs get one back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.drivers import Driver
from agent_tck.kit.errors import Refused
from agent_tck.steps.world import World

DEFAULT_PROMPT = "Work on the next ball."


# --- ParseSignal --------------------------------------------------------------------------

@dataclass(repr=False)
class SignalWorld(World):
    """ParseSignal: the agent's output and what was parsed from it."""

    output: str = ""
    answer: dict[str, Any] = field(default_factory=dict)


@pytest.fixture
def signal_world(driver: Driver, tmp_path: Path, time_scale: float) -> SignalWorld:
    return SignalWorld(driver, tmp_path, time_scale)


@given("the agent output:")
def agent_output_block(signal_world: SignalWorld, docstring: str) -> None:
    signal_world.output = docstring


@given(parsers.parse('the agent output "{output}"'))
def agent_output_line(signal_world: SignalWorld, output: str) -> None:
    signal_world.output = output


@when("the signal is parsed")
def signal_parsed(signal_world: SignalWorld, driver: Driver) -> None:
    signal_world.answer = driver.signal_parse(signal_world.output)


@then(parsers.parse('the signal is "{signal}" with an empty reason'))
def signal_without_reason(signal_world: SignalWorld, signal: str) -> None:
    assert signal_world.answer == {"signal": signal, "reason": ""}


@then(parsers.parse('the signal is "{signal}" with reason "{reason}"'))
def signal_with_reason(signal_world: SignalWorld, signal: str, reason: str) -> None:
    assert signal_world.answer == {"signal": signal, "reason": reason}


@then(parsers.parse('the signal is "{signal}" with reason:'))
def signal_with_block_reason(signal_world: SignalWorld, signal: str, docstring: str) -> None:
    signal_with_reason(signal_world, signal, docstring)


# --- The Claude runner --------------------------------------------------------------------

@dataclass(repr=False)
class RunWorld(World):
    """The Claude runner: the fake `claude` it runs, and what it answered."""

    rig: HarnessRig
    script: Script
    path: str = ""
    prompt: str = DEFAULT_PROMPT
    options: dict[str, Any] = field(default_factory=dict)
    answer: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None

    def result(self) -> dict[str, Any]:
        assert "launch_failed" not in self.answer, f"the run failed: {self.answer}"
        return self.answer

    def argv(self) -> list[str]:
        start = self.rig.last_start()
        assert start["name"] == "claude", f"the harness was started as {start['name']!r}"
        return list(start["argv"])


@pytest.fixture
def run_world(driver: Driver, harness_rig: HarnessRig, time_scale: float, tmp_path: Path
             ) -> RunWorld:
    rig = harness_rig
    return RunWorld(driver, tmp_path, time_scale, rig, Script("claude", time_scale=time_scale),
                    rig.path())


@given("a fake claude on PATH that prints:")
def fake_prints(run_world: RunWorld, docstring: str) -> None:
    run_world.script.add("out", docstring + "\n")


@given("it then prints:")
def fake_then_prints(run_world: RunWorld, docstring: str) -> None:
    run_world.script.add("out", docstring + "\n")


@given("it writes to stderr:")
def fake_writes_stderr(run_world: RunWorld, docstring: str) -> None:
    run_world.script.add("err", docstring + "\n")


@given(parsers.parse("it exits with code {code:d}"))
def fake_exits(run_world: RunWorld, code: int) -> None:
    run_world.script.add("exit", code)


@given(parsers.parse("it dies by {signal}"))
def fake_dies(run_world: RunWorld, signal: str) -> None:
    run_world.script.add("die", signal)


@given(parsers.parse("it then runs for {seconds:d} seconds"))
def fake_runs(run_world: RunWorld, seconds: int) -> None:
    run_world.script.add("sleep", seconds)


@given(parsers.parse("it then runs for {seconds:g} real seconds"))
def fake_runs_real(run_world: RunWorld, seconds: float) -> None:
    """Unscaled: the subject is a duration that no deadline of the run may cut short."""
    run_world.script.add("sleep_real", seconds)


@given("no claude on PATH")
def no_claude(run_world: RunWorld, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    run_world.path = str(empty)


@given("the runner is trusted")
def runner_trusted(run_world: RunWorld) -> None:
    run_world.options["trust"] = True


@given(parsers.parse('the runner uses the model "{model}"'))
def runner_model(run_world: RunWorld, model: str) -> None:
    run_world.options["model"] = model


@given(parsers.parse("the runner's model is {value}"))
def runner_model_json(run_world: RunWorld, value: str) -> None:
    """The model as JSON text, so that any string can be written (a NUL as \\u0000)."""
    run_world.options["model"] = json.loads(value)


@given(parsers.parse("a per-iteration timeout of {seconds:d} seconds"))
def runner_timeout(run_world: RunWorld, seconds: int) -> None:
    run_world.options["timeout"] = seconds * run_world.time_scale


@when("the Claude runner runs")
def runner_runs(run_world: RunWorld, driver: Driver) -> None:
    run_world.rig.use(run_world.script)
    run_world.answer = driver.runner_run(run_world.prompt, run_world.options,
                                        {"PATH": run_world.path})


@when("the Claude runner is asked to run")
def runner_asked(run_world: RunWorld, driver: Driver) -> None:
    """The run, or the implementation's words refusing it in `run_world.refusal`."""
    try:
        runner_runs(run_world, driver)
    except Refused as exc:
        run_world.refusal = exc.answer


@then(parsers.parse('the run is refused with an error that names "{name}"'))
def run_refused(run_world: RunWorld, name: str) -> None:
    assert run_world.refusal is not None, (
        f"the run was not refused: runner.run answered {run_world.answer!r}; a refusal is an "
        f"answer {{\"error\": ...}} whose message names {name!r} (docs/adapter-protocol.md)")
    assert name in run_world.refusal, f"the error does not name {name!r}: {run_world.refusal!r}"


@when("the Claude runner runs with the prompt:")
def runner_runs_prompt(run_world: RunWorld, driver: Driver, docstring: str) -> None:
    run_world.prompt = docstring
    runner_runs(run_world, driver)


@then(parsers.parse('the harness was started as "claude" with the arguments:'))
def started_with(run_world: RunWorld, docstring: str) -> None:
    assert run_world.argv() == json.loads(docstring)


@then(parsers.parse('the arguments after "-p -" are:'))
def arguments_after_p(run_world: RunWorld, docstring: str) -> None:
    argv = run_world.argv()
    at = next((i for i in range(len(argv) - 1) if argv[i:i + 2] == ["-p", "-"]), None)
    assert at is not None, f'no "-p -" in {argv}'
    assert argv[at + 2:] == json.loads(docstring)


@then("the harness read the prompt on stdin")
def prompt_on_stdin(run_world: RunWorld) -> None:
    stdin = [e["data"] for e in run_world.rig.record() if e["what"] == "stdin"]
    assert stdin == [run_world.prompt]


@then("the prompt is not among the arguments")
def prompt_not_in_argv(run_world: RunWorld) -> None:
    argv = run_world.argv()
    assert all(line not in argv for line in run_world.prompt.splitlines()), argv


@then("the run output is:")
def run_output(run_world: RunWorld, docstring: str) -> None:
    assert run_world.result()["output"] == docstring + "\n"


@then(parsers.parse("the run exit code is {code:d}"))
def run_exit_code(run_world: RunWorld, code: int) -> None:
    assert run_world.result()["exit_code"] == code


@then(parsers.parse('the run signal is "{signal}" with an empty reason'))
def run_signal_without_reason(run_world: RunWorld, signal: str) -> None:
    result = run_world.result()
    assert (result["signal"], result["reason"]) == (signal, "")


@then(parsers.parse('the run signal is "{signal}" with reason "{reason}"'))
def run_signal_with_reason(run_world: RunWorld, signal: str, reason: str) -> None:
    result = run_world.result()
    assert (result["signal"], result["reason"]) == (signal, reason)


@then(parsers.parse('the run was killed by "{signal}"'))
def run_killed_by(run_world: RunWorld, signal: str) -> None:
    assert run_world.result()["killed_by"] == signal


@then("the run was stopped by its timeout")
def run_timed_out(run_world: RunWorld) -> None:
    assert run_world.result()["timed_out"] is True


@then("the run was not stopped by a timeout")
def run_not_timed_out(run_world: RunWorld) -> None:
    assert run_world.result()["timed_out"] is False


@then(parsers.parse('the runner cannot start, with an error naming "{command}"'))
def runner_cannot_start(run_world: RunWorld, command: str) -> None:
    assert "launch_failed" in run_world.answer, f"the run did not fail: {run_world.answer}"
    assert command in run_world.answer["launch_failed"]["message"]
    assert run_world.rig.starts() == [], "the harness was started after all"


# --- The agent loop -----------------------------------------------------------------------

@dataclass(repr=False)
class LoopWorld(World):
    """The agent loop: the session, the scripted runner, and the loop's answer."""

    session: dict[str, Any] = field(default_factory=lambda: {"balls": []})
    script: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] = field(default_factory=dict)

    def calls(self) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = self.answer["calls"]
        return calls

    def prompt(self, call: int) -> str:
        assert len(self.calls()) >= call, f"the runner was called {len(self.calls())} times"
        prompt: str = self.calls()[call - 1]["prompt"]
        return prompt


@pytest.fixture
def loop_world(driver: Driver, tmp_path: Path, time_scale: float) -> LoopWorld:
    return LoopWorld(driver, tmp_path, time_scale)


@given(parsers.re(r'a session "(?P<name>[^"]+)" with (?P<count>\d+) balls?'
                  r"(?P<done>, all complete)?$"))
def session_with_balls(loop_world: LoopWorld, name: str, count: str, done: str | None) -> None:
    """Seed 004's setupSessionWithBalls."""
    state = "complete" if done else "pending"
    loop_world.session["description"] = f"Test session with {count} balls"
    loop_world.session["balls"] = [
        {"id": f"test-{name}-{i}", "intent": f"Task {i} for {name}", "priority": "medium",
         "state": state}
        for i in range(1, int(count) + 1)
    ]


@given(parsers.parse('a session "{name}" described as "{description}"'))
def session_described(loop_world: LoopWorld, name: str, description: str) -> None:
    loop_world.session["description"] = description


@given("its context is:")
def session_context(loop_world: LoopWorld, docstring: str) -> None:
    loop_world.session["context"] = docstring


@given("its progress is:")
def session_progress(loop_world: LoopWorld, docstring: str) -> None:
    loop_world.session["progress"] = docstring


@given(parsers.parse('a ball "{ball}" with intent "{intent}", priority "{priority}" '
                     "and acceptance criteria:"))
def session_ball(loop_world: LoopWorld, ball: str, intent: str, priority: str,
                 datatable: list[list[str]]) -> None:
    loop_world.session["balls"].append({
        "id": ball, "intent": intent, "priority": priority, "state": "pending",
        "acceptance_criteria": [row[0] for row in datatable]})


@given("the runner is scripted with:")
def runner_scripted(loop_world: LoopWorld, docstring: str) -> None:
    loop_world.script = json.loads(docstring)


@when(parsers.re(r"the loop runs(?P<trusted> trusted)? with at most (?P<most>\d+) iterations?"
                 r"( and a per-iteration timeout of (?P<timeout>\d+) seconds)?$"))
def loop_runs(loop_world: LoopWorld, driver: Driver, trusted: str | None, most: str,
              timeout: str | None) -> None:
    settings: dict[str, Any] = {"max_iterations": int(most),
                                "timeout": float(timeout) if timeout else None}
    if trusted:  # else left out, as the seed's --trust flag is
        settings["trust"] = True
    loop_world.answer = driver.loop_run(loop_world.session, loop_world.script, settings)


@then("the loop ends without error")
def loop_without_error(loop_world: LoopWorld) -> None:
    assert loop_world.answer["failure"] is None, loop_world.answer["failure"]


@then(parsers.parse('the loop fails with an error containing "{text}"'))
def loop_fails(loop_world: LoopWorld, text: str) -> None:
    failure = loop_world.answer["failure"]
    assert failure is not None, "the loop ended without error"
    assert text in failure["message"], failure


@then(parsers.re(r"the loop reports (?P<count>\d+) iterations?$"))
def loop_iterations(loop_world: LoopWorld, count: str) -> None:
    assert loop_world.answer["failure"] is None, loop_world.answer["failure"]
    assert loop_world.answer["iterations"] == int(count), loop_world.answer


@then(parsers.re(r"the runner was called (?P<count>\d+) times?$"))
def runner_called(loop_world: LoopWorld, count: str) -> None:
    assert len(loop_world.calls()) == int(count)


@then("the runner was never called")
def runner_never_called(loop_world: LoopWorld) -> None:
    assert loop_world.calls() == []


@then(parsers.parse("the prompt of call {call:d} contains each of:"))
def prompt_contains(loop_world: LoopWorld, call: int, datatable: list[list[str]]) -> None:
    prompt = loop_world.prompt(call)
    missing = [row[0] for row in datatable if row[0] not in prompt]
    assert not missing, f"the prompt lacks {missing}:\n{prompt}"


@then(parsers.parse('the prompt of call {call:d} does not contain "{text}"'))
def prompt_lacks(loop_world: LoopWorld, call: int, text: str) -> None:
    assert text not in loop_world.prompt(call)


@then(parsers.re(r"call (?P<call>\d+) was (?P<negation>not )?trusted$"))
def call_trusted(loop_world: LoopWorld, call: str, negation: str | None) -> None:
    assert len(loop_world.calls()) >= int(call)
    assert loop_world.calls()[int(call) - 1]["trust"] is (negation is None)


@then(parsers.parse("every call had a timeout of {seconds:d} seconds"))
def calls_timeout(loop_world: LoopWorld, seconds: int) -> None:
    assert loop_world.calls(), "the runner was never called"
    assert all(c["timeout"] == seconds for c in loop_world.calls()), loop_world.calls()
