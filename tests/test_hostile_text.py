"""What an implementation says, whatever it holds, reaches every report and the terminal
without crashing the kit or taking over the terminal; and a pytest-xdist worker that dies is
a run with a report, its scenario errored (docs/security.md).

The adapter here answers its first `signal.parse` with an error quoting a lone surrogate, ESC,
BEL and NUL (tests/miniatures/fake_adapter.py, `hostile`): the lone surrogate is U+FFFD from
where it enters (the stdio driver), the control characters are escaped wherever text is shown.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from agent_tck.kit import run as run_command
from agent_tck.kit import verdicts
from agent_tck.kit.cli import main
from tests.support.nested import unmeasured

# Nested conformance runs, some on two workers: the project-wide guard of 120 s would fail a
# busy machine on time alone.
pytestmark = pytest.mark.timeout(300)

PY = sys.executable
RAW = ("\x1b", "\x07", "\x00", "\ud800")
SHOWN = "refused \ufffd \\x1b[2J\\x1b]0;pwned\\x07 \\x00 end"  # what HOSTILE becomes
ONE_SCENARIO = ("--component", "runner", "--req", "RUN-SIG-1")
REPORTS = ("json", "junit", "markdown", "html", "messages")


def fake(fault: str, cmd: str) -> str:
    return f"{PY} -m tests.miniatures.fake_adapter {fault} {cmd} 1"


def run(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """`agent-tck run`: its exit code, and all it printed (pytest's own lines too)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", *argv], out, err)
    printed = capfd.readouterr()
    return code, out.getvalue() + err.getvalue() + printed.out + printed.err


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one process", "two workers"])
def test_an_adapters_hostile_error_is_in_every_report_and_shown_inert(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], workers: tuple[str, ...]) -> None:
    files = {kind: tmp_path / f"run.{kind}" for kind in REPORTS}
    baseline = tmp_path / "baseline.yaml"
    argv = ("--impl", fake("hostile", "signal.parse"), *ONE_SCENARIO, *workers)
    asked = [arg for kind, path in files.items() for arg in (f"--{kind}", str(path))]
    code, shown = run(capfd, *argv, "--progress", *asked, "--write-baseline", str(baseline))
    assert code == 1, shown
    assert SHOWN in shown and not [c for c in RAW if c in shown], shown
    report = json.loads(files["json"].read_text(encoding="ascii"))
    [scenario] = report["scenarios"]
    assert scenario["verdict"] == "errored" and SHOWN in scenario["evidence"]
    assert "\\ud800" not in files["json"].read_text(encoding="ascii")
    assert SHOWN in ET.parse(files["junit"]).getroot().findtext("testcase/error", "")
    for kind in ("markdown", "html"):
        assert "\x1b" not in files[kind].read_text(encoding="utf-8")
    finished = [json.loads(line) for line in files["messages"].read_text("utf-8").splitlines()]
    assert finished[-1]["testRunFinished"]["success"] is False
    # The baseline reads back, and excuses the same failure (the run judged nothing else).
    code, shown = run(capfd, *argv, "--baseline", str(baseline))
    assert re.search(r"^RUN-SIG-1 +MUST +errored \(expected\) +0/1$", shown, re.MULTILINE), shown


def test_smoke_shows_an_implementations_hostile_name_and_answers_inert() -> None:
    for fault, cmd, code in (("hostile-name", "start", 0), ("hostile", "agent.request", 1)):
        out = io.StringIO()
        assert main(["smoke", "--impl", fake(fault, cmd), "--timeout", "10"], out,
                    io.StringIO()) == code, out.getvalue()
        assert SHOWN in out.getvalue() and not [c for c in RAW if c in out.getvalue()]


def test_a_worker_that_dies_errors_its_scenario_and_the_run_still_reports(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The implementation ends the worker's process in the middle of the scenario: the run
    goes on to its verdict and its reports, the scenario errored, saying what happened."""
    report = tmp_path / "run.json"
    code, shown = run(capfd, "--impl", "python:tests.miniatures.worker_crash:EndsItsProcess",
                      *ONE_SCENARIO, "-n", "2", "--json", str(report), "--progress")
    assert code == 1, shown
    [scenario] = json.loads(report.read_text())["scenarios"]
    assert scenario["verdict"] == "errored"
    assert re.fullmatch(f"worker gw[01] crashed while running {re.escape(scenario['nodeid'])}"
                        ": its scenario is errored \\(no verdict on its steps\\)",
                        scenario["evidence"]), scenario["evidence"]
    assert re.search(r"^\[1/1\] errored +RUN-SIG-1 ", shown, re.MULTILINE), shown
    assert re.search(r"^RUN-SIG-1 +MUST +errored +0/1$", shown, re.MULTILINE), shown


def test_scenarios_a_run_ended_by_crashes_left_are_errored_not_missing() -> None:
    """pytest-xdist gives a dead worker's scenarios to a new one, up to a number of crashes
    (none here), then ends the run: what no worker reported on is errored, not left out."""
    args = argparse.Namespace(impl="python:tests.miniatures.worker_crash:EndsItsProcess",
                              time_scale=0.02, component=["runner"], keyword=None,
                              markexpr=None, req=["RUN-SIG-*"], workers=2)
    collector = verdicts.Collector()
    with run_command.hermetic(), run_command.private_basetemp() as basetemp, unmeasured():
        pytest.main([*run_command.pytest_args(args), *basetemp, "--max-worker-restart", "0"],
                    plugins=[collector])
    crashed = [r for r in collector.results.values() if "its scenario is errored" in r.evidence]
    left = [r for r in collector.results.values() if r not in crashed]
    assert 1 <= len(crashed) <= 2 and len(left) >= 9, collector.results
    assert {r.verdict for r in collector.results.values()} == {"errored"}
    assert {r.evidence for r in left} == {
        f"not run: the run ended after {len(crashed)} crashed worker(s), the last: "
        f"{collector.crashes[-1]}"}
    assert {(r.component, r.reqs) for r in left} == {("runner", ())}
    assert list(collector.results) == collector.order  # in the order they were collected
