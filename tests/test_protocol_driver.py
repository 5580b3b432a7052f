"""What the protocol driver makes of `reports_events` (docs/decisions.md D-29)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tck.kit.drivers.protocol import PROTOCOL_VERSION, ProtocolDriver
from agent_tck.kit.errors import DriverError

ANSWER = {"response": {"message": "hi", "status": 0}, "states": []}


class Scripted(ProtocolDriver):
    """Declares `declared` in `start` and answers every request with `answer`."""

    def __init__(self, declared: dict[str, Any], answer: dict[str, Any]) -> None:
        self.declared, self.answer = declared, answer
        self.info = self.handshake()

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        if cmd != "start":
            return {"seq": 2, **self.answer}
        implementation = {"name": "x", "language": "y", "version": "1", "components": ["agent"],
                          "backends": ["claude"], **self.declared}
        return {"seq": 1, "version": PROTOCOL_VERSION, "implementation": implementation}


def test_an_implementation_reports_its_events_unless_it_says_otherwise() -> None:
    events = [{"kind": "done", "raw": {}}]
    assert Scripted({}, {**ANSWER, "events": events}).agent_request("a", "m").events == events


def test_an_answer_without_the_events_it_declared_is_an_error_of_the_protocol() -> None:
    with pytest.raises(DriverError, match=r"declared `reports_events` .* has no `events`"):
        Scripted({}, ANSWER).agent_request("a", "m")


def test_events_sent_by_an_implementation_that_reports_none_are_not_judged() -> None:
    driver = Scripted({"reports_events": False}, {**ANSWER, "events": []})
    assert driver.info.reports_events is False
    assert driver.agent_request("a", "m").events is None
