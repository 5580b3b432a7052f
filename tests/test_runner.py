"""Unit tests of `reference.runner`: signals, the scripted and Claude runners, the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tck.reference.exceptions import BlockedError, ConfigError, LaunchError, LoopError
from agent_tck.reference.runner import (
    Ball,
    ClaudeRunner,
    LoopResult,
    MemorySession,
    RunOptions,
    RunResult,
    ScriptedRunner,
    Signal,
    build_prompt,
    parse_signal,
    run_loop,
)

NONE = RunResult(output="working")
COMPLETE = RunResult(signal=Signal.COMPLETE)


def one_ball() -> MemorySession:
    return MemorySession("Epic", ball_list=[Ball("b-1", "Do it")])


# --- parse_signal -------------------------------------------------------------------------

@pytest.mark.parametrize(("output", "expected"), [
    ("", (Signal.NONE, "")),
    ("<promise>COMPLETE</promise>", (Signal.COMPLETE, "")),
    ("<promise>BLOCKED: x</promise><promise>COMPLETE</promise>", (Signal.COMPLETE, "")),
    ("<promise>BLOCKED:\n\t x y \n</promise>", (Signal.BLOCKED, "x y")),
    ("<promise>BLOCKED: a", (Signal.NONE, "")),
    ("</promise><promise>BLOCKED: a", (Signal.NONE, "")),
    ("<promise>BLOCKED: a <promise>BLOCKED: b</promise>",
     (Signal.BLOCKED, "a <promise>BLOCKED: b")),
])
def test_parse_signal(output: str, expected: tuple[Signal, str]) -> None:
    assert parse_signal(output) == expected


# --- ScriptedRunner -----------------------------------------------------------------------

def test_scripted_runner_plays_results_in_order_then_complete() -> None:
    runner = ScriptedRunner([NONE, RunResult(output="second")])
    outputs = [runner.run(f"p{i}", RunOptions()).output for i in range(3)]
    assert outputs == ["working", "second", "<promise>COMPLETE</promise>"]
    assert runner.run("p3", RunOptions()).signal is Signal.COMPLETE
    assert [c.prompt for c in runner.calls] == ["p0", "p1", "p2", "p3"]


def test_scripted_runner_handler_answers_every_call() -> None:
    runner = ScriptedRunner([COMPLETE], handler=lambda prompt, options: RunResult(output=prompt))
    assert runner.run("echo", RunOptions(trust=True)).output == "echo"
    assert runner.calls[0].options.trust is True


# --- run_loop -----------------------------------------------------------------------------

def test_loop_outcomes() -> None:
    assert run_loop(one_ball(), ScriptedRunner([COMPLETE]), 5) == LoopResult("complete", 1)
    assert run_loop(one_ball(), ScriptedRunner([NONE] * 3), 2) == LoopResult("max_iterations", 2)
    assert run_loop(MemorySession(), ScriptedRunner(), 2) == LoopResult("nothing_to_do", 0)


def test_loop_stops_when_the_run_completed_every_ball() -> None:
    session = one_ball()

    def finish(prompt: str, options: RunOptions) -> RunResult:
        session.ball_list = [Ball("b-1", "Do it", state="complete")]
        return NONE

    assert run_loop(session, ScriptedRunner(handler=finish), 5) == LoopResult("balls_complete", 1)


def test_blocked_error_names_the_reason() -> None:
    blocked = RunResult(signal=Signal.BLOCKED, blocked_reason="npm not found")
    with pytest.raises(BlockedError) as caught:
        run_loop(one_ball(), ScriptedRunner([blocked]), 5)
    assert str(caught.value) == "agent blocked: npm not found"
    assert caught.value.reason == "npm not found"
    assert str(BlockedError("")) == "agent blocked: (no reason given)"


def test_a_run_that_cannot_start_is_a_loop_error_with_its_cause() -> None:
    def fail(prompt: str, options: RunOptions) -> RunResult:
        raise LaunchError("cannot start 'claude'")

    expected = r"^agent execution failed: cannot start 'claude'$"
    with pytest.raises(LoopError, match=expected) as caught:
        run_loop(one_ball(), ScriptedRunner(handler=fail), 5)
    assert isinstance(caught.value.__cause__, LaunchError)


@pytest.mark.parametrize(("iterations", "timeout"), [(0, None), (-1, None), (True, None),
                                                     (1.5, None), (1, 0), (1, -2.0)])
def test_impossible_settings_are_rejected(iterations: int, timeout: float | None) -> None:
    runner = ScriptedRunner()
    with pytest.raises(ConfigError):
        run_loop(one_ball(), runner, iterations, timeout=timeout)
    assert runner.calls == []


def test_options_reach_the_runner() -> None:
    runner = ScriptedRunner([NONE])
    run_loop(one_ball(), runner, 2, trust=True, timeout=9.0, model="m")
    assert {c.options for c in runner.calls} == {RunOptions(trust=True, timeout=9.0, model="m")}


def test_prompt_lists_every_ball_with_its_criteria() -> None:
    session = MemorySession.from_dict({
        "description": "Epic", "context": "ctx", "progress": "did a", "unknown": 1,
        "balls": [{"id": "b-1", "intent": "Build X", "acceptance_criteria": ["A", "B"],
                   "priority": "high", "extra": True},
                  {"id": "b-2", "intent": "Build Y", "state": "complete"}]})
    prompt = build_prompt(session)
    assert prompt.startswith("<context>\nEpic\n\nctx\n</context>\n\n<progress>\ndid a\n</progress>")
    assert "- id: b-1\n  intent: Build X\n  priority: high\n  state: pending\n" \
           "  acceptance criteria:\n    - A\n    - B\n- id: b-2" in prompt
    assert "ONE BALL PER ITERATION" in prompt and "<promise>COMPLETE</promise>" in prompt


# --- ClaudeRunner, on a real process ------------------------------------------------------

FAKE = """#!/bin/sh
printf '%s\\n' "$@" > "{dir}/argv"
cat > "{dir}/stdin"
{body}
"""


def fake_claude(tmp_path: Path, body: str) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(FAKE.format(dir=tmp_path, body=body))
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin"}


def test_claude_runner_command_and_stdin(tmp_path: Path) -> None:
    runner = ClaudeRunner(env=fake_claude(tmp_path, "echo done"))
    result = runner.run("the prompt", RunOptions(trust=True, model="opus"))
    assert result == RunResult(output="done\n")
    argv = (tmp_path / "argv").read_text()
    assert argv.endswith("\n-p\n-\n--dangerously-skip-permissions\n--model\nopus\n")
    assert (tmp_path / "stdin").read_text() == "the prompt"


def test_claude_runner_output_exit_code_and_signal(tmp_path: Path) -> None:
    body = "printf 'a\\n<promise>BLOCKED: b</promise>'; echo oops >&2; exit 4"
    result = ClaudeRunner(env=fake_claude(tmp_path, body)).run("p", RunOptions())
    assert result == RunResult(output="a\n<promise>BLOCKED: b</promise>\noops\n", exit_code=4,
                               signal=Signal.BLOCKED, blocked_reason="b")


def test_claude_runner_killed_and_timed_out(tmp_path: Path) -> None:
    env = fake_claude(tmp_path, "echo started; exec sleep 30")
    result = ClaudeRunner(env=env, grace=0.1).run("p", RunOptions(timeout=1))
    assert (result.output, result.timed_out, result.exit_code, result.killed_by) == \
        ("started\n", True, -1, "SIGTERM")


def test_claude_runner_missing_command(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="cannot start 'claude'"):
        ClaudeRunner(env={"PATH": str(tmp_path)}).run("p", RunOptions())


def test_claude_runner_drops_nesting_variables(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    env = fake_claude(tmp_path, 'echo "nested=${CLAUDECODE:-no}"')
    assert ClaudeRunner(env=env).run("p", RunOptions()).output == "nested=no\n"



@pytest.mark.parametrize(("options", "message"), [
    ({"timeout": "ten"}, "timeout must be a positive number of seconds up to 604800, got 'ten'"),
    ({"timeout": float("nan")}, "got nan"),
    ({"timeout": 0}, "got 0"),
    ({"trust": "yes"}, "trust must be true or false, got 'yes'"),
    ({"model": "--dangerously-skip-permissions"}, "model must be a model name"),
])
def test_bad_run_options_are_refused_before_anything_starts(
        options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RunOptions(**options)  # type: ignore[arg-type]
    assert message in str(caught.value)
