"""Miniature broken backends: the reference's parse_line with exactly one defect each.

`--impl python:tests.miniatures.backends:<Name>`; tests/test_broken.py checks each fails
exactly the requirements its defect breaks."""

from __future__ import annotations

import json
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.reference.adapter import Adapter


class _EchoingAdapter(Adapter):
    def parse_line(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = super().parse_line(request)
        try:
            line = json.loads(request["line"])
        except ValueError:
            return answer
        if (request["backend"] == "gemini" and isinstance(line, dict)
                and line.get("type") == "message" and line.get("role") == "user"):
            answer["events"] = [{"kind": "text", "text": line.get("content"), "raw": line}]
        return answer


class GeminiEchoesThePrompt(InProcessDriver):
    """Reads every Gemini message as text, the user's echoed prompt too."""

    def __init__(self) -> None:
        super().__init__(_EchoingAdapter())
