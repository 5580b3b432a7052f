"""The recorded conversations of the real ACP agents (fixtures/transcripts/acp/): every message
of either side as the protocol's official schema defines it, and the agent's side, replayed to
the reference's conversation, draws the same requests from it and gives the recorded answer.
Offline evidence of what `gemini --acp`, `claude-agent-acp` and `codex-acp` say, for machines
where they cannot run."""

from __future__ import annotations

import json

import pytest

from agent_tck.doubles.backends.acp.schema import Conversation as Checked
from agent_tck.doubles.realcli.acprecord import AcpTranscript, index, main
from agent_tck.reference.backends.acp import Conversation

TRANSCRIPTS = index()


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
