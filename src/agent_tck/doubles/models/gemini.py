"""The Gemini API, as much of it as `gemini` needs: streamed text and function calls.

`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` is answered with server-sent
events, each a `data:` line holding a GenerateContentResponse chunk: the text (or one
`functionCall` part), the last chunk with `finishReason` STOP and the usage. The CLI's Google
GenAI client sends it to `GOOGLE_GEMINI_BASE_URL` (checked with @google/gemini-cli 0.61.0).
"""

from __future__ import annotations

import re
from typing import Any

from agent_tck.doubles.models.script import Turn

Event = tuple[str, dict[str, Any]]

REQUEST_PATH = "/v1beta/models/scripted-model:streamGenerateContent"  # one the CLI asks
PATH = re.compile(r"/v1beta/models/[^/:]+:(stream)?[Gg]enerateContent")
STATUSES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
            404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}


def serves(path: str) -> bool:
    return PATH.fullmatch(path) is not None


def error_body(status: int, message: str) -> dict[str, Any]:
    name = STATUSES.get(status, "INTERNAL")
    return {"error": {"code": status, "message": message or name, "status": name}}


def offered_tools(request: dict[str, Any]) -> list[str]:
    """The functions a request declares (`tools[].functionDeclarations[].name`)."""
    return [f["name"] for t in request.get("tools") or [] if isinstance(t, dict)
            for f in t.get("functionDeclarations") or []
            if isinstance(f, dict) and isinstance(f.get("name"), str)]


def events(turn: Turn, request: dict[str, Any], tool: str | None, n: int) -> list[Event]:
    """The chunks answering a `say` or `tool` turn: a thought first when the turn has `think`,
    then the text or the function call, the last chunk closing the turn with its usage."""
    parts: list[dict[str, Any]] = []
    if turn.think:
        parts.append({"text": turn.think, "thought": True})
    if tool is None:
        parts.append({"text": turn.value})
    else:
        parts.append({"functionCall": {"name": tool, "args": turn.input}})
    chunks: list[Event] = [("", _chunk([part], n)) for part in parts[:-1]]
    last = _chunk(parts[-1:], n)
    last["candidates"][0]["finishReason"] = "STOP"
    last["usageMetadata"] = {"promptTokenCount": 12, "candidatesTokenCount": 8,
                             "totalTokenCount": 20}
    return [*chunks, ("", last)]


def whole(turn: Turn, request: dict[str, Any], tool: str | None, n: int) -> dict[str, Any]:
    """The same answer unstreamed (`:generateContent`): one response with every part."""
    chunks = [data for _, data in events(turn, request, tool, n)]
    last = chunks[-1]
    last["candidates"][0]["content"]["parts"] = [
        part for chunk in chunks for part in chunk["candidates"][0]["content"]["parts"]]
    return last


def _chunk(parts: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
            "modelVersion": "scripted-model", "responseId": f"resp-{n:04d}"}
