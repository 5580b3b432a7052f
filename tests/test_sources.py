"""Every requirement's source is in the repository: a seed document under features/*/spec/,
a decision of docs/decisions.md, or a row of the GENESIS map (docs/genesis.md, G04.3); the
decisions page lists exactly the requirements that cite each decision, and a cited GENESIS
row says the requirement checks it."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tck.kit import registry

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "decisions.md"
PATH = re.compile(r"\b(?:features/[\w-]+/spec/[\w.-]+\.txt|docs/decisions\.md|docs/genesis\.md)")
GENESIS = ROOT / "docs" / "genesis.md"
GENESIS_ROW = re.compile(r"\bG\d{2}\.\d+\b")
CITED = re.compile(r"\bD-(\d+)\b")
HEADING = re.compile(r"^## D-(\d+): \S", re.MULTILINE)
CHECKED = re.compile(r"^Checked by: (.*)\.$", re.MULTILINE)


def cited_decisions(source: str) -> set[int]:
    """The decisions a source names: every D-n after its first mention of the page."""
    at = source.find("docs/decisions.md")
    return {int(n) for n in CITED.findall(source[at:])} if at >= 0 else set()


def sections(text: str) -> dict[int, str]:
    """Decision number -> its section of the page."""
    starts = [(int(m.group(1)), m.start()) for m in HEADING.finditer(text)]
    ends = [start for _, start in starts[1:]] + [len(text)]
    return {n: text[start:end] for (n, start), end in zip(starts, ends, strict=True)}


def test_every_source_names_a_file_of_the_repository() -> None:
    bad = {}
    for req in registry.load().values():
        paths = PATH.findall(req.source)
        missing = [p for p in paths if not (ROOT / p).is_file()]
        if not paths or missing:
            bad[req.id] = (req.source, missing)
    assert bad == {}


def test_every_cited_decision_is_on_the_page_and_lists_its_requirements() -> None:
    page = sections(DECISIONS.read_text(encoding="utf-8"))
    citing: dict[int, list[str]] = {n: [] for n in page}
    unknown = {}
    for req in registry.load().values():
        for n in sorted(cited_decisions(req.source)):
            if n in citing:
                citing[n].append(req.id)
            else:
                unknown[req.id] = f"D-{n}"
    assert unknown == {}, "sources cite decisions docs/decisions.md does not have"
    listed = {}
    for n, text in page.items():
        found = CHECKED.search(text)
        listed[n] = re.findall(r"`([^`]+)`", found.group(1)) if found else []
    assert listed == citing, "docs/decisions.md's 'Checked by' lines are not the registry's"
    assert [n for n, ids in citing.items() if not ids] == [], "a decision nothing checks"


def cited_rows(source: str) -> set[str]:
    """The GENESIS rows a source names: every G00.0 after its mention of the page."""
    at = source.find("docs/genesis.md")
    end = source.find(";", at) if at >= 0 else -1
    return set(GENESIS_ROW.findall(source[at:end if end >= 0 else None])) if at >= 0 else set()


def test_every_cited_genesis_row_is_on_the_map_and_names_the_requirement() -> None:
    rows = {cells[1].strip(): cells[3] for line in GENESIS.read_text(encoding="utf-8").splitlines()
            if len(cells := line.split("|")) > 3 and GENESIS_ROW.fullmatch(cells[1].strip())}
    wrong = {}
    for req in registry.load().values():
        for row in sorted(cited_rows(req.source)):
            if req.id not in re.findall(r"[A-Z]{2}-[\w.]*\w", rows.get(row, "")):
                wrong[req.id] = (row, rows.get(row, "no such row"))
    assert wrong == {}, "a source cites a GENESIS row that does not name it"


def test_the_checks_can_fail() -> None:
    assert cited_rows("docs/genesis.md G04.3, G05.1; docs/decisions.md D-2") == {"G04.3", "G05.1"}
    assert cited_rows("docs/decisions.md D-2 (G04.3)") == set()
    assert PATH.findall("seed 004_114ab8b7537e9acc.txt, ClaudeRunner.Run") == []
    assert cited_decisions("features/x.txt; docs/decisions.md D-6 and D-18 (env)") == {6, 18}
    assert cited_decisions("decision D-6") == set()
    page = sections("# D\n\n## D-1: A\n\nChecked by: `X-1`.\n\n## D-2: B\n\nx\n")
    assert sorted(page) == [1, 2] and "X-1" in page[1] and "X-1" not in page[2]
