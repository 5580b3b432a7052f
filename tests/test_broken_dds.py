"""The transport suite catches served agents that break one requirement each."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("cyclonedds")

from tests.dds_helpers import ROOT, domain

pytestmark = pytest.mark.timeout(120)

# defect -> (a scenario of the requirement it breaks, as a -k expression; the requirement)
CASES = {
    "twice": ("each_reply_carries", "TR-1"),
    "ignores-target": ("addressed_to_a_named_agent", "TR-5"),
    "no-offline": ("told_to_stop_publishes_offline", "TR-7"),
    "no-resume": ("resumes_the_session and claude", "TR-9"),
}


def run_suite(defect: str, keyword: str, domain_id: int) -> subprocess.CompletedProcess[str]:
    serve = f"{sys.executable} {ROOT / 'tests' / 'broken_dds.py'} {defect} serve"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "steps.plugin", "-q", "--no-header",
         "-p", "no:randomly", str(ROOT / "steps" / "suite" / "test_transport.py"),
         "-k", keyword, "--impl", f"dds:serve={serve};domain={domain_id}"],
        cwd=ROOT, capture_output=True, text=True, timeout=110, check=False)


@pytest.mark.parametrize("defect", sorted(CASES))
def test_the_suite_catches(defect: str) -> None:
    keyword, requirement = CASES[defect]
    result = run_suite(defect, keyword, domain(4))
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in summary and "passed" not in summary, f"{requirement}: {summary}"


def test_the_reference_passes_the_same_scenarios() -> None:
    """The control: without a defect the same scenarios pass."""
    serve = f"{sys.executable} -m reference.dds serve"
    keyword = " or ".join(f"({k})" for k, _ in CASES.values())
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "steps.plugin", "-q", "--no-header",
         str(ROOT / "steps" / "suite" / "test_transport.py"), "-k", keyword,
         "--impl", f"dds:serve={serve};domain={domain(4)}"],
        cwd=ROOT, capture_output=True, text=True, timeout=110, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
