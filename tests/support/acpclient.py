"""A client of an ACP agent written here, as the tests drive the fake and the real agents:
every message either side sends checked against the protocol's official schema."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.backends.acp.schema import Conversation


class Client:
    """A client of the agent at `command`: what it sends and receives, checked both ways."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.conversation = Conversation()
        self.problems: list[str] = []
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", **message}
        self.problems += self.conversation.check(message, "client")
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the agent closed stdout; stderr: {self.proc.stderr.read()!r}"  # type: ignore[union-attr]
        message: dict[str, Any] = json.loads(line)
        self.problems += self.conversation.check(message, "agent")
        return message

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request; its answer (result or error), with what came before it."""
        rid, self.next_id = self.next_id, self.next_id + 1
        self.send({"id": rid, "method": method, "params": params})
        before = []
        while "method" in (message := self.receive()) or message.get("id") != rid:
            before.append(message)
        return message, before

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    """The clients a test starts, whose agents are killed whatever it said (a test module
    imports it to use it)."""
    started: list[Client] = []
    yield started
    for each in started:
        each.proc.kill()
        with each.proc:  # closes its pipes and waits for it
            pass
