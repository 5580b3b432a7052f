"""The reference adapter's loop: one response per request line, errors as answers."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agent_tck.reference.adapter import Adapter, serve


def exchange(*lines: str) -> list[dict[str, object]]:
    out = io.StringIO()
    assert serve(Adapter(), io.StringIO("".join(f"{line}\n" for line in lines)), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_bad_lines_and_commands_are_answered_with_errors_and_stop_ends() -> None:
    answers = exchange(
        "not json",
        "[1, 2]",
        '{"seq": 1, "cmd": "dance"}',
        '{"seq": 2, "cmd": "agent.create", "settings": {"backend": "acme", "env": {}}}',
        '{"seq": 3, "cmd": "agent.info", "agent": "nope"}',
        '{"seq": 4, "cmd": "stop"}',
        '{"seq": 5, "cmd": "start", "version": 1}',
    )
    assert answers == [
        {"seq": None, "error": {"message": "request line 1 is not JSON: Expecting value: "
                                           "line 1 column 1 (char 0)"}},
        {"seq": None, "error": {"message": "request line 2 is not a JSON object"}},
        {"seq": 1, "error": {"message": "unknown command 'dance'"}},
        {"seq": 2, "error": {"message": "ConfigError: unknown backend 'acme' "
                                        "(known: claude, claude-acp, codex, codex-acp, "
                                        "gemini, gemini-acp)"}},
        {"seq": 3, "error": {"message": "KeyError: 'nope'"}},
        {"seq": 4, "stopped": True},
    ]


def test_agent_request_with_a_session_id_resumes_that_session(tmp_path: Path) -> None:
    from agent_tck.doubles.harness.rig import HarnessRig
    from agent_tck.doubles.harness.script import Script

    rig = HarnessRig(tmp_path)
    script = Script("claude")
    rig.use(script.init("s-9").done("ok"))
    env = {"PATH": rig.path()}
    answers = exchange(
        json.dumps({"seq": 1, "cmd": "agent.create", "settings": {"backend": "claude",
                                                                  "env": env}}),
        '{"seq": 2, "cmd": "agent.request", "agent": "agent-1", "message": "hi"}',
        '{"seq": 3, "cmd": "agent.request", "agent": "agent-1", "message": "again", '
        '"session_id": "s-9"}',
    )
    assert [a["response"]["session_id"] for a in answers[1:]] == ["s-9", "s-9"]
    first, second = (start["argv"] for start in rig.starts())
    assert "--resume" not in first
    assert second[second.index("--resume") + 1] == "s-9"


def test_the_adapter_answers_every_bad_request_and_keeps_serving() -> None:
    lines = ["[" * 100_000, '{"seq": 2, "cmd": "start", "version": Infinity}', "[1, 2]",
             '{"seq": 4, "cmd": "agent.create", "settings": {"backend": "nope"}}',
             '{"seq": 5, "cmd": "start", "version": 1}', '{"seq": 6, "cmd": "stop"}']
    out = io.StringIO()
    assert serve(Adapter(), io.StringIO("\n".join(lines) + "\n"), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a.get("seq") for a in answers] == [None, None, None, 4, 5, 6]
    assert "maximum recursion depth" in answers[0]["error"]["message"]
    assert answers[1]["error"]["message"].endswith("Infinity is not a JSON value")
    assert "error" in answers[3] and answers[4]["version"] == 1
