"""Everything the kit knows of Codex: its profile (how it is started, resumed and
sandboxed) and its stream lines."""

from agent_tck.doubles.backends.codex.lines import CodexLines
from agent_tck.doubles.backends.codex.profile import CodexProfile

__all__ = ["CodexLines", "CodexProfile"]
