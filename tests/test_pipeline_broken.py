"""The pipeline suite catches every broken implementation, and blames exactly the requirements
its defect breaks (tests/miniatures/pipeline.py); the reference passes."""

from __future__ import annotations

import pytest

from agent_tck.kit.drivers.inprocess import InProcessDriver
from tests.miniatures.pipeline import EXPECTED
from tests.support.pipeline_run import failing_requirements

# A nested conformance run of every pipeline miniature: each scenario has its own deadline in
# it; the project-wide guard of 120 s would fail a slow machine on time alone (docs/flakes.md).
pytestmark = pytest.mark.timeout(600)

SUITE = "steps/suite/test_pipeline.py"
IMPLS = {"reference": InProcessDriver, **{m.__doc__ or m.__name__: m for m in EXPECTED}}
WANTED = {"reference": set(), **{m.__doc__ or m.__name__: reqs for m, reqs in EXPECTED.items()}}
HALVES = 2  # one suite run per half, so CI's two workers can take one each


@pytest.mark.parametrize("part", range(HALVES))
def test_each_implementation_fails_exactly_its_requirements(part: int) -> None:
    """One suite run for every implementation of one half (collection happens once); each
    miniature fails exactly the requirements its defect breaks, and the reference none."""
    names = list(IMPLS)[part::HALVES]
    failed = failing_requirements({name: IMPLS[name]() for name in names}, SUITE)
    assert {n: sorted(failed[n]) for n in names} == {n: sorted(WANTED[n]) for n in names}
