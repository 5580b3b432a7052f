"""Miniature broken backends: the reference's parse_line with exactly one defect each.

`--impl python:tests.miniatures.backends:<Name>`; tests/test_broken.py checks each fails
exactly the requirements its defect breaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.reference.adapter import Adapter
from agent_tck.reference.backends.claude import _blocks

Events = list[dict[str, Any]]


class _Changed(Adapter):
    """The reference's events for a line of `backend`, changed by `change(line, events)`."""

    def __init__(self, backend: str, change: Callable[[Any, Events], Events]) -> None:
        super().__init__()
        self.backend, self.change = backend, change

    def parse_line(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = super().parse_line(request)
        if request["backend"] == self.backend:
            try:
                line = json.loads(request["line"])
            except ValueError:
                return answer
            answer["events"] = self.change(line, answer["events"])
        return answer


def _echo_as_text(line: Any, events: Events) -> Events:
    if isinstance(line, dict) and line.get("type") == "message" and line.get("role") == "user":
        return [{"kind": "text", "text": line.get("content"), "raw": line}]
    return events


class GeminiEchoesThePrompt(InProcessDriver):
    """Reads every Gemini message as text, the user's echoed prompt too."""

    def __init__(self) -> None:
        super().__init__(_Changed("gemini", _echo_as_text))


def _no_empty_text(line: Any, events: Events) -> Events:
    return [e for e in events if not (e["kind"] == "text" and e.get("text") == "")]


class DropsEmptyText(InProcessDriver):
    """Skips Claude text blocks whose text is empty."""

    def __init__(self) -> None:
        super().__init__(_Changed("claude", _no_empty_text))


def _first_line(line: Any, events: Events) -> Events:
    return [{**e, "text": e["text"].split("\n")[0]} if e["kind"] == "text" else e
            for e in events]


class KeepsTheFirstLine(InProcessDriver):
    """Keeps only the first line of a Codex agent message."""

    def __init__(self) -> None:
        super().__init__(_Changed("codex", _first_line))


def _trusting(line: Any, events: Events) -> Events:
    if not (isinstance(line, dict) and str(line.get("type")).startswith("item.")):
        return events
    item = line.get("item", {})
    if item["type"] == "agent_message" and not events:  # unguarded: the item may be anything
        return [{"kind": "text", "text": str(item.get("text")), "raw": line}]
    return events


class TrustsItemShapes(InProcessDriver):
    """Reads a Codex item's type and text without checking the item is well formed."""

    def __init__(self) -> None:
        super().__init__(_Changed("codex", _trusting))


def _any_text_field(line: Any, events: Events) -> Events:
    if not (isinstance(line, dict) and line.get("type") == "assistant"):
        return events
    tools, found = iter([e for e in events if e["kind"] != "text"]), []
    for block in (b for b in _blocks(line) if isinstance(b, dict)):
        if "text" in block and block.get("type") != "tool_use":
            found.append({"kind": "text", "text": block["text"], "raw": line})
        elif block.get("type") == "tool_use":
            found.append(next(tools))
    return found


class ReadsAnyTextField(InProcessDriver):
    """Reads every Claude content block with a `text` field as text, whatever its type or
    its text (a thinking block's, a null): the reference with its type check turned to `or`,
    as a mutant had it."""

    def __init__(self) -> None:
        super().__init__(_Changed("claude", _any_text_field))


def _results_as_text(line: Any, events: Events) -> Events:
    return [{**e, "tool_output": "".join(b.get("text", "") for b in e["tool_output"]
                                          if isinstance(b, dict))}
            if e["kind"] == "tool_result" and isinstance(e.get("tool_output"), list) else e
            for e in events]


class EmptiesResultsWithoutText(InProcessDriver):
    """Joins every Claude tool result of blocks into text, so an image result becomes empty
    text (a mutant of the reference had it)."""

    def __init__(self) -> None:
        super().__init__(_Changed("claude", _results_as_text))


def _done_without_its_line(line: Any, events: Events) -> Events:
    return [{**e, "raw": {}} if e["kind"] == "done" else e for e in events]


class BuildsTheDoneEventBare(InProcessDriver):
    """Gives codex's done event an empty `raw`, as GENESIS does: the turn's usage is lost."""

    def __init__(self) -> None:
        super().__init__(_Changed("codex", _done_without_its_line))


def _update(line: Any) -> dict[str, Any]:
    """The update of an ACP session/update notification ({} for any other message)."""
    params = line.get("params") if isinstance(line, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    return update if isinstance(update, dict) else {}


def _any_content_as_text(line: Any, events: Events) -> Events:
    update = _update(line)
    content = update.get("content")
    if update.get("sessionUpdate") == "agent_message_chunk" and not isinstance(content, dict):
        return [{"kind": "text", "text": str(content), "raw": line}]
    return events


class TakesAnyChunkContentForText(InProcessDriver):
    """Takes the content of a gemini --acp message chunk that is no content block as its
    text."""

    def __init__(self) -> None:
        super().__init__(_Changed("gemini-acp", _any_content_as_text))


def _any_update_ends_the_call(line: Any, events: Events) -> Events:
    update = _update(line)
    if update.get("sessionUpdate") == "tool_call_update" and not events:
        return [{"kind": "tool_result", "tool_output": update.get("rawOutput"),
                 "tool_id": update.get("toolCallId"), "raw": line}]
    return events


class EndsToolCallsOnAnyUpdate(InProcessDriver):
    """Takes every update of a gemini --acp tool call for its end, an update that says it
    is still in progress too."""

    def __init__(self) -> None:
        super().__init__(_Changed("gemini-acp", _any_update_ends_the_call))


def _thoughts_as_text(line: Any, events: Events) -> Events:
    update = _update(line)
    content = update.get("content")
    if update.get("sessionUpdate") == "agent_thought_chunk" and isinstance(content, dict):
        return [{"kind": "text", "text": content.get("text"), "raw": line}]
    return events


class ReadsThoughtsAsText(InProcessDriver):
    """Takes the chunks of a gemini --acp agent's thoughts for text of its answer."""

    def __init__(self) -> None:
        super().__init__(_Changed("gemini-acp", _thoughts_as_text))
