"""The backend profiles, one per coding CLI the kit knows (see `base.Profile`)."""

from __future__ import annotations

from agent_tck.doubles.backends.base import Profile
from agent_tck.doubles.backends.claude import ClaudeProfile
from agent_tck.doubles.backends.codex import CodexProfile
from agent_tck.doubles.backends.gemini import GeminiProfile
from agent_tck.kit.errors import SuiteError

PROFILES: dict[str, type[Profile]] = {
    p.name: p for p in (ClaudeProfile, CodexProfile, GeminiProfile)}
NAMES = tuple(PROFILES)


def profile(name: str) -> Profile:
    """A fresh profile of backend `name` (it keeps one turn's ids)."""
    try:
        return PROFILES[name]()
    except KeyError:
        raise SuiteError(f"error of the suite: no backend profile {name!r} "
                         f"(known: {', '.join(NAMES)})") from None


__all__ = ["NAMES", "PROFILES", "Profile", "profile"]
