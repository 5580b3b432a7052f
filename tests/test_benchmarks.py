"""The benchmarks still measure what they name, at a size too small to mean anything.

`python -m benchmarks` is run on demand, not in CI: these tests keep it from rotting between
two runs (a change of the agent's process tree, for one, can leave the timeout-precision
benchmark looking for the harness under the wrong pid). They check that each figure is a
measurement, never how fast anything is.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from agent_tck.kit.paths import ROOT
from benchmarks import firstrun, load, requests, stream, suite
from benchmarks.report import Row, write


def _milliseconds(row: Row) -> float:
    number, unit = row.measured.split()
    assert unit == "ms", row
    return float(number)


def test_the_request_benchmarks_time_requests_the_agent_made() -> None:
    """Each figure is read from the requests' own records: the timeout-precision rows find
    each request's harness through the reaper the agent supervised (looked up by the wrong
    pid, they find none: a LookupError). The deadline is three real seconds, so a loaded
    machine (a load of 8) starts the harness and notes its start before it; the grace is one
    real second, so the harness, which ignores SIGTERM, runs its handler and notes the signal
    before the SIGKILL on a busy machine, which can run a handler later than 0.05 s after
    the signal came."""
    _milliseconds(requests.overhead(2))
    term, kill = requests.precision(2, timeout=3.0, grace=1.0)
    assert term.what.startswith("timeout precision: deadline -> SIGTERM at the harness")
    assert kill.what.startswith("timeout precision: end of grace -> harness killed")
    for row in (term, kill):
        _milliseconds(row)


def test_the_stream_benchmark_reads_every_line_it_asks_for() -> None:
    """The bare loop reads every line (and the init and end lines around them); the agent
    answers with status 0 and the one tool call the turns repeat (its id is the same in
    every turn, so it counts once: D-3)."""
    assert stream.measure("bare", "claude", 2_000)["read"] >= 2_002
    assert stream.measure("agent", "codex", 2_000)["read"] == 1


def test_the_suite_benchmark_compares_whole_reports_of_two_runs() -> None:
    """The `-n auto` row compares reports of `agent-tck run` apart from times: two runs of the
    same scenarios give the same report, and a run of other scenarios does not."""
    first = suite.agent_tck_run("--component", "responses")
    one, two = first.report, suite.agent_tck_run("--component", "responses", "-n", "2").report
    other = suite.agent_tck_run("--component", "responses", "-k", "refusal").report
    assert first.summary.startswith("PARTIAL: ") and "judged, all passed" in first.summary
    assert one == two and one != other and one["scenarios"]
    assert first.cpu > 0, first  # its own and its workers' CPU time


def test_the_serial_run_is_the_full_sizes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default size leaves out the serial run (the slowest: the run must fit in five
    minutes), and says where its row is measured; `--full` compares it with `-n auto`."""
    runs: list[tuple[str, ...]] = []

    def run(*extra: str) -> suite.Run:
        runs.append(extra)
        return suite.Run(10.0 if "-n" in extra else 30.0, "CONFORMANT",
                         {"scenarios": [{"name": "x"}]}, 8.0)

    monkeypatch.setattr(suite, "agent_tck_run", run)
    monkeypatch.setattr(suite, "first_line", lambda *extra: (0.5, "line"))
    monkeypatch.setattr(suite, "hanging", lambda: Row("hangs", "", "", "", "", None))
    default = suite.rows(1, serial=False)
    assert all("-n" in extra for extra in runs) and len(runs) == 2
    assert default[3].baseline == "one process: with --full" and default[3].met is None
    runs.clear()
    full = suite.rows(1, serial=True)
    assert runs[-1] == () and (full[3].ratio, full[3].met) == ("3.00x speed-up", True)


def test_the_run_that_waits_more_than_half_again_its_work_misses_its_target(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall of `-n auto` against its CPU time over the cores (two here): 8 s of CPU is a
    4 s floor; 6 s of wall meets the target of 1.5x, 6.5 s does not."""
    monkeypatch.setattr(suite, "usable_cpus", lambda: 2)
    for wall, met in ((6.0, True), (6.5, False)):
        row = suite._waiting([suite.Run(wall, "CONFORMANT", {}, 8.0)])
        assert (row.measured, row.baseline, row.ratio, row.met) == (
            f"{wall:.1f} s", "4.0 s", f"{wall / 4:.2f}x", met)


def _run(*verdicts: str) -> suite.Run:
    scenarios = [{"nodeid": f"t{i}", "verdict": v} for i, v in enumerate(verdicts)]
    return suite.Run(10.0, "CONFORMANT", {"scenarios": scenarios}, 8.0)


@pytest.mark.parametrize(("loaded", "met", "named"), [
    (("passed", "not applicable"), True, ""),
    (("failed", "not applicable"), False, "t0: passed -> failed"),
])
def test_the_load_benchmark_holds_the_loaded_run_to_the_quiet_ones_report(
        monkeypatch: pytest.MonkeyPatch, loaded: tuple[str, ...], met: bool,
        named: str) -> None:
    """The quiet run is the baseline: a verdict the load changed misses the target and is
    named; the same report with every scenario passed meets it. The busy loops are asked
    for as many as the row says."""
    runs = iter([_run("passed", "not applicable"), _run(*loaded)])
    busy: list[int] = []
    monkeypatch.setattr(load, "agent_tck_run", lambda *extra, check=True: next(runs))
    monkeypatch.setattr(load, "cpu_load", lambda n: busy.append(n) or contextlib.nullcontext())
    row = load.main_job(8)
    assert (row.met, busy) == (met, [8])
    assert named in row.what and "beside 8 CPU-bound processes" in row.what


def test_a_table_is_written_between_its_own_markers(tmp_path: Path) -> None:
    """Two generated tables share a page: writing one leaves the other and the prose alone."""
    page = tmp_path / "bench.md"
    before = "# B\n\n<!-- benchmarks:begin -->\nold\n<!-- benchmarks:end -->\n\nprose\n"
    page.write_text(before)
    row = Row("x", "1 s", "", "", "< 2 s", True)
    write(page, [row], 3.0, "python -m benchmarks.load", marker="load")
    write(page, [row], 3.0, "python -m benchmarks.load", marker="load")
    text = page.read_text()
    assert text.startswith(before)
    assert text.count("<!-- load:begin -->") == 1 and text.count("| x | 1 s |") == 1


def test_the_hanging_wrapper_is_timed_to_its_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hanging wrapper's run is not held to exit 0 (it is not conformant); its floor
    without fail-fast is each judged scenario that sends agent.request (the agent's and the
    real CLIs') waiting out the adapter timeout once, over the workers: 16 scenarios of 60 s
    over 8 workers is 2 minutes, and 90 s is then 0.75x."""
    scenarios = [{"verdict": "errored", "component": "agent"}] * 4
    scenarios += [{"verdict": "not run", "component": "real-cli"}] * 12
    scenarios += [{"verdict": "not applicable", "component": "agent"},
                  {"verdict": "passed", "component": "runner"}]
    asked: list[bool] = []

    def run(*extra: str, check: bool = True) -> suite.Run:
        asked.append(check)
        assert "tests.miniatures.hanging_adapter" in " ".join(extra)
        return suite.Run(90.0, "NOT CONFORMANT: 235 requirements", {"scenarios": scenarios},
                         8.0)

    monkeypatch.setattr(suite, "agent_tck_run", run)
    monkeypatch.setattr(suite, "auto_workers", lambda: 8)
    row = suite.hanging()
    assert (asked, row.measured, row.baseline, row.ratio, row.met) == (
        [False], "1.5 min", "2 min", "0.75x", True)
    assert "(NOT CONFORMANT)" in row.what and "16 scenarios" in row.what


def test_the_first_run_is_timed_from_an_empty_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each example's row adds its time to the first verdict line to the install's, the
    baseline; every example of docs/ is run, each with its own component."""
    runs: list[tuple[str, str]] = []

    def verdict(agent_tck: Path, adapter: str, component: str, cwd: Path) -> tuple[float, ...]:
        runs.append((adapter, component))
        return 5.0, 30.0

    monkeypatch.setattr(firstrun, "install", lambda where: (where / "agent-tck", 50.0))
    monkeypatch.setattr(firstrun, "first_verdict",
                        lambda *a: (*verdict(*a), "PARTIAL: 35 of 235 requirements judged"))
    rows = firstrun.rows()
    assert [(r.measured, r.baseline, r.ratio, r.met) for r in rows] == [
        ("55 s", "50 s (venv and install)", "1.10x", True)] * 3
    assert sorted(c for _, c in runs) == ["pipeline", "responses", "runner"]
    assert all((ROOT / "examples" / adapter).is_file() for adapter, _ in runs)
