"""Wall time of the whole conformance run: in-process, through the stdio adapter, and split
over two pytest-xdist workers; and the time to the first verdict line a user sees.

The xdist row runs pytest with the arguments `agent-tck run` builds, with and without `-n 2`,
and compares every scenario's outcome from pytest's JUnit XML (it was written before
`agent-tck run -n`, which docs/benchmarks.md measures in a section of its own).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from agent_tck.kit.options import DEFAULT_TIME_SCALE
from agent_tck.kit.paths import ROOT
from agent_tck.kit.run import AUTOLOAD_OFF, pytest_args
from benchmarks.report import Row, median
from benchmarks.rig import child_env

ADAPTER = f"{sys.executable} -m agent_tck.reference.adapter"


def agent_tck_run(*extra: str) -> tuple[float, str]:
    """Seconds and the summary line of `agent-tck run`."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agent_tck.kit.cli", "run", *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(),
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stdout + done.stderr
    return elapsed, done.stdout.strip().splitlines()[-1]


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


def pytest_run(*extra: str) -> tuple[float, dict[str, str]]:
    """Seconds and each scenario's outcome, of the suite as `agent-tck run` starts pytest."""
    args = argparse.Namespace(
        component=[],
        impl="reference",
        time_scale=DEFAULT_TIME_SCALE,
        adapter_timeout=120.0,
        keyword=None,
        markexpr=None,
        verbose=False,
    )
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        argv = [sys.executable, "-m", "pytest", *pytest_args(args), f"--junitxml={junit}",
                "--basetemp", str(Path(tmp) / "basetemp"), *extra]
        start = time.perf_counter()
        env = {**child_env(), AUTOLOAD_OFF: "1"}  # pytest_args names every plugin
        subprocess.run(argv, capture_output=True, cwd=ROOT, env=env, check=False)
        elapsed = time.perf_counter() - start
        return elapsed, _outcomes(junit)


def _outcomes(junit: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for case in ET.parse(junit).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[f"{case.get('classname')}::{case.get('name')}"] = kinds[0] if kinds else "passed"
    return found


def rows(repeats: int) -> list[Row]:
    inproc = [agent_tck_run() for _ in range(repeats)]
    adapter = [agent_tck_run("--impl", ADAPTER) for _ in range(repeats)]
    t_in, t_ad = median([t for t, _ in inproc]), median([t for t, _ in adapter])
    summary = {s for _, s in inproc + adapter}
    return [
        Row(
            f"`agent-tck run`, in-process (median of {repeats}): {' / '.join(sorted(summary))}",
            f"{t_in:.1f} s",
            "",
            "",
            "<= 15 s",
            t_in <= 15,
        ),
        Row(
            "`agent-tck run --impl 'python -m agent_tck.reference.adapter'` vs in-process",
            f"{t_ad:.1f} s",
            f"{t_in:.1f} s",
            f"{t_ad / t_in:.2f}x",
            "<= 2x",
            t_ad <= 2 * t_in,
        ),
        _first(repeats, t_ad),
        _xdist(repeats),
    ]


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


def _xdist(repeats: int) -> Row:
    serial = [pytest_run() for _ in range(repeats)]
    split = [pytest_run("-n", "2") for _ in range(repeats)]
    t_1, t_2 = median([t for t, _ in serial]), median([t for t, _ in split])
    outcomes = [o for _, o in serial + split]
    same = all(o == outcomes[0] for o in outcomes) and bool(outcomes[0])
    verdicts = f"{len(outcomes[0])} scenarios, {'same' if same else '**different**'} outcomes"
    return Row(
        f"suite with pytest-xdist `-n 2` vs one process ({verdicts})",
        f"{t_2:.1f} s",
        f"{t_1:.1f} s",
        f"{t_1 / t_2:.2f}x speed-up",
        "same verdicts, faster",
        same and t_2 < t_1,
    )
