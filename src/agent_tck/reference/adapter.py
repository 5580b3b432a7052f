"""The reference's adapter: the agent-tck protocol (schemas/adapter/) over stdin/stdout.

`python -m agent_tck.reference.adapter` reads one JSON request per line and writes one JSON
response per line; `Adapter.handle` is the same dispatch without the pipes. Every response
echoes the request's `seq`; a request the adapter cannot serve gets an `error` object, never
a crash. Nothing but responses is written to stdout; diagnostics go to stderr.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from agent_tck.reference import __version__, commands
from agent_tck.reference.agent import CodingAgent, NodeEvent, create_agent
from agent_tck.reference.backends import BACKENDS, get_backend
from agent_tck.reference.events import Event
from agent_tck.reference.exceptions import AgentError
from agent_tck.reference.limits import loads_json
from agent_tck.reference.pipeline import commands as pipeline_commands

PROTOCOL_VERSION = 1
log = logging.getLogger(__name__)
Handler = Callable[[dict[str, Any]], dict[str, Any]]


class _Observed:
    """An agent and everything it published since it was created."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.agent: CodingAgent | None = None

    def on_state(self, event: NodeEvent) -> None:
        self.states.append(event.to_dict())

    def on_event(self, event: Event) -> None:
        self.events.append(event.to_dict())


def _components() -> tuple[str, ...]:
    # The reference serves itself on DDS when Cyclone DDS is installed (reference.dds).
    import importlib.util

    dds = importlib.util.find_spec("cyclonedds") is not None
    return ("agent", "backends", "responses", "runner", "pipeline",
            *(("transport",) if dds else ()))


class Adapter:
    """Serves protocol requests against the reference implementation."""

    components: tuple[str, ...] = _components()

    def __init__(self) -> None:
        self.agents: dict[str, _Observed] = {}
        self.ids = itertools.count(1)
        self.handlers: dict[str, Handler] = {
            "start": self.start,
            "parse_line": self.parse_line,
            "agent.create": self.agent_create,
            "agent.request": self.agent_request,
            "agent.request_concurrently": self.agent_request_concurrently,
            "agent.info": self.agent_info,
            "stop": self.stop,
        }
        self.handlers.update(commands.COMMANDS)  # the responses and runner components
        self.handlers.update(pipeline_commands.COMMANDS)  # the pipeline component

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        seq = request.get("seq")
        handler = self.handlers.get(str(request.get("cmd")))
        if handler is None:
            return _error(seq, f"unknown command {request.get('cmd')!r}")
        try:
            return {"seq": seq, **handler(request)}
        except (AgentError, KeyError, TypeError, ValueError) as exc:
            return _error(seq, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # the last resort: every request gets an answer
            log.exception("request %r failed", seq)
            return _error(seq, f"internal error: {type(exc).__name__}: {exc}")

    def make_agent(self, settings: dict[str, Any], observed: _Observed) -> CodingAgent:
        """The agent for `settings`; a seam for variants of the reference."""
        return create_agent(listeners=[observed.on_state], **settings)

    def start(self, request: dict[str, Any]) -> dict[str, Any]:
        return {
            "version": PROTOCOL_VERSION,
            "implementation": {
                "name": "agent-tck reference",
                "language": "python",
                "version": __version__,
                "components": list(self.components),
                "backends": sorted(BACKENDS),
            },
        }

    def parse_line(self, request: dict[str, Any]) -> dict[str, Any]:
        events = get_backend(request["backend"]).parse_line(request["line"])
        return {"events": [e.to_dict() for e in events]}

    def agent_create(self, request: dict[str, Any]) -> dict[str, Any]:
        observed = _Observed()
        agent = self.make_agent(dict(request["settings"]), observed)
        agent.stream_listeners.append(observed.on_event)
        observed.agent = agent
        agent_id = f"agent-{next(self.ids)}"
        self.agents[agent_id] = observed
        return {"agent": agent_id, "states": list(observed.states)}

    def _agent(self, request: dict[str, Any]) -> tuple[_Observed, CodingAgent]:
        observed = self.agents[request["agent"]]
        assert observed.agent is not None
        return observed, observed.agent

    def agent_request(self, request: dict[str, Any]) -> dict[str, Any]:
        observed, agent = self._agent(request)
        states, events = len(observed.states), len(observed.events)
        response = agent.process(request["message"], request.get("session_id"))
        return {
            "response": response,
            "states": observed.states[states:],
            "events": observed.events[events:],
        }

    def agent_request_concurrently(self, request: dict[str, Any]) -> dict[str, Any]:
        _, agent = self._agent(request)
        messages: list[str] = request["messages"]
        responses: list[dict[str, Any]] = [{} for _ in messages]
        barrier = threading.Barrier(len(messages))

        def send(i: int) -> None:
            barrier.wait()
            responses[i] = agent.process(messages[i])

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(messages))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return {"results": [{"response": r} for r in responses]}

    def agent_info(self, request: dict[str, Any]) -> dict[str, Any]:
        _, agent = self._agent(request)
        return {"state": agent.state.name, "timeout": agent.timeout}

    def stop(self, request: dict[str, Any]) -> dict[str, Any]:
        self.agents.clear()
        return {"stopped": True}


def _error(seq: Any, message: str) -> dict[str, Any]:
    return {"seq": seq, "error": {"message": message}}


def serve(adapter: Adapter, stdin: IO[str], stdout: IO[str]) -> int:
    """Answer requests until `stop` or end of input."""
    for number, line in enumerate(stdin, 1):
        request: Any = None
        try:
            request = loads_json(line)
        except (ValueError, RecursionError) as exc:
            request = None
            response = _error(None, f"request line {number} is not JSON: {exc}")
        else:
            response = (
                adapter.handle(request)
                if isinstance(request, dict)
                else _error(None, f"request line {number} is not a JSON object")
            )
        stdout.write(json.dumps(response) + "\n")
        stdout.flush()
        if isinstance(request, dict) and request.get("cmd") == "stop":
            break
    return 0


def main() -> int:
    return serve(Adapter(), sys.stdin, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
