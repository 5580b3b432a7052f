"""What a session found: each mutant's outcome, tables per file and per component, and the
survivors, in Markdown for docs/mutation.md."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

from agent_tck.kit.files import write_atomically
from mutation import equivalents
from mutation.equivalents import changed
from mutation.plan import Planner
from mutation.workers import diff_of

BEGIN, END = "<!-- mutation:begin -->", "<!-- mutation:end -->"
OUTCOMES = ("must", "should", "broke", "survived", "unexecuted", "equivalent")
HEADINGS = ("a MUST failed", "only SHOULDs failed", "the run broke", "survived",
            "no scenario runs it", "equivalent")


def unexecuted() -> str:
    return json.dumps({"code": None, "failed": [], "unexecuted": True})


@dataclass(frozen=True)
class Mutant:
    where: str
    line: int
    operator: str
    was: str
    becomes: str
    outcome: str
    failed: tuple[str, ...]

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.where, self.operator, self.was, self.becomes)


def classify(item: WorkItem, result: WorkResult, equivalent: set[tuple[str, str, str, str]]
             ) -> Mutant | None:
    if result.worker_outcome in (WorkerOutcome.SKIPPED, WorkerOutcome.NO_TEST):
        return None
    mutation = item.mutations[0]
    diff = result.diff or diff_of(mutation)
    if not diff:  # one cosmic-ray offered and cannot make: no mutant
        return None
    was, becomes = changed(diff)
    seen = json.loads(result.output or "{}") if (result.output or "").startswith("{") else {}
    failed = tuple(f"{req} {level}" for req, level, _ in seen.get("failed", ()))
    if result.test_outcome == TestOutcome.SURVIVED:
        outcome = "unexecuted" if seen.get("unexecuted") else "survived"
    elif any(f.endswith(" MUST") for f in failed):
        outcome = "must"
    elif failed:
        outcome = "should"
    else:
        outcome = "broke"
    mutant = Mutant(str(mutation.module_path), mutation.start_pos[0],
                    mutation.operator_name.split("/")[1], was, becomes, outcome, failed)
    if outcome in ("survived", "unexecuted") and mutant.key in equivalent:
        return dataclasses.replace(mutant, outcome="equivalent")
    return mutant


def describe(item: WorkItem, result: WorkResult) -> str:
    mutant = classify(item, result, set())
    if mutant is None:
        return f"{item.job_id}: skipped"
    reqs = ", ".join(mutant.failed[:4]) + (" ..." if len(mutant.failed) > 4 else "")
    return (f"{mutant.where}:{mutant.line} {mutant.operator}: {mutant.outcome}"
            + (f" ({reqs})" if reqs else ""))


def mutants(db_path: Path) -> list[Mutant]:
    equivalent = {listed.key for listed in equivalents.load()}
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        found = [classify(item, result, equivalent) for item, result in db.completed_work_items]
    return sorted((m for m in found if m is not None), key=lambda m: (m.where, m.line))


def render(db_path: Path, folder: Path) -> str:
    found = mutants(db_path)
    planner = Planner.load(folder)
    by_file: dict[str, Counter[str]] = defaultdict(Counter)
    by_component: dict[str, Counter[str]] = defaultdict(Counter)
    for m in found:
        by_file[m.where][m.outcome] += 1
        for component in planner.components(m.where) or ("(none)",):
            by_component[component][m.outcome] += 1
    total: Counter[str] = Counter(m.outcome for m in found)
    lines = [f"Measured {date.today().isoformat()} with `python -m mutation init && python -m "
             f"mutation run && python -m mutation report --out docs/mutation.md`.", "",
             f"**{len(found)} mutants judged: {_score(total)} caught**, "
             f"{total['must']} by a MUST.", "", "### Per component", "",
             *_table("component", by_component), "", "### Per file", "",
             *_table("file", by_file), "", "### Survivors", ""]
    for m in found:
        if m.outcome in ("survived", "unexecuted"):
            lines.append(f"- `{m.where}` line {m.line}, {m.operator}: `{m.was}` -> `{m.becomes}`"
                         + (" (no scenario runs it)" if m.outcome == "unexecuted" else ""))
    return "\n".join(lines)


def _score(counts: Counter[str]) -> str:
    judged = sum(counts[o] for o in OUTCOMES if o != "equivalent")
    caught = counts["must"] + counts["should"] + counts["broke"]
    return f"{caught}/{judged} ({100 * caught / judged:.1f}%)" if judged else "0/0"


def _table(what: str, rows: dict[str, Counter[str]]) -> list[str]:
    head = [f"| {what} | mutants | caught | {' | '.join(HEADINGS)} |",
            "|---|" + "---:|" * (len(OUTCOMES) + 2)]
    return head + [f"| {name} | {sum(c.values())} | {_score(c)} | "
                   + " | ".join(str(c[o]) for o in OUTCOMES) + " |"
                   for name, c in sorted(rows.items())]


def write_into(path: Path, text: str) -> None:
    """Replace what is between the markers of `path` by `text`."""
    old = path.read_text()
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    write_atomically(path, f"{head}{BEGIN}\n{text}\n{END}{tail}")
