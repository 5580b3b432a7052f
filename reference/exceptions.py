"""Errors of the reference, one per stage.

- configuring an agent (bad backend, timeout, working directory) or a loop (iterations,
  timeout): `ConfigError`
- starting the CLI (missing, not executable): `LaunchError`, turned into a response with
  status LAUNCH_FAILED by the agent, never raised to a caller of `CodingAgent.process`
- reading an OpenAI Responses API object (`reference.responses`): `ResponsesError`, with the
  JSON path of the value that makes the payload unreadable
- running the agent loop (`reference.runner.loop`): `LoopError` when a runner fails,
  `BlockedError` (a `LoopError`) when the agent signals BLOCKED, naming its reason
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the reference raises."""


class ConfigError(AgentError, ValueError):
    """An agent was configured with a value it cannot use; the message names the value."""


class LaunchError(AgentError):
    """The CLI could not be started."""


class ResponsesError(AgentError, ValueError):
    """A payload is not a readable Responses API object; `path` says where (`$`, `$.object`)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


class LoopError(AgentError):
    """The agent loop stopped because a run failed."""


class BlockedError(LoopError):
    """The agent signalled `<promise>BLOCKED: reason</promise>`; `reason` is the trimmed text."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"agent blocked: {reason or '(no reason given)'}")
        self.reason = reason
