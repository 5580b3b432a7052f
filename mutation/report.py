"""What a session found: each mutant's outcome, tables per file and per component, and the
survivors, in Markdown for docs/mutation.md."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

from agent_tck.kit import registry
from agent_tck.kit.files import write_atomically
from mutation import equivalents
from mutation.equivalents import changed
from mutation.plan import COMPONENTS, TESTS, Planner
from mutation.workers import ROOT, diff_of

# Where `--out` writes a session's report: a session of the kit's judging code has its own place.
MARKERS = {False: ("<!-- mutation:begin -->", "<!-- mutation:end -->"),
           True: ("<!-- mutation-kit:begin -->", "<!-- mutation-kit:end -->")}
OUTCOMES = ("must", "should", "test", "broke", "survived", "unexecuted", "equivalent")
HEADINGS = ("a MUST failed", "only SHOULDs failed", "a project test failed", "the run broke",
            "survived", "nothing runs it", "equivalent")
CAUGHT = ("must", "should", "test", "broke")


def unexecuted() -> str:
    return json.dumps({"code": None, "failed": [], "unexecuted": True})


def listed() -> str:
    """The record of a mutant `run` does not judge: it is listed equivalent (`check` judges
    those). It counts as a survivor if it is no longer listed (`run --survivors` judges it)."""
    return json.dumps({"code": None, "failed": [], "listed": True})


@dataclass(frozen=True)
class Mutant:
    where: str
    line: int
    operator: str
    was: str
    becomes: str
    outcome: str
    failed: tuple[str, ...]
    listed: bool = False  # recorded without a judge: it was listed equivalent then
    seconds: float | None = None  # how long its judges took (None where a record has no time)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.where, self.operator, self.was, self.becomes)


def classify(item: WorkItem, result: WorkResult, equivalent: list[equivalents.Listed]
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
    elif any(f.endswith(" TEST") for f in failed):  # a kit mutant, judged by the tests
        outcome = "test"
    elif failed:
        outcome = "should"
    else:
        outcome = "broke"
    mutant = Mutant(str(mutation.module_path), mutation.start_pos[0],
                    mutation.operator_name.split("/", 1)[1], was, becomes, outcome, failed,
                    bool(seen.get("listed")), seen.get("seconds"))
    if outcome in ("survived", "unexecuted") and any(
            listed.names(mutant.key, mutation) for listed in equivalent):
        return dataclasses.replace(mutant, outcome="equivalent")
    return mutant


def describe(item: WorkItem, result: WorkResult) -> str:
    mutant = classify(item, result, [])
    if mutant is None:
        return f"{item.job_id}: skipped"
    reqs = ", ".join(mutant.failed[:4]) + (" ..." if len(mutant.failed) > 4 else "")
    return (f"{mutant.where}:{mutant.line} {mutant.operator}: {mutant.outcome}"
            + (f" ({reqs})" if reqs else ""))


def mutants(db_path: Path) -> list[Mutant]:
    equivalent = equivalents.load()
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        found = [classify(item, result, equivalent) for item, result in db.completed_work_items]
    return sorted((m for m in found if m is not None), key=lambda m: (m.where, m.line))


def is_kit(folder: Path) -> bool:
    """A session of the kit's judging code (it has the tests' map, not the scenarios')."""
    return (folder / f"{TESTS}.json").exists() and not any(
        (folder / f"{c}.json").exists() for c in COMPONENTS)


def render(found: list[Mutant], folder: Path) -> str:
    """The report of the session in `folder`, whose mutants are `found`: what a page keeps
    (the command, the scores, the survivors), never when or how long (`timed` says that)."""
    planner = Planner.load(folder)
    kit = is_kit(folder)
    init = "python -m mutation --session .mutation-kit init --kit" if kit else \
        _init_command(folder, _files(folder, found))
    again = " --session .mutation-kit" if kit else ""
    by_file: dict[str, Counter[str]] = defaultdict(Counter)
    by_component: dict[str, Counter[str]] = defaultdict(Counter)
    for m in found:
        by_file[m.where][m.outcome] += 1
        for component in planner.components(m.where) or ("(none)",):
            by_component[component][m.outcome] += 1
    total: Counter[str] = Counter(m.outcome for m in found)
    # a kit session is judged by tests, never by requirements; a reference session by
    # requirements, and by tests only where no scenario can reach it (docs/mutation.md)
    hidden = ("must", "should") if kit else () if (folder / f"{TESTS}.json").exists() else \
        ("test",)
    shown = [o for o in OUTCOMES if o not in hidden]
    by = f"{total['test']} by a project test" if kit else f"{total['must']} by a MUST"
    survivors = [f"- {_named(m)}" + (" (nothing runs it)" if m.outcome == "unexecuted" else "")
                 + (" (not judged: it was listed equivalent; `run --survivors` judges it)"
                    if m.listed else "")
                 for m in found if m.outcome in ("survived", "unexecuted")]
    seeded = [] if kit else [
        "", "### Caught by SHOULDs alone, of a requirement that cites a seed", "",
        "What the seeds' MUSTs may require though no MUST caught it (docs/mutation.md, "
        "\"MUST-level behaviour\"):", "", *seed_cited(found, registry.load())]
    lines = [f"Measured with `{init} && python -m mutation{again} run"
             f" && python -m mutation{again} report --out docs/mutation.md`.", "",
             f"**{len(found)} mutants judged: {_score(total)} caught**, {by}.", "",
             *_unjudged(found),
             "### Per component", "", *_table("component", by_component, shown), "",
             "### Per file", "", *_table("file", by_file, shown), "", "### Survivors", "",
             *(survivors or ["None."]), *seeded]
    return "\n".join(lines)


def _named(m: Mutant) -> str:
    return f"`{m.where}` line {m.line}, {m.operator}: `{m.was}` -> `{m.becomes}`"


def seed_cited(found: list[Mutant], reqs: dict[str, registry.Requirement]) -> list[str]:
    """The mutants no MUST caught though a SHOULD that did cites a seed document: the seeds'
    MUSTs may require what they changed (a SHOULD that cites only decisions asks for more than
    the seeds do)."""
    lines = []
    for m in found:
        ids = [f.split()[0] for f in m.failed]
        cited = [i for i in ids if i in reqs and "/spec/" in reqs[i].source]
        if m.outcome == "should" and cited:
            lines.append(f"- {_named(m)} ({', '.join(cited)})")
    return lines or ["None."]


def _files(folder: Path, found: list[Mutant]) -> list[str]:
    """The files the session was made of (`init` notes them), else those with mutants."""
    noted = folder / "files.txt"
    return sorted(noted.read_text().split() if noted.exists() else {m.where for m in found})


def _init_command(folder: Path, files: list[str]) -> str:
    """The `init` that makes a session like this one: its components, when not all of them
    are mapped, and its files, when not all of `reference/`."""
    mapped = [c for c in COMPONENTS if (folder / f"{c}.json").exists()]
    every = sorted(str(f.relative_to(ROOT)) for f in (ROOT / "reference").rglob("*.py"))
    return " ".join(["python -m mutation init",
                     *(f"--component {c}" for c in mapped if len(mapped) < len(COMPONENTS)),
                     *(files if files != every else [])])


def timed(found: list[Mutant]) -> list[str]:
    """A line saying how long the judges took, where their records say: for the person who
    ran the session, not for the page (a measurement of one machine on one day)."""
    seconds = [m.seconds for m in found if m.seconds is not None]
    if not seconds:
        return []
    return [f"The judges took {sum(seconds) / 60:.0f} minutes for {len(seconds)} of them "
            f"({sum(seconds) / len(seconds):.1f} s a mutant; `run --jobs N` judges N at a "
            "time)."]


def _unjudged(found: list[Mutant]) -> list[str]:
    """A line saying how many listed equivalent mutants `run` did not judge."""
    listed = sum(m.listed and m.outcome == "equivalent" for m in found)
    return [f"{listed} of the equivalent mutants are listed in mutation/equivalent.yaml and "
            "were not judged by the run: `python -m mutation check` judges them.", ""
            ] if listed else []


def _score(counts: Counter[str]) -> str:
    judged = sum(counts[o] for o in OUTCOMES if o != "equivalent")
    caught = sum(counts[o] for o in CAUGHT)
    return f"{caught}/{judged} ({100 * caught / judged:.1f}%)" if judged else "0/0"


def _table(what: str, rows: dict[str, Counter[str]], shown: list[str]) -> list[str]:
    headings = [HEADINGS[OUTCOMES.index(o)] for o in shown]
    head = [f"| {what} | mutants | caught | {' | '.join(headings)} |",
            "|---|" + "---:|" * (len(shown) + 2)]
    return head + [f"| {name} | {sum(c.values())} | {_score(c)} | "
                   + " | ".join(str(c[o]) for o in shown) + " |"
                   for name, c in sorted(rows.items())]


def write_into(path: Path, text: str, kit: bool = False) -> None:
    """Replace what is between the markers of `path` (the kit's, for a `kit` session) by
    `text`."""
    begin, end = MARKERS[kit]
    old = path.read_text()
    if begin not in old or end not in old:
        raise SystemExit(f"mutation: {path} has no {begin} ... {end} to write the report between")
    head, rest = old.split(begin, 1)
    _, tail = rest.split(end, 1)
    write_atomically(path, f"{head}{begin}\n{text}\n{end}{tail}")
