"""The real Gemini CLI's settings in the sandbox, as the ACP tests need them."""

from __future__ import annotations

import json
from pathlib import Path


def ask_before_commands(home: Path) -> None:
    """Gemini's settings in the sandbox's `home` made to ask before every shell command."""
    settings = home / ".gemini" / "settings.json"
    chosen = json.loads(settings.read_text())
    chosen.pop("tools")
    chosen["general"]["defaultApprovalMode"] = "default"
    settings.write_text(json.dumps(chosen))
