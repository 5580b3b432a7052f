"""The OpenAI Responses API, as much of it as `codex` needs: streamed text and function calls.

`POST /v1/responses` (streaming) is answered with the SSE events response.created,
response.output_item.added, response.output_text.delta, response.output_item.done and
response.completed, which carries the whole response object with its usage.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tck.doubles.models.script import Turn, by_schema

Event = tuple[str, dict[str, Any]]

ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 404: "invalid_request_error",
               429: "rate_limit_exceeded", 529: "server_is_overloaded"}


REQUEST_PATH = "/v1/responses"


def serves(path: str) -> bool:
    return path == REQUEST_PATH


def error_body(status: int, message: str) -> dict[str, Any]:
    code = ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message or code, "type": code, "code": code, "param": None}}


def aside(request: dict[str, Any]) -> Turn | None:
    """The answer to a request the CLI makes for itself, beside the conversation, or None for
    a turn of the script: a request that offers no tool and asks for JSON by a schema
    (`text.format`). codex-acp asks one, after a new session's first turn, for the session's
    title (a turn of its own in an ephemeral thread), after the turn has ended: played from the
    script, it would take the turn of the next prompt whose request it came before (as it does
    where the wrapper reads the turn's end late)."""
    text = request.get("text")
    return by_schema(request, text.get("format") if isinstance(text, dict) else None)


def events(turn: Turn, request: dict[str, Any], tool: str | None, n: int) -> list[Event]:
    """The SSE events answering `request` with a `say` or `tool` turn (`n` makes ids unique):
    a reasoning item first when the turn has `think`, then the message or function call."""
    if tool is None:
        item: dict[str, Any] = {"type": "message", "id": f"msg_{n:04d}", "role": "assistant",
                                "status": "completed",
                                "content": [{"type": "output_text", "text": turn.value,
                                             "annotations": []}]}
        added = {**item, "status": "in_progress", "content": []}
        deltas = [{"type": "response.output_text.delta", "item_id": item["id"],
                   "content_index": 0, "delta": turn.value}]
    else:
        item = {"type": "function_call", "id": f"fc_{n:04d}", "call_id": f"call_{n:04d}",
                "name": tool, "arguments": json.dumps(turn.input), "status": "completed"}
        added, deltas = {**item, "status": "in_progress", "arguments": ""}, []
    items = [(item, added, deltas)]
    if turn.think:
        summary = {"type": "summary_text", "text": turn.think}
        reasoning = {"type": "reasoning", "id": f"rs_{n:04d}", "summary": [summary]}
        items.insert(0, (reasoning, {**reasoning, "summary": []}, [{
            "type": "response.reasoning_summary_text.delta", "item_id": reasoning["id"],
            "summary_index": 0, "delta": turn.think}]))
    response = {"id": f"resp_{n:04d}", "object": "response", "created_at": 0,
                "model": str(request.get("model", "scripted-model")), "status": "in_progress",
                "output": [], "error": None, "incomplete_details": None, "usage": None}
    streamed: list[Event] = [("response.created", {"type": "response.created",
                                                    "response": response})]
    for index, (done_item, added_item, item_deltas) in enumerate(items):
        streamed.append(("response.output_item.added", {
            "type": "response.output_item.added", "output_index": index, "item": added_item}))
        streamed += [(d["type"], {**d, "output_index": index}) for d in item_deltas]
        streamed.append(("response.output_item.done", {
            "type": "response.output_item.done", "output_index": index, "item": done_item}))
    completed = {**response, "status": "completed", "output": [i[0] for i in items], "usage": {
        "input_tokens": 12, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 8,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20}}
    return [*streamed, ("response.completed", {"type": "response.completed",
                                               "response": completed})]
