"""Fidelity: the fake harness, the reference and the line schemas against the real CLIs.

The transcripts in fixtures/transcripts/ are real runs of the pinned CLIs (recorded with
`python -m agent_tck.doubles.realcli.fixtures`); schemas/cli/ is built from them. Only the last
test runs the real CLIs, and only where they are installed and can be isolated.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.backends import as_printed, profile
from agent_tck.doubles.backends.acp.schema import Conversation
from agent_tck.doubles.backends.claude import ClaudeLines
from agent_tck.doubles.backends.claude.lines import last_text
from agent_tck.doubles.backends.codex import CodexLines
from agent_tck.doubles.backends.transcripts import Transcript, index
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.doubles.realcli import clis, shapes
from agent_tck.kit.drivers import RequestResult
from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.kit.paths import FEATURES
from agent_tck.reference.backends import get_backend

TRANSCRIPTS = index()
BACKENDS = ("claude", "codex")


def by_name(name: str) -> Transcript:
    return next(t for t in TRANSCRIPTS if t.name == name)


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_every_recorded_line_fits_its_cli_schema(transcript: Transcript) -> None:
    schema = shapes.load(transcript.backend)
    assert transcript.lines(), f"{transcript.path} is empty"
    assert shapes.problems(transcript.backend, schema, transcript.lines(), transcript.name) == []


def test_the_order_the_fake_is_held_to_is_the_recorded_clis() -> None:
    """What a profile calls unfaithful (claude's result repeating its last message, D-34)
    is learned from the recordings: none of them breaks it, and the claude ones that end
    well show it (a success result after a message with text)."""
    lines = {t.name: [json.loads(line) for line in t.lines()] for t in TRANSCRIPTS}
    assert {t.name: profile(t.backend).unfaithful(lines[t.name]) for t in TRANSCRIPTS} == {
        t.name: [] for t in TRANSCRIPTS}
    shown = [name for name, turn in lines.items() if name.startswith("claude") and any(
        line.get("subtype") == "success" and not line.get("is_error") and line.get("result")
        and last_text(turn[:n]) for n, line in enumerate(turn))]
    assert shown, "no recorded claude turn shows what its result repeats"


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_schemas_are_the_ones_the_fixtures_give(backend: str) -> None:
    assert shapes.load(backend) == shapes.expected(backend), (
        f"{shapes.schema_path(backend)} is stale: run `python -m agent_tck.doubles.realcli.shapes`"
    )


def fake_lines(backend: str) -> list[tuple[str, str]]:
    """(where, line) for every line shape the fake harness prints: the builders of
    doubles/backends/*/lines.py and the transcripts the decision scenarios print."""
    claude, codex = ClaudeLines(), CodexLines()
    built: dict[str, list[dict[str, Any]]] = {
        "claude": [
            claude.init(), claude.text("a"), claude.text("a", "b"), claude.thinking("hm"),
            claude.tool_use("toolu_1"), claude.tool_result("toolu_1"),
            claude.tool_result("toolu_1", [{"type": "text", "text": "x"}], is_error=True),
            claude.result("done"), claude.result(is_error=True, errors=None),
            claude.result(subtype="error_max_turns", is_error=True, errors=["max turns"]),
        ],
        "codex": [
            codex.thread_started(), codex.turn_started(), codex.agent_message("a"),
            codex.reasoning("hm"), codex.command("item_9", completed=False),
            codex.command("item_9", completed=True), codex.file_change("item_8"),
            codex.turn_completed(), codex.turn_failed("boom"), codex.error("Reconnecting..."),
        ],
    }
    found = [(f"lines.py #{i + 1}", json.dumps(v)) for i, v in enumerate(built[backend])]
    return found + _feature_transcripts(FEATURES / "agent" / "decisions.feature", backend)


def _feature_transcripts(feature: Path, backend: str) -> list[tuple[str, str]]:
    found, current, inside = [], None, False
    for number, line in enumerate(feature.read_text(encoding="utf-8").splitlines(), 1):
        if match := re.search(r'an agent for the "(\w+)" backend', line):
            current = match[1]
        elif line.strip() == '"""':
            inside = not inside
        elif inside and current == backend and line.strip().startswith("{"):
            printed = as_printed(backend, line.strip())  # as the harness does
            found.append((f"{feature.name}:{number}", printed))
    return found


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_line_the_fake_harness_prints_has_a_real_shape(backend: str) -> None:
    schema = shapes.load(backend)
    lines = fake_lines(backend)
    assert len(lines) > 10
    off = [p for where, line in lines
           for p in shapes.problems(backend, schema, [line], where)]
    assert off == []


def test_a_new_shape_or_field_is_named_with_its_line() -> None:
    schema = shapes.load("codex")
    line = json.loads(by_name("codex-text").lines()[-1])  # turn.completed
    assert line["type"] == "turn.completed"
    renamed = json.dumps({**line, "type": "turn.finished"})
    grown = json.dumps({**line, "usage": {**line["usage"], "audio_tokens": 3}})
    retyped = json.dumps({**line, "usage": {**line["usage"], "output_tokens": "8"}})
    assert shapes.problems("codex", schema, [json.dumps(line), renamed, grown, retyped, "oops"],
                           "new.jsonl") == [
        "new.jsonl:2: a shape we do not know: turn.finished",
        "new.jsonl:3: turn.completed: field usage: Additional properties are not allowed "
        "('audio_tokens' was unexpected)",
        "new.jsonl:4: turn.completed: field usage/output_tokens: '8' is not of type 'integer'",
        "new.jsonl:5: not JSON (Expecting value: line 1 column 1 (char 0))",
    ]


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_the_reference_parses_every_recorded_line(transcript: Transcript) -> None:
    backend = get_backend(transcript.backend)
    events = [e for line in transcript.lines() for e in backend.parse_line(line)]
    ended = {"done"} if transcript.expect["status"] == 0 else {"error"}
    assert {e.kind for e in events} >= {"init", *ended}


@pytest.fixture
def driver() -> Any:
    impl = InProcessDriver()
    try:
        yield impl
    finally:
        impl.close()


def replay(driver: InProcessDriver, transcript: str, backend: str, prompt: str,
           root: Path) -> RequestResult:
    """The reference agent's answer when the fake harness prints `transcript`."""
    rig = HarnessRig(root)
    script = Script(backend)
    script.add("out", transcript)
    rig.use(script)
    agent, _ = driver.agent_create({"backend": backend, "env": {"PATH": rig.path()}})
    return driver.agent_request(agent, prompt)


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_a_replayed_transcript_gets_the_answer_of_the_real_run(
    transcript: Transcript, driver: InProcessDriver, tmp_path: Path
) -> None:
    text = transcript.path.read_text(encoding="utf-8")
    response = replay(driver, text, transcript.backend, transcript.prompt, tmp_path).response
    expect = transcript.expect
    assert response["status"] == expect["status"] and response["tool_calls"] == expect["tool_calls"]
    if "message" in expect:
        assert response["message"] == expect["message"]
    if "error" in expect:
        assert expect["error"] in str(response["error"])
    assert response["session_id"] and response["session_id"] in text


# --- with the real CLIs ------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_real_run_and_the_replay_of_its_recording_give_equal_events(
    backend: str, driver: InProcessDriver, tmp_path: Path
) -> None:
    from agent_tck.doubles.realcli.record import record
    from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable

    reason = unavailable(backend)
    if reason:
        pytest.skip(reason)
    case = by_name(f"{backend}-tools")
    script = {"turns": case.turns}
    recorded = record(backend, script, case.prompt).stdout.decode()
    cli = clis.binary(backend)
    assert cli is not None
    with Sandbox(tmp_path / "real", backend, script, cli) as sandbox:
        agent, _ = driver.agent_create({"backend": backend, "working_dir": str(sandbox.work),
                                        "env": {"PATH": sandbox.path()}})
        real = driver.agent_request(agent, case.prompt)
    replayed = replay(driver, recorded, backend, case.prompt, tmp_path / "replay")
    assert real.response["status"] == 0, real.response
    assert masked(real) == masked(replayed)


def masked(result: RequestResult) -> list[dict[str, Any]]:
    """The events without what each run draws anew: the session id, timings, chunk ids."""
    session = result.response["session_id"]
    events = []
    for event in result.events:
        event = {k: v for k, v in event.items() if k != "raw"}
        text = json.dumps(event).replace(session, "<session>")
        text = re.sub(r"Wall time: [\d.]+ seconds", "Wall time: <t> seconds", text)
        events.append(json.loads(re.sub(r"Chunk ID: \w+", "Chunk ID: <id>", text)))
    return events


# Lines of parse_line.feature that are malformed on purpose (the scenario's point).
MALFORMED_ON_PURPOSE = {
    '{"type":"assistant","message":{"content":"not a list"}}',
    '{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":7}}',  # BK-CX.7
    # BK-CL.2: a thinking block with a text field, a text block whose text is null, and an
    # entry that is no block
    '{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant",'
    '"model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm","text":"not the'
    ' answer","signature":"s"},{"type":"text","text":null},"no block",{"type":"text",'
    '"text":"The answer."}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u10"}',
    # BK-CL.3: content blocks that are no objects around a tool result
    '{"type":"user","message":{"role":"user","content":["a note",{"type":"tool_result",'
    '"tool_use_id":"toolu_F","content":"done","is_error":false},null]},'
    '"parent_tool_use_id":null,"session_id":"s1","uuid":"u12"}',
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_line_handed_to_parse_line_has_a_real_shape(backend: str) -> None:
    """The lines the backends feature hands to parse_line, as handed (completed), are valid
    against schemas/cli/ wherever the pinned CLI was recorded printing their shape."""
    feature = FEATURES / "backends" / "parse_line.feature"
    schema, current, checked, off = shapes.load(backend), None, 0, []
    for number, text in enumerate(feature.read_text(encoding="utf-8").splitlines(), 1):
        if match := re.search(r"the ([\w<>-]+) backend parses:", text):
            current = match[1]
        candidates = [c.strip() for c in text.strip().strip("|").split("|")]
        for line in candidates:
            if current != backend or not line.startswith("{") or line in MALFORMED_ON_PURPOSE:
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if shapes.shape_of(backend, value) in schema["$defs"]:
                checked += 1
                off += shapes.problems(backend, schema, [as_printed(backend, line)],
                                       f"{feature.name}:{number}")
    assert checked > 5
    assert off == []


# What the ACP messages of parse_line.feature that are malformed on purpose hold: a message
# chunk whose content is no object (BK-ACP.1), an update that is no object (BK-ACP.3).
ACP_MALFORMED_ON_PURPOSE = ('"content":"is 4."', '"update":"agent_message_chunk"')


def test_every_acp_message_handed_to_parse_line_is_valid_acp() -> None:
    """The messages the backends feature hands to an ACP backend are valid against the
    protocol's schema (an answer as the answer to a prompt), but for those malformed on
    purpose."""
    text = (FEATURES / "backends" / "parse_line.feature").read_text(encoding="utf-8")
    rule = text.split("  Rule: ACP session/update notifications", 1)[1].split("  Rule:", 1)[0]
    messages = [c for line in rule.splitlines() for c in (p.strip() for p in line.split("|"))
                if c.startswith('{"jsonrpc"') and not any(m in c for m in ACP_MALFORMED_ON_PURPOSE)]
    problems = []
    for message in map(json.loads, messages):
        conversation = Conversation()
        if "method" not in message:
            conversation.check({"jsonrpc": "2.0", "id": message["id"], "method": "session/prompt",
                                "params": {"sessionId": "s1", "prompt": []}}, "client")
        problems += conversation.check(message, "agent")
    assert len(messages) > 10
    assert problems == []
