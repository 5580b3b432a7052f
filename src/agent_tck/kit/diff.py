"""`agent-tck diff OLD.json NEW.json`: what changed between two runs, regressions first.

Both files are reports of `agent-tck run --json`, read by the loader of `agent-tck report`
(`reports.load_report`: bounded, checked field by field, an error naming the file and the
JSON path). A requirement whose verdict differs is one line: a *regression* when it failed or
errored in NEW and did not in OLD (it passed, was not applicable, not run, or was not in OLD
at all); a *fix* when it failed or errored in OLD and passed in NEW; any other change after
those two. The last line counts them and gives both runs' verdicts. Exit code 1 when there is
a regression, else 0; a report that cannot be read raises `RegistryError`, which the command
line reports with exit code 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agent_tck.kit.reports import ABSENT, BAD, Judged, load_report
from agent_tck.kit.text import printable
from agent_tck.kit.verdicts import PASSED

REGRESSION, FIX, OTHER = "regression", "fix", "changed"
KINDS = (REGRESSION, FIX, OTHER)  # the order the lines are printed in
TEXT_WIDTH = 60  # the requirement's text, cut to this many characters


@dataclass(frozen=True)
class Change:
    """A requirement whose verdict differs between the two reports."""

    id: str
    level: str
    text: str
    old: str  # a verdict, or ABSENT: not in the old report
    new: str

    @property
    def kind(self) -> str:
        if self.new in BAD and self.old not in BAD:
            return REGRESSION
        if self.old in BAD and self.new == PASSED:
            return FIX
        return OTHER


def changes(old: Judged, new: Judged) -> list[Change]:
    """Each requirement whose verdict differs, regressions first, then fixes, then the rest;
    in each group in the order of NEW, then of OLD for those NEW does not have."""
    found = []
    for rid in dict.fromkeys([*new.reqs, *old.reqs]):
        level, text, _ = new.reqs.get(rid) or old.reqs[rid]
        before, after = (j.reqs[rid][2] if rid in j.reqs else ABSENT for j in (old, new))
        if before != after:
            found.append(Change(rid, level, text, before, after))
    return sorted(found, key=lambda c: KINDS.index(c.kind))


def lines(found: list[Change], old: Judged, new: Judged) -> list[str]:
    """The changes `found` from `old` to `new`, a line each, columns aligned; then the
    counts."""
    rows = [(c.kind, c.id, c.level, f"{c.old} -> {c.new}") for c in found]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(4)]
    shown = ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=True)),
                        shorten(c.text)]) for row, c in zip(rows, found, strict=True)]
    return [*map(printable, shown), printable(_counts(found, old, new))]


def shorten(text: str, width: int = TEXT_WIDTH) -> str:
    """`text` on one line, cut to `width` characters with "..." when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3].rstrip() + "..."


def _counts(found: list[Change], old: Judged, new: Judged) -> str:
    kinds = [c.kind for c in found]
    numbers = (_plural(kinds.count(REGRESSION), "regression"), _plural(kinds.count(FIX), "fix"),
               _plural(kinds.count(OTHER), "other change"))
    return (f"{', '.join(numbers)} in {len(set(old.reqs) | set(new.reqs))} requirements; "
            f"verdict {old.word} -> {new.word}")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'es' if noun.endswith('x') else 's'}" if count != 1 else (
        f"1 {noun}")


def diff(old_path: Path, new_path: Path, out: TextIO) -> int:
    """Print what changed from the report at `old_path` to the one at `new_path`; 1 when
    there is a regression, else 0."""
    old, new = load_report(old_path), load_report(new_path)
    found = changes(old, new)
    for line in lines(found, old, new):
        print(line, file=out)
    return 1 if any(c.kind == REGRESSION for c in found) else 0
