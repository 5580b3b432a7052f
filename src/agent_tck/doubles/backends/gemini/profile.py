"""Google's Gemini CLI: `gemini --output-format stream-json`, the prompt on stdin.

Facts checked with @google/gemini-cli 0.61.0 against the scripted Gemini API server: with
stdin not a terminal and no `-p`, it runs headless and reads the prompt from stdin; it talks
to `GOOGLE_GEMINI_BASE_URL` with `GEMINI_API_KEY` once `~/.gemini/settings.json` selects that
method; it refuses an untrusted working directory (exit 55) unless told
(`GEMINI_CLI_TRUST_WORKSPACE=true` or `--skip-trust`); `--resume <session id>` continues a
session stored under `~/.gemini/tmp/<project>/chats/`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

from agent_tck.doubles.backends.base import AcpAgent, Line, Profile, option_value, write
from agent_tck.doubles.backends.gemini import acp
from agent_tck.doubles.backends.gemini.lines import GeminiLines, shape_of

SESSION = "9ed9cfb8-0000-4000-8000-000000000001"


class GeminiProfile(Profile):
    name = "gemini"
    package = "@google/gemini-cli"
    acp_agent = AcpAgent("gemini", acp.START, options=("--acp",))
    model_api = "gemini"
    title = "gemini --output-format stream-json"
    start: ClassVar[dict[str, Any]] = {
        "stream_input": None,
        "workdir_options": [],
        "subcommand": [],
        "options": None,  # yargs: its refusals are not copied by the fake harness (yet)
        "parser": None,
    }
    unknown_shapes: ClassVar[list[Line]] = [
        {"type": "thought", "timestamp": "2026-11-24T15:00:00.000Z", "subject": "Planning"},
        {"type": "compression", "timestamp": "2026-11-24T15:00:00.000Z", "tokens": 81234},
        {"type": "message", "timestamp": "2026-11-24T15:00:00.000Z", "role": "system",
         "content": "a role no version printed"},
    ]
    done_carries_text = False  # `result` carries stats, not text: the messages are the text
    env_prefixes = ("GEMINI", "GOOGLE")
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    model_options = ("-m", "--model")

    def __init__(self) -> None:
        self.lines = GeminiLines()

    def init(self, session_id: str | None = None) -> Line:
        return self.lines.init(session_id or SESSION)

    def prompt_echo(self) -> Line | None:
        return self.lines.message("{stdin}", role="user")

    def text(self, text: str) -> Line:
        return self.lines.message(text)

    def done(self, text: str | None = None) -> Line:
        return self.lines.result()

    def failure(self, message: str) -> Line:
        return self.lines.failed(message)

    def tool(self, tool_id: str, *, result: bool) -> Line:
        return self.lines.tool_result(tool_id) if result else self.lines.tool_use(tool_id)

    def echo(self, prefix: str) -> tuple[Line, ...]:
        return self.lines.message(prefix + "{stdin}"), self.lines.result()

    @classmethod
    def ends_well(cls, line: Line) -> bool:
        return line.get("type") == "result" and line.get("status") == "success"

    @classmethod
    def shape_of(cls, line: Line) -> str:
        return shape_of(line)

    @classmethod
    def resumed_session(cls, argv: list[str]) -> str | None:  # gemini ... --resume <id>
        return option_value(argv, ("--resume", "-r"))

    @classmethod
    def recording_argv(cls, args: tuple[str, ...]) -> list[str]:
        return ["gemini", "--output-format", "stream-json", *args]

    @classmethod
    def configure_home(cls, home: Path, url: str) -> None:
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                    "model": {"name": "scripted-model"},  # one model: no routing requests
                    "general": {"defaultApprovalMode": "auto_edit"},
                    "tools": {"allowed": ["run_shell_command"]}}
        write(home / ".gemini" / "settings.json", json.dumps(settings, indent=2))

    @classmethod
    def environment(cls, home: Path, url: str, key: str) -> dict[str, str]:
        return {"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": url,
                "GEMINI_CLI_TRUST_WORKSPACE": "true"}

    shell_tool_reported = "run_shell_command"

    @classmethod
    def shell_tool(cls, command: str) -> dict[str, Any]:
        return {"tool": "run_shell_command", "input": {"command": command,
                                                       "description": command}}

    @classmethod
    def stored_sessions(cls, home: Path) -> list[str]:
        chats = (home / ".gemini" / "tmp").glob("*/chats/session-*.json*")
        ids = []
        for chat in chats:
            found = re.search(r'"sessionId"\s*:\s*"([^"]+)"', chat.read_text(errors="replace"))
            if found:
                ids.append(found.group(1))
        return sorted(set(ids))
