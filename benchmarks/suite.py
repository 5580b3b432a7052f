"""Wall time of the whole conformance run, as README command 1 runs it (`agent-tck run -n auto`:
eight workers on the 2-core machines), through the stdio adapter, and against one process;
how long it waits beyond its work (its wall against its CPU time spread over the cores); and
the time to the first verdict line a user sees.

`-n auto` against one process compares the two runs' JSON reports apart from times (the same
scenarios in the same order, the same verdicts and requirements), as tests/test_cli_run.py
does on a part of the suite. Every run is `agent-tck run` started as a user starts it; the
serial run is there once, as the baseline (it is the slowest).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT
from agent_tck.kit.paths import ROOT
from agent_tck.kit.run import auto_workers, usable_cpus
from benchmarks.report import Row, median
from benchmarks.rig import child_env

ADAPTER = f"{sys.executable} -m agent_tck.reference.adapter"
HANGING = f"{sys.executable} -m tests.miniatures.hanging_adapter"


class Run(NamedTuple):
    wall: float  # seconds
    summary: str  # the verdict line
    report: dict[str, Any]  # the JSON report, less its times
    cpu: float  # user and system seconds of the run and every process it waited for


def agent_tck_run(*extra: str, check: bool = True) -> Run:
    """One `agent-tck run`, as a user starts it; with `check`, one that must exit 0."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-bench-") as tmp:
        report = Path(tmp) / "report.json"
        before = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "agent_tck.kit.cli", "run", "--no-progress", *extra,
             "--json", str(report)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=child_env(),
        )
        elapsed = time.perf_counter() - start
        cpu = _children_cpu() - before
        assert done.returncode == 0 or not check, done.stdout + done.stderr
        assert report.exists(), done.stdout + done.stderr
        return Run(elapsed, done.stdout.strip().splitlines()[-1], timeless_report(report), cpu)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timeless_report(path: Path) -> dict[str, Any]:
    """A JSON report without what changes from run to run: times, and the evidence's text
    (temporary paths)."""
    report: dict[str, Any] = json.loads(path.read_text())
    report["header"].pop("finished")
    for scenario in report["scenarios"]:
        scenario.pop("duration")
        scenario["evidence"] = "evidence" if scenario["evidence"] else ""
    return report


def first_line(*extra: str) -> tuple[float, str]:
    """Seconds from the start of `agent-tck run --progress` to its first verdict line (on
    stderr, as each scenario ends), and that line; the run is then ended by SIGTERM, as a
    user's Ctrl-C would (it stops the adapter too)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "agent_tck.kit.cli", "run", "--progress",
                             *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env=child_env())
    line, rest = "", ""
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        elapsed = time.perf_counter() - start
    finally:
        proc.terminate()
        try:
            rest = proc.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:  # a teardown that hangs: the benchmark goes on
            proc.kill()
            rest = proc.communicate()[1]
    assert line.startswith("[1/"), line + rest
    return elapsed, line.strip()


def rows(repeats: int, serial: bool = True) -> list[Row]:
    """The whole runs; the serial one (the slowest) only when `serial`."""
    runs = [agent_tck_run("-n", "auto") for _ in range(repeats)]
    adapter = [agent_tck_run("-n", "auto", "--impl", ADAPTER) for _ in range(repeats)]
    t_par, t_ad = median([r.wall for r in runs]), median([r.wall for r in adapter])
    return [
        _waiting(runs),
        Row(
            f"`agent-tck run -n auto`, in-process, every component (median of {repeats}): "
            f"{_summaries(runs)}",
            f"{t_par:.1f} s",
            "",
            "",
            "<= 20 s",
            t_par <= 20,
        ),
        Row(
            f"`agent-tck run -n auto --impl 'python -m agent_tck.reference.adapter'` vs "
            f"in-process: {_summaries(adapter)}",
            f"{t_ad:.1f} s",
            f"{t_par:.1f} s",
            f"{t_ad / t_par:.2f}x",
            "<= 1.5x",
            t_ad <= 1.5 * t_par,
        ),
        _speed_up(runs, t_par) if serial else Row(
            "`agent-tck run -n auto` vs one process", f"{t_par:.1f} s",
            "one process: with --full", "", ">= 1.6x, same report", None),
        _first(repeats, t_ad),
        hanging(),
    ]


def _waiting(runs: list[Run]) -> Row:
    """The run's wall against the least it could take on this machine, its CPU time over the
    cores it may use: what is more is waiting (deadlines, grace periods, polling)."""
    cores = usable_cpus()
    run = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]  # the median run
    floor = run.cpu / cores
    return Row(
        f"`agent-tck run -n auto`: its wall vs its CPU time ({run.cpu:.1f} s) over {cores} "
        "cores (median run)",
        f"{run.wall:.1f} s",
        f"{floor:.1f} s",
        f"{run.wall / floor:.2f}x",
        "<= 1.5x",
        run.wall <= 1.5 * floor,
    )


def _speed_up(runs: list[Run], t_par: float) -> Row:
    serial = agent_tck_run()
    same = all(r.report == serial.report for r in runs) and bool(serial.report["scenarios"])
    outcome = f"{len(serial.report['scenarios'])} scenarios, " + (
        "same" if same else "**different**")
    return Row(
        f"`agent-tck run -n auto` vs one process ({outcome} reports apart from times)",
        f"{t_par:.1f} s",
        f"{serial.wall:.1f} s",
        f"{serial.wall / t_par:.2f}x speed-up",
        ">= 1.6x, same report",
        same and serial.wall >= 1.6 * t_par,
    )


def _summaries(runs: list[Run]) -> str:
    return " / ".join(sorted({r.summary for r in runs}))


def _first(repeats: int, whole: float) -> Row:
    """Before `--progress`, the first verdict came with the table, when the run ended."""
    t_first = median([first_line("--impl", ADAPTER)[0] for _ in range(repeats)])
    return Row(
        "time to the first verdict line: `agent-tck run --impl ... --progress` vs the whole run",
        f"{t_first:.2f} s",
        f"{whole:.1f} s",
        f"{t_first / whole:.2f}x",
        "< 2 s",
        t_first < 2,
    )


def hanging() -> Row:
    """A wrapper whose every request hangs (it leaves the CLI's stdin open), run as a new
    user runs it: the time to its verdict, which fail-fast brings forward, against what the
    run would take without it, at least each of its scenarios waiting out the adapter
    timeout once, over the workers."""
    run = agent_tck_run("-n", "auto", "--impl", HANGING, check=False)
    scenarios = [s for s in run.report["scenarios"]  # those that send agent.request
                 if s["verdict"] != "not applicable" and s["component"] in ("agent", "real-cli")]
    floor = len(scenarios) * DEFAULT_TIMEOUT / auto_workers()
    return Row(
        f"a wrapper whose every request hangs: `agent-tck run -n auto` to its verdict "
        f"({run.summary.split(':')[0]}) vs at least {len(scenarios)} scenarios waiting out the "
        f"{DEFAULT_TIMEOUT:.0f} s adapter timeout over {auto_workers()} workers",
        f"{run.wall / 60:.1f} min",
        f"{floor / 60:.0f} min",
        f"{run.wall / floor:.2f}x",
        "< 5 min",
        run.wall < 300,
    )
