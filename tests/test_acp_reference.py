"""The reference drives an ACP agent (`reference/backends/acp.py`): the fake harness as
`gemini --acp`, talked with through the supervisor's open stdin, every message the reference
sends checked against the protocol's official schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.backends.acp import lines
from agent_tck.doubles.backends.acp.schema import Conversation
from agent_tck.doubles.harness.acpagent import SESSIONS
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.reference.agent import create_agent
from agent_tck.reference.backends import get_backend
from agent_tck.reference.backends.base import RunOptions
from agent_tck.reference.status import Status
from tests.support.gemini import ask_before_commands


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[HarnessRig]:
    rig = HarnessRig(tmp_path / "harness")
    yield rig
    rig.close()


def _ask(rig: HarnessRig, script: AcpScript, tmp_path: Path, message: str = "Say hi",
         session: str | None = None, **settings: Any) -> dict[str, Any]:
    rig.use(script)
    agent = create_agent(backend="gemini-acp", working_dir=str(tmp_path),
                         env={"PATH": rig.path()}, timeout=settings.pop("timeout", 30),
                         **settings)
    return agent.process(message, session)


def _sent(rig: HarnessRig) -> list[dict[str, Any]]:
    """What the reference told the agent, in order, each checked against the schema."""
    sent = [e["message"] for e in rig.record() if e["what"] == "acp_in"]
    conversation = Conversation()
    problems = [p for m in sent for p in conversation.check(m, "client")]
    assert problems == []
    return sent


def test_a_turn_is_the_handshake_a_session_and_the_prompt_and_its_answer_is_the_turns_text(
        rig: HarnessRig, tmp_path: Path) -> None:
    script = (AcpScript().thought("Thinking.").text("Hello, ").tool("call_1", result=False)
              .tool("call_1", result=True).done("world."))
    response = _ask(rig, script, tmp_path)
    assert response["status"] == Status.OK, response
    assert (response["message"], response["session_id"], response["tool_calls"]) == (
        "Hello, world.", SESSIONS.format(0), 1)
    assert response["warnings"] == []
    sent = _sent(rig)
    assert [m.get("method") for m in sent] == ["initialize", "session/new", "session/prompt"]
    assert sent[1]["params"] == {"cwd": str(tmp_path), "mcpServers": []}
    assert sent[2]["params"]["prompt"] == [{"type": "text", "text": "Say hi"}]
    assert [e["data"] for e in rig.record() if e["what"] == "stdin"] == ["Say hi"]


def test_a_session_id_resumes_its_session_by_session_load(rig: HarnessRig,
                                                          tmp_path: Path) -> None:
    response = _ask(rig, AcpScript().done("again"), tmp_path, session="s-earlier")
    assert (response["status"], response["session_id"]) == (Status.OK, "s-earlier")
    sent = _sent(rig)
    assert [m.get("method") for m in sent] == ["initialize", "session/load", "session/prompt"]
    assert sent[1]["params"]["sessionId"] == sent[2]["params"]["sessionId"] == "s-earlier"


def test_a_permission_request_is_refused_and_the_answer_says_so(rig: HarnessRig,
                                                                tmp_path: Path) -> None:
    response = _ask(rig, AcpScript().permission("call_1").done("did not run it"), tmp_path)
    assert response["status"] == Status.OK, response
    answers = [e["answer"] for e in rig.record() if e["what"] == "acp_answer"]
    assert [a["result"]["outcome"] for a in answers] == [
        {"outcome": "selected", "optionId": "cancel"}]  # gemini's reject_once option
    assert len(response["warnings"]) == 1 and "'ls'" in response["warnings"][0]
    assert "refused" in response["warnings"][0]


def test_a_request_the_client_did_not_offer_gets_method_not_found(rig: HarnessRig,
                                                                 tmp_path: Path) -> None:
    read = ("fs/read_text_file", {"sessionId": lines.SESSION_PLACEHOLDER, "path": "/etc/passwd"})
    response = _ask(rig, AcpScript().ask(read).done("no file"), tmp_path)
    assert response["status"] == Status.OK, response
    [answer] = [e["answer"] for e in rig.record() if e["what"] == "acp_answer"]
    assert answer["error"]["code"] == -32601 and "result" not in answer


@pytest.mark.parametrize(("reply", "said"), [
    ({"result": {"stopReason": "refusal"}}, "the agent refused to go on"),
    ({"result": {"stopReason": "cancelled"}}, "the turn was cancelled"),
    ({"error": {"code": -32603, "message": "quota exceeded"}},
     "the agent answered session/prompt with an error: quota exceeded"),
])
def test_a_turn_that_does_not_end_well_is_an_error_naming_why(
        rig: HarnessRig, tmp_path: Path, reply: dict[str, Any], said: str) -> None:
    script = AcpScript().text("partial")
    script.add("reply", reply)
    response = _ask(rig, script, tmp_path)
    assert response["status"] == Status.HARNESS_ERROR
    assert said in response["error"]


def test_an_agent_that_never_answers_the_prompt_times_out_and_is_ended(
        rig: HarnessRig, tmp_path: Path) -> None:
    script = AcpScript().text("thinking")
    script.add("sleep", 60)
    response = _ask(rig, script, tmp_path, timeout=1, grace_period=1)
    assert response["status"] == Status.TIMEOUT


def test_a_model_is_refused_where_the_agent_takes_none_on_its_command_line() -> None:
    with pytest.raises(Exception, match="takes no model"):
        get_backend("claude-acp").build("hi", RunOptions(model="opus"))
    call = get_backend("gemini-acp").build("hi", RunOptions(model="flash"))
    assert call.argv == ("gemini", "--acp", "-m", "flash") and call.conversation is not None


@pytest.mark.timeout(300)
@pytest.mark.parametrize("asking", [False, True], ids=["runs unasked", "asks first"])
def test_the_reference_drives_the_real_gemini_acp_agent(tmp_path: Path, asking: bool) -> None:
    """The pinned gemini-cli as an ACP agent, offline in the sandbox, its model scripted to run
    a shell command and then answer: the reference gets the answer, the call and the session;
    where gemini asks leave first, the reference refuses it, says so, and the file the
    command would have made is not there."""
    from agent_tck.doubles.realcli import clis
    from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable

    reason = unavailable("gemini")
    if reason:
        pytest.skip(reason)
    cli = clis.binary("gemini")
    assert cli is not None
    turns = [{"tool": "run_shell_command",
              "input": {"command": "touch made.txt", "description": "Make a file"}},
             {"say": "Done."}]
    with Sandbox(tmp_path / "real", "gemini", {"turns": turns}, cli) as box:
        if asking:
            ask_before_commands(box.home)
        agent = create_agent(backend="gemini-acp", working_dir=str(box.work),
                             env={"PATH": box.path()}, timeout=120)
        response = agent.process("Make the file")
        made = (box.work / "made.txt").exists()
    assert response["status"] == Status.OK, response
    assert response["message"] == "Done." and response["session_id"]
    assert response["tool_calls"] == int(not asking)  # a refused call is never reported run
    assert made is not asking
    refused = [w for w in response["warnings"] if "refused" in w]
    assert len(refused) == int(asking), response["warnings"]


def _talk(resume: str | None = None) -> Any:
    from agent_tck.reference.backends.acp import Conversation

    return Conversation("hi", resume, "/work")


def _said(talk: Any) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in bytes(talk.feed.pending).decode().splitlines()]


@pytest.mark.parametrize(("answers", "error"), [
    ([{"id": 0, "error": {"code": -32603, "message": "boom"}}],
     "the agent answered initialize with an error: boom"),
    ([{"id": 0, "result": None}], "the agent answered initialize with no result object"),
    ([{"id": 0, "result": {"agentCapabilities": {}}}, {"id": 1, "result": {"modes": {}}}],
     'session/new answered no sessionId: {"modes": {}}'),
])
def test_a_handshake_that_goes_wrong_ends_the_talk_with_an_error_naming_it(
        answers: list[dict[str, Any]], error: str) -> None:
    import json

    talk = _talk()
    events = [e for a in answers for e in talk.parse_line(json.dumps({"jsonrpc": "2.0", **a}))]
    assert [e.kind for e in events] == ["error"] and error in (events[0].text or "")
    assert talk.feed.ended


def test_resuming_an_agent_that_cannot_load_a_session_is_an_error() -> None:
    talk = _talk(resume="s-1")
    [event] = talk.parse_line('{"jsonrpc": "2.0", "id": 0, "result": {"agentCapabilities": '
                              '{"loadSession": false}}}')
    assert event.kind == "error" and "loadSession" in (event.text or "") and talk.feed.ended


def test_an_answer_whose_id_is_true_answers_nothing() -> None:
    talk = _talk()
    assert talk.parse_line('{"jsonrpc": "2.0", "id": true, "result": {}}') == []
    assert talk.asked == {0: "initialize"}


@pytest.mark.parametrize(("kinds", "outcome"), [
    (["allow_once", "reject_always"], {"outcome": "selected", "optionId": "reject_always"}),
    (["allow_once", "reject_always", "reject_once"],
     {"outcome": "selected", "optionId": "reject_once"}),
    (["allow_once", "allow_always"], {"outcome": "cancelled"}),
])
def test_a_permission_is_refused_with_the_mildest_refusal_offered(
        kinds: list[str], outcome: dict[str, str]) -> None:
    import json

    talk = _talk()
    options = [{"optionId": k, "name": k, "kind": k} for k in kinds]
    talk.parse_line(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
                                "params": {"sessionId": "s", "options": options,
                                           "toolCall": {"toolCallId": "c", "title": "rm"}}}))
    assert _said(talk)[-1] == {"jsonrpc": "2.0", "id": 7, "result": {"outcome": outcome}}
    assert "'rm'" in talk.warnings[0]
