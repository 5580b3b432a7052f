"""The protocol commands of `responses` and `runner` (reference.commands) against their
schemas in schemas/adapter/, and the reference's adapter serving them over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_tck.kit.drivers.schemas import problems, validator
from agent_tck.kit.paths import SCHEMAS
from agent_tck.reference.commands import COMMANDS
from tests.support.runsuite import verdicts_for

ADAPTER = SCHEMAS / "adapter"
REQUESTS: list[dict[str, Any]] = [
    {"cmd": "responses.parse", "payload": {"object": "response", "status": "incomplete",
                                           "output": [{"type": "function_call", "id": "fc_1",
                                                       "name": "f", "arguments": "{}"},
                                                      {"type": "message", "content": [
                                                          {"type": "refusal", "refusal": "No"},
                                                          {"type": "output_text", "text": "A"}]}],
                                           "usage": {"input_tokens": 1}}},
    {"cmd": "responses.parse", "payload": None},
    {"cmd": "signal.parse", "output": "<promise>BLOCKED: npm</promise>"},
    {"cmd": "runner.run", "prompt": "p", "options": {"trust": True, "timeout": 5},
     "env": {"PATH": "/nonexistent"}},
    {"cmd": "loop.run", "session": {"balls": [{"id": "b", "intent": "x"}]},
     "script": [{"signal": "NONE", "append_progress": "did b"},
                {"signal": "BLOCKED", "reason": "stuck"}],
     "settings": {"max_iterations": 3, "trust": False, "timeout": None}},
    {"cmd": "loop.run", "session": {}, "script": [], "settings": {"max_iterations": 1}},
]


@pytest.mark.parametrize("path", sorted(ADAPTER.glob("*.schema.json")), ids=lambda p: p.name)
def test_schemas_are_valid(path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_every_command_has_both_schemas() -> None:
    for cmd in COMMANDS:
        assert (ADAPTER / f"{cmd}.request.schema.json").exists()
        assert (ADAPTER / f"{cmd}.response.schema.json").exists()


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: r["cmd"])
def test_requests_and_answers_follow_the_schemas(request_: dict[str, Any]) -> None:
    request = {"seq": 7, **request_}
    validator(f"{request['cmd']}.request").validate(request)
    answer = COMMANDS[request["cmd"]](request)
    validator(f"{request['cmd']}.response").validate({"seq": 7, **json.loads(json.dumps(answer))})


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_a_request_without_its_fields_raises_for_the_adapter_to_report(cmd: str) -> None:
    with pytest.raises(KeyError):
        COMMANDS[cmd]({"seq": 1, "cmd": cmd})


def test_the_reference_adapter_passes_responses_and_runner_over_stdio() -> None:
    impl = f"{sys.executable} -m agent_tck.reference.adapter"
    verdicts = verdicts_for(impl, ["responses", "runner"])
    assert set(verdicts.values()) == {"passed"}, verdicts.failures


def test_a_broken_answer_is_told_in_json_not_in_python() -> None:
    """An adapter may be written in any language: what breaks the schema is said with JSON's
    values (`null`, `true`, double quotes), never Python's reprs (`None`, `True`, `'x'`)."""
    answer = {"seq": 1, "messages": [{"role": "user", "content": None,
                                      "tool_calls": [{"id": "c", "type": "function",
                                                      "function": {"name": True}}]}]}
    assert problems("responses.parse.response", answer) == [
        '$.messages[0].content: null is not of type string',
        '$.messages[0].role: "user" is not "assistant"',
        '$.messages[0].tool_calls[0].function: missing "arguments" (required)',
        '$.messages[0].tool_calls[0].function.name: true is not of type string',
    ]
    assert problems("agent.info.response", {"seq": 1, "state": "ready"}) == [
        '$: missing "timeout" (required)',
        '$.state: "ready" is not one of ["JOINING", "DISCOVERING", "READY", "BUSY", "DEGRADED", '
        '"OFFLINE"]',
    ]
