"""The requirement registry: every requirement's ID, level, text and source.

One `requirements.yaml` per component folder under `features/`. Scenarios carry `@req:<ID>`
tags; `tags_in` reads them back from the feature files so meta-tests can keep both in sync.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agent_tck.kit import plainyaml
from agent_tck.kit.errors import RegistryError
from agent_tck.kit.paths import FEATURES, SCHEMAS

# The components, in the order the kit lists them; each is a folder of features/.
COMPONENTS = ("agent", "backends", "responses", "runner", "pipeline", "transport", "real-cli")
LEVELS = ("MUST", "SHOULD")
FIELDS = {"id", "level", "text", "source"}
OPTIONAL = {"backends", "hazards"}
# Where a hazard was seen: a public issue or pull request, or a recorded transcript of the kit.
HAZARD_URL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/[1-9]\d*"
                        r"|fixtures/transcripts/[\w.-]+\.jsonl")
# The backends: the CLIs whose line shapes the kit knows (schemas/cli/<name>.schema.json).
KNOWN_BACKENDS = tuple(sorted(p.name.removesuffix(".schema.json")
                             for p in (SCHEMAS / "cli").glob("*.schema.json")))
# The agents of the Agent Client Protocol the fake harness plays: `<cli>-acp` is the agent that
# runs that CLI (a backend profile's ACP agent: `gemini --acp`, `claude-agent-acp`;
# tests/test_registry.py holds them equal). An ACP agent's lines are the protocol's own
# (schemas/acp/schema.json).
ACP_BACKENDS = ("claude-acp", "codex-acp", "gemini-acp")
TAG = re.compile(r"@req:(\S+)")


@dataclass(frozen=True)
class Hazard:
    """A real failure a requirement guards against: where it was seen, and what happened."""

    url: str
    what: str


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str
    text: str
    source: str
    component: str
    # The backends whose scenarios check this requirement, each run once per backend the
    # implementation declares; empty: the scenario's own backend, as written.
    backends: tuple[str, ...] = ()
    hazards: tuple[Hazard, ...] = ()


def load(features: Path = FEATURES) -> dict[str, Requirement]:
    """Every requirement of every component, by ID."""
    found: dict[str, Requirement] = {}
    for path in sorted(features.glob("*/requirements.yaml")):
        for req in _load_file(path):
            if req.id in found:
                raise RegistryError(f"{path}: requirement {req.id} is defined twice")
            found[req.id] = req
    return found


def _load_file(path: Path) -> list[Requirement]:
    try:
        entries = plainyaml.load(path, "requirements")
    except plainyaml.PlainYamlError as exc:
        raise RegistryError(str(exc)) from None
    if not isinstance(entries, list):
        raise RegistryError(f"{path}: expected a list of requirements")
    return [_entry(path, i, e) for i, e in enumerate(entries)]


def _entry(path: Path, index: int, entry: object) -> Requirement:
    where = f"{path}: entry {index}"
    if not isinstance(entry, dict) or not FIELDS <= set(entry) <= FIELDS | OPTIONAL:
        raise RegistryError(
            f"{where}: needs the fields {sorted(FIELDS)}, optionally {sorted(OPTIONAL)}"
        )
    if entry["level"] not in LEVELS:
        raise RegistryError(f"{where}: level {entry['level']!r} is not one of {LEVELS}")
    backends = entry.get("backends", [])
    known = (*KNOWN_BACKENDS, *ACP_BACKENDS)
    if not isinstance(backends, list) or not set(backends) <= set(known):
        raise RegistryError(f"{where}: backends {backends!r} is not a list of {known}")
    values = {k: str(entry[k]) for k in FIELDS}
    return Requirement(**values, component=path.parent.name, backends=tuple(backends),
                       hazards=_hazards(f"{where} ({entry['id']})", entry.get("hazards", [])))


def _hazards(where: str, entries: object) -> tuple[Hazard, ...]:
    if not isinstance(entries, list):
        raise RegistryError(f"{where}: hazards {entries!r} is not a list")
    found: list[Hazard] = []
    for entry in entries:
        if not (isinstance(entry, dict) and set(entry) == {"url", "what"}
                and all(isinstance(v, str) and v.strip() for v in entry.values())):
            raise RegistryError(f"{where}: hazard {entry!r} needs a url and a what, both text")
        if not HAZARD_URL.fullmatch(entry["url"]):
            raise RegistryError(f"{where}: hazard url {entry['url']!r} is neither a GitHub issue"
                                " or pull request nor a transcript under fixtures/transcripts/")
        if entry["url"] in (h.url for h in found):
            raise RegistryError(f"{where}: hazard {entry['url']} is listed twice")
        found.append(Hazard(entry["url"], entry["what"]))
    return tuple(found)


def tags_in(features: Path = FEATURES) -> dict[str, list[str]]:
    """Requirement ID -> the feature files (with line) whose scenarios carry its tag."""
    found: dict[str, list[str]] = {}
    for path in sorted(features.rglob("*.feature")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for tag in TAG.findall(line):
                found.setdefault(tag, []).append(f"{path.relative_to(features)}:{number}")
    return found
