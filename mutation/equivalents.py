"""The listed equivalent mutants (`mutation/equivalent.yaml`): found in today's source, and
judged again on demand (`python -m mutation check`)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import attrs
from cosmic_ray.commands.init import _all_work_items
from cosmic_ray.plugins import OPERATOR_PROVIDERS
from cosmic_ray.work_item import MutationSpec, TestOutcome, WorkResult

from agent_tck.kit.plainyaml import load as load_yaml
from mutation.workers import ROOT, diff_of

LIST = Path(__file__).resolve().parent / "equivalent.yaml"
# Each listed file's digest (its source and the entries that list its mutants) at the last
# check that found every listed mutant of it surviving: tests/test_mutation.py fails for a file
# or entry changed since, whose reasons may no longer hold (a check of its session writes it
# again). A check fails on an entry the source has not, so a file still checked has each, as
# the cosmic-ray of that check writes its mutants.
CHECKED = LIST.with_name("checked.json")
Key = tuple[str, str, str, str]  # file, operator (without its provider), was, becomes


@dataclass(frozen=True)
class Listed:
    """`within`: the function the mutant is in, for a line a file has in more than one
    function (an entry without it names the line wherever it is); `nth`: which of that
    function's mutants with this key, counted from 1 in the file's order, for a line the
    function has more than once (an entry without it names each)."""

    key: Key
    reason: str
    within: str | None = None
    nth: int | None = None

    def names(self, key: Key, mutation: MutationSpec) -> bool:
        """This entry lists `mutation`, whose key is `key`."""
        if key != self.key or self.within not in (None, mutation.definition_name):
            return False
        return self.nth is None or ordinal(key, mutation) == self.nth


def load(path: Path = LIST) -> list[Listed]:
    entries = load_yaml(path, "the list of equivalent mutants") if path.exists() else []
    return [Listed((e["file"], e["operator"], e["was"], e["becomes"]), e["reason"], e.get("in"),
                   e.get("nth")) for e in entries or []]


def changed(diff: str) -> tuple[str, str]:
    """The mutated line(s) before and after, stripped, from a unified diff."""
    lines = diff.splitlines()
    minus = [d[1:].strip() for d in lines if d.startswith("-") and not d.startswith("---")]
    plus = [d[1:].strip() for d in lines if d.startswith("+") and not d.startswith("+++")]
    return " / ".join(minus), " / ".join(plus)


def key_of(mutation: MutationSpec, diff: str) -> Key:
    """How the list names `mutation`, whose diff is `diff`."""
    return (str(mutation.module_path), mutation.operator_name.split("/", 1)[1], *changed(diff))


def is_listed(mutation: MutationSpec, entries: list[Listed]) -> bool:
    """`mutation` is one of the listed `entries` (its diff is made only for an entry of its
    file and operator)."""
    where, operator = str(mutation.module_path), mutation.operator_name.split("/", 1)[1]
    near = [entry for entry in entries if entry.key[:2] == (where, operator)]
    if not near:
        return False
    key = key_of(mutation, diff_of(mutation))
    return any(entry.names(key, mutation) for entry in near)


def find(key: Key, root: Path = ROOT, within: str | None = None,
         nth: int | None = None) -> MutationSpec | None:
    """The mutant `key` names in today's source of its file (in the function `within`, when
    given; the `nth` there, when given), or None if there is none."""
    return next(itertools.islice(_matching(key, root, within), (nth or 1) - 1, None), None)


def ordinal(key: Key, mutation: MutationSpec, root: Path = ROOT) -> int:
    """Which of its function's mutants with the key `key` `mutation` is, from 1 in the file's
    order (0: none in today's source)."""
    for number, found in enumerate(_matching(key, root, mutation.definition_name), 1):
        if found.start_pos == mutation.start_pos:
            return number
    return 0


def _matching(key: Key, root: Path, within: str | None) -> Iterator[MutationSpec]:
    """The mutants `key` names in today's source of its file (in the function `within`), in
    the file's order: made as they are asked for, since each is a parse of the file."""
    where, operator, was, becomes = key
    path = root / where
    if not path.is_file():
        return
    source = path.read_text()
    lines = source.splitlines()
    known = tuple(f"{p}/{name}" for p, names in OPERATOR_PROVIDERS.items() for name in names)
    for mutation in _all_mutants(path, source, known):
        if mutation.operator_name.split("/", 1)[1] != operator:
            continue
        if within is not None and mutation.definition_name != within:
            continue
        line = mutation.start_pos[0]  # applying a mutant parses the file: only where it can be
        if line <= len(lines) and lines[line - 1].strip() not in was:
            continue
        if changed(diff_of(mutation, root)) == (was, becomes):
            yield attrs.evolve(mutation, module_path=Path(where))  # relative, as sessions are


@functools.lru_cache(maxsize=8)
def _all_mutants(path: Path, source: str, known: tuple[str, ...]) -> tuple[MutationSpec, ...]:
    """Every mutant of the file whose text is `source`, by the `known` operators: finding
    them takes about a second a file, and the list names many mutants of one file."""
    return tuple(item.mutations[0] for item in _all_work_items([path], {}))


def check(session: Path, jobs: int, again: bool = False, only: set[str] | None = None) -> int:
    """Judge every listed mutant again (of the files `only` names, when given), `jobs` at a
    time; 1 if one is missing or caught.
    Each verdict is kept in DIR/check/judged.jsonl as it comes, with a digest of the mutant's
    file and of what judges it (`JUDGES`): a check resumes, judging only what it has no
    verdict on for today's code and scenarios (`again`: every mutant, whatever was kept)."""
    from mutation import pool
    from mutation.plan import Planner

    planner = Planner.load(session)
    record = session / "check" / "judged.jsonl"
    if again:
        record.unlink(missing_ok=True)
    before = _judged(record)
    judges = _digest(sorted(p for d in JUDGES for p in (ROOT / d).rglob("*")
                            if p.is_file() and "__pycache__" not in p.parts))
    judging: list[tuple[Listed, MutationSpec, pool.Tries, str]] = []
    held: dict[str, bool] = {}  # a listed file: every listed mutant of it survived
    entries = load()
    # what a file's note will hold for: its source and entries as judged, not as they may be
    # by the time the judges are done
    noted = {where: _checked_digest(where, entries) for where in {e.key[0] for e in entries}}
    for listed in entries:
        where = listed.key[0]
        if only and where not in only:
            continue
        mutation = find(listed.key, within=listed.within, nth=listed.nth)
        if mutation is None:
            print(f"gone: {listed.key}", flush=True)
            held[where] = False
            continue
        if not planner.covers(where):
            print(f"not judged: {_where(listed, mutation)} (the session has no map of its "
                  "file: `init` it, or `init --kit` for the kit's)", flush=True)
            continue
        held.setdefault(where, True)
        tries = planner.plan(mutation).tries
        if not tries:  # no scenario runs its lines: it survives without a run
            print(f"survives: {_where(listed, mutation)} (no scenario runs it)", flush=True)
        elif (seen := before.get(mark := _mark(listed, judges))) is not None:
            print(f"{'CAUGHT' if seen else 'survives'}: {_where(listed, mutation)} "
                  f"(judged before: {record})", flush=True)
            held[where] &= not seen
        else:
            judging.append((listed, mutation, tries, mark))
    print(f"{len(judging)} listed mutants to judge, {jobs} at a time", flush=True)
    record.parent.mkdir(parents=True, exist_ok=True)
    if record.exists() and not record.read_bytes().endswith(b"\n"):  # cut short: end it
        with record.open("a") as out:
            out.write("\n")

    def judged(job: tuple[Listed, MutationSpec, pool.Tries, str],
               result: WorkResult) -> None:
        listed, mutation, _, mark = job
        caught = result.test_outcome != TestOutcome.SURVIVED
        print(f"{'CAUGHT' if caught else 'survives'}: {_where(listed, mutation)} "
              f"{result.output if caught else ''}", flush=True)
        with record.open("a") as out:
            out.write(json.dumps({"mark": mark, "caught": caught}) + "\n")
        held[listed.key[0]] &= not caught

    # a listed mutant survives: each judge runs every scenario of its plan, a whole component
    pool.judge_all(session / "check", jobs, judging, lambda job: (job[1], job[2], []), judged,
                   timeout=600.0)
    _record_checked({where: noted[where] for where, ok in held.items() if ok})
    return 0 if all(held.values()) else 1


def checked() -> dict[str, str]:
    """Each file's digest (`_checked_digest`) when a check last found its listed mutants all
    surviving."""
    if not CHECKED.exists():
        return {}
    files: dict[str, str] = json.loads(CHECKED.read_text())["files"]
    return files


def unchecked(where: str) -> bool:
    """`where`, or an entry of the list for it, changed since a check last found its listed
    mutants all surviving."""
    return checked().get(where) != _checked_digest(where, load())


def _checked_digest(where: str, entries: list[Listed]) -> str:
    """What a check of `where` holds for: its source and the entries of its mutants (file,
    operator, was, becomes, `in`, `nth`; not the reason, which no judge reads)."""
    names = sorted(json.dumps([*e.key, e.within, e.nth]) for e in entries if e.key[0] == where)
    return hashlib.sha256(_digest([ROOT / where]).encode() + "\n".join(names).encode()).hexdigest()


def _record_checked(digests: dict[str, str]) -> None:
    """Note each file's `digests` as checked (written whole, then moved into place)."""
    if not digests:
        return
    kept = checked() | digests
    text = json.dumps({"files": dict(sorted(kept.items()))}, indent=1) + "\n"
    partial = CHECKED.with_suffix(".json.part")
    partial.write_text(text)
    partial.replace(CHECKED)


def _where(listed: Listed, mutation: MutationSpec) -> str:
    return f"{listed.key[0]}:{mutation.start_pos[0]} {listed.key[1]}"


# What judges a mutant of reference/: the scenarios, their steps, the kit that runs them, the
# fake harness, the miniatures and tests (a kit mutant's judges).
JUDGES = ("features", "steps", "kit", "doubles", "tests", "fixtures")


def _mark(listed: Listed, judges: str) -> str:
    """What a kept verdict holds for: the entry, its file's source and its judges today."""
    nth = [listed.nth] if listed.nth else []  # an entry without it keeps its kept verdict
    return json.dumps([*listed.key, listed.within, _digest([ROOT / listed.key[0]]), judges, *nth])


def _digest(paths: list[Path]) -> str:
    found = hashlib.sha256()
    for path in paths:
        found.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return found.hexdigest()


def _judged(record: Path) -> dict[str, bool]:
    """The verdicts kept (a line cut short by an interruption is left out)."""
    kept: dict[str, bool] = {}
    for line in record.read_text().splitlines() if record.exists() else []:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            entry = json.loads(line)
            kept[entry["mark"]] = bool(entry["caught"])
    return kept
