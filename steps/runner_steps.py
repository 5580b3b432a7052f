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

DEFAULT_PROMPT = "Work on the next ball."


# --- ParseSignal --------------------------------------------------------------------------

@dataclass
class SignalCase:
    output: str = ""
    answer: dict[str, Any] = field(default_factory=dict)


@pytest.fixture
def signal_case() -> SignalCase:
    return SignalCase()


@given("the agent output:")
def agent_output_block(signal_case: SignalCase, docstring: str) -> None:
    signal_case.output = docstring


@given(parsers.parse('the agent output "{output}"'))
def agent_output_line(signal_case: SignalCase, output: str) -> None:
    signal_case.output = output


@when("the signal is parsed")
def signal_parsed(signal_case: SignalCase, driver: Driver) -> None:
    signal_case.answer = driver.signal_parse(signal_case.output)


@then(parsers.parse('the signal is "{signal}" with an empty reason'))
def signal_without_reason(signal_case: SignalCase, signal: str) -> None:
    assert signal_case.answer == {"signal": signal, "reason": ""}


@then(parsers.parse('the signal is "{signal}" with reason "{reason}"'))
def signal_with_reason(signal_case: SignalCase, signal: str, reason: str) -> None:
    assert signal_case.answer == {"signal": signal, "reason": reason}


@then(parsers.parse('the signal is "{signal}" with reason:'))
def signal_with_block_reason(signal_case: SignalCase, signal: str, docstring: str) -> None:
    signal_with_reason(signal_case, signal, docstring)


# --- The Claude runner --------------------------------------------------------------------

@dataclass
class RunCase:
    rig: HarnessRig
    script: Script
    time_scale: float
    path: str = ""
    prompt: str = DEFAULT_PROMPT
    options: dict[str, Any] = field(default_factory=dict)
    answer: dict[str, Any] = field(default_factory=dict)

    def result(self) -> dict[str, Any]:
        assert "launch_failed" not in self.answer, f"the run failed: {self.answer}"
        return self.answer

    def argv(self) -> list[str]:
        start = self.rig.last_start()
        assert start["name"] == "claude", f"the harness was started as {start['name']!r}"
        return list(start["argv"])


@pytest.fixture
def run_case(harness_rig: HarnessRig, time_scale: float) -> RunCase:
    rig = harness_rig
    return RunCase(rig, Script("claude", time_scale=time_scale), time_scale, rig.path())


@given("a fake claude on PATH that prints:")
def fake_prints(run_case: RunCase, docstring: str) -> None:
    run_case.script.add("out", docstring + "\n")


@given("it writes to stderr:")
def fake_writes_stderr(run_case: RunCase, docstring: str) -> None:
    run_case.script.add("err", docstring + "\n")


@given(parsers.parse("it exits with code {code:d}"))
def fake_exits(run_case: RunCase, code: int) -> None:
    run_case.script.add("exit", code)


@given(parsers.parse("it dies by {signal}"))
def fake_dies(run_case: RunCase, signal: str) -> None:
    run_case.script.add("die", signal)


@given(parsers.parse("it then runs for {seconds:d} seconds"))
def fake_runs(run_case: RunCase, seconds: int) -> None:
    run_case.script.add("sleep", seconds)


@given("no claude on PATH")
def no_claude(run_case: RunCase, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    run_case.path = str(empty)


@given("the runner is trusted")
def runner_trusted(run_case: RunCase) -> None:
    run_case.options["trust"] = True


@given(parsers.parse('the runner uses the model "{model}"'))
def runner_model(run_case: RunCase, model: str) -> None:
    run_case.options["model"] = model


@given(parsers.parse("a per-iteration timeout of {seconds:d} seconds"))
def runner_timeout(run_case: RunCase, seconds: int) -> None:
    run_case.options["timeout"] = seconds * run_case.time_scale


@when("the Claude runner runs")
def runner_runs(run_case: RunCase, driver: Driver) -> None:
    run_case.rig.use(run_case.script)
    run_case.answer = driver.runner_run(run_case.prompt, run_case.options,
                                        {"PATH": run_case.path})


@when("the Claude runner runs with the prompt:")
def runner_runs_prompt(run_case: RunCase, driver: Driver, docstring: str) -> None:
    run_case.prompt = docstring
    runner_runs(run_case, driver)


@then(parsers.parse('the harness was started as "claude" with the arguments:'))
def started_with(run_case: RunCase, docstring: str) -> None:
    assert run_case.argv() == json.loads(docstring)


@then(parsers.parse('the arguments after "-p -" are:'))
def arguments_after_p(run_case: RunCase, docstring: str) -> None:
    argv = run_case.argv()
    at = next((i for i in range(len(argv) - 1) if argv[i:i + 2] == ["-p", "-"]), None)
    assert at is not None, f'no "-p -" in {argv}'
    assert argv[at + 2:] == json.loads(docstring)


@then("the harness read the prompt on stdin")
def prompt_on_stdin(run_case: RunCase) -> None:
    stdin = [e["data"] for e in run_case.rig.record() if e["what"] == "stdin"]
    assert stdin == [run_case.prompt]


@then("the prompt is not among the arguments")
def prompt_not_in_argv(run_case: RunCase) -> None:
    argv = run_case.argv()
    assert all(line not in argv for line in run_case.prompt.splitlines()), argv


@then("the run output is:")
def run_output(run_case: RunCase, docstring: str) -> None:
    assert run_case.result()["output"] == docstring + "\n"


@then(parsers.parse("the run exit code is {code:d}"))
def run_exit_code(run_case: RunCase, code: int) -> None:
    assert run_case.result()["exit_code"] == code


@then(parsers.parse('the run signal is "{signal}" with an empty reason'))
def run_signal_without_reason(run_case: RunCase, signal: str) -> None:
    result = run_case.result()
    assert (result["signal"], result["reason"]) == (signal, "")


@then(parsers.parse('the run signal is "{signal}" with reason "{reason}"'))
def run_signal_with_reason(run_case: RunCase, signal: str, reason: str) -> None:
    result = run_case.result()
    assert (result["signal"], result["reason"]) == (signal, reason)


@then(parsers.parse('the run was killed by "{signal}"'))
def run_killed_by(run_case: RunCase, signal: str) -> None:
    assert run_case.result()["killed_by"] == signal


@then("the run was stopped by its timeout")
def run_timed_out(run_case: RunCase) -> None:
    assert run_case.result()["timed_out"] is True


@then(parsers.parse('the runner cannot start, with an error naming "{command}"'))
def runner_cannot_start(run_case: RunCase, command: str) -> None:
    assert "launch_failed" in run_case.answer, f"the run did not fail: {run_case.answer}"
    assert command in run_case.answer["launch_failed"]["message"]
    assert run_case.rig.starts() == [], "the harness was started after all"


# --- The agent loop -----------------------------------------------------------------------

@dataclass
class LoopCase:
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
def loop_case() -> LoopCase:
    return LoopCase()


@given(parsers.re(r'a session "(?P<name>[^"]+)" with (?P<count>\d+) balls?'
                  r"(?P<done>, all complete)?$"))
def session_with_balls(loop_case: LoopCase, name: str, count: str, done: str | None) -> None:
    """Seed 004's setupSessionWithBalls."""
    state = "complete" if done else "pending"
    loop_case.session["description"] = f"Test session with {count} balls"
    loop_case.session["balls"] = [
        {"id": f"test-{name}-{i}", "intent": f"Task {i} for {name}", "priority": "medium",
         "state": state}
        for i in range(1, int(count) + 1)
    ]


@given(parsers.parse('a session "{name}" described as "{description}"'))
def session_described(loop_case: LoopCase, name: str, description: str) -> None:
    loop_case.session["description"] = description


@given("its context is:")
def session_context(loop_case: LoopCase, docstring: str) -> None:
    loop_case.session["context"] = docstring


@given("its progress is:")
def session_progress(loop_case: LoopCase, docstring: str) -> None:
    loop_case.session["progress"] = docstring


@given(parsers.parse('a ball "{ball}" with intent "{intent}", priority "{priority}" '
                     "and acceptance criteria:"))
def session_ball(loop_case: LoopCase, ball: str, intent: str, priority: str,
                 datatable: list[list[str]]) -> None:
    loop_case.session["balls"].append({
        "id": ball, "intent": intent, "priority": priority, "state": "pending",
        "acceptance_criteria": [row[0] for row in datatable]})


@given("the runner is scripted with:")
def runner_scripted(loop_case: LoopCase, docstring: str) -> None:
    loop_case.script = json.loads(docstring)


@when(parsers.re(r"the loop runs(?P<trusted> trusted)? with at most (?P<most>\d+) iterations?"
                 r"( and a per-iteration timeout of (?P<timeout>\d+) seconds)?$"))
def loop_runs(loop_case: LoopCase, driver: Driver, trusted: str | None, most: str,
              timeout: str | None) -> None:
    settings = {"max_iterations": int(most), "trust": bool(trusted),
                "timeout": float(timeout) if timeout else None}
    loop_case.answer = driver.loop_run(loop_case.session, loop_case.script, settings)


@then("the loop ends without error")
def loop_without_error(loop_case: LoopCase) -> None:
    assert loop_case.answer["failure"] is None, loop_case.answer["failure"]


@then(parsers.parse('the loop fails with an error containing "{text}"'))
def loop_fails(loop_case: LoopCase, text: str) -> None:
    failure = loop_case.answer["failure"]
    assert failure is not None, "the loop ended without error"
    assert text in failure["message"], failure


@then(parsers.re(r"the runner was called (?P<count>\d+) times?$"))
def runner_called(loop_case: LoopCase, count: str) -> None:
    assert len(loop_case.calls()) == int(count)


@then("the runner was never called")
def runner_never_called(loop_case: LoopCase) -> None:
    assert loop_case.calls() == []


@then(parsers.parse("the prompt of call {call:d} contains each of:"))
def prompt_contains(loop_case: LoopCase, call: int, datatable: list[list[str]]) -> None:
    prompt = loop_case.prompt(call)
    missing = [row[0] for row in datatable if row[0] not in prompt]
    assert not missing, f"the prompt lacks {missing}:\n{prompt}"


@then(parsers.parse('the prompt of call {call:d} does not contain "{text}"'))
def prompt_lacks(loop_case: LoopCase, call: int, text: str) -> None:
    assert text not in loop_case.prompt(call)


@then(parsers.re(r"call (?P<call>\d+) was (?P<negation>not )?trusted$"))
def call_trusted(loop_case: LoopCase, call: str, negation: str | None) -> None:
    assert len(loop_case.calls()) >= int(call)
    assert loop_case.calls()[int(call) - 1]["trust"] is (negation is None)


@then(parsers.parse("every call had a timeout of {seconds:d} seconds"))
def calls_timeout(loop_case: LoopCase, seconds: int) -> None:
    assert loop_case.calls(), "the runner was never called"
    assert all(c["timeout"] == seconds for c in loop_case.calls()), loop_case.calls()
