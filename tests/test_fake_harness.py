"""The fake harness run as the real executable: its benchmark ops, its straggler check."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from agent_tck.doubles.backends import profile
from agent_tck.doubles.harness.fake import STRAGGLER_EXIT
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script, install, read_record, write_script
from agent_tck.kit.errors import SuiteError


def play(tmp_path: Path, script: Script) -> tuple[list[str], list[dict[str, object]]]:
    install(tmp_path / "bin", tmp_path / "script.json", tmp_path / "record.jsonl")
    write_script(tmp_path / "script.json", script)
    out = subprocess.run(
        [str(tmp_path / "bin" / "claude")], capture_output=True, check=True, timeout=30
    ).stdout
    return out.decode().splitlines(), read_record(tmp_path / "record.jsonl")


def test_repeat_writes_count_lines_cycling_through_its_lines(tmp_path: Path) -> None:
    script = Script("claude", read_stdin=False).add(
        "repeat", {"lines": [{"n": 1}, {"n": 2}, {"n": 3}], "count": 70_001}
    )
    lines, _ = play(tmp_path, script)
    assert len(lines) == 70_001
    assert [json.loads(line)["n"] for line in lines[:4] + lines[-2:]] == [1, 2, 3, 1, 1, 2]


@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM", "SIGKILL"])
def test_a_harness_told_to_die_by_a_signal_dies_by_it_whatever_it_inherited(
        tmp_path: Path, name: str) -> None:
    """Started under `nohup` (SIGHUP ignored, as a CI job's shell may leave it) or with the
    signal blocked, the harness still dies by it: RUN-OUT-3's SIGHUP row failed in a flake
    hunt started with nohup."""
    sig = getattr(signal, name)
    install(tmp_path / "bin", tmp_path / "script.json", tmp_path / "record.jsonl")
    write_script(tmp_path / "script.json", Script("claude", read_stdin=False).add("die", name))

    def inherited() -> None:  # in the child, before exec: what nohup and a blocked mask leave
        if sig is not signal.SIGKILL:
            signal.signal(sig, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_BLOCK, [sig])

    done = subprocess.run([str(tmp_path / "bin" / "claude")], capture_output=True, timeout=30,
                          check=False, preexec_fn=inherited)
    assert done.returncode == -sig, done.stderr[-500:]


def test_a_trickle_is_read_piece_by_piece_even_by_a_reader_that_is_kept_waiting(
        tmp_path: Path) -> None:
    """AG-H7 splits UTF-8 characters across reads only if each piece is read on its own: a
    reader a loaded machine kept waiting read several at once, and an agent that decodes each
    read on its own (the miniature DecodesEachRead) passed a CI run."""
    install(tmp_path / "bin", tmp_path / "script.json", tmp_path / "record.jsonl")
    write_script(tmp_path / "script.json", Script("claude", read_stdin=False).add(
        "trickle", {"data": "abcdefghij", "piece": 3, "sleep": 0}))
    proc = subprocess.Popen([str(tmp_path / "bin" / "claude")], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    reads = []
    try:
        while True:
            time.sleep(0.03)
            if not (chunk := os.read(proc.stdout.fileno(), 1024)):
                break
            reads.append(chunk)
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
    assert reads == [b"abc", b"def", b"ghi", b"j"]


def test_a_harness_started_after_its_scenario_ended_plays_nothing_and_notes_itself(
    tmp_path: Path,
) -> None:
    rig = HarnessRig(tmp_path / "harness", tmp_path / "strays.jsonl")
    rig.use(Script("claude", read_stdin=False).text("late"))
    rig.close()
    done = subprocess.run([str(rig.bin / "claude"), "-p"], cwd=tmp_path, capture_output=True,
                          timeout=30, check=False)
    assert (done.returncode, done.stdout) == (STRAGGLER_EXIT, b"")
    assert rig.starts() == []
    (stray,) = read_record(tmp_path / "strays.jsonl")
    assert (stray["rig"], stray["argv"], stray["cwd"]) == (rig.token, ["-p"], str(tmp_path))


@pytest.mark.parametrize("handler_late", [0.0, 2.5], ids=["at once", "held stopped"])
def test_the_signals_a_harness_caught_are_read_once_it_has_handled_them(
        tmp_path: Path, handler_late: float) -> None:
    """An implementation may answer the moment it has sent SIGTERM (the TypeScript Claude
    SDK's abort does), before the harness has run its handler: the scenario that then reads
    the signals still finds the SIGTERM, on a busy machine too, where the harness gets the CPU
    to run its handler seconds later (played by holding it stopped: SIGSTOP, then SIGCONT)."""
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude", read_stdin=False).add("sleep_real", 120))
    running = subprocess.Popen([str(rig.bin / "claude")], stdout=subprocess.DEVNULL)
    try:
        while not rig.began(0):
            assert running.poll() is None, "the harness ended before it began its script"
            time.sleep(0.01)
        if handler_late:
            running.send_signal(signal.SIGSTOP)
            threading.Timer(handler_late, running.send_signal, [signal.SIGCONT]).start()
        running.send_signal(signal.SIGTERM)
        assert rig.signals(running.pid) == ["SIGTERM"]
    finally:
        rig.close()
        running.kill()
        running.wait()


@pytest.mark.parametrize("reads_stdin", [True, False], ids=["reads stdin", "no stdin"])
def test_a_harness_in_its_last_step_has_noted_it_as_last_step_with_every_line_printed(
        tmp_path: Path, reads_stdin: bool) -> None:
    """A scenario that kills the agent once its harness is in its last, silent step
    (AG-D6.6, TR-8) waits for `began(script.last_step)`: the number the harness notes, its
    read of stdin counted, and only once every earlier line is in its stdout's pipe (a
    harness with a line still to write would end on the dead agent's pipe)."""
    rig = HarnessRig(tmp_path / "harness")
    script = Script("claude", read_stdin=reads_stdin).init().add("sleep_real", 120)
    rig.use(script)
    running = subprocess.Popen([str(rig.bin / "claude"), "-p"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    try:
        assert running.stdin is not None and running.stdout is not None
        running.stdin.close()
        deadline = time.monotonic() + 60
        while not rig.began(script.last_step):
            assert running.poll() is None and time.monotonic() < deadline, rig.record()
            time.sleep(0.01)
        noted = [e["n"] for e in rig.record() if e["what"] == "step"]
        assert noted == list(range(script.last_step + 1))
        assert json.loads(running.stdout.readline()) == script.emitted[0]
        assert [next(iter(step)) for step in script.to_json()["steps"]][script.last_step] == \
            "sleep_real"
    finally:
        rig.close()
        running.kill()
        running.wait()
        assert running.stdout is not None
        running.stdout.close()


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _receive(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the harness closed stdout"
    value: dict[str, object] = json.loads(line)
    return value


def _control(subtype: str, rid: str) -> dict[str, object]:
    return {"type": "control_request", "request_id": rid, "request": {"subtype": subtype}}


def test_claude_streaming_input_as_the_sdks_speak_it(tmp_path: Path) -> None:
    """Handshake, prompt as a user message, stdin left open, control requests answered."""
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude").init("s-1").echo())
    argv = [str(rig.bin / "claude"), "--output-format", "stream-json", "--verbose",
            "--input-format", "stream-json"]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        try:
            _send(proc, _control("initialize", "r1"))
            answer = _receive(proc)["response"]
            assert answer["subtype"] == "success" and answer["request_id"] == "r1"
            _send(proc, _control("set_model", "r2"))
            assert _receive(proc)["response"]["subtype"] == "success"
            _send(proc, _control("rewind_the_universe", "r3"))
            refused = _receive(proc)["response"]
            assert refused["subtype"] == "error" and "rewind_the_universe" in refused["error"]
            _send(proc, {"type": "user", "session_id": "default", "parent_tool_use_id": None,
                         "message": {"role": "user", "content": "What is 2 + 2?"}})
            turn = [_receive(proc) for _ in range(3)]
            assert [line["type"] for line in turn] == ["system", "assistant", "result"]
            assert profile("claude").unfaithful(turn) == []  # its result repeats the message
            assert turn[2]["result"] == "echo: What is 2 + 2?"
            _send(proc, _control("interrupt", "r4"))  # stdin is still open, and still read
            assert _receive(proc)["response"]["request_id"] == "r4"
            assert proc.stdin is not None
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
        finally:
            proc.kill()
    stdin = [e for e in rig.record() if e["what"] == "stdin"]
    assert stdin == [{"what": "stdin", "data": "What is 2 + 2?", "via": "stream-json",
                      "pid": proc.pid}]
    controls = [e["subtype"] for e in rig.record() if e["what"] == "control"]
    assert controls == ["initialize", "set_model", "rewind_the_universe", "interrupt"]


def test_a_streaming_turn_cut_off_before_its_result_exits_with_stdin_open(tmp_path: Path
                                                                         ) -> None:
    """A script without a `result` line plays a CLI cut off mid-turn: it exits at the end of
    its script, stdin still open (it waited for stdin to close, and a client that closes it
    only after a result waited for ever)."""
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude").init("s-1").text("Hello ").text("world"))
    argv = [str(rig.bin / "claude"), "--output-format", "stream-json", "--verbose",
            "--input-format", "stream-json"]
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        try:
            _send(proc, {"type": "user", "message": {"role": "user", "content": "Hi"}})
            assert [_receive(proc)["type"] for _ in range(3)] == ["system", "assistant",
                                                                  "assistant"]
            assert proc.wait(timeout=30) == 0
        finally:
            proc.kill()


def test_the_claude_agent_sdk_gets_its_answer_from_the_fake_harness(tmp_path: Path) -> None:
    """The official Python SDK, pointed at the fake harness (never its bundled CLI)."""
    sdk = pytest.importorskip("claude_agent_sdk")
    import anyio

    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude").init("s-sdk").text("thinking...").echo("answer: "))
    options = sdk.ClaudeAgentOptions(cli_path=str(rig.bin / "claude"), cwd=str(tmp_path))

    async def ask() -> list[object]:
        return [m async for m in sdk.query(prompt="What is 2 + 2?", options=options)]

    messages = anyio.run(ask)
    (result,) = [m for m in messages if isinstance(m, sdk.ResultMessage)]
    assert (result.result, result.session_id, result.is_error) == (
        "answer: What is 2 + 2?", "s-sdk", False)
    start = rig.last_start()
    assert "--input-format" in start["argv"] and "What is 2 + 2?" not in start["argv"]


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini"])
def test_the_builders_lines_pass_and_a_line_no_cli_prints_is_an_error_of_the_suite(
    tmp_path: Path, backend: str
) -> None:
    rig = HarnessRig(tmp_path / "rig")
    script = Script(backend).init().text("hi").tool("t1", result=False).tool("t1", result=True)
    rig.use(script.done("hi").echo())  # the builders' lines are real: no error
    flat = {"type": "text", "text": "a flat shape no CLI prints"}
    with pytest.raises(SuiteError, match="a shape we do not know: text"):
        rig.use(script.line(flat))
    line = script.text_line("x")
    if backend == "claude":
        del line["uuid"]  # every line Claude Code prints has one
    elif backend == "codex":
        line["item"]["text"] = 4
    else:
        line["content"] = 4
    with pytest.raises(SuiteError, match=r"'uuid' is a required property|4 is not of type"):
        rig.use(Script(backend).line(line))


def test_claudes_result_repeats_its_last_message_and_a_script_that_does_not_is_refused(
        tmp_path: Path) -> None:
    """D-34: a success result repeats the turn's last assistant message, as every recorded
    transcript shows; a done text a script names is that last message; a last message
    without text gives an empty result; and a script whose result says otherwise is an error
    of the suite, as a line off the CLI's schema is."""
    turn = Script("claude").init().text("partial ").tool("t1", result=False)
    turn.tool("t1", result=True).text("last words").done()
    assert turn.emitted[-1]["result"] == "last words"
    named = Script("claude").init().text("partial output").done("The final answer is 42")
    assert named.texts == ["partial output", "The final answer is 42"]
    assert [line["type"] for line in named.emitted[-2:]] == ["assistant", "result"]
    assert Script("claude").text("x").tool("t1", result=False).done().emitted[-1]["result"] == ""
    rig = HarnessRig(tmp_path / "rig")
    rig.use(turn)
    forged = Script("claude").init().text("a")
    forged.line(forged.done_line("b"))
    with pytest.raises(SuiteError, match="a result of 'b' after the message 'a'"):
        rig.use(forged)


def test_codex_works_in_its_cd_directory_and_refuses_a_missing_one(tmp_path: Path) -> None:
    rig = HarnessRig(tmp_path / "rig")
    rig.use(Script("codex").init().done())
    work = tmp_path / "work"
    work.mkdir()
    codex = str(rig.bin / "codex")
    argv = [codex, "exec", "--json", "--skip-git-repo-check", "--cd", str(work), "-"]
    done = subprocess.run(argv, input=b"hi", capture_output=True, timeout=30, check=False)
    assert done.returncode == 0 and rig.last_start()["cwd"] == str(work)
    argv[argv.index(str(work))] = str(tmp_path / "nowhere")
    done = subprocess.run(argv, input=b"hi", capture_output=True, timeout=30, check=False)
    assert (done.returncode, done.stderr) == (1, b"Error: No such file or directory (os error 2)\n")
    assert done.stdout == b""


@pytest.mark.parametrize(
    ("step", "where"),
    [
        ({"slep": 1}, "steps/2: Additional properties are not allowed ('slep' was unexpected)"),
        ({"sleep": -1}, "steps/2/sleep: -1 is less than the minimum of 0"),
        ({"exit": 1, "out": "x"}, "steps/2: {'exit': 1, 'out': 'x'} has too many properties"),
        ({"fill": {"line": "no marker", "size": 3}}, "steps/2/fill/line: 'no marker' does not"),
    ],
)
def test_a_script_with_a_typo_is_an_error_of_the_suite_naming_the_step(
    tmp_path: Path, step: dict[str, object], where: str
) -> None:
    script = Script("claude").init()  # steps/0 is its read_stdin head, steps/1 the init line
    script.steps.append(step)
    with pytest.raises(SuiteError, match="error of the suite: the fake harness's script is "
                                         "invalid at ") as caught:
        write_script(tmp_path / "script.json", script)
    assert where in str(caught.value)
    assert not (tmp_path / "script.json").exists()


def test_the_harness_writes_and_reads_json_as_the_json_module_does() -> None:
    """The harness uses json's C half directly (to start faster): the same text out, the same
    values in, and ValueError for what is not one JSON value."""
    from agent_tck.doubles.harness import fake

    values = [{"type": "result", "n": [1, 2.5, -0.0, 1e300, None, True], "s": "é\n\"\\\u2028"},
              [], {}, "x", 0, {"deep": [[{"a": [{}]}]]}]
    for value in values:
        assert fake.dumps(value) == json.dumps(value)
        assert fake.loads(json.dumps(value)) == value
        assert fake.loads(f" {json.dumps(value)}\n".encode()) == value
    for junk in ("", "{", '{"a": 1} x', "nope", b"\xff"):
        with pytest.raises(ValueError):
            fake.loads(junk)


def test_a_harness_whose_stdout_is_a_socket_widens_it_and_plays_on(tmp_path: Path) -> None:
    """Node starts a child with socket pairs for its pipes (the TypeScript Claude SDK, the
    Codex SDK): the pipe-widening step (AG-H23's scenarios) widens the socket's buffer, where
    F_SETPIPE_SZ fails with EBADF, and the harness goes on to print its burst."""
    import socket

    install(tmp_path / "bin", tmp_path / "script.json", tmp_path / "record.jsonl")
    write_script(tmp_path / "script.json", Script("claude", read_stdin=False)
                 .add("pipe_size", 1 << 20).add("burst", {"line": "x@N@\n", "count": 3}))
    ours, theirs = socket.socketpair()
    with ours:
        with theirs:
            done = subprocess.run([str(tmp_path / "bin" / "claude")], stdout=theirs,
                                  stderr=subprocess.PIPE, timeout=30, check=False)
        assert done.returncode == 0, done.stderr[-500:]
        ours.settimeout(10)
        received = b""
        while chunk := ours.recv(1 << 16):
            received += chunk
    assert received == b"x0\nx1\nx2\n"
