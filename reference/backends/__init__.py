"""The backends the reference supports, by name."""

from __future__ import annotations

from agent_tck.reference.backends.base import Backend, Invocation, RunOptions
from agent_tck.reference.backends.claude import ClaudeBackend
from agent_tck.reference.backends.codex import CodexBackend
from agent_tck.reference.backends.gemini import GeminiBackend
from agent_tck.reference.exceptions import ConfigError

BACKENDS: dict[str, type[ClaudeBackend] | type[CodexBackend] | type[GeminiBackend]] = {
    "claude": ClaudeBackend,
    "codex": CodexBackend,
    "gemini": GeminiBackend,
}


def get_backend(name: str, command: str | None = None) -> Backend:
    """The backend called `name`, running `command` (default: the CLI's own name)."""
    try:
        cls = BACKENDS[name]
    except (KeyError, TypeError):  # TypeError: a name that is not even hashable
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(f"unknown backend {name!r} (known: {known})") from None
    return cls(command or name)


__all__ = ["BACKENDS", "Backend", "Invocation", "RunOptions", "get_backend"]
