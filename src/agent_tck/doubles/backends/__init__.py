"""The backends: one folder per coding CLI the kit knows (its profile, see `base.Profile`, and
its stream lines), and this registry, the one list of them."""

from __future__ import annotations

import json

from agent_tck.doubles.backends.base import Profile
from agent_tck.doubles.backends.claude import ClaudeProfile
from agent_tck.doubles.backends.codex import CodexProfile
from agent_tck.doubles.backends.gemini import GeminiProfile
from agent_tck.doubles.backends.lines import complete
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


def as_printed(backend: str, text: str) -> str:
    """A line of a feature as `backend` prints it: a JSON object `complete`d, anything else as
    written (junk and malformed lines are the scenario's point), and an ACP agent's message
    as written."""
    if backend not in PROFILES:  # an ACP agent's: its messages are written whole
        return text
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    shape = PROFILES[backend].shape_of
    return json.dumps(complete(backend, shape, value)) if isinstance(value, dict) else text


__all__ = ["NAMES", "PROFILES", "Profile", "as_printed", "profile"]
