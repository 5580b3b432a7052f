"""Turn an OpenAI `/v1/responses` non-streaming object into chat-style messages (seed 003).

`parse_response` maps each `output` item, in order, onto assistant messages: text parts
(`output_text`, and `text` as in the seed, decision D-8) become one message each, refusals a
message with `refusal`, function calls a message with one `tool_calls` entry (`call_id`, else
the item's `id`). A truncated response (`status: incomplete`) gets a marker message after its
partial output, and `usage` becomes the final message. Everything else is ignored, so new item
types never break a caller. A payload that is not a response object, or a failed response,
raises `ResponsesError`; nothing else is ever raised, and the payload is never modified.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tck.reference.exceptions import ResponsesError

Message = dict[str, Any]
TEXT_PARTS = frozenset({"output_text", "text"})
ROLE = "assistant"


def parse_response(payload: object) -> list[Message]:
    """The messages of `payload`; raises ResponsesError when it is not a usable response."""
    response = _response_object(payload)
    output = response.get("output")
    items = output if isinstance(output, list) else []
    messages = [m for item in items for m in _item_messages(item)]
    if response.get("status") == "incomplete":
        messages.append(_incomplete(response.get("incomplete_details")))
    usage = response.get("usage")
    if isinstance(usage, dict):
        messages.append({"role": ROLE, "content": "", "usage": _usage(usage)})
    return messages


def _response_object(payload: object) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise ResponsesError(f"expected a Responses API object, got {_kind(payload)}", "$")
    kind = payload.get("object")
    if kind != "response":
        raise ResponsesError(f"expected object 'response', got {kind!r}", "$.object")
    if payload.get("status") == "failed":
        raise ResponsesError(f"the response failed: {_failure(payload.get('error'))}", "$.error")
    return payload


def _kind(value: object) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number",
             str: "a string", list: "an array"}
    return names.get(type(value), type(value).__name__)


def _failure(error: object) -> str:
    if not isinstance(error, dict):
        return "no error details"
    code, message = error.get("code"), error.get("message")
    return f"{code}: {message}" if isinstance(code, str) else str(message)


def _item_messages(item: object) -> list[Message]:
    if not isinstance(item, dict):
        return []
    reader = _ITEM_READERS.get(str(item.get("type")))
    return reader(item) if reader else []


def _message_item(item: dict[str, Any]) -> list[Message]:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return [m for m in (_part_message(p) for p in parts) if m is not None]


def _part_message(part: object) -> Message | None:
    if not isinstance(part, dict):
        return None
    if part.get("type") in TEXT_PARTS:
        text = part.get("text")
        return {"role": ROLE, "content": text} if isinstance(text, str) and text else None
    if part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
        return {"role": ROLE, "content": "", "refusal": part["refusal"]}
    return None


def _function_call_item(item: dict[str, Any]) -> list[Message]:
    call_id = _first_id(item.get("call_id"), item.get("id"))
    name, arguments = item.get("name"), item.get("arguments")
    if call_id is None or not isinstance(name, str) or not isinstance(arguments, str):
        return []
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return [{"role": ROLE, "content": "", "tool_calls": [call]}]


def _first_id(*candidates: object) -> str | None:
    return next((c for c in candidates if isinstance(c, str) and c), None)


def _incomplete(details: object) -> Message:
    reason = details.get("reason") if isinstance(details, dict) else None
    return {"role": ROLE, "content": "",
            "incomplete": {"reason": reason if isinstance(reason, str) else None}}


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    mapped: dict[str, Any] = {
        "prompt_tokens": _count(usage.get("input_tokens")),
        "completion_tokens": _count(usage.get("output_tokens")),
        "total_tokens": _count(usage.get("total_tokens")),
    }
    for source, target, key in _DETAILS:
        details = usage.get(source)
        if isinstance(details, dict) and key in details:
            mapped[target] = {key: _count(details[key])}
    return mapped


def _count(value: object) -> int:
    """A token count; anything but a non-negative integer counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


_DETAILS = (
    ("input_tokens_details", "prompt_tokens_details", "cached_tokens"),
    ("output_tokens_details", "completion_tokens_details", "reasoning_tokens"),
)

_ITEM_READERS: dict[str, Callable[[dict[str, Any]], list[Message]]] = {
    "message": _message_item,
    "function_call": _function_call_item,
}
