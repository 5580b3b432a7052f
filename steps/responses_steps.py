"""Steps of the `responses` component: a JSON payload in, the driver's messages or error out.

Payloads and expected messages are Gherkin doc strings holding JSON; the comparison is exact
(seed 003: emitted messages "strictly equal" the expected ones).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.kit.drivers import Driver


@dataclass
class ParseCase:
    payload: Any = None
    pristine: Any = None
    answer: dict[str, Any] = field(default_factory=dict)

    def rejection(self) -> dict[str, Any]:
        assert "rejected" in self.answer, f"the payload was accepted: {self.answer}"
        rejected: dict[str, Any] = self.answer["rejected"]
        return rejected


@pytest.fixture
def parse_case() -> ParseCase:
    return ParseCase()


@given("the Responses API object:")
def responses_object(parse_case: ParseCase, docstring: str) -> None:
    parse_case.payload = json.loads(docstring)
    parse_case.pristine = copy.deepcopy(parse_case.payload)


@given(parsers.parse("the JSON payload {value}"))
def json_payload(parse_case: ParseCase, value: str) -> None:
    responses_object(parse_case, value)


@when("the parser reads it")
def parser_reads(parse_case: ParseCase, driver: Driver) -> None:
    parse_case.answer = driver.responses_parse(parse_case.payload)


@then("the messages are:")
def messages_are(parse_case: ParseCase, docstring: str) -> None:
    assert "messages" in parse_case.answer, f"the payload was rejected: {parse_case.answer}"
    assert parse_case.answer["messages"] == json.loads(docstring)


@then(parsers.parse('the parser rejects it at "{path}"'))
def rejected_at(parse_case: ParseCase, path: str) -> None:
    assert parse_case.rejection().get("path") == path, parse_case.answer


@then(parsers.parse('the error message contains "{text}"'))
def error_contains(parse_case: ParseCase, text: str) -> None:
    assert text in str(parse_case.rejection().get("message")), parse_case.answer


@then("the payload is unchanged")
def payload_unchanged(parse_case: ParseCase) -> None:
    assert "messages" in parse_case.answer, f"the payload was rejected: {parse_case.answer}"
    assert parse_case.payload == parse_case.pristine
