"""Steps of the `responses` component: a JSON payload in, the driver's messages or error out.

Payloads and expected messages are Gherkin doc strings holding JSON; the comparison is exact
(seed 003: emitted messages "strictly equal" the expected ones).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.kit.drivers import Driver
from agent_tck.steps.world import World


@dataclass(repr=False)
class ResponsesWorld(World):
    """A Responses API payload, a pristine copy of it, and what the parser answered."""

    payload: Any = None
    pristine: Any = None
    answer: dict[str, Any] = field(default_factory=dict)

    def rejection(self) -> dict[str, Any]:
        assert "rejected" in self.answer, f"the payload was accepted: {self.answer}"
        rejected: dict[str, Any] = self.answer["rejected"]
        return rejected


@pytest.fixture
def responses_world(driver: Driver, tmp_path: Path, time_scale: float) -> ResponsesWorld:
    return ResponsesWorld(driver, tmp_path, time_scale)


@given("the Responses API object:")
def responses_object(responses_world: ResponsesWorld, docstring: str) -> None:
    responses_world.payload = json.loads(docstring)
    responses_world.pristine = copy.deepcopy(responses_world.payload)


@given(parsers.parse("the JSON payload {value}"))
def json_payload(responses_world: ResponsesWorld, value: str) -> None:
    responses_object(responses_world, value)


@when("the parser reads it")
def parser_reads(responses_world: ResponsesWorld, driver: Driver) -> None:
    responses_world.answer = driver.responses_parse(responses_world.payload)


@then("the messages are:")
def messages_are(responses_world: ResponsesWorld, docstring: str) -> None:
    answer = responses_world.answer
    assert "messages" in answer, f"the payload was rejected: {answer}"
    assert responses_world.answer["messages"] == json.loads(docstring)


@then(parsers.parse('the parser rejects it at "{path}"'))
def rejected_at(responses_world: ResponsesWorld, path: str) -> None:
    assert responses_world.rejection().get("path") == path, responses_world.answer


@then(parsers.parse('the error message contains "{text}"'))
def error_contains(responses_world: ResponsesWorld, text: str) -> None:
    assert text in str(responses_world.rejection().get("message")), responses_world.answer


@then("the payload is unchanged")
def payload_unchanged(responses_world: ResponsesWorld) -> None:
    answer = responses_world.answer
    assert "messages" in answer, f"the payload was rejected: {answer}"
    assert responses_world.payload == responses_world.pristine
