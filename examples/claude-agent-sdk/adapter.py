"""An agent-tck adapter for Anthropic's Python `claude-agent-sdk`, as a user would write one.

It declares the `agent` component for the `claude` backend and answers each request with one
`claude_agent_sdk.query()`, pointed at the `claude` on the PATH the suite hands it (never the
CLI bundled in the SDK). It adds no behaviour the SDK lacks, with two exceptions a wrapper
needs to be judged at all: a request's `timeout` is enforced around the query (the SDK has
none; without a timeout `agent.info` says null), and each raw stream line the SDK parsed is
reported as the `events` the protocol asks for. So its verdicts are the SDK's: see
baseline.yaml for each expected failure and the defect it shows.

Run it: agent-tck run --impl "python examples/claude-agent-sdk/adapter.py" --component agent
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import sys
from typing import Any

import claude_agent_sdk as sdk
from claude_agent_sdk._internal import client as _sdk_client

CODES = {"READY": 2, "BUSY": 3}
# The raw lines the SDK parsed during the current request (its own parser is wrapped, once).
_seen: contextvars.ContextVar[list[dict[str, Any]]] = contextvars.ContextVar("seen")
_parse = _sdk_client.parse_message  # type: ignore[attr-defined]


def _recording_parse(data: dict[str, Any]) -> Any:
    _seen.get([]).append(data)
    return _parse(data)


_sdk_client.parse_message = _recording_parse  # type: ignore[attr-defined]


def _state(state: str, previous: str | None, reason: str) -> dict[str, Any]:
    return {"state": state, "state_code": CODES[state], "previous": previous, "reason": reason}


def _events(line: dict[str, Any]) -> list[dict[str, Any]]:
    """The protocol's normalized events (decision D-2) for one raw line the SDK parsed."""
    kind, session = line.get("type"), line.get("session_id")
    if kind == "system" and line.get("subtype") == "init":
        return [_event("init", line, session_id=session)]
    if kind == "result":
        ok = line.get("subtype") == "success" and not line.get("is_error")
        text = line.get("result") if ok else ("; ".join(line.get("errors") or [])
                                              or line.get("result") or line.get("subtype"))
        return [_event("done" if ok else "error", line, session_id=session, text=text)]
    blocks = (line.get("message") or {}).get("content")
    events = []
    for block in blocks if isinstance(blocks, list) else []:
        if block.get("type") == "text":
            events.append(_event("text", line, text=block.get("text")))
        elif block.get("type") == "tool_use":
            events.append(_event("tool_start", line, tool_name=block.get("name"),
                                 tool_input=block.get("input"), tool_id=block.get("id")))
        elif block.get("type") == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                content = "".join(b.get("text", "") for b in content)
            events.append(_event("tool_result", line, tool_output=content,
                                 tool_id=block.get("tool_use_id")))
    return events


def _event(kind: str, line: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"kind": kind, **{k: v for k, v in fields.items() if v is not None}, "raw": line}


def _on_path(name: str, path: str | None) -> str | None:
    """The first `name` on `path`, executable or not: the SDK, not the adapter, reports it."""
    for folder in (path or "").split(os.pathsep):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


class Agent:
    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.busy = False

    async def ask(self, message: str, session_id: str | None) -> dict[str, Any]:
        env = dict(self.settings.get("env") or {})
        cli = _on_path("claude", env.get("PATH"))
        response: dict[str, Any] = {"message": "", "status": 0, "backend": "claude",
                                    "tool_calls": 0, "session_id": None, "error": None}
        if cli is None:
            return {**response, "status": 4, "message": "claude: not found on PATH",
                    "error": "claude: not found on PATH"}
        options = sdk.ClaudeAgentOptions(cli_path=cli, cwd=self.settings.get("working_dir"),
                                         env=env, resume=session_id,
                                         model=self.settings.get("model"))
        texts: list[str] = []
        tools: set[str] = set()
        timeout = self.settings.get("timeout")
        try:
            async with asyncio.timeout(timeout):
                async for msg in sdk.query(prompt=message, options=options):
                    if isinstance(msg, sdk.AssistantMessage):
                        texts += [b.text for b in msg.content if isinstance(b, sdk.TextBlock)]
                        tools |= {b.id for b in msg.content if isinstance(b, sdk.ToolUseBlock)}
                    elif isinstance(msg, sdk.SystemMessage) and msg.subtype == "init":
                        response["session_id"] = msg.data.get("session_id")
                    elif isinstance(msg, sdk.ResultMessage):
                        # the init line's session, as RP-4.1 asks; the result's without one
                        response["session_id"] = response["session_id"] or msg.session_id
                        if msg.is_error:
                            response.update(status=1, error=msg.result or msg.subtype)
                        elif msg.result:
                            texts = [msg.result]
        except TimeoutError:
            response.update(status=3, error=f"claude timed out after {timeout} s")
        except sdk.CLIConnectionError as exc:  # not found, or could not be started
            response.update(status=4, error=str(exc))
        except sdk.ProcessError as exc:
            killed = exc.exit_code is not None and exc.exit_code < 0
            response.update(status=2 if killed else 1, error=f"{exc}\n{exc.stderr or ''}")
        except Exception as exc:  # whatever else the SDK raises ends the request
            response.update(status=1, error=f"{type(exc).__name__}: {exc}")
        response["tool_calls"] = len(tools)
        response["message"] = (response["error"] or "").split("\n")[0] or "".join(texts)
        return response


class Adapter:
    def __init__(self) -> None:
        self.agents: dict[str, Agent] = {}

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        cmd = request["cmd"]
        if cmd == "start":
            return {"version": 1, "implementation": {
                "name": "claude-agent-sdk", "language": "python", "version": sdk.__version__,
                "components": ["agent"], "backends": ["claude"]}}
        if cmd == "stop":
            return {"stopped": True}
        if cmd == "agent.create":
            backend = request["settings"].get("backend", "claude")
            if backend != "claude":
                raise ValueError(f"unknown backend {backend!r}: this adapter serves claude")
            agent_id = str(len(self.agents) + 1)
            self.agents[agent_id] = Agent(request["settings"])
            return {"agent": agent_id, "states": [_state("READY", None, "agent created")]}
        agent = self.agents[request["agent"]]
        if cmd == "agent.info":
            return {"state": "BUSY" if agent.busy else "READY",
                    "timeout": agent.settings.get("timeout")}
        if cmd == "agent.request":
            return await self.request(agent, request["message"], request.get("session_id"))
        if cmd == "agent.request_concurrently":
            answers = await asyncio.gather(*(self.request(agent, m, None)
                                             for m in request["messages"]))
            return {"results": [{"response": a["response"]} for a in answers]}
        raise ValueError(f"unknown command {cmd!r}")

    async def request(self, agent: Agent, message: str, session: str | None) -> dict[str, Any]:
        seen: list[dict[str, Any]] = []
        _seen.set(seen)
        agent.busy = True
        try:
            response = await agent.ask(message, session)
        finally:
            agent.busy = False
        ended = ("request completed" if response["status"] == 0
                 else f"request ended with status {response['status']}: {response['error']}")
        return {"response": response,
                "states": [_state("BUSY", "READY", "request received"),
                           _state("READY", "BUSY", ended)],
                "events": [e for line in seen for e in _events(line)]}


async def serve() -> None:
    adapter = Adapter()
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        request = json.loads(line)
        try:
            answer = await adapter.handle(request)
        except Exception as exc:  # every request gets an answer
            answer = {"error": {"message": f"{type(exc).__name__}: {exc}"}}
        print(json.dumps({"seq": request["seq"], **answer}), flush=True)
        if request["cmd"] == "stop":
            return


if __name__ == "__main__":
    asyncio.run(serve())
