"""The fake harness: a real executable that impersonates `claude` and `codex`."""
