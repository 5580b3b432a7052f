"""Claude Code: `claude -p --output-format stream-json --verbose`, the prompt on stdin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from agent_tck.doubles.backends.base import AcpAgent, Line, Profile, option_value, write
from agent_tck.doubles.backends.claude import acp
from agent_tck.doubles.backends.claude.lines import ClaudeLines, last_text, shape_of


class ClaudeProfile(Profile):
    name = "claude"
    package = "@anthropic-ai/claude-code"
    # claude-agent-acp runs Claude Code through its SDK with bypassing permissions allowed, and
    # as root only where IS_SANDBOX says so: Claude Code then refuses every session/new as
    # root unless IS_SANDBOX is "1" (the sandbox runs as a user's machine does).
    acp_agent = AcpAgent("claude-agent-acp", acp.START, acp.ClaudeAcpShapes,
                         "@agentclientprotocol/claude-agent-acp", environment={"IS_SANDBOX": "1"})
    model_api = "anthropic"
    title = "claude -p --output-format stream-json --verbose"
    start: ClassVar[dict[str, Any]] = {
        "stream_input": ["--input-format", "stream-json"],  # the Claude SDKs' control protocol
        "workdir_options": [],
        "subcommand": [],
        "options": "claude",
        "parser": "commander",
        # Checked by the CLI after parsing: print mode streams JSON only with --verbose.
        "requires": [{
            "when": {"--print": None, "--output-format": "stream-json"}, "needs": "--verbose",
            "code": 1,
            "message": "Error: When using --print, --output-format=stream-json requires "
                       "--verbose\n",
        }],
    }
    unknown_shapes: ClassVar[list[Line]] = [
        {"type": "system", "subtype": "context_checkpoint", "tokens": 81234, "uuid": "u-new-1"},
        {"type": "telemetry_digest", "spans": [{"name": "tool", "ms": 12}], "uuid": "u-new-2"},
        {"type": "assistant", "message": {"id": "msg_new", "type": "message",
                                          "role": "assistant", "model": "claude-sonnet-4-5",
                                          "content": [{"type": "citation_card", "cards": []}]},
         "parent_tool_use_id": None, "uuid": "u-new-3"},
    ]
    done_carries_text = True
    env_prefixes = ("ANTHROPIC", "CLAUDE")
    key_variables = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    model_options = ("--model",)

    def __init__(self) -> None:
        self.lines = ClaudeLines()

    def init(self, session_id: str | None = None) -> Line:
        return self.lines.init(session_id)

    def text(self, text: str) -> Line:
        return self.lines.text(text)

    def done(self, text: str | None = None) -> Line:
        return self.lines.result(text)

    def last_message(self, lines: list[Line]) -> str | None:
        return last_text(lines)

    def unfaithful(self, lines: list[Line]) -> list[str]:
        """A success `result` whose text is not the last message's: Claude Code repeats its
        turn's last assistant message there (every recorded transcript does)."""
        wrong = []
        for n, line in enumerate(lines):
            if shape_of(line) == "result/success" and not line.get("is_error"):
                last = last_text(lines[:n])
                if last is not None and line.get("result") != last:
                    wrong.append(f"a result of {line.get('result')!r} after the message "
                                 f"{last!r}: the real CLI repeats its last message there")
        return wrong

    def failure(self, message: str) -> Line:
        return self.lines.result(message, subtype="success", is_error=True)

    def tool(self, tool_id: str, *, result: bool) -> Line:
        return self.lines.tool_result(tool_id) if result else self.lines.tool_use(tool_id)

    def echo(self, prefix: str) -> tuple[Line, ...]:
        return self.lines.text(prefix + "{stdin}"), self.lines.result(prefix + "{stdin}")

    @classmethod
    def ends_well(cls, line: Line) -> bool:
        return line.get("type") == "result" and line.get("is_error") is False

    @classmethod
    def shape_of(cls, line: Line) -> str:
        return shape_of(line)

    @classmethod
    def resumed_session(cls, argv: list[str]) -> str | None:  # claude -p ... --resume <id>
        return option_value(argv, ("--resume", "-r"))

    @classmethod
    def recording_argv(cls, args: tuple[str, ...]) -> list[str]:
        return ["claude", "-p", "--output-format", "stream-json", "--verbose", *args]

    @classmethod
    def configure_home(cls, home: Path, url: str) -> None:
        settings = {"permissions": {"defaultMode": "acceptEdits",
                                    "allow": ["Bash", "Edit", "Write", "Read"]}}
        write(home / ".claude" / "settings.json", json.dumps(settings, indent=2))

    @classmethod
    def environment(cls, home: Path, url: str, key: str) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": key,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0"}

    shell_tool_reported = "Bash"

    @classmethod
    def shell_tool(cls, command: str) -> dict[str, Any]:
        return {"tool": "Bash", "input": {"command": command, "description": command}}

    @classmethod
    def stored_sessions(cls, home: Path) -> list[str]:
        return sorted(p.stem for p in (home / ".claude" / "projects").glob("*/*.jsonl"))
