"""The fake harness as an ACP agent (`gemini --acp`), driven by a client written here: every
message either side sends is checked against the protocol's official schema."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.backends.acp import lines
from agent_tck.doubles.backends.acp.schema import PACKAGE, PROTOCOL_VERSION
from agent_tck.doubles.backends.gemini import acp as gemini_acp
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.realcli import clis
from agent_tck.doubles.realcli.clis import clis_dir
from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable
from agent_tck.kit.errors import SuiteError
from agent_tck.kit.paths import ROOT
from tests.support import acpclient
from tests.support.acpclient import Client
from tests.support.gemini import ask_before_commands

clients = acpclient.clients  # the fixture


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[HarnessRig]:
    rig = HarnessRig(tmp_path / "harness")
    yield rig
    rig.close()


def _start(rig: HarnessRig, script: AcpScript, tmp_path: Path, started: list[Client],
           *options: str) -> Client:
    rig.use(script)
    agent = Client([str(rig.bin / "gemini"), *(options or ["--acp"])], tmp_path)
    started.append(agent)
    return agent


def _handshake(agent: Client, cwd: Path) -> str:
    answer, _ = agent.request("initialize", {"protocolVersion": PROTOCOL_VERSION,
                                             "clientCapabilities": {}})
    assert answer["result"]["protocolVersion"] == PROTOCOL_VERSION
    answer, _ = agent.request("session/new", {"cwd": str(cwd), "mcpServers": []})
    session: str = answer["result"]["sessionId"]
    # as gemini does, the session's first update says which commands it offers
    first = agent.receive()["params"]
    assert (first["sessionId"], first["update"]["sessionUpdate"]) == (
        session, "available_commands_update")
    return session


ENDED = {"stopReason": "end_turn", **gemini_acp.STOPPED}  # what gemini's answer carries beside


def _prompt(text: str, session: str) -> dict[str, Any]:
    return {"sessionId": session, "prompt": [{"type": "text", "text": text}]}


def _said(updates: list[dict[str, Any]]) -> str:
    return "".join(m["params"]["update"]["content"]["text"] for m in updates
                   if m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")


def test_a_turn_of_every_kind_of_update_ends_with_its_stop_reason_and_plays_again(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    script = (AcpScript().thought("Looking first.").plan("Read", "Answer")
              .permission("call_1").tool("call_1", result=True)
              .tool("call_2", result=False).tool("call_2", result=True).done("All done."))
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    for turn in ("first", "second"):
        agent.send({"id": f"p-{turn}", "method": "session/prompt",
                    "params": _prompt(f"the {turn} prompt", session)})
        updates = []
        while (message := agent.receive()).get("id") != f"p-{turn}":
            if message.get("method") == "session/request_permission":
                agent.send({"id": message["id"], "result": {
                    "outcome": {"outcome": "selected", "optionId": "cancel"}}})
            else:
                updates.append(message)
        assert message["result"] == ENDED
        assert {m["params"]["sessionId"] for m in updates} == {session}
        assert [m["params"]["update"]["sessionUpdate"] for m in updates] == [
            "agent_thought_chunk", "plan", "tool_call_update", "tool_call",
            "tool_call_update", "agent_message_chunk"]
        assert _said(updates) == "All done."
    assert agent.close() == 0
    assert agent.problems == []
    record = rig.record()
    assert [e["data"] for e in record if e["what"] == "stdin"] == ["the first prompt",
                                                                   "the second prompt"]
    assert {e["via"] for e in record if e["what"] == "stdin"} == {"acp"}
    answers = [e["answer"]["result"]["outcome"] for e in record if e["what"] == "acp_answer"]
    assert answers == [{"outcome": "selected", "optionId": "cancel"}] * 2


def test_a_loaded_session_is_the_one_its_updates_name(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("again"), tmp_path, clients)
    _handshake(agent, tmp_path)
    loaded = "0b5e55ed-0000-4000-8000-000000000042"
    answer, replayed = agent.request("session/load", {"sessionId": loaded,
                                                      "cwd": str(tmp_path), "mcpServers": []})
    assert "result" in answer, answer
    # the conversation is replayed before the answer, as the protocol asks
    assert [(m["params"]["sessionId"], m["params"]["update"]["sessionUpdate"])
            for m in replayed] == [(loaded, "user_message_chunk"), (loaded, "agent_message_chunk")]
    answer, updates = agent.request("session/prompt", _prompt("go on", loaded))
    assert [(m["params"]["sessionId"], m["params"]["update"]["sessionUpdate"])
            for m in updates] == [(loaded, "available_commands_update"),
                                  (loaded, "agent_message_chunk")]
    assert answer["result"] == ENDED
    assert agent.problems == []


def test_a_line_that_echoes_the_prompt_names_the_session_too(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    [echo] = lines.Shapes().message_chunk("echo: {stdin}")
    script = AcpScript().add("line_stdin", echo).stop("end_turn")
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    answer, updates = agent.request("session/prompt", _prompt('say "hi"', session))
    assert [m["params"]["sessionId"] for m in updates] == [session]
    assert _said(updates) == 'echo: say "hi"'
    assert answer["result"] == ENDED
    assert agent.problems == []


def test_a_request_the_agent_does_not_know_gets_an_error_and_stdin_closed_ends_it(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("never asked"), tmp_path, clients)
    _handshake(agent, tmp_path)
    answer, _ = agent.request("session/list", {})
    assert answer["error"]["code"] == -32601, answer
    assert agent.close() == 0
    assert agent.problems == []
    # stdin closed before a prompt: the turn was never played
    assert [e["n"] for e in rig.record() if e["what"] == "step"] == [0]


def test_a_line_that_is_no_message_is_noted_and_skipped(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("hi"), tmp_path, clients)
    assert agent.proc.stdin is not None
    agent.proc.stdin.write(b"not json\n\n[1, 2]\n")
    _handshake(agent, tmp_path)
    assert [e["data"] for e in rig.record() if e["what"] == "stdin_junk"] == ["not json",
                                                                              "[1, 2]"]


def test_a_cancel_ends_the_wait_for_it_and_the_turn_stops_cancelled(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    # an agent deaf to the cancel would wait 600 s, past the tests' own timeout
    script = AcpScript().text("Working").until_cancel(600).stop("cancelled")
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    agent.send({"id": 7, "method": "session/prompt", "params": _prompt("long", session)})
    assert agent.receive()["method"] == "session/update"
    agent.send({"method": "session/cancel", "params": {"sessionId": session}})
    assert agent.receive() == {"jsonrpc": "2.0", "id": 7, "result": {"stopReason": "cancelled"}}
    assert agent.problems == []


def test_a_reply_to_another_id_is_a_fault_it_plays_and_no_error_of_the_suite(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().text("hi").add("reply", {"id": 999, "result": {
        "stopReason": "end_turn"}}), tmp_path, clients)
    session = _handshake(agent, tmp_path)
    agent.send({"id": 1, "method": "session/prompt", "params": _prompt("x", session)})
    agent.receive()
    assert agent.receive()["id"] == 999
    assert agent.problems == ["a response to id 999, which no unanswered request of the "
                              "client's has"]


@pytest.mark.parametrize(("step", "wrong"), [
    ({"reply": {"result": {"stopReason": "done"}}}, "the result of session/prompt"),
    ({"line": {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                                     "content": "a bare string"}}}}, "session/update params"),
    ({"ask": {"method": "session/cancel", "params": {"sessionId": "s"}}},
     "session/cancel: sent by the agent"),
])
def test_a_script_whose_messages_break_the_schema_is_an_error_of_the_suite(
        rig: HarnessRig, step: dict[str, Any], wrong: str) -> None:
    script = AcpScript()
    script.steps.append(step)
    with pytest.raises(SuiteError) as raised:
        rig.use(script)
    assert "not valid against schemas/acp/schema.json" in str(raised.value)
    assert wrong in str(raised.value)


def test_a_script_in_an_order_no_agent_sends_or_without_its_prompt_is_an_error_of_the_suite(
        rig: HarnessRig) -> None:
    late = AcpScript().tool("call_1", result=False).permission("call_1").done("x")
    with pytest.raises(SuiteError, match="permission asked for call_1 after its tool_call"):
        rig.use(late)
    with pytest.raises(SuiteError, match="begins with its prompt"):
        AcpScript(read_stdin=False)


def test_claude_agent_acp_reports_a_tool_call_before_it_asks_leave_for_it(
        rig: HarnessRig) -> None:
    """claude-agent-acp makes sure the tool call a permission request names was reported
    first; gemini asks first. Each agent's order is the fake's, and the other is refused."""
    asked = AcpScript("claude").permission("call_1").done("x")
    kinds = [next(iter(step)) for step in asked.steps]
    assert kinds[:2] == ["line", "ask"], kinds
    assert asked.steps[0]["line"]["params"]["update"]["sessionUpdate"] == "tool_call"
    rig.use(asked)
    unreported = AcpScript("claude").ask(lines.Shapes().permission_request("call_1", []))
    with pytest.raises(SuiteError, match="before its tool_call: claude-agent-acp reports"):
        rig.use(unreported.done("x"))
    assert [next(iter(s)) for s in AcpScript().permission("call_1").steps] == ["ask"]


@pytest.mark.parametrize("option", ["--experimental-acp", "--acp=true"])
def test_gemini_is_an_acp_agent_by_each_option_that_makes_it_one(
        rig: HarnessRig, clients: list[Client], tmp_path: Path, option: str) -> None:
    agent = _start(rig, AcpScript().done("hi"), tmp_path, clients, option)
    _handshake(agent, tmp_path)
    assert agent.problems == []


def test_an_acp_turn_played_to_a_cli_not_started_as_an_agent_says_so_and_fails(
        rig: HarnessRig, tmp_path: Path) -> None:
    rig.use(AcpScript(read_stdin=True).text("hi").stop("end_turn"))
    done = subprocess.run([str(rig.bin / "gemini"), "-p", "hi"], input=b"", cwd=tmp_path,
                          capture_output=True, timeout=30, check=False)
    assert done.returncode == 1
    assert b"gemini was not started as one (--acp or --experimental-acp)" in done.stderr


def test_a_session_is_known_by_its_id_which_may_hold_any_character(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("again"), tmp_path, clients)
    _handshake(agent, tmp_path)
    answer, _ = agent.request("session/prompt", _prompt("where?", "no-such-session"))
    assert answer["error"] == {"code": -32602, "message": "Session not found: no-such-session"}
    odd = 'a "quoted" \\ session'
    agent.request("session/load", {"sessionId": odd, "cwd": str(tmp_path), "mcpServers": []})
    answer, updates = agent.request("session/prompt", _prompt("go on", odd))
    assert [m["params"]["sessionId"] for m in updates] == [odd, odd]  # commands, then text
    assert answer["result"] == ENDED
    assert agent.problems == []


def test_a_setting_the_agent_has_not_gets_method_not_found_with_its_name(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("hi"), tmp_path, clients)
    session = _handshake(agent, tmp_path)
    answer, _ = agent.request("session/set_config_option",
                              {"sessionId": session, "configId": "x", "value": "y"})
    assert answer["error"] == {"code": -32601, "message": "Method not found",
                               "data": {"method": "session/set_config_option"}}
    answer, _ = agent.request("session/set_mode", {"sessionId": session, "modeId": "default"})
    assert answer["result"] == {}


def test_a_second_prompt_during_a_turn_cancels_the_first_and_the_turn_is_its(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().permission("call_1").done("Second."), tmp_path, clients)
    session = _handshake(agent, tmp_path)
    agent.send({"id": "first", "method": "session/prompt", "params": _prompt("1", session)})
    asked = agent.receive()
    assert asked["method"] == "session/request_permission"
    agent.send({"id": "second", "method": "session/prompt", "params": _prompt("2", session)})
    assert agent.receive() == {"jsonrpc": "2.0", "id": "first",
                               "result": {"stopReason": "cancelled"}}
    agent.send({"id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}})
    assert _said([agent.receive()]) == "Second."
    assert agent.receive()["id"] == "second"
    assert agent.problems == []


def test_a_cancel_that_comes_while_the_agent_asks_is_kept_for_the_turn(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    script = AcpScript().permission("call_1").until_cancel(600).stop("cancelled")
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    agent.send({"id": 3, "method": "session/prompt", "params": _prompt("long", session)})
    asked = agent.receive()
    agent.send({"method": "session/cancel", "params": {"sessionId": session}})
    agent.send({"id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}})
    assert agent.receive() == {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "cancelled"}}


def test_no_cancel_ends_the_wait_at_its_time_and_an_error_answers_the_prompt(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    script = AcpScript().until_cancel(0.1).error(-32603, "Internal error: the model is gone")
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    answer, _ = agent.request("session/prompt", _prompt("x", session))
    assert answer["error"] == {"code": -32603, "message": "Internal error: the model is gone"}
    assert agent.problems == []


@pytest.mark.parametrize("script", [AcpScript().permission("call_1").done("x"),
                                    AcpScript().text("Working").until_cancel(600).done("x")],
                         ids=["asking", "waiting for a cancel"])
def test_stdin_closed_while_the_agent_waits_ends_it(
        rig: HarnessRig, clients: list[Client], tmp_path: Path, script: AcpScript) -> None:
    agent = _start(rig, script, tmp_path, clients)
    session = _handshake(agent, tmp_path)
    agent.send({"id": 1, "method": "session/prompt", "params": _prompt("x", session)})
    assert agent.receive()["method"] in ("session/request_permission", "session/update")
    assert agent.close() == 0


def test_a_message_in_pieces_and_a_last_line_without_its_newline_are_read(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    agent = _start(rig, AcpScript().done("x"), tmp_path, clients)
    assert agent.proc.stdin is not None
    hello = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                        "params": {"protocolVersion": 1}}).encode()
    agent.proc.stdin.write(hello[:20])
    agent.proc.stdin.flush()
    time.sleep(0.2)  # the agent reads the first piece alone
    agent.proc.stdin.write(hello[20:])
    assert agent.close() == 0
    assert agent.proc.stdout is not None
    assert json.loads(agent.proc.stdout.readline())["result"]["protocolVersion"] == 1


def test_the_protocols_own_typescript_client_gets_its_answer(rig: HarnessRig,
                                                            tmp_path: Path) -> None:
    """The official SDK's client (tests/miniatures/acp_client.mjs) takes the fake for an
    agent: the handshake, the updates, a permission it grants, the stop reason, the exit."""
    sdk = clis_dir() / "node_modules" / PACKAGE
    node = shutil.which("node")
    if node is None or not (sdk / "package.json").is_file():
        pytest.skip(f"needs Node.js and {PACKAGE} installed in {clis_dir()} "
                    "(agent-tck install-clis)")
    rig.use(AcpScript().text("Let me look. ").permission("call_1")
            .tool("call_1", result=True).done("Done."))
    env = {**os.environ, "ACP_SDK": str(sdk / "dist" / "v1" / "stable" / "acp.js")}
    done = subprocess.run([node, str(ROOT / "tests" / "miniatures" / "acp_client.mjs"),
                           str(rig.bin / "gemini"), "--acp"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {
        "protocolVersion": PROTOCOL_VERSION, "stopReason": "end_turn",
        "updates": ["available_commands_update", "Let me look. ", "tool_call_update",
                    "Done."],
        "asked": ["call_1"], "code": 0}


def _turn(agent: Client, cwd: Path) -> list[tuple[Any, ...]]:
    """What the agent says in a handshake and one turn (its permission requests granted),
    message by message, in shapes that leave out what each run draws anew (ids, titles, the
    session's id) and `_meta`, which the protocol leaves to each agent: a response's keys (a
    prompt's stop reason); an update's kind, keys, status, tool kind and content types (a
    message or thought chunk's text); a permission request's options and the keys of its call."""
    said: list[tuple[Any, ...]] = []
    for method, params in (("initialize", {"protocolVersion": PROTOCOL_VERSION,
                                           "clientCapabilities": {}}),
                           ("session/new", {"cwd": str(cwd), "mcpServers": []})):
        answer, before = agent.request(method, params)
        said += [("before", m.get("method")) for m in before]
        said.append((method, sorted(answer["result"])))
    session = answer["result"]["sessionId"]
    agent.send({"id": "turn", "method": "session/prompt",
                "params": _prompt("List the files.", session)})
    while "method" in (message := agent.receive()) or message.get("id") != "turn":
        params = message["params"]
        if message["method"] == "session/request_permission":
            options = params["options"]
            said.append(("asked", [o["optionId"] for o in options],
                         sorted(params["toolCall"]), params["toolCall"]["status"]))
            agent.send({"id": message["id"], "result": {"outcome": {
                "outcome": "selected", "optionId": options[0]["optionId"]}}})
            continue
        update = params["update"]
        said.append((update["sessionUpdate"], sorted(update), update.get("status"),
                     update.get("kind"), [c.get("type") for c in update.get("content", [])]
                     if isinstance(update.get("content"), list) else None,
                     update["content"]["text"] if update["sessionUpdate"] in (
                         "agent_message_chunk", "agent_thought_chunk") else None))
    said.append(("session/prompt", message["result"]["stopReason"]))
    assert agent.close() == 0
    return said


# The same turn for the real agent (its scripted model's turns) and the fake (its script).
TURNS = {
    "runs a command without asking": (
        [{"think": "I should list.", "tool": "run_shell_command",
          "input": {"command": "ls", "description": "List files"}}, {"say": "Listed."}],
        AcpScript().thought("I should list.").tool("call_1", result=False)
        .tool("call_1", result=True).done("Listed.")),
    "asks before it runs a command": (
        [{"tool": "run_shell_command",
          "input": {"command": "touch made.txt", "description": "Make a file"}},
         {"say": "Made."}],
        AcpScript().permission("call_1").tool("call_1", result=True).done("Made.")),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", TURNS)
def test_the_fake_says_what_the_real_gemini_acp_agent_says_in_the_same_turn(
        rig: HarnessRig, clients: list[Client], tmp_path: Path, case: str) -> None:
    """Fidelity: the real `gemini --acp` (the pinned gemini-cli, offline in the sandbox, its
    model scripted) and the fake, each given the same turn, say the same things in the same
    order, every message valid against the protocol's schema."""
    reason = unavailable("gemini")
    if reason:
        pytest.skip(reason)
    cli = clis.binary("gemini")
    assert cli is not None
    turns, script = TURNS[case]
    with Sandbox(tmp_path / "real", "gemini", {"turns": turns}, cli) as box:
        if "asks" in case:
            ask_before_commands(box.home)
        real = Client([str(box.bin / "gemini"), "--acp"], box.work, {"PATH": box.path()})
        clients.append(real)
        real_said = _turn(real, box.work)
    fake = _start(rig, script, tmp_path, clients)
    assert _turn(fake, tmp_path) == real_said
    assert (real.problems, fake.problems) == ([], [])


def _cancelled(agent: Client, cwd: Path) -> tuple[Any, ...]:
    """A turn cancelled while it waits for its model: the prompt's answer, the kinds of the
    updates before it, and how the agent ended once its stdin closed."""
    session = _handshake(agent, cwd)
    agent.send({"id": "turn", "method": "session/prompt", "params": _prompt("Wait.", session)})
    time.sleep(2)  # the turn under way: the real agent waits for its stalled model
    agent.send({"method": "session/cancel", "params": {"sessionId": session}})
    kinds = []
    while "method" in (message := agent.receive()) or message.get("id") != "turn":
        kinds.append(message["params"]["update"]["sessionUpdate"])
    assert agent.proc.stdin is not None
    agent.proc.stdin.close()
    return message.get("result"), kinds, agent.proc.wait(timeout=60)


@pytest.mark.timeout(300)
def test_the_fake_is_cancelled_as_the_real_gemini_acp_agent_is(
        rig: HarnessRig, clients: list[Client], tmp_path: Path) -> None:
    """Fidelity of AG-ACP.11's agent: the real `gemini --acp`, its model stalled, answers a
    `session/cancel` with the stop reason `cancelled` and ends when its stdin closes; the
    fake's `until_cancel` does the same."""
    reason = unavailable("gemini")
    if reason:
        pytest.skip(reason)
    cli = clis.binary("gemini")
    assert cli is not None
    with Sandbox(tmp_path / "real", "gemini", {"turns": [{"stall": 120}]}, cli) as box:
        real = Client([str(box.bin / "gemini"), "--acp"], box.work, {"PATH": box.path()})
        clients.append(real)
        real_said = _cancelled(real, box.work)
    fake = _start(rig, AcpScript().until_cancel(600).stop("cancelled"), tmp_path, clients)
    assert _cancelled(fake, tmp_path) == real_said
    assert (real.problems, fake.problems) == ([], [])
