"""The benchmarks still measure what they name, at a size too small to mean anything.

`python -m benchmarks` is run on demand, not in CI: these tests keep it from rotting between
two runs (a change of the agent's process tree, for one, can leave the timeout-precision
benchmark looking for the harness under the wrong pid). They check that each figure is a
measurement, never how fast anything is.
"""

from __future__ import annotations

import pytest

from benchmarks import requests, stream, suite
from benchmarks.report import Row


def _milliseconds(row: Row) -> float:
    number, unit = row.measured.split()
    assert unit == "ms", row
    return float(number)


def test_the_request_benchmarks_time_requests_the_agent_made() -> None:
    """Each figure is read from the requests' own records: the timeout-precision rows find
    each request's harness through the reaper the agent supervised (looked up by the wrong
    pid, they end in a KeyError). The deadline is three real seconds, so a loaded machine
    starts the harness before it: with one second, a CLI still starting under a load of 8 was
    signalled before it had noted its start (a KeyError of the test, not of the lookup)."""
    _milliseconds(requests.overhead(2))
    term, kill = requests.precision(2, timeout=3.0, grace=0.05)
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
    monkeypatch.setattr(suite.os, "sched_getaffinity", lambda _: {0, 1})
    for wall, met in ((6.0, True), (6.5, False)):
        row = suite._waiting([suite.Run(wall, "CONFORMANT", {}, 8.0)])
        assert (row.measured, row.baseline, row.ratio, row.met) == (
            f"{wall:.1f} s", "4.0 s", f"{wall / 4:.2f}x", met)
