"""Hypothesis without its wall-clock checks: a per-example deadline and the "input generation
is slow" health check measure how busy the machine is, not the property under test. The
tests dealt to the workers longest first, as `agent-tck run -n N` deals its scenarios
(kit/schedule.py), by the times tests/durations.json records (`python -m benchmarks.testcpu
DIR --durations tests/durations.json` writes it), so that the workers do not end on one
long test alone: sorting the slowest modules to the front, as before, gave them all to the
first worker's slice, from which the others stole them late. And what
collection built is frozen out of the garbage collector's sweeps: each nested conformance run
allocates enough to trigger full collections, which walked the whole session's heap again
(GC time of eight broken-runner runs 1.4 -> 0.6 s of CPU)."""

import gc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from agent_tck.kit.schedule import Scheduler

DURATIONS = Path(__file__).with_name("durations.json")


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return Scheduler(DURATIONS).pytest_xdist_make_scheduler(config, log)


def pytest_collection_finish() -> None:
    gc.freeze()

settings.register_profile(
    "agent-tck", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=5000
)  # on demand: pytest tests/test_fuzz.py --hypothesis-profile deep
settings.load_profile("agent-tck")
