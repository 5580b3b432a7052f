"""Errors of the DDS transport, one per stage.

- configuring (domain id, configuration file): `reference.exceptions.ConfigError`
- asking (no agent took or answered the request in time): `NoReplyError`
"""

from __future__ import annotations

from agent_tck.reference.exceptions import AgentError


class TransportError(AgentError):
    """Base of the DDS transport's errors."""


class NoReplyError(TransportError):
    """No agent answered a request in time; the message says how far it got."""

    def __init__(self, message: str, *, offered: bool) -> None:
        super().__init__(message)
        self.offered = offered
