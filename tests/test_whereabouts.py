"""Where a fake CLI got to, told from its record; and when its scenario's setup never
happened (doubles/harness/whereabouts.py)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.harness import whereabouts
from agent_tck.doubles.harness.script import Script, install, read_record, write_script


def _run(tmp_path: Path, script: Script, stdin: bytes | None) -> list[dict[str, Any]]:
    """The fake claude playing `script`, given `stdin` and then left with its stdin open
    until it has read it (None: stdin closed at once); its record once it ended."""
    record = tmp_path / "record.jsonl"
    install(tmp_path / "bin", tmp_path / "script.json", record)
    write_script(tmp_path / "script.json", script)
    with subprocess.Popen([str(tmp_path / "bin" / "claude")], stdin=subprocess.PIPE,
                          stdout=subprocess.DEVNULL) as proc:
        try:
            assert proc.stdin is not None
            if stdin is None:
                proc.stdin.close()
                proc.wait(timeout=30)
                return read_record(record)
            proc.stdin.write(stdin)
            proc.stdin.flush()
            deadline = time.monotonic() + 30
            while not any(e["what"] == "stdin_bytes" for e in read_record(record)):
                assert time.monotonic() < deadline, read_record(record)
                time.sleep(0.05)
        finally:
            proc.kill()
    return read_record(record)


def test_a_fake_left_with_its_stdin_open_says_it_waits_for_its_end(tmp_path: Path) -> None:
    script = Script("claude").init().add("on_term", "ignore").add("sleep", 60)
    record = _run(tmp_path, script, b"Hello")
    assert whereabouts.told(record) == (
        "the fake claude was still waiting for its stdin to end (5 bytes on "
        "stdin, no end of file): nothing after its step 1 of 4 ran")
    unmet = whereabouts.unmet(record)
    assert unmet is not None and unmet[1] == "stdin"
    assert unmet[0].splitlines()[0] == (
        "the fake claude was still waiting for its stdin to end, which the implementation "
        "never closed: the CLI never got to what this scenario is about")


def test_a_fake_that_played_its_script_says_so_and_its_setup_happened(tmp_path: Path) -> None:
    script = Script("claude").init().add("err", "boom\n").add("exit", 3)
    record = _run(tmp_path, script, None)
    assert record[0]["plan"] == ["read_stdin", "line", "err", "exit"]
    assert [e["n"] for e in record if e["what"] == "step"] == [0, 1, 2, 3]
    assert whereabouts.told(record) == (
        "the fake claude played its script to the end and exited 3")
    assert whereabouts.unmet(record) is None


def _record(plan: list[str], reached: int | None, *more: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [] if reached is None else [{"what": "step", "n": n, "pid": 7}
                                         for n in range(reached + 1)]
    return [{"what": "start", "name": "codex", "pid": 7, "plan": plan}, *steps, *more]


EOF_SEEN = {"what": "stdin", "data": "Hi", "pid": 7}


@pytest.mark.parametrize(("plan", "reached", "missed"), [
    # SIGTERM ignored only from step 2 on: a fake ended in its first line never got there
    (["read_stdin", "line", "on_term", "sleep"], 1, "step 3 of its script (on_term)"),
    # the grandchild is what the scenario is about: a fake ended in its stdin never got there
    (["read_stdin", "spawn_escaped", "line", "sleep"], 0, "step 2 of its script (spawn_escaped)"),
    # the stderr lines of a CLI that fails
    (["read_stdin", "line", "err", "exit"], 1, "step 4 of its script (exit)"),
])
def test_a_fake_ended_before_the_behaviour_of_its_scenario_is_an_unmet_setup(
        plan: list[str], reached: int, missed: str) -> None:
    unmet = whereabouts.unmet(_record(plan, reached, EOF_SEEN))
    assert unmet is not None and unmet[1] == "setup"
    assert unmet[0].startswith(f"the fake codex never reached {missed}"), unmet[0]


@pytest.mark.parametrize(("plan", "reached"), [
    # stopped while it waits for the implementation: what the scenario is about
    (["read_stdin", "on_term", "line", "sleep", "line"], 3),
    # stopped part way through its output (a flood it refuses): the output is not a setup
    (["read_stdin", "line", "fill", "line"], 2),
    (["read_stdin", "line", "err", "exit"], 3),
    # stopped after its last line, before its exit: its stream had said the turn ended
    (["read_stdin", "line", "line", "exit"], 2),
])
def test_a_fake_that_reached_its_scenarios_behaviour_meets_its_setup(
        plan: list[str], reached: int) -> None:
    assert whereabouts.unmet(_record(plan, reached, EOF_SEEN)) is None


def test_an_acp_agent_whose_stdin_ended_before_a_prompt_is_past_its_stdin() -> None:
    """The client ended the conversation before it sent a prompt (an agent that cannot load
    the session it was to resume): the agent's stdin ended, and its turn is not a setup."""
    record = _record(["read_stdin", "line", "reply"], 0,
                     {"what": "stdin_end", "pid": 7}, {"what": "end", "code": 0, "pid": 7})
    assert whereabouts.unmet(record) is None
    assert whereabouts.told(record) == "the fake codex played its script to the end and exited 0"
    ended = _record(["read_stdin", "line", "reply"], 0, {"what": "end", "code": 0, "pid": 7})
    assert whereabouts.unmet(ended) is not None  # no end of stdin noted: still waiting


def test_a_refused_command_line_is_told_and_is_the_scenarios_own_subject() -> None:
    record = _record(["read_stdin", "line"], None,
                     {"what": "refused", "code": 2, "message": "error: bad\n", "pid": 7})
    assert whereabouts.unmet(record) is None
    assert whereabouts.told(record) == ("the fake codex refused its command line, as the real "
                                        "CLI does: 'error: bad'")


def test_a_fake_that_got_a_signal_says_it() -> None:
    record = _record(["read_stdin", "line", "sleep", "line"], 2, EOF_SEEN,
                     {"what": "signal", "signal": "SIGTERM", "pid": 7, "t": 1.0})
    assert whereabouts.told(record) == (
        "the fake codex was pausing, as its script says, for the implementation to act: "
        "nothing after its step 3 of 4 ran; it got SIGTERM")


def test_each_of_several_starts_is_told_by_its_place() -> None:
    first = _record(["read_stdin", "line"], 1, EOF_SEEN, {"what": "end", "code": 0, "pid": 7})
    second = [{**e, "pid": 8} for e in _record(["read_stdin", "line"], 0)]
    assert whereabouts.told(first + second).splitlines() == [
        "the fake codex (start 1 of 2) played its script to the end and exited 0",
        "the fake codex (start 2 of 2) was still waiting for its stdin to end (0 bytes on "
        "stdin, no end of file): nothing after its step 1 of 2 ran"]


@pytest.mark.parametrize(("op", "doing"), [
    ("until_cancel", "working on its turn until the client cancels it (session/cancel)"),
    ("ask", "waiting for the client's answer to a request of its own"),
])
def test_an_acp_agent_waiting_on_its_client_says_for_what(op: str, doing: str) -> None:
    """An ACP agent's waits are reads of the client's messages, never a write to stdout."""
    record = _record(["read_stdin", op, "reply"], 1, EOF_SEEN,
                     {"what": "signal", "signal": "SIGTERM", "pid": 7, "t": 1.0})
    assert whereabouts.told(record) == (
        f"the fake codex was {doing}: nothing after its step 2 of 3 ran; it got SIGTERM")
