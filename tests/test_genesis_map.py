"""docs/genesis.md maps the chapters of GENESIS's coding agent onto the kit; its table stays
honest: every requirement a row names is in the registry, every status has one of the four
forms, no row number repeats, and the counts summary agrees with the rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_tck.kit import registry

PAGE = Path(__file__).resolve().parent.parent / "docs" / "genesis.md"
DASH = "\u2014"  # the em dash that separates a status from its explanation
ROW_ID = re.compile(r"G\d{2}\.\d+")
ROW_START = re.compile(r"\| G\d")
IDS = r"(?P<ids>\S+(?:, \S+)*)"
FORMS = {
    "checked": re.compile(rf"checked by {IDS}"),
    "partly": re.compile(rf"partly: {IDS} {DASH} \S.*"),
    "gap": re.compile(rf"gap {DASH} \S.*"),
    "excluded": re.compile(rf"excluded {DASH} \S.*"),
}
COUNT = re.compile(r"\| (checked|partly|gap|excluded|all) \| (\d+) \|")
# A requirement ID in free text: a prefix of capitals, a hyphen, more (RP-1.1, AG-D5.1);
# only prefixes the registry uses count, so D-1 or UTF-8 are not taken for requirements.
MENTION = re.compile(r"\b([A-Z]{2,})-[\w.-]*\w")
RowVerdict = tuple[str | None, list[str]]  # the status form, if any; what is wrong


def rows(text: str) -> list[list[str]]:
    """The cells of every table row whose first cell is a row number (G and a digit)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if ROW_START.match(line)]


def counts(text: str) -> dict[str, int]:
    """The counts summary: status (and "all") -> the number it states."""
    return {m.group(1): int(m.group(2)) for m in map(COUNT.fullmatch, text.splitlines()) if m}


def named(status: str, form: str, prefixes: set[str]) -> list[str]:
    """The requirement IDs a status names: its list, and any mention in its explanation."""
    listed = FORMS[form].fullmatch(status)
    ids = listed.group("ids").split(", ") if listed and form in ("checked", "partly") else []
    mentioned = [m.group(0) for m in MENTION.finditer(status) if m.group(1) in prefixes]
    return list(dict.fromkeys(ids + mentioned))


def row_problems(cells: list[str], known: set[str], prefixes: set[str]) -> RowVerdict:
    """The row's status form (None when it has none) and what is wrong with the row."""
    row, status = cells[0], cells[-1]
    if not ROW_ID.fullmatch(row) or len(cells) != 3:
        return None, [f"{row}: not a row of the form | Gnn.n | behaviour | status |"]
    form = next((f for f, pattern in FORMS.items() if pattern.fullmatch(status)), None)
    if form is None:
        return None, [f"{row}: status {status!r} is none of the four forms"]
    unknown = [i for i in named(status, form, prefixes) if i not in known]
    return form, [f"{row}: {i} is not a requirement of the registry" for i in unknown]


def problems(text: str, known: set[str]) -> list[str]:
    """Everything wrong with the page's table and counts, each naming its row."""
    found: list[str] = []
    prefixes = {i.split("-")[0] for i in known}
    tally = dict.fromkeys(FORMS, 0)
    seen: set[str] = set()
    for cells in rows(text):
        if cells[0] in seen:
            found.append(f"{cells[0]}: the row number repeats")
        seen.add(cells[0])
        form, wrong = row_problems(cells, known, prefixes)
        found += wrong
        if form:
            tally[form] += 1
    if not seen:
        found.append("no rows: the map has no | Gnn.n | behaviour | status | row")
    stated = counts(text)
    for status, number in {**tally, "all": len(rows(text))}.items():
        if stated.get(status) != number:
            found.append(f"counts: {status} says {stated.get(status, 'nothing')}, "
                         f"the rows have {number}")
    return found


def test_the_page_names_real_requirements_and_adds_up() -> None:
    assert problems(PAGE.read_text(encoding="utf-8"), set(registry.load())) == []


SAMPLE = f"""\
| status | rows |
|---|---:|
| checked | 1 |
| partly | 1 |
| gap | 1 |
| excluded | 1 |
| all | 4 |

| row | behaviour | status in the kit |
|---|---|---|
| G01.1 | one | checked by RP-1.1 |
| G01.2 | two | partly: RP-1.2 {DASH} what is left |
| G01.3 | three | gap {DASH} a requirement like RP-2.1 would check it (D-1, UTF-8) |
| G01.4 | four | excluded {DASH} the kit holds D-1 |
"""
KNOWN = {"RP-1.1", "RP-1.2", "RP-2.1"}


def test_the_sample_is_sound() -> None:
    assert problems(SAMPLE, KNOWN) == []


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("checked by RP-1.1", "checked by RP-9.9", "G01.1: RP-9.9 is not a requirement"),
    ("partly: RP-1.2", "partly: AG-X1", "G01.2: AG-X1 is not a requirement"),
    ("like RP-2.1", "like RP-2.2", "G01.3: RP-2.2 is not a requirement"),
    (f"excluded {DASH} the kit", "left out: the kit", "G01.4: status 'left out: the kit holds"),
    (f" {DASH} what is left", "", "G01.2: status 'partly: RP-1.2' is none of the four forms"),
    ("checked by RP-1.1", "checked by", "G01.1: status 'checked by' is none"),
    ("| G01.2 |", "| G01.1 |", "G01.1: the row number repeats"),
    ("| G01.3 |", "| G1.3 |", "G1.3: not a row of the form"),
    ("| gap | 1 |", "| gap | 2 |", "counts: gap says 2, the rows have 1"),
    ("| all | 4 |\n", "", "counts: all says nothing, the rows have 4"),
    ("| G01.4 | four |", "| G01.5 | four |", ""),  # a new number is fine: nothing wrong
], ids=["unknown", "unknown-in-partly", "unknown-mention", "no-form", "partly-bare",
        "checked-bare", "repeat", "bad-number", "count", "no-total", "renumbered"])
def test_each_check_can_fail(old: str, new: str, expected: str) -> None:
    assert old in SAMPLE
    found = problems(SAMPLE.replace(old, new), KNOWN)
    if expected:
        assert any(expected in problem for problem in found), found
    else:
        assert found == []


def test_a_page_without_rows_fails() -> None:
    assert "no rows" in problems("# nothing here\n", KNOWN)[0]
