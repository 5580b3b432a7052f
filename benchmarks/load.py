"""Verdicts under load: the main job, and the self-tests with one defect each, while CPU-bound
processes compete for every core (four per core by default).

    python -m benchmarks.load [--per-core K] [--self-tests] [--out docs/benchmarks.md]

The main job (`agent-tck run -n auto`, in-process, every component) runs once on a quiet
machine and once beside the busy loops: the loaded run must give the same report apart from
times, every scenario passing. `--self-tests` also runs the suites of broken implementations
(tests/test_broken*.py, each asserting that its one-defect implementation fails the
requirements it breaks) beside the loop, on eight pytest workers: every test passing means
every defect was still caught. That part is by far
the longer. `--out FILE` writes the table between the `load` markers of FILE.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from agent_tck.kit.paths import ROOT
from agent_tck.kit.run import usable_cpus
from benchmarks.flakes import cpu_load
from benchmarks.report import Row, machine, table, write
from benchmarks.rig import child_env
from benchmarks.suite import Run, agent_tck_run

SELF_TESTS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_broken*.py"))
MESSAGE = 600  # of each failed test's summary line: its id and how its assertion failed
PYTEST_COUNTS = re.compile(r"(\d+) (passed|failed|errors?)\b")


def main_job(busy: int) -> Row:
    """The quiet run is the baseline, measured in the same invocation."""
    quiet = agent_tck_run("-n", "auto")
    with cpu_load(busy):
        loaded = agent_tck_run("-n", "auto", check=False)
    same = loaded.report == quiet.report
    return Row(
        f"`agent-tck run -n auto` beside {busy} CPU-bound processes: {loaded.summary}"
        f"{'' if same else '; ' + _differences(quiet, loaded)}",
        f"{loaded.wall:.1f} s",
        f"{quiet.wall:.1f} s quiet: {quiet.summary}",
        f"{loaded.wall / quiet.wall:.2f}x",
        "same report, every scenario passed",
        same and _all_passed(loaded),
    )


def _all_passed(run: Run) -> bool:
    return all(s["verdict"] in ("passed", "not applicable") for s in run.report["scenarios"])


def _differences(quiet: Run, loaded: Run) -> str:
    """The scenarios whose verdict the load changed, as `nodeid: quiet -> loaded`."""
    before = {s["nodeid"]: s["verdict"] for s in quiet.report["scenarios"]}
    changed = [f"{s['nodeid']}: {before.get(s['nodeid'])} -> {s['verdict']}"
               for s in loaded.report["scenarios"] if before.get(s["nodeid"]) != s["verdict"]]
    if changed:
        return "changed: " + ", ".join(changed)
    quiet_by = {s["nodeid"]: s for s in quiet.report["scenarios"]}
    fields = sorted({f"{s['nodeid']} ({k})" for s in loaded.report["scenarios"]
                     for k, v in s.items() if quiet_by.get(s["nodeid"], {}).get(k) != v})
    return "the reports differ: " + (", ".join(fields[:5]) or "in their header or requirements")


def self_tests(busy: int) -> Row:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "8", "-p", "no:cov",
                           "-rfE", *SELF_TESTS], capture_output=True, text=True, cwd=ROOT,
                          env=child_env(), check=False)
    wall = time.perf_counter() - start
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    counts = {kind.rstrip("s"): int(n) for n, kind in PYTEST_COUNTS.findall(last)}
    failed = counts.get("failed", 0) + counts.get("error", 0)
    which = [line[:MESSAGE] for line in done.stdout.splitlines()
             if line.startswith(("FAILED ", "ERROR "))]
    return Row(
        f"the self-tests with one defect each ({len(SELF_TESTS)} files) beside {busy} "
        f"CPU-bound processes: {last.strip('= ')}{': ' if which else ''}{', '.join(which)}",
        f"{wall / 60:.1f} min",
        "",
        "",
        "every defect caught (no test failed)",
        done.returncode == 0 and failed == 0 and counts.get("passed", 0) > 0,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-core", type=int, default=4, metavar="K",
                        help="busy-looping processes per core (default 4)")
    parser.add_argument("--self-tests", action="store_true",
                        help="also run tests/test_broken*.py beside the load (the long part)")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="also write the table into FILE between its `load` markers")
    args = parser.parse_args(argv)
    if args.per_core < 1:
        parser.error(f"--per-core must be at least 1, got {args.per_core}")
    busy = args.per_core * usable_cpus()
    start = time.monotonic()
    rows = [main_job(busy)]
    if args.self_tests:
        with cpu_load(busy):
            rows.append(self_tests(busy))
    seconds = time.monotonic() - start
    print(f"{machine()}\n\n{table(rows)}\n\nfinished in {seconds:.0f} s")
    if args.out:
        flag = f" --per-core {args.per_core}" if args.per_core != 4 else ""
        flag += " --self-tests" if args.self_tests else ""
        write(args.out, rows, seconds, f"python -m benchmarks.load{flag}", marker="load")
        print(f"wrote {args.out}")
    return 0 if all(r.met for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
