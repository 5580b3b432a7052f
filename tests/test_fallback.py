"""The reference where the kernel refuses its reaper a child subreaper (a seccomp policy, a
kernel before 3.4): its fallback, judged by the agent component as the default is."""

from __future__ import annotations

import pytest

from tests.support.runsuite import CLAUDE_ONLY, scenario_results

# A nested conformance run: each scenario has its own deadline in it (tests/test_broken.py).
pytestmark = pytest.mark.timeout(600)


def test_without_a_child_subreaper_only_the_process_that_hides_from_it_is_out_of_reach() -> None:
    """A process whose parent exits leaves the reaper's tree there; the run tag finds it. One
    that also empties its environment is found by nothing: the one scenario of that subject
    fails, and every other passes. (The supervisor's defects are in code every backend
    shares: the claude scenarios judge them.)"""
    results = scenario_results("python:tests.miniatures.agent:WithoutSubreaper", ["agent"],
                               CLAUDE_ONLY)
    bad = [(r.reqs, r.title, r.verdict) for r in results if r.verdict in ("failed", "errored")]
    assert bad == [(("AG-D6.1",), "A harness that times out after starting a process that "
                    "hides from it", "failed")], [r.evidence for r in results
                                                  if r.verdict in ("failed", "errored")]
    assert sum(r.verdict == "passed" for r in results) > 100
