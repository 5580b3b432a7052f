"""The in-process driver: the reference's Adapter called directly, without pipes.

The only module in `steps/` that imports `reference/`. Requests and responses still go through
JSON, so in-process and adapter runs see exactly the same values.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from typing import Any

from agent_tck.kit.drivers.base import INHERITED_ENV, until
from agent_tck.kit.drivers.protocol import ProtocolDriver
from agent_tck.kit.errors import DriverError
from agent_tck.kit.observe import Held, held_by
from agent_tck.reference.adapter import Adapter
from agent_tck.reference.agent import CodingAgent


class InProcessDriver(ProtocolDriver):
    def __init__(self, adapter: Adapter | None = None) -> None:
        # The adapter shares this process, so its inherited environment is ours, restored
        # in close().
        self.saved_env = {name: os.environ.get(name) for name in INHERITED_ENV}
        os.environ.update(INHERITED_ENV)
        self.adapter = adapter or Adapter()
        self.seq = 0
        self.cwd = os.getcwd()
        self.info = self.handshake()

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.seq += 1
        request = json.loads(json.dumps({"seq": self.seq, "cmd": cmd, **args}))
        response: dict[str, Any] = json.loads(json.dumps(self.adapter.handle(request)))
        return response

    def fail_monitoring(self, agent: str) -> None:
        """From now on a monitor of `agent`, ahead of the suite's own, raises on every state
        and stream event it is handed (decision D-23). Only an agent in this process can be
        handed one: elsewhere the monitors are the implementation's own."""

        def failing(item: object) -> None:
            raise RuntimeError(f"a monitor failed on {item!r} (the suite's doing)")

        coding_agent = self._coding_agent(agent)
        coding_agent.listeners.insert(0, failing)
        coding_agent.stream_listeners.insert(0, failing)

    def fail_inside(self, agent: str) -> None:
        """From now on `agent`'s own reading of its CLI's stream raises on every line: a
        failure inside the agent, not of its CLI (decision D-24)."""

        def failing(line: str) -> list[Any]:
            raise RuntimeError(f"the agent's parser failed on {line[:40]!r} (the suite's doing)")

        self._coding_agent(agent).backend.parse_line = failing  # type: ignore[method-assign]

    def agent_request_killed(self, agent: str, message: str, started: Callable[[], bool],
                             within: float) -> None:
        """The agent is given a process of its own to die in: this process forks, the child
        asks the agent (its copy of it) and is SIGKILLed once `started()`. What the agent
        arranged for its death (the reference's reaper gets a parent-death signal) then acts
        as it would for an agent killed in a process of its own."""
        pid = os.fork()
        if pid == 0:  # the agent's process: it asks and is killed; it never returns here
            try:
                self.call("agent.request", agent=agent, message=message)
            finally:
                os._exit(0)
        reaped: list[int] = []  # until then the pid is the child's, a zombie at worst

        def ended() -> bool:
            if not reaped and os.waitpid(pid, os.WNOHANG)[0] == pid:
                reaped.append(pid)
            return bool(reaped)

        try:
            if not until(lambda: started() or ended(), within) or not started():
                raise DriverError(f"the request's CLI had not started {within:g} s after "
                                  f"{message!r} was asked (the asking child "
                                  f"{'ended' if ended() else 'still runs'})")
        finally:
            if not reaped:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)

    def held(self, agent: str) -> Held | None:
        return held_by(os.getpid())

    def _coding_agent(self, agent: str) -> CodingAgent:
        coding_agent = self.adapter.agents[agent].agent
        assert coding_agent is not None
        return coding_agent

    def close(self) -> None:
        try:
            self.call("stop")
        finally:
            for name, value in self.saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    # --- components `responses` and `runner` (issue 4) -----------------------------------

    def responses_parse(self, payload: Any) -> dict[str, Any]:
        """The payload object itself, not a JSON copy, reaches the parser: in-process is the
        one place where RESP-D8-immutable can see a parser that changes its input."""
        response = self.adapter.handle({"seq": 0, "cmd": "responses.parse", "payload": payload})
        if "error" in response:
            raise DriverError(f"responses.parse: the implementation answered an error: "
                              f"{response['error'].get('message')}")
        answer: dict[str, Any] = json.loads(json.dumps(response))
        del answer["seq"]
        return answer
