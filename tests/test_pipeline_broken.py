"""The pipeline suite catches every broken implementation, and blames exactly the requirements
its defect breaks (tests/miniatures/pipeline.py); the reference passes.

A miniature that puts functions of its own in the place of the reference's is judged on the
scenarios that call the reference's (tests/support/reach.py, from a map of the pipeline
component made once per test session): in the others it runs the reference, whose verdicts
are the control's. AGENT_TCK_BROKEN=whole runs every scenario for each, the check that no
reach is too narrow (one that is fails here too: a requirement it breaks is then not failed).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_tck.kit.drivers.inprocess import InProcessDriver
from tests.miniatures.pipeline import EXPECTED
from tests.miniatures.pipeline import reach as reach_of
from tests.support import once, reach
from tests.support.pipeline_run import failing_requirements

# A nested conformance run of every pipeline miniature: each scenario has its own deadline in
# it; the project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

SUITE = "steps/suite/test_pipeline.py"
IMPLS = {"reference": InProcessDriver, **{m.__doc__ or m.__name__: m for m in EXPECTED}}
WANTED = {"reference": set(), **{m.__doc__ or m.__name__: reqs for m, reqs in EXPECTED.items()}}
HALVES = 2  # one suite run per half, so CI's two workers can take one each


@pytest.fixture(scope="session")
def pipeline_map(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Any]:
    return reach.shared_map(once.session_dir(tmp_path_factory, worker_id), "pipeline")


def reached(names: list[str], found: dict[str, Any]) -> dict[str, set[str]]:
    """The scenarios each of `names` runs: those that call its reach, for a miniature that
    has one."""
    scenarios = {}
    for name in names:
        functions = reach_of(IMPLS[name])
        if functions and not reach.WHOLE:
            scenarios[name] = reach.functions_scenarios(functions, found)
            if not scenarios[name]:
                raise LookupError(f"no pipeline scenario calls the reach of {name!r}")
    return scenarios


@pytest.mark.parametrize("part", range(HALVES))
def test_each_implementation_fails_exactly_its_requirements(part: int,
                                                            pipeline_map: dict[str, Any]) -> None:
    """One suite run for every implementation of one half (collection happens once); each
    miniature fails exactly the requirements its defect breaks, and the reference none."""
    names = list(IMPLS)[part::HALVES]
    failed = failing_requirements({name: IMPLS[name]() for name in names}, SUITE,
                                  reach=reached(names, pipeline_map))
    assert {n: sorted(failed[n]) for n in names} == {n: sorted(WANTED[n]) for n in names}
