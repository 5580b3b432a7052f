"""Errors of the reference, one per stage.

- configuring an agent (bad backend, timeout, working directory): `ConfigError`
- starting the CLI (missing, not executable): `LaunchError`, turned into a response with
  status LAUNCH_FAILED by the agent, never raised to a caller of `CodingAgent.process`
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the reference raises."""


class ConfigError(AgentError, ValueError):
    """An agent was configured with a value it cannot use; the message names the value."""


class LaunchError(AgentError):
    """The CLI could not be started."""
