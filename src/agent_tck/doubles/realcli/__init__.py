"""The real `claude`, `codex` and `gemini` CLIs, pinned, isolated and driven against a scripted
model."""
