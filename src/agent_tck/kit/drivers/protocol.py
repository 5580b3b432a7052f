"""Drivers that speak the adapter protocol: every Driver method is one protocol command.

Subclasses only say how a request travels (`call`): in-process to the reference's Adapter, or
over a pipe to any implementation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from agent_tck.kit.drivers.base import ImplInfo, RequestResult
from agent_tck.kit.errors import DriverError, Refused, WrongVersion
from agent_tck.kit.text import printable

PROTOCOL_VERSION = 1


class ProtocolDriver(ABC):
    info: ImplInfo
    cwd: str
    env_apart = True  # see Driver
    isolate = False

    @abstractmethod
    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send one request; return its response (with `seq`)."""

    def checked(self, cmd: str, **args: Any) -> dict[str, Any]:
        """The response to `cmd`; an `error` response is a DriverError."""
        response = self.call(cmd, **args)
        if "error" in response:
            error = response["error"]
            message = error.get("message") if isinstance(error, dict) else None
            if not isinstance(message, str):
                raise DriverError(f"{cmd}: the implementation broke the protocol: its `error` "
                                  f"must be an object with a `message` string, got {error!r:.200}")
            raise Refused(f"{cmd}: the implementation answered an error: {printable(message)}",
                          message)
        return response

    def unasked(self) -> str | None:
        """None: an implementation that answers by return (in-process) cannot say more."""
        return None

    def handshake(self) -> ImplInfo:
        response = self.checked("start", version=PROTOCOL_VERSION)
        if response["version"] != PROTOCOL_VERSION:
            raise WrongVersion(response["version"], PROTOCOL_VERSION)
        impl = response["implementation"]
        return ImplInfo(
            impl["name"],
            impl["language"],
            impl["version"],
            tuple(impl["components"]),
            tuple(impl["backends"]),
            impl.get("reports_events", True),
        )

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.checked("parse_line", backend=backend, line=line)[
            "events"
        ]
        return events

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        response = self.checked("agent.create", settings=settings)
        return response["agent"], response["states"]

    def agent_request(
        self, agent: str, message: str, session_id: str | None = None
    ) -> RequestResult:
        resume = {} if session_id is None else {"session_id": session_id}
        response = self.checked("agent.request", agent=agent, message=message, **resume)
        return RequestResult(response["response"], response["states"], self._events(response))

    def _events(self, response: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The request's normalized events; None from an implementation that does not
        report them (whatever it sent)."""
        if not self.info.reports_events:
            return None
        if "events" not in response:
            raise DriverError("agent.request: the implementation broke the protocol: it "
                              "declared `reports_events` (the default) in `start` but its "
                              "answer has no `events`; declare `\"reports_events\": false` "
                              "if it does not report them")
        events: list[dict[str, Any]] = response["events"]
        return events

    def agent_request_concurrently(self, agent: str, messages: list[str]) -> list[RequestResult]:
        response = self.checked("agent.request_concurrently", agent=agent, messages=messages)
        return [RequestResult(r["response"]) for r in response["results"]]

    def agent_info(self, agent: str) -> dict[str, Any]:
        return self.checked("agent.info", agent=agent)

    # --- components `responses` and `runner` (issue 4) -----------------------------------

    def responses_parse(self, payload: Any) -> dict[str, Any]:
        return _answer(self.checked("responses.parse", payload=payload))

    def signal_parse(self, output: str) -> dict[str, Any]:
        return _answer(self.checked("signal.parse", output=output))

    def runner_run(self, prompt: str, options: dict[str, Any],
                   env: dict[str, str]) -> dict[str, Any]:
        return _answer(self.checked("runner.run", prompt=prompt, options=options, env=env))

    def loop_run(self, session: dict[str, Any], script: list[dict[str, Any]],
                 settings: dict[str, Any]) -> dict[str, Any]:
        return _answer(self.checked("loop.run", session=session, script=script,
                                    settings=settings))

    # --- component `pipeline` ---------------------------------------------------------

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        return _answer(self.checked("contract.validate", document=document, contract=contract))

    def pipeline_run(self, base_dir: str, source_file: str, agents: list[dict[str, Any]],
                     start_at: str | None = None) -> dict[str, Any]:
        return _answer(self.checked("pipeline.run", base_dir=base_dir, source_file=source_file,
                                    agents=agents, start_at=start_at))


def _answer(response: dict[str, Any]) -> dict[str, Any]:
    """A response without its protocol envelope (`seq`)."""
    return {k: v for k, v in response.items() if k != "seq"}
