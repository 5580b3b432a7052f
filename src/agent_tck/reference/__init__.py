"""agent-tck reference implementation: a coding-agent wrapper that runs `claude`, `codex` or
`gemini`.

It is a product, not a test double: nothing in it knows about the suite that judges it.
"""

__version__ = "0.1.0"
