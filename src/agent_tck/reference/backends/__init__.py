"""The backends the reference supports, by name."""

from __future__ import annotations

from agent_tck.reference.backends.acp import AGENTS, AcpBackend
from agent_tck.reference.backends.base import Backend, Invocation, RunOptions
from agent_tck.reference.backends.claude import ClaudeBackend
from agent_tck.reference.backends.codex import CodexBackend
from agent_tck.reference.backends.gemini import GeminiBackend
from agent_tck.reference.exceptions import ConfigError

_STREAMS: dict[str, type[ClaudeBackend] | type[CodexBackend] | type[GeminiBackend]] = {
    "claude": ClaudeBackend,
    "codex": CodexBackend,
    "gemini": GeminiBackend,
}
BACKENDS = (*_STREAMS, *AGENTS)  # the CLIs that print a stream, then the ACP agents


def get_backend(name: str, command: str | None = None) -> Backend:
    """The backend called `name`, running `command` (default: the CLI's own name)."""
    if isinstance(name, str) and name in AGENTS:
        return AcpBackend(AGENTS[name], command)
    try:
        cls = _STREAMS[name]
    except (KeyError, TypeError):  # TypeError: a name that is not even hashable
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(f"unknown backend {name!r} (known: {known})") from None
    return cls(command or name)


__all__ = ["BACKENDS", "Backend", "Invocation", "RunOptions", "get_backend"]
