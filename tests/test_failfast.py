"""A run whose requests all break the same way stops early and says why (kit/failfast.py):
not a judge of the kit's reports and verdicts (mutation/kit.py), since how soon a run stops,
and which command hangs first, depend on the machine's load."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent_tck.kit import verdicts
from agent_tck.kit.failfast import FailFast
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


def _report(nodeid: str, component: str, kind: str, cause: str = "") -> pytest.TestReport:
    data = {"kind": kind, "component": component, "cause": cause}
    return pytest.TestReport(nodeid, ("f", 1, "t"), {}, "failed" if cause else "passed",
                             None, "call", user_properties=[(verdicts.KEY, data)])


HANG = "AdapterHung: agent.request: no response within 60 s (hang)"


def test_one_cause_is_counted_across_the_components_that_met_it() -> None:
    """A hang of agent.request in the agent's and the real CLIs' scenarios is one cause: the
    fourth such scenario stops the run, whichever component it was of; the passes of those
    components hold it back as for one component, and another cause is counted apart."""
    stopping = FailFast()
    stopping.session = _session()
    stopping.pytest_runtest_logreport(_report("a0", "agent", verdicts.PASSED))
    stopping.pytest_runtest_logreport(_report("x", "runner", verdicts.ERRORED, "Refused: no"))
    for n, component in enumerate(["agent", "real-cli", "real-cli"]):
        stopping.pytest_runtest_logreport(_report(f"h{n}", component, verdicts.ERRORED, HANG))
    assert stopping.reason == ""  # three: fewer than FIRST
    stopping.pytest_runtest_logreport(_report("h3", "real-cli", verdicts.ERRORED, HANG))
    assert stopping.reason.startswith("4 scenarios of the agent and real-cli components errored "
                                      f"the same way, and only 1 of them passed: {HANG}.")
    assert stopping.session.shouldstop


def test_passes_of_the_components_a_cause_met_hold_the_stop_back() -> None:
    """More than twice as many errors as passes: four hangs against two passes of the agent
    component do not stop a run; a fifth does."""
    stopping = FailFast()
    stopping.session = _session()
    for n in range(2):
        stopping.pytest_runtest_logreport(_report(f"p{n}", "agent", verdicts.PASSED))
    for n in range(4):
        stopping.pytest_runtest_logreport(_report(f"h{n}", "agent", verdicts.ERRORED, HANG))
    assert stopping.reason == ""
    stopping.pytest_runtest_logreport(_report("h4", "agent", verdicts.ERRORED, HANG))
    assert stopping.reason.startswith("5 scenarios of the agent component errored the same "
                                      "way, and only 2 of it passed")


def _session() -> Any:
    """What FailFast stops: a session whose plugin manager has no xdist controller."""
    manager = SimpleNamespace(getplugin=lambda name: None)
    return SimpleNamespace(shouldstop=False, config=SimpleNamespace(pluginmanager=manager))


def test_a_stray_error_in_a_healthy_component_shelters_no_other() -> None:
    """One hang among the runner's many passes, then four in the agent component, which
    passes nothing: the agent's own count stops the run."""
    stopping = FailFast()
    stopping.session = _session()
    for n in range(50):
        stopping.pytest_runtest_logreport(_report(f"p{n}", "runner", verdicts.PASSED))
    stopping.pytest_runtest_logreport(_report("r", "runner", verdicts.ERRORED, HANG))
    for n in range(4):
        stopping.pytest_runtest_logreport(_report(f"h{n}", "agent", verdicts.ERRORED, HANG))
    assert stopping.reason.startswith("4 scenarios of the agent component errored the same "
                                      "way, and only 0 of it passed")
