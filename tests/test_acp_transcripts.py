"""The recorded conversations of the real ACP agents (fixtures/transcripts/acp/): every message
of either side as the protocol's official schema defines it, and the agent's side, replayed to
the reference's conversation, draws the same requests from it and gives the recorded answer.
Offline evidence of what `gemini --acp`, `claude-agent-acp` and `codex-acp` say, for machines
where they cannot run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.backends.acp.schema import Conversation as Checked
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.realcli.acprecord import AcpTranscript, index, main
from agent_tck.reference.backends.acp import Conversation
from tests.support import acpclient
from tests.support.acpclient import Client

TRANSCRIPTS = index()
clients = acpclient.clients  # the fixture


def test_each_agent_has_a_text_a_tools_and_an_api_error_conversation() -> None:
    assert sorted(t.name for t in TRANSCRIPTS) == sorted(
        f"{agent}-{kind}" for agent in ("gemini-acp", "claude-acp", "codex-acp")
        for kind in ("text", "tools", "api-error"))
    assert all(t.name.startswith(t.backend) for t in TRANSCRIPTS)


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_every_recorded_message_fits_the_protocols_schema(transcript: AcpTranscript) -> None:
    checked = Checked()
    said = transcript.said()
    assert [s["from"] for s in said[:2]] == ["client", "agent"]
    assert [p for s in said for p in checked.check(s["message"], s["from"])] == []


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_the_agents_side_replayed_to_the_reference_gives_the_recorded_answer(
        transcript: AcpTranscript) -> None:
    said = transcript.said()
    recorded = [s["message"] for s in said if s["from"] == "client"]
    opened = next(m for m in recorded if m.get("method") == "session/new")
    talk = Conversation(transcript.prompt, None, opened["params"]["cwd"])
    events = [e for s in said if s["from"] == "agent"
              for e in talk.parse_line(json.dumps(s["message"]))]
    sent = [json.loads(line) for line in bytes(talk.feed.pending).splitlines()]
    assert [(m.get("id"), m.get("method")) for m in sent] == [
        (m.get("id"), m.get("method")) for m in recorded]
    assert talk.feed.ended, "the prompt's answer did not end the conversation"
    errors = [e.text or "" for e in events if e.kind == "error"]
    tools = {e.tool_id for e in events if e.kind in ("tool_start", "tool_result")}
    expect = transcript.expect
    if "error" in expect:
        assert len(errors) == 1 and expect["error"] in errors[0], errors
    else:
        assert errors == []
        assert "".join(e.text or "" for e in events if e.kind == "text") == expect["message"]
        assert [e.kind for e in events][-1] == "done"
    assert len(tools) == expect["tool_calls"]


def test_recording_an_entry_the_index_does_not_have_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claude-acp-text", "no-such-conversation"]) == 2
    assert "unknown ACP transcripts: ['no-such-conversation']" in capsys.readouterr().err


WRITE = "printf 'hello from a real tool\\n' > hello.txt"
# The turn of each recorded conversation, told to the fake as the scenarios tell it theirs.
FAKE_TURNS: dict[str, Callable[[AcpScript], AcpScript]] = {
    "text": lambda s: s.thought("Two plus two is four.").done("The answer is 4."),
    "tools": lambda s: s.tool("call_1", result=False, command=WRITE)
    .tool("call_1", result=True, command=WRITE).tool("call_2", result=False)
    .tool("call_2", result=True).done("Wrote hello.txt."),
}
FAKE_FAILURES: dict[str, Callable[[AcpScript], AcpScript]] = {
    "gemini-acp": lambda s: s.error(401, json.dumps({"error": {
        "code": 401, "message": "invalid api key", "status": "UNAUTHENTICATED"}},
        separators=(",", ":"))),
    "claude-acp": lambda s: s.text("Failed to authenticate. API Error: 401 invalid api key")
    .error(-32000, "Authentication required"),
    "codex-acp": lambda s: s.error(-32000, "Authentication required"),
}
# What an agent says of itself as a turn goes, which the fake says at the turn's start and
# end only: left out of the order compared, and compared as kinds.
ASIDES = ("usage_update", "session_info_update")


def _shape(message: dict[str, Any]) -> tuple[Any, ...]:
    """What a client can go by in one message of the agent's: an answer's keys (or its
    error's code and text); a notification's method; an update's kind and, for a chunk, its
    text and whether it names its message; for a tool call's update, its status, tool kind
    and whether it carries a title. Ids, titles and `_meta`, which each run draws anew or the
    protocol leaves to each agent, are left out."""
    if "method" not in message:
        error = message.get("error")
        return ("answer", sorted(message["result"])) if error is None else (
            "error", error["code"], error["message"])
    if message["method"] != "session/update":
        return ("notification", message["method"])
    update = message["params"]["update"]
    kind = update["sessionUpdate"]
    if kind in ("agent_message_chunk", "agent_thought_chunk"):
        return kind, update["content"]["text"], "messageId" in update
    if kind in ("tool_call", "tool_call_update"):
        return kind, update.get("status"), update.get("kind"), "title" in update
    return (kind,)


def _fake_said(transcript: AcpTranscript, tmp_path: Path, clients: list[Client]
               ) -> tuple[list[dict[str, Any]], list[str]]:
    """Every message the fake agent sends when the recorded client's requests are sent it
    (its session's id in place of the real one's), until it answers the prompt; and what
    either side said off the protocol's schema."""
    cli = transcript.backend.removesuffix("-acp")
    kind = transcript.name.removeprefix(transcript.backend + "-")
    script = (FAKE_TURNS[kind] if kind in FAKE_TURNS else FAKE_FAILURES[transcript.backend])(
        AcpScript(cli))
    agent = PROFILES[cli].acp_agent
    assert agent is not None
    rig = HarnessRig(tmp_path / "harness")
    said: list[dict[str, Any]] = []
    try:
        rig.use(script)
        client = Client([str(rig.bin / agent.command), *agent.options], tmp_path)
        clients.append(client)
        session = None
        for message in (s["message"] for s in transcript.said() if s["from"] == "client"):
            params = message["params"]
            if message["method"] == "session/new":
                params = {**params, "cwd": str(tmp_path)}
            elif "sessionId" in params:
                params = {**params, "sessionId": session}
            answer, before = client.request(message["method"], params)
            said += [*before, answer]
            session = session or answer.get("result", {}).get("sessionId")
        assert client.close() == 0
    finally:
        rig.close()
    return said, client.problems


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_the_fake_says_what_the_real_agent_said_in_the_recorded_conversation(
        transcript: AcpTranscript, tmp_path: Path, clients: list[Client]) -> None:
    """Fidelity, offline: the fake, told the recorded turn and sent the recorded client's
    messages, says what the real agent said, in the same order (what it says of itself as a
    turn goes, `ASIDES`, in kinds), every message valid against the protocol's schema; its
    handshake is the real agent's (capabilities, identity, protocol version)."""
    real = [s["message"] for s in transcript.said() if s["from"] == "agent"]
    fake, problems = _fake_said(transcript, tmp_path, clients)
    assert problems == []

    def ordered(said: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [_shape(m) for m in said if _shape(m)[0] not in ASIDES]

    assert ordered(fake) == ordered(real)
    if "error" not in real[-1]:  # a failed turn: the real agents say less of themselves
        assert {_shape(m) for m in fake if _shape(m)[0] in ASIDES} == {
            _shape(m) for m in real if _shape(m)[0] in ASIDES}
    real_init, fake_init = (next(m["result"] for m in said if m.get("id") == 0)
                            for said in (real, fake))
    for key in ("protocolVersion", "agentInfo", "agentCapabilities"):
        assert fake_init[key] == real_init[key], key
