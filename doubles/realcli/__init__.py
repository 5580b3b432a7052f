"""The real `claude` and `codex` CLIs, pinned, isolated and driven against a scripted model."""
