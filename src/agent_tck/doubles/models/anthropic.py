"""The Anthropic Messages API, as much of it as `claude` needs: streamed text and tool calls.

`POST /v1/messages` with `"stream": true` is answered with the SSE events message_start,
content_block_start, content_block_delta (text_delta / input_json_delta), content_block_stop,
message_delta (stop_reason end_turn or tool_use) and message_stop.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tck.doubles.models.script import Turn, by_schema

Event = tuple[str, dict[str, Any]]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


REQUEST_PATH = "/v1/messages"


def serves(path: str) -> bool:
    return path == REQUEST_PATH


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message or kind}}


SUGGESTION = "[SUGGESTION MODE:"  # how Claude Code's request for the user's next prompt opens


def aside(request: dict[str, Any]) -> Turn | None:
    """The answer to a request the CLI makes for itself, beside the conversation, or None for
    a turn of the script. Two, each at a moment of the CLI's own:
    - a request that offers no tool and asks for JSON by a schema (Claude Code run through its
      SDK asks one for the session's title once a prompt comes): each field the schema
      requires is given the text "Scripted session";
    - a request whose last message, the user's, opens with Claude Code's SUGGESTION marker
      (through its SDK, after a turn it asks what the user will type next; it carries the
      conversation and its tools, as a turn does): answered with no suggestion. Played from
      the script, it would take the turn of the next prompt whose request it came before."""
    if _suggestion(request):
        return Turn("say", "")
    config = request.get("output_config")
    return by_schema(request, config.get("format") if isinstance(config, dict) else None)


def _suggestion(request: dict[str, Any]) -> bool:
    messages = request.get("messages")
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    content = last.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    first = blocks[0] if blocks and isinstance(blocks[0], dict) else {}
    text = first.get("text")
    return isinstance(text, str) and text.startswith(SUGGESTION)


def events(turn: Turn, request: dict[str, Any], tool: str | None, n: int) -> list[Event]:
    """The SSE events answering `request` with a `say` or `tool` turn (`n` makes ids unique)."""
    start = _envelope(request, n)
    if tool is None:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": turn.value}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": tool, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn.input)}
        stop = "tool_use"
    blocks = [(block, [delta])]
    if turn.think:
        thinking = {"type": "thinking", "thinking": "", "signature": ""}
        blocks.insert(0, (thinking, [{"type": "thinking_delta", "thinking": turn.think},
                                     {"type": "signature_delta", "signature": f"sig{n:04d}"}]))
    streamed: list[Event] = [("message_start", {"type": "message_start", "message": start})]
    for index, (opening, deltas) in enumerate(blocks):
        streamed.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": opening}))
        streamed += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": d}) for d in deltas]
        streamed.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return [
        *streamed,
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 8}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def message(turn: Turn, request: dict[str, Any], tool: str | None, n: int) -> dict[str, Any]:
    """The same answer as one non-streamed message object (without thinking)."""
    body = _envelope(request, n)
    if tool is None:
        block: dict[str, Any] = {"type": "text", "text": turn.value}
    else:
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": tool, "input": turn.input}
    body.update(content=[block], stop_reason="end_turn" if tool is None else "tool_use")
    return body


def _envelope(request: dict[str, Any], n: int) -> dict[str, Any]:
    """The message object before its content: what message_start carries."""
    return {"id": f"msg_{n:04d}", "type": "message", "role": "assistant",
            "model": str(request.get("model", "scripted-model")), "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 1}}
