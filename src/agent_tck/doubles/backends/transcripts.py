"""The recorded transcripts of the real CLIs (fixtures/transcripts/): what each entry is, and its
lines. They are where the kit's knowledge of a CLI's stream comes from: the line templates
(`lines.complete`) and the schemas of schemas/cli/ (doubles/realcli/shapes.py). Recording them
anew: `python -m agent_tck.doubles.realcli.fixtures`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agent_tck.kit import plainyaml
from agent_tck.kit.paths import FIXTURES

TRANSCRIPTS = FIXTURES / "transcripts"


@dataclass(frozen=True)
class Transcript:
    name: str
    backend: str
    prompt: str
    turns: list[dict[str, Any]]
    expect: dict[str, Any]
    args: tuple[str, ...] = ()  # extra CLI arguments, as an agent's extra_args

    @property
    def path(self) -> Path:
        return TRANSCRIPTS / f"{self.name}.jsonl"

    def lines(self) -> list[str]:
        return self.path.read_text(encoding="utf-8").splitlines()


def index(where: Path = TRANSCRIPTS) -> list[Transcript]:
    entries = plainyaml.load(where / "index.yaml", "transcript index")
    return [Transcript(**{**e, "args": tuple(e.get("args", ()))}) for e in entries]


def documented(backend: str, where: Path = TRANSCRIPTS) -> list[str]:
    """Lines written by hand from FORMATS.md, for shapes no scripted run makes the CLI print."""
    path = where / f"documented-{backend}.jsonl"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


Entry = TypeVar("Entry", bound=_Named)


def chosen(entries: Sequence[Entry], names: list[str], what: str) -> list[Entry] | None:
    """The entries `names` asks to record anew (all when it names none); None, said on stderr,
    when it names one there is not."""
    wanted = [e for e in entries if not names or e.name in names]
    unknown = set(names) - {e.name for e in wanted}
    if unknown:
        print(f"unknown {what}: {sorted(unknown)}", file=sys.stderr)
        return None
    return wanted
