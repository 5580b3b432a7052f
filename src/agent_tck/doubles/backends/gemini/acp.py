"""Gemini CLI as an agent of the Agent Client Protocol (`gemini --acp`): how it is started
that way and what it answers, as @google/gemini-cli 0.61.0 answered offline in the sandbox
(its login methods, modes, models and commands cut to a few of each). The fake harness plays
these answers (`doubles.harness.acpagent`), from its script's `clis`."""

from __future__ import annotations

from typing import Any

# `--experimental-acp` is deprecated but still accepted; yargs takes `--acp=true` alike.
OPTIONS = ["--acp", "--experimental-acp"]
INITIALIZED: dict[str, Any] = {
    "protocolVersion": 1,
    "authMethods": [
        {"id": "oauth-personal", "name": "Log in with Google",
         "description": "Log in with your Google account"},
        {"id": "gemini-api-key", "name": "Gemini API key",
         "description": "Use an API key with Gemini Developer API",
         "_meta": {"api-key": {"provider": "google"}}}],
    "agentInfo": {"name": "gemini-cli", "title": "Gemini CLI", "version": "0.61.0"},
    "agentCapabilities": {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True},
    },
}
# session/new's answer without its sessionId; session/load's whole answer
OPENED: dict[str, Any] = {
    "modes": {"availableModes": [
        {"id": "default", "name": "Default", "description": "Prompts for approval"},
        {"id": "autoEdit", "name": "Auto Edit", "description": "Auto-approves edit tools"}],
        "currentModeId": "autoEdit"},
    "models": {"availableModels": [{"modelId": "auto", "name": "Auto",
                                    "description": "Let Gemini CLI decide the best model"}],
               "currentModelId": "scripted-model"},
}
# The first update of each session it opens (it sets a timer for it as it answers).
COMMANDS: dict[str, Any] = {
    "sessionUpdate": "available_commands_update",
    "availableCommands": [{"name": "memory", "description": "Manage memory."}],
}
# Its permission request's options (before it reports the call: it asks first).
PERMISSION_OPTIONS = [
    {"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
]
# What its answer to a prompt says beside the stop reason: the turn's use of the model.
_TOKENS = {"input_tokens": 12, "output_tokens": 8}
STOPPED = {"_meta": {"quota": {"token_count": _TOKENS, "model_usage": [
    {"model": "scripted-model", "token_count": _TOKENS}]}}}
START = {"options": OPTIONS, "initialize": INITIALIZED, "opened": OPENED, "commands": COMMANDS,
         "permission": PERMISSION_OPTIONS, "stopped": STOPPED}
