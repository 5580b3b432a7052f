"""The one interface the steps talk to. Each method maps onto one adapter-protocol command."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

# The environment every implementation runs with, on top of the suite's own: as if it were
# started from inside a Claude Code session (CLAUDECODE) with API keys set. The hostile
# scenarios check what of it reaches the CLI (docs/adapter-protocol.md, "Environment").
INHERITED_ENV = {
    "CLAUDECODE": "1",
    "ANTHROPIC_API_KEY": "sk-ant-agent-tck-inherited",
    "OPENAI_API_KEY": "sk-agent-tck-inherited",
}


@dataclass(frozen=True)
class ImplInfo:
    """What an implementation says about itself in `start`."""

    name: str
    language: str
    version: str
    components: tuple[str, ...]
    backends: tuple[str, ...]


@dataclass
class RequestResult:
    """What the suite observes of one request: the response, the node events published
    while it ran, and the normalized stream events the agent parsed."""

    response: dict[str, Any]
    states: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


class Driver(Protocol):
    info: ImplInfo
    cwd: str  # the implementation's own working directory

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]: ...

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """A new agent's id and the node events published while it was created."""
        ...

    def agent_request(self, agent: str, message: str) -> RequestResult: ...

    def agent_request_concurrently(self, agent: str, messages: list[str]) -> list[RequestResult]:
        """Send every message at once; results in the order of `messages`."""
        ...

    def agent_info(self, agent: str) -> dict[str, Any]:
        """The agent's `state` (name) and `timeout` (seconds)."""
        ...

    def close(self) -> None: ...
