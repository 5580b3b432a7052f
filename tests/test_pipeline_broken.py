"""The pipeline suite catches every broken implementation, and blames exactly the requirements
its defect breaks (tests/pipeline_miniatures.py); the reference passes."""

from __future__ import annotations

import pytest

from steps.drivers.inprocess import InProcessDriver
from tests.brokenrun import failing_requirements
from tests.pipeline_miniatures import EXPECTED

SUITE = "steps/suite/test_pipeline.py"
IMPLS = {"reference": InProcessDriver, **{m.__doc__ or m.__name__: m for m in EXPECTED}}


@pytest.fixture(scope="module")
def failures() -> dict[str, set[str]]:
    return failing_requirements({name: impl() for name, impl in IMPLS.items()}, SUITE)


def test_the_reference_passes(failures: dict[str, set[str]]) -> None:
    assert failures["reference"] == set()


@pytest.mark.parametrize("miniature", list(EXPECTED), ids=lambda m: m.__doc__)
def test_the_suite_catches(miniature: type[InProcessDriver],
                           failures: dict[str, set[str]]) -> None:
    assert sorted(failures[miniature.__doc__ or ""]) == sorted(EXPECTED[miniature])
