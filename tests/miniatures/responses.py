"""Miniature broken parsers for the `responses` component: the reference with one defect each.

Each class is a driver for `--impl python:tests.miniatures.responses:<Name>`;
tests/test_broken_responses.py checks that the suite fails exactly the requirements its
defect breaks.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.reference.responses import TEXT_PARTS

Payload = Any
Messages = list[dict[str, Any]]


class Miniature(InProcessDriver):
    """The reference parser, with the input rewritten by `before` and the output by `after`."""

    def responses_parse(self, payload: Payload) -> dict[str, Any]:
        answer = super().responses_parse(self.before(copy.deepcopy(payload)))
        if "messages" in answer:
            answer["messages"] = self.after(answer["messages"])
        return answer

    def before(self, payload: Payload) -> Payload:
        return payload

    def after(self, messages: Messages) -> Messages:
        return messages


def _items(payload: Payload) -> Iterator[dict[str, Any]]:
    output = payload.get("output") if isinstance(payload, dict) else None
    yield from (i for i in output or () if isinstance(i, dict)) if isinstance(output, list) else ()


def _parts(payload: Payload) -> Iterator[dict[str, Any]]:
    for item in _items(payload):
        content = item.get("content")
        yield from (p for p in content if isinstance(p, dict)) if isinstance(content, list) else ()


def _plain(message: dict[str, Any]) -> bool:
    return set(message) == {"role", "content"}


class EmitsNothing(Miniature):
    """Always emits no message."""

    def after(self, messages: Messages) -> Messages:
        return []


class UserRole(Miniature):
    """Gives text messages the role "user"."""

    def after(self, messages: Messages) -> Messages:
        return [{**m, "role": "user"} if _plain(m) else m for m in messages]


class MergesParts(Miniature):
    """Joins adjacent text messages into one."""

    def after(self, messages: Messages) -> Messages:
        merged: Messages = []
        for m in messages:
            if merged and _plain(m) and _plain(merged[-1]):
                merged[-1] = {**m, "content": merged[-1]["content"] + m["content"]}
            else:
                merged.append(m)
        return merged


class DropsToolCalls(Miniature):
    """Emits no message for function calls."""

    def after(self, messages: Messages) -> Messages:
        return [m for m in messages if "tool_calls" not in m]


class NoIdFallback(Miniature):
    """Reads only call_id, never the item's id."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if "call_id" not in item:
                item.pop("id", None)
        return payload


class PrefersItemId(Miniature):
    """Uses the item's id before its call_id."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if item.get("type") == "function_call" and "id" in item:
                item["call_id"] = item["id"]
        return payload


class UsageFirst(Miniature):
    """Puts the usage message first."""

    def after(self, messages: Messages) -> Messages:
        return sorted(messages, key=lambda m: "usage" not in m)


class RawUsage(Miniature):
    """Copies usage as the API names it (input_tokens, output_tokens)."""

    def before(self, payload: Payload) -> Payload:
        self.usage = payload.get("usage") if isinstance(payload, dict) else None
        return payload

    def after(self, messages: Messages) -> Messages:
        return [{**m, "usage": self.usage} if "usage" in m else m for m in messages]


class TakesAnyCount(Miniature):
    """Gives each token count of usage as the API sent it, whatever it is."""

    NAMES = (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"),
             ("total_tokens", "total_tokens"))

    def before(self, payload: Payload) -> Payload:
        self.usage = payload.get("usage") if isinstance(payload, dict) else None
        return payload

    def after(self, messages: Messages) -> Messages:
        usage = self.usage if isinstance(self.usage, dict) else {}
        sent = {ours: usage[theirs] for theirs, ours in self.NAMES if theirs in usage}
        return [{**m, "usage": {**m["usage"], **sent}} if "usage" in m else m for m in messages]


class TextTypeOnly(Miniature):
    """Knows only the seed's content type "text", not the real API's "output_text"."""

    def before(self, payload: Payload) -> Payload:
        for part in _parts(payload):
            if part.get("type") == "output_text":
                part["type"] = "unknown"
        return payload


class CrashesOnUnknownItems(Miniature):
    """Raises on an output item type it does not know."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if item.get("type") not in ("message", "function_call"):
                raise KeyError(item.get("type"))
        return payload


class CrashesOnMissingContent(Miniature):
    """Indexes message content without checking it is there."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if item.get("type") == "message":
                _ = [part["type"] for part in item["content"]]
        return payload


class NoTypeGuard(Miniature):
    """Turns text fields that are not strings into strings."""

    def before(self, payload: Payload) -> Payload:
        for part in _parts(payload):
            if "text" in part and not isinstance(part["text"], str):
                part["text"] = json.dumps(part["text"])
        return payload


EMPTY = "\x00empty\x00"


class EmptyTextKept(Miniature):
    """Emits a message for an empty text."""

    def before(self, payload: Payload) -> Payload:
        for part in _parts(payload):
            if part.get("text") == "":
                part["text"] = EMPTY
        return payload

    def after(self, messages: Messages) -> Messages:
        return [{**m, "content": ""} if m.get("content") == EMPTY else m for m in messages]


class RefusalAsText(Miniature):
    """Reads a refusal as ordinary text."""

    def before(self, payload: Payload) -> Payload:
        for part in _parts(payload):
            if part.get("type") == "refusal":
                part.update(type="output_text", text=part["refusal"])
        return payload


class RefusalByItsField(Miniature):
    """Reads any part with a `refusal` string as a refusal, whatever its type (the reference
    with its type check turned to `or`, as a mutant had it)."""

    def before(self, payload: Payload) -> Payload:
        for part in _parts(payload):
            if isinstance(part.get("refusal"), str) and part.get("type") not in TEXT_PARTS:
                part["type"] = "refusal"
        return payload


class ReasoningAsText(Miniature):
    """Emits reasoning summaries as assistant text."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if item.get("type") == "reasoning":
                item.update(type="message", content=[
                    {"type": "output_text", "text": s.get("text")} for s in item["summary"]])
        return payload


class IgnoresIncomplete(Miniature):
    """Reads a truncated response as a finished one."""

    def after(self, messages: Messages) -> Messages:
        return [m for m in messages if "incomplete" not in m]


class AcceptsAnyObject(Miniature):
    """Reads any JSON object as a response, whatever its object field."""

    def before(self, payload: Payload) -> Payload:
        return {**payload, "object": "response"} if isinstance(payload, dict) else payload


class EmptyForNonObject(Miniature):
    """Answers no message, instead of an error, for a payload that is not an object."""

    def responses_parse(self, payload: Payload) -> dict[str, Any]:
        return super().responses_parse(payload) if isinstance(payload, dict) else {"messages": []}


class AcceptsFailed(Miniature):
    """Reads a failed response as a completed one."""

    def before(self, payload: Payload) -> Payload:
        if isinstance(payload, dict) and payload.get("status") == "failed":
            payload["status"] = "completed"
        return payload


class Mutating(InProcessDriver):
    """Takes the usage out of the payload it was given."""

    def responses_parse(self, payload: Payload) -> dict[str, Any]:
        answer = super().responses_parse(payload)
        if isinstance(payload, dict):
            payload.pop("usage", None)
        return answer


class NoCallGuard(Miniature):
    """Emits function calls that lack a name, string arguments or an id."""

    def before(self, payload: Payload) -> Payload:
        for item in _items(payload):
            if item.get("type") == "function_call":
                item["name"] = item.get("name") if isinstance(item.get("name"), str) else ""
                args = item.get("arguments")
                item["arguments"] = args if isinstance(args, str) else json.dumps(args)
                item["call_id"] = item.get("call_id") or item.get("id") or "missing"
        return payload
