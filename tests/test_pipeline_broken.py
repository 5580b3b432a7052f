"""The pipeline suite catches every broken implementation, and blames exactly the requirements
its defect breaks (tests/pipeline_miniatures.py); the reference passes."""

from __future__ import annotations

import functools

import pytest

from steps.drivers.inprocess import InProcessDriver
from tests.brokenrun import failing_requirements
from tests.pipeline_miniatures import EXPECTED

SUITE = "steps/suite/test_pipeline.py"
IMPLS = {"reference": InProcessDriver, **{m.__doc__ or m.__name__: m for m in EXPECTED}}
HALVES = 2  # CI's two test workers take one half each


def half(name: str) -> int:
    return list(IMPLS).index(name) % HALVES


@functools.cache
def failures(part: int) -> dict[str, set[str]]:
    """One suite run for every implementation of one half (collection happens once per run;
    cached, so a worker runs its half once however its tests are ordered)."""
    impls = {name: impl() for name, impl in IMPLS.items() if half(name) == part}
    return failing_requirements(impls, SUITE)


def grouped(name: str) -> pytest.MarkDecorator:
    """The xdist group of `name`'s half: the tests of one half go to one worker."""
    return pytest.mark.xdist_group(f"pipeline_broken_{half(name)}")


@grouped("reference")
def test_the_reference_passes() -> None:
    assert failures(half("reference"))["reference"] == set()


@pytest.mark.parametrize("miniature", [
    pytest.param(m, marks=grouped(m.__doc__ or m.__name__), id=m.__doc__) for m in EXPECTED])
def test_the_suite_catches(miniature: type[InProcessDriver]) -> None:
    name = miniature.__doc__ or miniature.__name__
    assert sorted(failures(half(name))[name]) == sorted(EXPECTED[miniature])
