"""Every text that lists the coding CLIs names all three: a page or docstring that says
"claude and codex" tells a reader `gemini` is not there (the registry of backends is
kit/registry.py's KNOWN_BACKENDS)."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tck.kit import registry

ROOT = Path(__file__).resolve().parent.parent
# Two of the CLIs joined as a list ("`claude` and `codex`", "claude or codex").
PAIR = re.compile(r"\bclaude`?\)?,? (?:and|or) (?:the )?`?codex\b", re.IGNORECASE)
# Pages that tell history or quote another spec, where two is what was true.
HISTORY = {"docs/genesis.md", "docs/new-backend.md"}


def _texts() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    code = [p for folder in ("kit", "doubles", "steps", "reference")
            for p in sorted((ROOT / folder).rglob("*.py"))]
    return [p for p in pages + code if str(p.relative_to(ROOT)) not in HISTORY]


def two_of_three(text: str) -> list[str]:
    """The lines of `text` that list claude and codex without gemini."""
    return [line.strip() for line in text.splitlines()
            if PAIR.search(line) and "gemini" not in line.lower()]


def test_the_registry_knows_three_clis() -> None:
    assert registry.KNOWN_BACKENDS == ("claude", "codex", "gemini")


def test_no_text_lists_two_clis_as_if_they_were_all() -> None:
    found = {str(p.relative_to(ROOT)): lines for p in _texts()
             if (lines := two_of_three(p.read_text(encoding="utf-8")))}
    assert found == {}


def test_a_list_of_two_is_found_and_a_list_of_three_is_not() -> None:
    assert two_of_three("runs `claude` or `codex`.\nthe Claude and Codex CLIs") == [
        "runs `claude` or `codex`.", "the Claude and Codex CLIs"]
    assert two_of_three("runs `claude`, `codex` or `gemini`; -m for codex and gemini") == []
