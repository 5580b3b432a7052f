"""`python -m mutation`: how sharp the conformance run is, measured by mutating `reference/`
(and how sharp the project's tests are on the kit's judging code: `init --kit`).

    python -m mutation init [FILE ...]    # a new session: every mutant, the scenario maps
    python -m mutation --session .mutation-kit init --kit   # the kit's judging code
    python -m mutation --session .mutation-pipe init --component pipeline reference/pipeline/*.py
                                          # mapped and judged by one component's scenarios
    python -m mutation run [--jobs N] [FILE ...]  # judge what is pending (resumes a session;
                                          # the listed equivalent mutants are not judged)
    python -m mutation run --survivors    # judge the survivors again (after new tests)
    python -m mutation report [--out F]   # the table per file and component, and survivors
    python -m mutation check [--jobs N] [--again] [FILE ...]  # the listed equivalent mutants
                                          # (of FILEs only, if given) still survive? (resumes;
                                          # --again: from the start)

A session lives in `.mutation/` (`--session DIR`). See docs/mutation.md."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

from mutation import equivalents, listed, operators, pool, report, session
from mutation.kit import JUDGING, OUT_OF_REACH
from mutation.plan import COMPONENTS, TESTS, Planner
from mutation.pool import MAX_JOBS, Tries
from mutation.workers import ROOT, diff_of

DEFAULT_SESSION = ROOT / ".mutation"
KILLERS = 8  # the scenarios that caught a file's last mutants, run first for its next ones


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__.split("\n")[0])
    parser.add_argument("--session", type=Path, default=DEFAULT_SESSION, metavar="DIR")
    sub = parser.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init", help="a new session of every mutant of FILEs (all of "
                          "reference/ by default)")
    init.add_argument("files", nargs="*", type=Path, metavar="FILE")
    init.add_argument("--kit", action="store_true", help="the kit's judging code too (verdicts, "
                      "baselines, exit codes, reports), judged by the project's tests")
    init.add_argument("--component", action="append", choices=COMPONENTS, dest="components",
                      help="map and judge by this component's scenarios only (repeatable; "
                      "default: every component, about 25 minutes to map)")
    run = sub.add_parser("run", help="judge the pending mutants (of FILEs only, if given)")
    check = sub.add_parser("check", help="judge the listed equivalent mutants again: exit 1 "
                           "if one is gone or caught")
    check.add_argument("--again", action="store_true", help="forget the verdicts of an "
                       "earlier check (kept while the mutant's file and its judges are "
                       "unchanged) and judge every mutant")
    for judging in (run, check):
        judging.add_argument("--jobs", type=int, default=6, metavar="N",
                             help="judges at a time (default 6: a judge mostly waits on its "
                             "scenarios; each has DDS domains of its own, so at most 16)")
    run.add_argument("files", nargs="*", type=Path, metavar="FILE")
    check.add_argument("files", nargs="*", type=Path, metavar="FILE",
                       help="judge only the listed mutants of these files (one just changed)")
    run.add_argument("--survivors", action="store_true", help="judge the survivors again too "
                     "(after a new scenario or test)")
    out = sub.add_parser("report", help="print the report (and write it into --out)")
    out.add_argument("--out", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    if args.command in ("run", "check") and not 1 <= args.jobs <= MAX_JOBS:
        parser.error(f"--jobs {args.jobs}: from 1 to {MAX_JOBS} judges at a time")
    operators.register()
    if args.command == "init":
        return _init(args.session, [*args.files, *(ROOT / f for f in JUDGING if args.kit)],
                     tuple(args.components or COMPONENTS))
    db_path = args.session / "session.sqlite"
    maps = [args.session / f"{c}.json" for c in (*COMPONENTS, TESTS)]
    if not (any(m.exists() for m in maps) if args.command == "check" else db_path.exists()):
        parser.error(f"no session in {args.session}: run `python -m mutation init` first")
    if args.command == "check":  # needs the scenario maps only
        only = {_repository_path(f) for f in args.files}
        listed = {entry.key[0] for entry in equivalents.load()}
        if only - listed:
            parser.error(f"check: no listed mutant is of {', '.join(sorted(only - listed))} "
                         "(a file of reference/ or the kit's judging code, as "
                         "mutation/equivalent.yaml names it)")
        return equivalents.check(args.session, args.jobs, args.again, only)
    if args.command == "run":
        return _run(args.session, args.jobs, {str(f) for f in args.files}, args.survivors)
    found = report.mutants(db_path)
    text = report.render(found, args.session)
    print(text, *report.timed(found), sep="\n")
    if args.out:
        report.write_into(args.out, text, report.is_kit(args.session))
    return 0


def _repository_path(path: Path) -> str:
    """`path` as the list names files: from the repository's root (given relative to it, to
    the current folder, or absolute; by the top-level links or inside src/agent_tck/)."""
    whole = (path if path.is_absolute() else Path.cwd() / path).resolve()
    if not whole.is_relative_to(ROOT):
        whole = (ROOT / path).resolve()
    return listed(whole, ROOT).as_posix() if whole.is_relative_to(ROOT) else str(path)


def _init(folder: Path, files: list[Path], components: tuple[str, ...] = COMPONENTS) -> int:
    chosen = files or sorted((ROOT / "reference").rglob("*.py"))
    relative = [listed(p, ROOT) for p in chosen]
    bad = [str(p) for p in relative
           if not ((p.parts[0] == "reference" and p.suffix == ".py") or str(p) in JUDGING)]
    if bad:
        print(f"mutation: only Python files of reference/ and the kit's judging code "
              f"({', '.join(JUDGING)}) are mutated, not {', '.join(bad)}", file=sys.stderr)
        return 2
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "session.sqlite").unlink(missing_ok=True)
    by_tests = [str(p) for p in relative if str(p) in JUDGING or str(p) in OUT_OF_REACH]
    maps = [*(components if any(p.parts[0] == "reference" for p in relative) else ()),
            *((TESTS,) if by_tests else ())]
    for stale in (*COMPONENTS, TESTS):  # a map of an earlier session would be read
        (folder / f"{stale}.json").unlink(missing_ok=True)
    for name in maps:  # unmutated, each component must be conformant, the tests must pass
        print(f"mapping the {'tests' if name == TESTS else 'scenarios of ' + name} ...",
              flush=True)
        command = ["mutation.kit", "map", str(folder / f"{name}.json"), *by_tests] \
            if name == TESTS else ["mutation.scenarios", name, str(folder / f"{name}.json")]
        done = subprocess.run([sys.executable, "-m", *command],
                              cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            what = "the project's tests fail or skip" if name == TESTS else \
                f"the reference is not conformant in {name}"
            print(f"mutation: unmutated, {what}; fix that first", file=sys.stderr)
            return 1
    os.chdir(ROOT)  # cosmic-ray records module paths as given: relative to the checkout
    (folder / "files.txt").write_text("".join(f"{p}\n" for p in relative))  # for the report
    pending = session.create(folder / "session.sqlite", relative)
    print(f"{pending} mutants to judge in {folder}")
    return 0


def _run(folder: Path, jobs: int, files: set[str], survivors: bool = False) -> int:
    planner = Planner.load(folder)
    equivalent = equivalents.load()  # judged by `check`, not again by every session
    with use_db(str(folder / "session.sqlite"), WorkDB.Mode.open) as db:
        pending = to_judge(db, files, survivors)
        total, started = len(pending), time.monotonic()
        print(f"{total} mutants pending, {jobs} at a time", flush=True)
        done = 0
        judging: list[tuple[WorkItem, Tries]] = []
        for item in pending:
            tries = planner.plan(item.mutations[0]).tries
            unjudged = _unjudged(item, tries, equivalent)
            if unjudged is None:
                judging.append((item, tries))
            else:  # listed equivalent, or no scenario runs it
                db.set_result(item.job_id, unjudged)
                done += 1
        killers: dict[str, list[str]] = {}  # file -> what caught its last mutants, latest first

        def task(job: tuple[WorkItem, Tries]) -> pool.Task:
            mutation = job[0].mutations[0]
            return mutation, job[1], killers.get(str(mutation.module_path), [])

        def judged(job: tuple[WorkItem, Tries], result: WorkResult) -> None:
            nonlocal done
            _remember(killers, job[0], result)
            db.set_result(job[0].job_id, result)
            done += 1
            print(f"[{done}/{total} {time.monotonic() - started:.0f}s] "
                  f"{report.describe(job[0], result)}", flush=True)

        pool.judge_all(folder, jobs, judging, task, judged)
    return 0


def _remember(killers: dict[str, list[str]], item: WorkItem, result: WorkResult) -> None:
    """The scenario that caught this mutant goes first for the next of its file."""
    try:
        by = json.loads(result.output or "{}").get("by")
    except (AttributeError, ValueError):  # no record (a broken judge)
        return
    if by:
        where = str(item.mutations[0].module_path)
        rest = [nodeid for nodeid in killers.get(where, []) if nodeid != by]
        killers[where] = [by, *rest][:KILLERS]


def _unjudged(item: WorkItem, tries: Tries,
              equivalent: list[equivalents.Listed]) -> WorkResult | None:
    """The record of a mutant not to judge: listed equivalent, or on a line nothing runs."""
    mutation = item.mutations[0]
    if equivalents.is_listed(mutation, equivalent):
        output = report.listed()
    elif not tries:
        output = report.unexecuted()
    else:
        return None
    return WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=TestOutcome.SURVIVED,
                      output=output, diff=diff_of(mutation))


def to_judge(db: WorkDB, files: set[str], survivors: bool) -> list[WorkItem]:
    """The pending mutants (of `files`, if any), and with `survivors` those that survived."""
    again = [item for item, result in db.completed_work_items
             if result.test_outcome == TestOutcome.SURVIVED] if survivors else []
    return [item for item in [*db.pending_work_items, *again]
            if not files or str(item.mutations[0].module_path) in files]


if __name__ == "__main__":
    sys.exit(main())
