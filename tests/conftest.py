"""Hypothesis without its wall-clock checks: a per-example deadline and the "input generation
is slow" health check measure how busy the machine is, not the property under test. The
slowest test modules first, so that the workers do not end on one long test alone. And what
collection built is frozen out of the garbage collector's sweeps: each nested conformance run
allocates enough to trigger full collections, which walked the whole session's heap again
(GC time of eight broken-runner runs 1.4 -> 0.6 s of CPU)."""

import gc

import pytest
from hypothesis import HealthCheck, settings

# The modules whose tests take minutes (nested conformance runs, a wheel built and installed),
# by cost; everything else keeps its order after them.
SLOW_FIRST = ("test_stdio_driver.py", "test_packaging.py", "test_pipeline_broken.py",
              "test_examples.py", "test_broken.py", "test_broken_dds.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_collection_finish() -> None:
    gc.freeze()

settings.register_profile(
    "agent-tck", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=5000
)  # on demand: pytest tests/test_fuzz.py --hypothesis-profile deep
settings.load_profile("agent-tck")
