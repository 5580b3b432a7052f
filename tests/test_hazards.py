"""docs/hazards.md and the requirements' `hazards:` say the same: each hazard is one row of
the page's "Caught" table naming every requirement that lists it, and nothing else; a hazard
no requirement catches says why, and is listed nowhere else."""

from __future__ import annotations

import re

from agent_tck.kit import registry
from agent_tck.kit.paths import DOCS

ROW = re.compile(r"^\| \[[^]]+\]\((?P<url>[^)]+)\) \| (?P<what>.+?) \| (?P<last>.+?) \|$")


def tables(text: str) -> dict[str, list[dict[str, str]]]:
    """The page's rows by section (## title)."""
    found: dict[str, list[dict[str, str]]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif match := ROW.match(line):
            found.setdefault(section, []).append(match.groupdict())
    return found


def test_the_page_lists_each_requirements_hazards_and_nothing_else() -> None:
    listed = {(h.url, r.id) for r in registry.load().values() for h in r.hazards}
    rows = tables((DOCS / "hazards.md").read_text(encoding="utf-8"))
    caught = {(row["url"], rid) for row in rows["Caught"] for rid in row["last"].split(", ")}
    assert caught == listed
    urls = [row["url"] for row in rows["Caught"]]
    assert len(urls) == len(set(urls)) >= 30  # each hazard in one row


def test_a_hazard_not_caught_says_why_and_is_no_requirements() -> None:
    rows = tables((DOCS / "hazards.md").read_text(encoding="utf-8"))["Not caught, and why"]
    urls = {h.url for r in registry.load().values() for h in r.hazards}
    assert rows and all(registry.HAZARD_URL.fullmatch(row["url"]) for row in rows)
    assert [row["url"] for row in rows if row["url"] in urls or len(row["last"]) < 20] == []

