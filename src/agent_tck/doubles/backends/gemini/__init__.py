"""Everything the kit knows of Gemini CLI: its profile (how it is started, resumed and
sandboxed), its stream lines, and how it runs as an agent of the Agent Client Protocol
(`acp`)."""

from agent_tck.doubles.backends.gemini.lines import GeminiLines
from agent_tck.doubles.backends.gemini.profile import GeminiProfile

__all__ = ["GeminiLines", "GeminiProfile"]
