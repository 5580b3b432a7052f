"""Property tests: any string in, a list of schema-valid events out, never an exception."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.kit.paths import SCHEMAS
from agent_tck.reference.backends import get_backend
from agent_tck.reference.backends.base import load_object

VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((SCHEMAS / "events.schema.json").read_text())
)

TYPES = [
    "system",
    "assistant",
    "user",
    "result",
    "thread.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.completed",
    "error",
    "stream_event",
]
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "subtype",
                    "text",
                    "id",
                    "name",
                    "input",
                    "content",
                    "message",
                    "item",
                    "is_error",
                    "result",
                    "session_id",
                    "thread_id",
                    "tool_use_id",
                    "errors",
                    "error",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
shaped = st.builds(
    lambda t, rest: {**rest, "type": t},
    st.sampled_from(TYPES),
    st.dictionaries(
        st.sampled_from(
            ["subtype", "message", "item", "result", "is_error", "session_id", "error"]
        ),
        values,
    ),
)


def check(backend: str, line: str) -> None:
    events = get_backend(backend).parse_line(line)
    assert isinstance(events, list)
    for event in events:
        VALIDATOR.validate(event.to_dict())


@settings(max_examples=300)
@given(st.sampled_from(["claude", "codex", "gemini"]), st.text())
def test_any_text(backend: str, line: str) -> None:
    check(backend, line)


@settings(max_examples=300)
@given(st.sampled_from(["claude", "codex", "gemini"]), shaped)
def test_any_object_shaped_like_an_event(backend: str, obj: dict[str, Any]) -> None:
    check(backend, json.dumps(obj))


def test_deeply_nested_json_is_skipped_not_raised() -> None:
    line = '{"type":"assistant","x":' + "[" * 100_000 + "]" * 100_000 + "}"
    assert get_backend("claude").parse_line(line) == []


@given(st.dictionaries(st.text(max_size=4), scalars, max_size=3), st.text(max_size=6))
def test_load_object_agrees_with_json_loads(obj: dict[str, Any], tail: str) -> None:
    line = json.dumps(obj) + tail
    try:
        expected = json.loads(line.strip())
    except ValueError:
        expected = None
    assert load_object(line) == expected
