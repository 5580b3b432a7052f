"""The in-process driver: calls the reference directly. The only module in `steps/` that
imports `reference/`."""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path
from typing import Any

from reference import __version__, pipeline
from reference.agent import CodingAgent, create_agent
from reference.backends import BACKENDS, get_backend
from reference.events import Event
from reference.exceptions import PipelineError
from steps.drivers.base import ImplInfo, RequestResult


class _Observed:
    """An agent and what it published."""

    def __init__(self, agent: CodingAgent, states: list[dict[str, Any]]) -> None:
        self.agent = agent
        self.states = states
        self.events: list[dict[str, Any]] = []


class InProcessDriver:
    def __init__(self) -> None:
        self.info = ImplInfo("agent-tck reference", "python", __version__,
                             ("agent", "backends", "pipeline"), tuple(sorted(BACKENDS)))
        self.cwd = os.getcwd()
        self.agents: dict[str, _Observed] = {}
        self.ids = itertools.count(1)

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]:
        return [e.to_dict() for e in get_backend(backend).parse_line(line)]

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        states: list[dict[str, Any]] = []
        agent = create_agent(listeners=[lambda e: states.append(e.to_dict())], **settings)
        observed = _Observed(agent, states)

        def on_event(event: Event) -> None:
            observed.events.append(event.to_dict())

        agent.stream_listeners.append(on_event)
        agent_id = f"agent-{next(self.ids)}"
        self.agents[agent_id] = observed
        return agent_id, list(states)

    def agent_request(self, agent: str, message: str) -> RequestResult:
        observed = self.agents[agent]
        marks = len(observed.states), len(observed.events)
        response = observed.agent.process(message)
        return RequestResult(response, observed.states[marks[0]:], observed.events[marks[1]:])

    def agent_request_concurrently(self, agent: str, messages: list[str]) -> list[RequestResult]:
        observed = self.agents[agent]
        responses: list[dict[str, Any]] = [{} for _ in messages]
        barrier = threading.Barrier(len(messages))

        def send(i: int) -> None:
            barrier.wait()
            responses[i] = observed.agent.process(messages[i])

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(messages))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [RequestResult(r) for r in responses]

    def agent_info(self, agent: str) -> dict[str, Any]:
        observed = self.agents[agent].agent
        return {"state": observed.state.name, "timeout": observed.timeout}

    def close(self) -> None:
        self.agents.clear()

    # --- component `pipeline` (issue 5) ---------------------------------------------------

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        report = pipeline.validate_text(document, "<document>", contract)
        errors = [{k: v for k, v in i.to_dict().items() if k != "file"} for i in report.issues]
        return {"valid": report.valid, "contract": report.contract, "errors": errors}

    def pipeline_run(self, base_dir: str, source_file: str, agents: list[dict[str, Any]],
                     start_at: str | None = None) -> dict[str, Any]:
        calls: list[list[str]] = []
        base = Path(base_dir)
        observed = {a["name"]: _watched(a["name"], pipeline.scripted_agent(a, base), calls)
                    for a in agents}
        try:
            result = pipeline.run_pipeline(base, source_file, observed, start_at)
        except PipelineError as exc:
            return {"outcome": "refused", "failed_agent": None, "message": str(exc),
                    "reason": None, "calls": calls}
        return {**result.to_dict(), "calls": calls}


def _watched(name: str, agent: pipeline.Agent, calls: list[list[str]]) -> pipeline.Agent:
    """`agent`, recording when it starts and ends."""

    def run(context: pipeline.Context) -> pipeline.Reply:
        calls.append(["start", name])
        try:
            return agent(context)
        finally:
            calls.append(["end", name])

    return run
