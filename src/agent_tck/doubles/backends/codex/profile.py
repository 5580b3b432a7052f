"""OpenAI Codex: `codex exec --json [options] -`, the prompt on stdin."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from agent_tck.doubles.backends.base import AcpAgent, Line, Profile, write
from agent_tck.doubles.backends.codex import acp
from agent_tck.doubles.backends.codex.lines import CodexLines, shape_of

THREAD = "019c7199-0000-7000-8000-1"


def _configure(home: Path, url: str, model: str) -> None:
    """Codex's configuration in `home`: the model `model` of the scripted provider at `url`."""
    write(home / ".codex" / "config.toml", "\n".join([
        'model_provider = "scripted"',
        f'model = "{model}"',
        'approval_policy = "never"',
        'sandbox_mode = "workspace-write"',
        "[features]",
        "plugins = false  # no curated-plugin sync from GitHub at start-up",
        "[analytics]",
        "enabled = false  # no metrics export to the vendor at exit",
        "[model_providers.scripted]",
        'name = "agent-tck scripted model"',
        f'base_url = "{url}/v1"',
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
    ]))


def _known_model(home: Path, url: str) -> None:
    """codex-acp turns Codex's warning that it knows nothing of a model into a message chunk
    of the turn, which no client can tell from the model's words: its sandbox names a model
    Codex 0.169.0 knows, as a user's configuration would (gpt-5.5: the gpt-6 models are
    offered no function tools, which the scripted model calls)."""
    _configure(home, url, "gpt-5.5")


class CodexProfile(Profile):
    name = "codex"
    package = "@openai/codex"
    acp_agent = AcpAgent("codex-acp", acp.START, acp.CodexAcpShapes,
                         "@agentclientprotocol/codex-acp", configure_home=_known_model)
    model_api = "openai"
    title = "codex exec --json"
    start: ClassVar[dict[str, Any]] = {
        "stream_input": None,
        "workdir_options": ["--cd", "-C"],  # works in DIR, as the real codex does
        "subcommand": ["exec"],
        "options": "codex exec",
        "parser": "clap",
    }
    unknown_shapes: ClassVar[list[Line]] = [
        {"type": "session.configured", "model": "gpt-5-codex", "sandbox": "workspace-write"},
        {"type": "item.completed", "item": {"id": "item_90", "type": "collab_agent_call",
                                            "status": "completed", "agents": ["reviewer"]}},
        {"type": "item.updated", "item": {"id": "item_91", "type": "plan_update", "steps": []}},
    ]
    done_carries_text = False  # the turn's end carries no text: its last message does
    whole_messages = True  # agent messages, each whole: `codex exec` answers with the last
    env_prefixes = ("OPENAI", "CODEX")
    key_variables = ("OPENAI_API_KEY", "CODEX_API_KEY")
    model_options = ("-m", "--model")

    def __init__(self) -> None:
        self.lines = CodexLines()

    def init(self, session_id: str | None = None) -> Line:
        return self.lines.thread_started(session_id or THREAD)

    def text(self, text: str) -> Line:
        return self.lines.agent_message(text)

    def done(self, text: str | None = None) -> Line:
        return self.lines.turn_completed()

    def failure(self, message: str) -> Line:
        return self.lines.turn_failed(message)

    def tool(self, tool_id: str, *, result: bool) -> Line:
        return self.lines.command(tool_id, completed=result)

    def echo(self, prefix: str) -> tuple[Line, ...]:
        return self.lines.agent_message(prefix + "{stdin}"), self.lines.turn_completed()

    @classmethod
    def ends_well(cls, line: Line) -> bool:
        return line.get("type") == "turn.completed"

    @classmethod
    def shape_of(cls, line: Line) -> str:
        return shape_of(line)

    @classmethod
    def resumed_session(cls, argv: list[str]) -> str | None:
        # codex exec [flags] resume <thread_id> [prompt, or - for stdin]: flags before `resume`
        words = argv[: argv.index("--")] if "--" in argv else argv
        if words[:1] != ["exec"] or "resume" not in words:
            return None
        at = words.index("resume") + 1
        return words[at] if at < len(words) and not words[at].startswith("-") else None

    @classmethod
    def recording_argv(cls, args: tuple[str, ...]) -> list[str]:
        return ["codex", "exec", "--json", "--skip-git-repo-check", *args, "-"]

    @classmethod
    def configure_home(cls, home: Path, url: str) -> None:
        _configure(home, url, "scripted-model")

    @classmethod
    def environment(cls, home: Path, url: str, key: str) -> dict[str, str]:
        return {"CODEX_HOME": str(home / ".codex"), "OPENAI_API_KEY": key}

    shell_tool_reported = "command_execution"

    @classmethod
    def shell_tool(cls, command: str) -> dict[str, Any]:
        return {"tool": "exec_command", "input": {"cmd": command}}

    @classmethod
    def stored_sessions(cls, home: Path) -> list[str]:
        rollouts = (home / ".codex" / "sessions").rglob("rollout-*.jsonl")
        return sorted(p.stem[-36:] for p in rollouts)

