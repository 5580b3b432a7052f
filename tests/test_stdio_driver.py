"""The stdio driver and `agent-tck smoke` against adapters that misbehave on purpose.

A misbehaving adapter gives errored scenarios with evidence, is restarted, and never stops the
run; the reference's adapter gives the same verdicts as the in-process driver.
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit.cli import main
from agent_tck.kit.drivers import stdio
from agent_tck.kit.drivers.stdio import StdioDriver
from agent_tck.kit.errors import DriverError
from agent_tck.kit.observe import still_running
from agent_tck.kit.paths import ROOT
from tests.support.runsuite import (
    CROSS_DRIVER,
    failing_in,
    folded,
    in_process,
    scenario_results,
    verdicts_for,
)

# Nested conformance runs through the adapter and over DDS: each scenario has its own deadline
# in it; the project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

PY = sys.executable


def fake(fault: str, cmd: str = "start", nth: int = 1, once: Path | None = None) -> str:
    return f"{PY} -m tests.miniatures.fake_adapter {fault} {cmd} {nth} {once or ''}".rstrip()


def smoke(command: str, timeout: float = 10) -> tuple[int, str]:
    """`agent-tck smoke`; the timeout covers a whole request, so it leaves a busy machine
    room (a hang costs it in full)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["smoke", "--impl", command, "--timeout", str(timeout)], out, err)
    return code, out.getvalue() + err.getvalue()


def test_smoke_passes_the_reference_adapter() -> None:
    code, text = smoke(f"{PY} -m agent_tck.reference.adapter")
    assert code == 0
    assert text.splitlines()[1:] == [  # a request of every component that has one
        "ok   request: the fake claude answered through the implementation",
        "ok   parse_line: a text line of claude, codex, gemini parsed",
        "ok   responses.parse: a message read",
        "ok   runner.run: the fake claude ran and its output came back",
        "ok   stop: exit code 0"]


def test_smoke_that_fails_itself_stops_the_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of the kit's own in the middle of smoke still ends the adapter it started."""
    from agent_tck.kit import smoke as smoke_module

    started: list[int] = []

    def broken(driver: Any, out: Any) -> bool:
        started.append(driver.process.pid)
        raise RuntimeError("the kit's own error")

    monkeypatch.setattr(smoke_module, "_parse", broken)
    with pytest.raises(RuntimeError, match="the kit's own error"):
        smoke_module.smoke(f"{PY} -m agent_tck.reference.adapter", io.StringIO())
    assert len(started) == 1 and still_running(started, within=5) == {}


def test_smoke_fails_a_runner_that_answers_without_starting_the_cli() -> None:
    """An answer with the expected output is not enough: the fake claude must have run."""
    code, text = smoke(fake("canned", "runner.run"))
    assert code == 1
    assert ("FAIL runner.run: expected the fake claude's output 'agent-tck smoke: ok', got "
            in text), text
    assert "the implementation never started the fake 'claude' from the PATH" in text, text


@pytest.mark.parametrize(
    ("fault", "diagnosis"),
    [
        ("wrong-version", "wrong protocol version"),
        ("hang", "the adapter did not answer `start` (hang)"),
        ("junk", "the adapter printed something that is not a protocol message"),
        ("crash", "the adapter exited before answering"),
        ("bad-schema", "the `start` response does not match its schema"),
    ],
)
def test_smoke_diagnoses_a_broken_start(fault: str, diagnosis: str) -> None:
    """A short timeout for the hang alone: the other faults need the adapter started, which
    can take more than two seconds on a loaded machine (it read as a hang there)."""
    code, text = smoke(fake(fault), timeout=2 if fault == "hang" else 10)
    assert code == 1
    assert text.startswith(f"FAIL start: {diagnosis}\n")


def test_smoke_makes_a_request_and_explains_a_stall_after_the_handshake() -> None:
    code, text = smoke(fake("sdk-stall"))
    assert code == 1
    assert ("FAIL request: the implementation wrote control request(s) initialize; the "
            "harness answered; no user message followed\n") in text, text
    assert "no response within 10 s (hang)" in text


def test_smoke_notes_stderr_noise() -> None:
    code, text = smoke(fake("noise"))
    assert code == 0 and "note stderr: the adapter wrote to stderr" in text


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("no-such-adapter --flag", "'no-such-adapter' was not found on PATH"),
        ("/no/such/adapter", "'/no/such/adapter' does not exist"),
        ("{plain}", "'{plain}' is not executable (chmod +x?)"),
    ],
)
def test_smoke_refuses_a_command_that_cannot_start(
    command: str, message: str, tmp_path: Path
) -> None:
    plain = tmp_path / "adapter.sh"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)
    command, message = (x.replace("{plain}", str(plain)) for x in (command, message))
    assert smoke(command) == (2, f"agent-tck: error: --impl {command!r}: {message}\n")


@pytest.mark.parametrize(
    ("fault", "evidence"),
    [
        ("crash", "the adapter closed stdout (crashed? exit code 3)"),
        ("hang", "no response within 1 s (hang)"),
        ("junk", "stray output or invalid JSON on stdout: 'Loading model weights... done'"),
        ("wrong-seq", "expected a response with seq 3, got seq 10\n"),
        ("stale-seq", "got seq 2: an earlier request's, answered late or twice"),
        ("bad-schema", "the response breaks parse_line.response.schema.json"),
    ],
)
def test_a_fault_is_a_driver_error_with_evidence_then_a_restart(fault: str, evidence: str) -> None:
    """The one-second bound is for the faulty request alone: the start and the restart's
    handshake took more than a second on CI's loaded machine (CI failed on it)."""
    driver = StdioDriver(fake(fault, "parse_line", 2), timeout=10)
    try:
        assert driver.parse_line("codex", '{"type":"turn.started"}') == []
        driver.timeout = 1
        with pytest.raises(DriverError) as caught:
            driver.parse_line("codex", '{"type":"turn.started"}')
        driver.timeout = 10
        assert evidence in str(caught.value)
        assert "transcript:\n-> {" in str(caught.value)
        events = driver.parse_line("codex", '{"type":"thread.started","thread_id":"t"}')
        assert [e["kind"] for e in events] == ["init"] and driver.restarts == 1
    finally:
        driver.close()


def test_a_failures_transcript_is_its_own_scenarios_exchange_with_each_message_whole() -> None:
    """What came before the scenario (it ended when `unasked` was asked) is not its evidence;
    a message of a few KB is shown whole, a longer one cut, saying how much is left out."""
    driver = StdioDriver(fake("wrong-seq", "parse_line", 3), timeout=10)
    try:
        for _ in range(2):
            assert driver.parse_line("codex", '{"type":"turn.started"}') == []
        assert driver.unasked() is None  # the first scenario ends
        line = json.dumps({"type": "turn.started", "pad": "x" * 3000})
        with pytest.raises(DriverError) as caught:
            driver.parse_line("codex", line)
        transcript = str(caught.value).split("transcript:\n", 1)[1].split("\nstderr tail:")[0]
        sent = [m for m in transcript.splitlines() if m.startswith("-> ")]
        assert len(sent) == 1 and '"seq": 4' in sent[0] and "x" * 3000 in sent[0], transcript
        assert "more characters" not in transcript
        assert stdio.shown("y" * 4005) == "y" * 4000 + "... (5 more characters)"
    finally:
        driver.close()


def test_a_crashing_adapter_errors_one_scenario_and_the_run_goes_on(tmp_path: Path) -> None:
    verdicts = verdicts_for(fake("crash", "parse_line", 5, tmp_path / "once"), ["backends"])
    assert sorted(v for v in verdicts.values() if v != "passed") == ["errored"]


def test_an_answer_no_request_asked_for_errors_the_scenario_that_got_it(tmp_path: Path) -> None:
    """The adapter answers its fifth parse_line twice: the scenario that sent it is errored,
    as it ends, for the second answer; the next scenario gets a new adapter and is judged as
    if nothing had happened, never reading the stale answer as its own."""
    results = scenario_results(fake("twice", "parse_line", 5, tmp_path / "once"), ["backends"])
    (errored,) = [r for r in results if r.verdict == "errored"]
    assert "wrote what no request asked for" in errored.evidence, errored.evidence[:1000]
    assert '"cmd": "parse_line"' in errored.evidence and "expected a response" not in (
        errored.evidence)
    assert {r.verdict for r in results if r is not errored} == {"passed"}


def test_a_hanging_adapter_is_bounded_and_the_run_goes_on(tmp_path: Path) -> None:
    """The adapter hangs once; its timeout is the subject, so the other scenarios are a few
    that answer at once, and the timeout (10 s) leaves them room on a busy machine."""
    command = fake("hang", "agent.request", 2, tmp_path / "once")
    quick = "session_id or working_directory or simple_text"
    results = scenario_results(command, ["agent"], keyword=quick, adapter_timeout=10)
    outcomes = sorted(r.verdict for r in results if r.verdict != "not run")
    assert len(outcomes) >= 4 and outcomes == ["errored"] + ["passed"] * (len(outcomes) - 1)
    (hung,) = [r for r in results if r.verdict == "errored"]
    assert "no response within 10 s (hang)" in hung.evidence


# Asked in-process, not applicable through an adapter: what only an agent in the suite's own
# process can be handed. (AG-C2's deadlines of 0 or less cannot be carried either, but its day
# can: through an adapter it is judged on that.)
UNSENDABLE = {"AG-L1": "a monitor that fails (an agent elsewhere has monitors of its own)",
              "AG-L2": "a failure inside the agent (only one in the suite's process can be "
                       "made to fail)"}


def test_the_reference_adapter_gives_the_in_process_verdicts() -> None:
    """On the cross-driver slice (tests/support/runsuite.py); what it leaves out is not run on
    either side. In-process the reference passes each scenario of it (`in_process`); what
    only an in-process agent is judged on is run in-process here."""
    components = ["agent", "backends", "responses", "runner", "pipeline"]
    through_adapter = verdicts_for(f"{PY} -m agent_tck.reference.adapter", components,
                                   CROSS_DRIVER)
    reference = in_process(components, CROSS_DRIVER)
    alone = folded(scenario_results("reference", components, CROSS_DRIVER, reqs=[*UNSENDABLE]),
                   components, selected=True)
    assert {r: alone[r] for r in UNSENDABLE} == dict.fromkeys(UNSENDABLE, "passed")
    assert {r: through_adapter[r] for r in UNSENDABLE} == dict.fromkeys(UNSENDABLE,
                                                                       "not applicable")
    expected = {**reference, **dict.fromkeys(UNSENDABLE, "not applicable")}
    assert through_adapter == expected, f"{through_adapter.failures}\n\n{reference.failures}"
    judged = [v for r, v in through_adapter.items() if v != "not run" and r not in UNSENDABLE]
    assert len(judged) > len(through_adapter) // 2 and set(judged) == {"passed"}


def test_a_broken_agent_behind_the_protocol_fails_its_requirements() -> None:
    """On the cross-driver slice: the protocol carries a defect to the verdicts. That the
    defect fails nothing else is tests/test_broken.py's, in-process (on every scenario with
    AGENT_TCK_BROKEN=whole)."""
    results = scenario_results(fake("broken:IgnoresWorkingDir", "none"), ["agent"],
                               CROSS_DRIVER)
    # AG-ACP.1 too: it opens the ACP agent's session in its own directory as well
    assert failing_in(results, ["agent"], selected=CROSS_DRIVER is not None) == {
        "RP-5.1", "AG-C5", "AG-ACP.1"}


def test_an_agent_whose_cli_outlives_it_fails_ag_d6_6_behind_the_protocol() -> None:
    """The suite kills the adapter alone: its harness, in the adapter's process group with no
    parent-death signal, runs on (the suite ends that group only after the verdict)."""
    results = scenario_results(fake("broken:SignalsOnlyTheChild", "none"), ["agent"],
                               "killed_in_the_middle")
    assert failing_in(results, ["agent"], selected=True) == {"AG-D6.6"}


def test_the_protocol_page_documents_every_command() -> None:
    from agent_tck.kit.drivers.schemas import commands
    from agent_tck.kit.paths import ROOT

    page = (ROOT / "docs" / "adapter-protocol.md").read_text()
    headings = {line.removeprefix("### ").split(" ")[0] for line in page.splitlines()
                if line.startswith("### ")}
    documented = headings | {c for c in commands() if f"`{c}`" in page}
    assert sorted(set(commands()) - documented) == []


def test_the_agent_features_give_the_same_verdicts_over_dds() -> None:
    """On the cross-driver slice (tests/support/runsuite.py)."""
    from agent_tck.kit.drivers import dds_available

    if not dds_available():
        pytest.skip("Cyclone DDS is not installed (pip install 'agent-tck[dds]')")
    over_dds = verdicts_for("dds", ["agent"], CROSS_DRIVER)
    reference = in_process(["agent"], CROSS_DRIVER)
    # By design the DDS service queues a request until an agent is idle (TR-4), so a second
    # request is served later, not answered "busy" at once as AG-D7.1 says of the agent.
    assert over_dds.pop("AG-D7.1") == "failed"
    reference.pop("AG-D7.1")
    # Over DDS a session is resumed by conversation, never by a session id a caller hands in
    # (docs/dds.md), so there is no session id to inject: AG-H19 does not apply, nor AG-H27
    # (an alias handed on as a session id).
    # For the same reason the session scenarios (AG-S1, AG-S2), which name a session id on the
    # request, do not apply; TR-9 checks resuming by conversation over DDS.
    # A served agent's monitors and code are its own: the suite cannot hand it a monitor that
    # fails (AG-L1) nor make it fail inside (AG-L2). A command line and an environment carry
    # text without NUL: a setting of the wrong kind cannot reach a served agent (AG-C4). A
    # served agent's env is the environment it inherits, so it cannot also strip it (AG-C6).
    # A DDS string is UTF-8, so a prompt holding a lone surrogate cannot be sent (AG-H26).
    # An ACP agent's resumed session (AG-ACP.6, and AG-ACP.12 and AG-ACP.13's session its
    # agent cannot load) is named by a session id too.
    for rid in ("AG-H19", "AG-H27", "AG-S1", "AG-S2", "AG-L1", "AG-L2", "AG-C4", "AG-C6",
                "AG-H26", "AG-ACP.6", "AG-ACP.12", "AG-ACP.13"):
        assert over_dds.pop(rid) == "not applicable", rid
        reference.pop(rid)
    assert over_dds == reference, f"{over_dds.failures}\n\n{reference.failures}"


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *_descendants(int(child))]
    return found


def test_sigterm_to_agent_tck_run_ends_it_and_its_adapter_soon(tmp_path: Path) -> None:
    """Not after the adapter timeout (60 s), and with no adapter left behind."""
    hanging = tmp_path / "hanging"  # created by the adapter when it starts to hang
    adapter = fake("hang", "agent.request", 1, hanging)
    with subprocess.Popen(  # its pipe closed however the test ends
            [PY, "-m", "agent_tck.kit.cli", "run", "--impl", adapter, "--component", "agent"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as run:
        try:
            deadline = time.monotonic() + 60
            while not hanging.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert hanging.exists(), "the adapter never got to its first agent.request"
            children = _descendants(run.pid)
            assert children, "agent-tck run has no adapter process"
            run.send_signal(signal.SIGTERM)
            out, _ = run.communicate(timeout=20)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    assert run.returncode == 2, out
    assert out.splitlines()[-1] == ("agent-tck: error: interrupted by SIGTERM: no verdict (the "
                                    "implementation and what it started were stopped)"), out
    assert still_running(children, within=5) == {}, f"left behind: {children}"


def test_an_error_that_is_not_an_object_is_a_protocol_violation_not_a_crash() -> None:
    results = scenario_results(fake("string-error", "parse_line", 1), ["backends"])
    broken = [r for r in results if r.verdict == "errored"]
    assert len(broken) == 1, [(r.name, r.verdict) for r in results]
    assert "its `error` must be an object with a `message` string, got 'it broke'" in (
        broken[0].evidence)
    assert {r.verdict for r in results} == {"errored", "passed"}


def test_an_adapters_stderr_flood_keeps_only_a_bounded_tail() -> None:
    from agent_tck.kit.drivers.stdio import STDERR_KEEP

    driver = StdioDriver(fake("stderr-flood"))
    try:
        process = driver.process
        assert process is not None
        deadline = time.monotonic() + 30
        while "the last words" not in process.stderr_tail() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.stderr_tail().rstrip().endswith("the last words")
        assert len(process.kept) <= STDERR_KEEP
    finally:
        driver.close()


def test_stopping_an_adapter_ends_the_descendants_it_left_in_its_group(tmp_path: Path) -> None:
    """An adapter that exits cleanly on `stop` but never ended a child of its own: nothing of
    it outlives the run (the kit's side of issue 17 item 15)."""
    pid_file = tmp_path / "child.pid"
    driver = StdioDriver(fake("leaves-child", "start", 1, pid_file))
    child = int(pid_file.read_text())
    try:
        assert child in still_running([child], within=0), "the adapter's child never started"
        driver.close()
        assert still_running([child], within=5) == {}, f"the child {child} outlived its adapter"
    finally:
        driver.close()
        if still_running([child], within=0):
            os.kill(child, signal.SIGKILL)


def _pids(target: Path) -> list[int]:
    """The pids the `leaves-session` processes of a fake adapter noted."""
    noted = Path(f"{target}.pids")
    return [int(line) for line in noted.read_text().split()] if noted.exists() else []


def _end(pids: list[int]) -> None:
    for pid in still_running(pids, within=0):
        os.kill(pid, signal.SIGKILL)


def test_stopping_an_adapter_ends_what_it_started_in_a_session_of_its_own(
        tmp_path: Path) -> None:
    """A descendant in a session of its own, whose parent has exited, is in no process group
    of the adapter's: it is still ended with the adapter."""
    target = tmp_path / "target"
    driver = StdioDriver(fake("leaves-session", "start", 1, target))
    pids = _pids(target)
    try:
        assert pids and list(still_running(pids, within=0)) == pids, "it never started"
        driver.close()
        assert still_running(pids, within=5) == {}, f"{pids} outlived the adapter"
    finally:
        driver.close()
        _end(pids)


def test_nothing_an_adapter_started_outlives_the_run_to_rewrite_its_report(
        tmp_path: Path) -> None:
    """Such a process rewrote the reports of an honest exit 1 to "conformant"; here it
    rewrites the JSON report whenever it exists."""
    report = tmp_path / "run.json"
    done = subprocess.run(
        [PY, "-m", "agent_tck.kit.cli", "run", "--impl", fake("leaves-session", "start", 1, report),
         "--component", "backends", "--req", "BK-CL.1", "--json", str(report)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    pids = _pids(report)
    try:
        assert (done.returncode, bool(pids)) == (0, True), done.stdout + done.stderr
        assert still_running(pids, within=0) == {}, f"{pids} outlived `agent-tck run`"
        time.sleep(0.3)  # what such a process does it does within 20 ms
        assert json.loads(report.read_text())["requirements"], report.read_text()[:200]
    finally:
        _end(pids)


def test_an_adapters_tree_ends_when_the_kit_is_killed(tmp_path: Path) -> None:
    """SIGKILL leaves the kit no time to stop its adapter: the keeper ends the tree itself."""
    target = tmp_path / "target"
    kit = subprocess.Popen(
        [PY, "-c", "import sys, time; from agent_tck.kit.drivers.stdio import StdioDriver; "
         "StdioDriver(sys.argv[1]); print('ready', flush=True); time.sleep(120)",
         fake("leaves-session", "start", 1, target)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert kit.stdout is not None and kit.stdout.readline() == "ready\n"
        pids = _pids(target)
        kit.kill()
        kit.wait()
        assert pids and still_running(pids, within=5) == {}, f"{pids} outlived the kit"
    finally:
        kit.kill()
        kit.wait()
        if kit.stdout is not None:
            kit.stdout.close()
        _end(_pids(target))


def test_a_driver_gone_with_the_keepers_last_line_unread_still_ends_the_tree(
        tmp_path: Path) -> None:
    """A kit killed just as its adapter exits leaves the keeper's `exit` line unread, and its
    socket then reads as reset rather than ended: the keeper takes that as the kit's end too,
    and ends the tree."""
    target = tmp_path / "target"
    adapter = [PY, "-c", "import sys; from tests.miniatures.fake_adapter import leave_session; "
               "leave_session(sys.argv[1])", str(target)]
    ours, theirs = socket.socketpair()
    keeper = subprocess.Popen([PY, "-I", "-S", str(stdio.SUBREAPER), str(theirs.fileno()),
                               *adapter], cwd=ROOT, pass_fds=(theirs.fileno(),),
                              start_new_session=True)
    theirs.close()
    try:
        assert ours.recv(64).startswith(b"pid "), "the adapter never started"
        assert select.select([ours], [], [], 30)[0], "the keeper never told the adapter's exit"
        pids = _pids(target)
        ours.close()  # the `exit` line unread
        assert keeper.wait(timeout=10) == 0
        assert pids and still_running(pids, within=5) == {}, f"{pids} outlived the keeper"
    finally:
        ours.close()
        if keeper.poll() is None:
            keeper.kill()
            keeper.wait()
        _end(_pids(target))


def test_smoke_says_where_the_fake_cli_was_when_no_answer_came() -> None:
    """A wrapper that leaves the CLI's stdin open waits with it: smoke says the fake CLI was
    still waiting for its stdin to end, not that it answered."""
    serve = ("import sys; from tests.miniatures.agent import LeavesStdinOpen as M; "
             "from agent_tck.reference.adapter import serve; "
             "sys.exit(serve(M().adapter, sys.stdin, sys.stdout))")
    code, text = smoke(f"{PY} -c {shlex.quote(serve)}")
    assert code == 1
    assert "no response within 10 s (hang)" in text, text
    assert re.search(r"FAIL request: the fake claude was still waiting for its stdin "
                     r"to end \(\d+ bytes on stdin, no end of file\): nothing after its step 1",
                     text), text


def test_a_creation_that_never_answers_is_charged_to_ag_h18_and_judges_its_own(
        tmp_path: Path) -> None:
    """Creating the agent is the setup of every agent scenario and the subject of AG-H18 alone:
    a creation that does not answer leaves another requirement's scenario not judged, saying
    so, and fails AG-H18's own."""
    other = scenario_results(fake("hang", "agent.create", 1, tmp_path / "once"), ["agent"],
                             "simple_text_response_from_claude", adapter_timeout=2)
    (unset,) = [r for r in other if r.verdict == "errored"]
    assert unset.error.startswith("NotJudged: creating the agent did not answer"), unset.error
    assert "(charged to AG-H18, whose subject that is)" in unset.message, unset.message
    own = scenario_results(fake("hang", "agent.create", 1, tmp_path / "twice"), ["agent"],
                           "the_cli_hangs_on_every_run", adapter_timeout=2)
    assert [(r.reqs, r.verdict) for r in own] == [(("AG-H18",), "failed")] + [
        (("AG-H18",), "passed")] * 2  # the other backends' agents, created after a restart
    assert own[0].error.startswith("OwnedElsewhere: creating the agent did not answer"), own
