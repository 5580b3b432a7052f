"""A run whose requests all break the same way stops early and says why (kit/failfast.py):
not a judge of the kit's reports and verdicts (mutation/kit.py), since how soon a run stops,
and which command hangs first, depend on the machine's load."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.test_cli_run import run


def test_a_run_whose_requests_all_hang_stops_early_and_says_why(tmp_path: Path) -> None:
    """Every request hangs (a wrapper that leaves the CLI's stdin open): the run stops after
    a few of them on each worker, names the cause and what to check, and leaves the rest
    not run, instead of waiting out the adapter timeout hundreds of times."""
    report = tmp_path / "r.json"
    code, out, _ = run("--impl", f"{sys.executable} -m tests.miniatures.hanging_adapter",
                       "--adapter-timeout", "2", "-n", "2", "--json", str(report))
    assert code == 1
    stopped = next(line for line in out.splitlines() if line.startswith("Stopped early: "))
    assert "errored the same way" in stopped and "AdapterHung: " in stopped
    assert "closes the CLI's stdin" in stopped
    verdicts = [s["verdict"] for s in json.loads(report.read_text())["scenarios"]]
    assert "not run" in verdicts, "the run went on to the end"  # how soon: a benchmark's
    assert out.splitlines()[-1].startswith("NOT CONFORMANT: ")
