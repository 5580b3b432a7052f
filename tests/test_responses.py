"""Unit and property tests of `reference.responses` (seed 003, decision D-8)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.reference.exceptions import AgentError, ResponsesError
from agent_tck.reference.responses import parse_response

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20,
)
PART = st.fixed_dictionaries({"type": st.sampled_from(["output_text", "text", "refusal", "x"])},
                             optional={"text": JSON, "refusal": JSON})
ITEM = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "function_call", "reasoning", "web_search_call"])},
    optional={"content": st.lists(PART | JSON, max_size=3) | JSON, "id": JSON,
              "call_id": JSON, "name": JSON, "arguments": JSON},
)
RESPONSE = st.fixed_dictionaries(
    {"object": st.just("response")},
    optional={"output": st.lists(ITEM | JSON, max_size=4) | JSON,
              "status": st.sampled_from(["completed", "incomplete", "failed", "queued"]) | JSON,
              "usage": st.dictionaries(st.sampled_from(["input_tokens", "output_tokens",
                                                        "total_tokens", "input_tokens_details"]),
                                       JSON) | JSON,
              "incomplete_details": JSON, "error": JSON},
)


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") == "assistant" \
        and isinstance(value.get("content"), str)


@settings(max_examples=300, deadline=None)
@given(JSON | RESPONSE)
def test_any_json_value_gives_messages_or_the_documented_error(payload: Any) -> None:
    pristine = copy.deepcopy(payload)
    try:
        messages = parse_response(payload)
    except ResponsesError as exc:
        assert exc.path in {"$", "$.object", "$.error"}
    else:
        assert all(_is_message(m) for m in messages)
        json.dumps(messages)  # plain JSON, nothing shared with odd types
    assert payload == pristine


@settings(max_examples=200, deadline=None)
@given(RESPONSE)
def test_usage_when_present_is_the_last_message(payload: dict[str, Any]) -> None:
    try:
        messages = parse_response(payload)
    except ResponsesError:
        return
    has_usage = isinstance(payload.get("usage"), dict)
    assert sum("usage" in m for m in messages) == int(has_usage)
    if has_usage:
        assert "usage" in messages[-1]


def test_the_error_is_an_agent_error_and_a_value_error() -> None:
    with pytest.raises(ResponsesError) as caught:
        parse_response(None)
    assert isinstance(caught.value, AgentError) and isinstance(caught.value, ValueError)
    assert str(caught.value) == "$: expected a Responses API object, got null"


@pytest.mark.parametrize(("payload", "message"), [
    ({"object": "chat.completion"}, "$.object: expected object 'response', got 'chat.completion'"),
    ({}, "$.object: expected object 'response', got None"),
    ({"object": "response", "status": "failed"}, "$.error: the response failed: no error details"),
    ({"object": "response", "status": "failed", "error": {"message": "boom"}},
     "$.error: the response failed: boom"),
    ([1], "$: expected a Responses API object, got an array"),
    (1.5, "$: expected a Responses API object, got a number"),
])
def test_error_messages_word_for_word(payload: Any, message: str) -> None:
    with pytest.raises(ResponsesError) as caught:
        parse_response(payload)
    assert str(caught.value) == message


@pytest.mark.parametrize("count", [-1, True, 1.0, "5", None])
def test_token_counts_that_are_not_non_negative_integers_count_as_zero(count: Any) -> None:
    payload = {"object": "response",
               "usage": {"input_tokens": count, "output_tokens": 2, "total_tokens": 2}}
    assert parse_response(payload)[-1]["usage"] == {
        "prompt_tokens": 0, "completion_tokens": 2, "total_tokens": 2}


def test_incomplete_without_details_has_no_reason() -> None:
    assert parse_response({"object": "response", "status": "incomplete"}) == [
        {"role": "assistant", "content": "", "incomplete": {"reason": None}}]


def test_usage_details_that_lack_their_count_are_left_out() -> None:
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
             "input_tokens_details": {}, "output_tokens_details": "n/a"}
    assert parse_response({"object": "response", "usage": usage})[-1]["usage"] == {
        "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
