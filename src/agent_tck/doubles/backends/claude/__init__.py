"""Everything the kit knows of Claude Code: its profile (how it is started, resumed and
sandboxed) and its stream lines."""

from agent_tck.doubles.backends.claude.lines import ClaudeLines
from agent_tck.doubles.backends.claude.profile import ClaudeProfile

__all__ = ["ClaudeLines", "ClaudeProfile"]
