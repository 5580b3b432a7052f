"""The normalized events the agent steps expect of an implementation that does not parse lines
for the suite (fixtures/normalized-events.json) are the reference's, for the lines it prints."""

from __future__ import annotations

import json

import pytest

from agent_tck.doubles.backends import NAMES, profile
from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.kit.errors import SuiteError
from agent_tck.steps.agent_steps import NORMALIZED, _spec_events
from agent_tck.steps.world import FINAL_TEXT, default_turn
from tests.support.normalized import expected


def test_the_fixture_is_what_the_reference_makes_of_the_default_turn_today() -> None:
    assert json.loads(NORMALIZED.read_text(encoding="utf-8")) == expected(), (
        f"{NORMALIZED} is stale: run `python -m tests.support.normalized`")


def test_a_line_the_fixture_does_not_know_is_an_error_of_the_suite() -> None:
    """A line known but for its ids is known, and its events carry it whole as their raw."""
    text = default_turn(profile("claude"))[1]
    text = {**text, "uuid": "another", "message": {**text["message"], "id": "msg_another"}}
    events = _spec_events("claude", text)
    assert [e["kind"] for e in events] == ["text"] and events[0]["raw"]["uuid"] == "another"
    assert events[0]["text"] == FINAL_TEXT
    with pytest.raises(SuiteError, match="gives no events for the claude line"):
        _spec_events("claude", {**text, "session_id": "another"})


def test_no_event_of_the_default_turn_carries_an_id_but_in_its_line() -> None:
    """What lets the fixture leave the ids out: other ids give the same events (their raw
    line aside)."""
    reference = InProcessDriver()
    for backend in NAMES:
        for line in default_turn(profile(backend)):
            other = json.loads(json.dumps(line))
            if "uuid" in other:
                other["uuid"] = "another"
            if isinstance(other.get("message"), dict) and "id" in other["message"]:
                other["message"]["id"] = "msg_another"
            assert [_own(e) for e in reference.parse_line(backend, json.dumps(other))] == [
                _own(e) for e in reference.parse_line(backend, json.dumps(line))], backend


def _own(event: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in event.items() if k != "raw"}
