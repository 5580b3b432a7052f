#!/usr/bin/env python3
"""An agent-tck adapter for the `responses` component, in plain Python 3.11.

It reads one JSON request per line on stdin and writes one JSON response per line on
stdout (docs/adapter-protocol.md). Its only real command is `responses.parse`: turn an
OpenAI Responses API object into assistant messages (seed 003, decision D-8).

    agent-tck run --impl "python3 responses_adapter.py" --component responses
"""

import json
import sys
from typing import Any

TEXT_TYPES = ("output_text", "text")  # the real API's part type, and the seed's
USAGE_DETAILS = {  # Responses API name -> (chat-style name, the count inside it)
    "input_tokens_details": ("prompt_tokens_details", "cached_tokens"),
    "output_tokens_details": ("completion_tokens_details", "reasoning_tokens"),
}


def count(value: Any) -> int:
    """A token count: a whole number of zero or more, anything else 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return 0


def json_kind(value: Any) -> str:
    """How a JSON value that is not an object is named in a rejection."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a string" if isinstance(value, str) else "an array"


def reject(message: str, path: str) -> dict[str, Any]:
    return {"rejected": {"message": message, "path": path}}


def parse_response(payload: Any) -> dict[str, Any]:
    """Return {"messages": [...]} or {"rejected": {"message", "path"}}; never modify payload."""
    if not isinstance(payload, dict):
        return reject(f"not a response object: the payload is {json_kind(payload)}", "$")
    if payload.get("object") != "response":  # another object, or an {"error": ...} envelope
        return reject(f"not a response object: object is {json.dumps(payload.get('object'))}",
                      "$.object")
    if payload.get("status") == "failed":  # quote the API's error, code and message
        return reject(f"the response failed: {json.dumps(payload.get('error'))}", "$.error")

    messages: list[dict[str, Any]] = []
    output = payload.get("output")
    for item in output if isinstance(output, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            content = item.get("content")
            for part in content if isinstance(content, list) else []:
                if not isinstance(part, dict):
                    continue
                text, refusal = part.get("text"), part.get("refusal")
                if part.get("type") in TEXT_TYPES and isinstance(text, str) and text:
                    messages.append({"role": "assistant", "content": text})  # "" gives none
                elif part.get("type") == "refusal" and isinstance(refusal, str):
                    messages.append({"role": "assistant", "content": "", "refusal": refusal})
        elif item.get("type") == "function_call":
            ids = [i for i in (item.get("call_id"), item.get("id")) if isinstance(i, str) and i]
            name, arguments = item.get("name"), item.get("arguments")
            if not (ids and isinstance(name, str) and isinstance(arguments, str)):
                continue  # a malformed call is skipped, not an error
            call_id = ids[0]  # call_id wins over the item's id
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": name, "arguments": arguments}}]})
        # anything else (reasoning, unknown types) is skipped

    if payload.get("status") == "incomplete":  # cut off: say why, after the partial output
        details = payload.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        messages.append({"role": "assistant", "content": "", "incomplete": {"reason": reason}})

    usage = payload.get("usage")
    if isinstance(usage, dict):  # always the last message, under the chat-style names
        mapped: dict[str, Any] = {"prompt_tokens": count(usage.get("input_tokens")),
                  "completion_tokens": count(usage.get("output_tokens")),
                  "total_tokens": count(usage.get("total_tokens"))}
        for source, (target, key) in USAGE_DETAILS.items():  # carried over when present
            if isinstance(usage.get(source), dict):
                mapped[target] = {key: count(usage[source].get(key))}
        messages.append({"role": "assistant", "content": "", "usage": mapped})
    return {"messages": messages}


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one request (without its seq)."""
    cmd = request.get("cmd")
    if cmd == "start":
        return {"version": 1, "implementation": {
            "name": "python-responses-parser", "language": "python", "version": "0.1.0",
            "components": ["responses"], "backends": []}}
    if cmd == "responses.parse":
        return parse_response(request.get("payload"))
    if cmd == "stop":
        return {"stopped": True}
    return {"error": {"message": f"unsupported command: {cmd!r}"}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        answer = {"seq": request.get("seq"), **handle(request)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if request.get("cmd") == "stop":
            return


if __name__ == "__main__":
    main()
