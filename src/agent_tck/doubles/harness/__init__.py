"""The fake harness: a real executable that impersonates `claude`, `codex` and `gemini`."""
