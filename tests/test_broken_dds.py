"""The transport suite catches served agents that break one requirement each.

Each case runs the transport scenario of the requirement its defect breaks, with
`--impl "dds:serve=python tests/broken_dds.py DEFECT serve"`; the runs go in parallel, each
on its own domain, and the control run serves the reference itself.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest

pytest.importorskip("cyclonedds")

from steps.run_command import plugin_args
from tests.dds_helpers import ROOT, domain

# One worker runs the module: its fixture starts every run at once.
pytestmark = [pytest.mark.timeout(120), pytest.mark.xdist_group("broken_dds")]

# defect -> (a scenario of the requirement it breaks, as a -k expression; the requirement)
CASES = {
    "twice": ("each_reply_carries", "TR-1"),
    "ignores-target": ("addressed_to_a_named_agent", "TR-5"),
    "no-offline": ("told_to_stop_publishes_offline", "TR-7"),
    "no-resume": ("resumes_the_session and claude", "TR-9"),
}
CONTROL = "control"


def launch(defect: str, keyword: str, domain_id: int) -> subprocess.Popen[str]:
    serve = (f"{sys.executable} -m reference.dds serve" if defect == CONTROL else
             f"{sys.executable} {ROOT / 'tests' / 'broken_dds.py'} {defect} serve")
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", *plugin_args(), "-q", "--no-header",
         str(ROOT / "steps" / "suite" / "test_transport.py"), "-k", keyword,
         "--impl", f"dds:serve={serve};domain={domain_id}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@functools.cache
def all_runs() -> dict[str, tuple[int, str]]:
    """Every case's run, started at once; cached, so a worker starts them once however its
    tests are ordered."""
    everything = " or ".join(f"({k})" for k, _ in CASES.values())
    cases = {**{d: k for d, (k, _) in CASES.items()}, CONTROL: everything}
    procs = {d: launch(d, k, domain(4 + 2 * i)) for i, (d, k) in enumerate(cases.items())}
    results = {}
    try:
        for defect, proc in procs.items():
            out, _ = proc.communicate(timeout=110)
            results[defect] = (proc.returncode, out)
        return results
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.fixture
def runs() -> dict[str, tuple[int, str]]:
    return all_runs()


@pytest.mark.parametrize("defect", sorted(CASES))
def test_the_suite_catches(runs: dict[str, tuple[int, str]], defect: str) -> None:
    code, out = runs[defect]
    summary = out.strip().splitlines()[-1]
    assert code == 1, out
    assert "1 failed" in summary and "passed" not in summary, f"{CASES[defect][1]}: {summary}"


def test_the_reference_passes_the_same_scenarios(runs: dict[str, tuple[int, str]]) -> None:
    code, out = runs[CONTROL]
    assert code == 0, out
