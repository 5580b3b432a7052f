"""The transport suite catches served agents that break one requirement each.

Each case runs the transport scenario of the requirement its defect breaks, with
`--impl "dds:serve=python tests/miniatures/dds.py DEFECT serve"`; the runs go in parallel, each
on its own domain, and the control run serves the reference itself.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cyclonedds")

from agent_tck.kit.run import plugin_args
from tests.support.dds import PER_SLOT, ROOT, domain

pytestmark = pytest.mark.timeout(240)

# defect -> (a scenario of the requirement it breaks, as a -k expression; the requirement)
CASES = {
    "twice": ("each_reply_carries", "TR-1"),
    "ignores-target": ("addressed_to_a_named_agent", "TR-5"),
    "no-offline": ("told_to_stop_publishes_offline", "TR-7"),
    "no-resume": ("resumes_the_session and claude", "TR-9"),
    "anonymous": ("told_apart", "TR-10"),
    "hidden-tools": ("tool_calls_appear", "TR-11"),
    "unnumbered": ("are_numbered", "TR-12"),
    "events-unnumbered": ("are_numbered", "TR-12"),
    "finds-every-cli": ("not_on_its_path", "TR-13"),
    "no-affinity": ("once_it_is_offline", "TR-14"),
    "strict-metadata": ("nested_deeper", "TR-15"),
    "holds-offers": ("never_grants", "TR-16"),
    "exits-0-refusing": ("cannot_use and exist", "TR-17"),
    "forgets-failed-session": ("failed_before", "TR-14"),
    "own-config": ("joins_with_that_file", "TR-19"),
    "stops-at-anothers": ("in_turn", "TR-5"),
    "spins": ("nothing_more_to_do", "TR-20"),
    "keeps-lost-offers": ("at_the_same_time", "TR-3"),
    "deaf-to-the-gone": ("dies_without", "TR-14"),
    "runs-unoffered-grants": ("never_offered", "TR-3"),
    "takes-zero-timeouts": ("timeout_is_0", "TR-15"),
    "keeps-the-probe-quiet": ("asked_to_probe", "TR-10"),
}
CONTROL = "control"
MINIATURE = ROOT / "tests" / "miniatures" / "dds.py"
WAVE = PER_SLOT // 2  # runs at once: each takes two of this worker's DDS domains


def finished(procs: dict[str, subprocess.Popen[str]]) -> dict[str, tuple[int, str]]:
    """Each run's exit code and output; whatever is still running at the end is killed."""
    runs = {}
    try:
        for defect, proc in procs.items():
            out, _ = proc.communicate(timeout=110)
            runs[defect] = (proc.returncode, out)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return runs


def launch(defect: str, keyword: str, domain_id: int, basetemp: Path) -> subprocess.Popen[str]:
    serve = (f"{sys.executable} -m agent_tck.reference.dds serve" if defect == CONTROL else
             f"{sys.executable} {MINIATURE} {defect} serve")
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", *plugin_args(), "-q", "--no-header",
         "--basetemp", str(basetemp / defect),
         str(ROOT / "steps" / "suite" / "test_transport.py"), "-k", keyword,
         "--impl", f"dds:serve={serve};domain={domain_id};fork=on"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_the_suite_catches_each_defect_and_the_reference_passes(tmp_path: Path) -> None:
    """Every case's run, WAVE at a time (one test, so one worker starts them all)."""
    everything = " or ".join(f"({k})" for k, _ in CASES.values())
    cases = [*((d, k) for d, (k, _) in CASES.items()), (CONTROL, everything)]
    runs = {}
    for start in range(0, len(cases), WAVE):
        wave = cases[start:start + WAVE]
        runs.update(finished({d: launch(d, k, domain(2 * i), tmp_path)
                              for i, (d, k) in enumerate(wave)}))
    code, out = runs.pop(CONTROL)
    assert code == 0, out
    for defect, (code, out) in runs.items():
        summary = out.strip().splitlines()[-1]
        assert code == 1, f"{defect}: {out}"
        assert "1 failed" in summary and "passed" not in summary, f"{CASES[defect][1]}: {summary}"
        # The scenario fails in a step that checks (an AssertionError), not because the served
        # agent could not be started (a serve command that is not there fails every scenario).
        checked = re.search(r"^E +AssertionError", out, re.M)
        assert checked and "Refused" not in out, f"{defect}: {out[-3000:]}"
