"""Hypothesis without its wall-clock checks: a per-example deadline and the "input generation
is slow" health check measure how busy the machine is, not the property under test. The
tests dealt to the workers longest first, as `agent-tck run -n N` deals its scenarios
(kit/schedule.py), by the times tests/durations.json records (`python -m benchmarks.testcpu
DIR --durations tests/durations.json` writes it), so that the workers do not end on one
long test alone (sorting the slowest modules to the front would give them all to the first
worker's slice, from which the others steal them late), and the tests that mostly wait
apart from those that compute (tests/support/dealing.py). Coverage of `reference/` (the gate of
`python -m tests`) is measured in the tests that reach it in their own process: the
conformance scenarios and the tests of the reference's parts (`MEASURED`); in the others
(reports, packaging, the mutation tool, nested runs) the tracer would only add its cost. And
what collection built is frozen out of the garbage collector's sweeps: each nested
conformance run allocates enough to trigger full collections, which would walk the whole
session's heap again."""

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from agent_tck.kit.schedule import Scheduler
from tests.support.dealing import WaitingApart
from tests.support.nested import unmeasured

DURATIONS = Path(__file__).with_name("durations.json")
# Together these reach every line and branch of `reference/` the whole session reaches (a run
# with a coverage context per test shows it); the rest, most of the tests' CPU, reach none
# that these do not (docs/benchmarks.md). A test of a part of the reference belongs here.
MEASURED = {
    "test_adapter_unit.py", "test_agent_unit.py", "test_commands.py", "test_dds_cli.py",
    "test_dds_exposure.py", "test_dds_inprocess.py", "test_dds_service.py", "test_fuzz.py",
    "test_pipeline_cli.py", "test_pipeline_loader.py", "test_pipeline_orchestrator.py",
    "test_pipeline_schemas.py", "test_pipeline_validate.py", "test_responses.py",
    "test_runner.py", "test_supervisor.py",
}
SUITE = (Path(__file__).resolve().parent.parent / "steps" / "suite").resolve()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if item.path.name in MEASURED or item.path.resolve().parent == SUITE:
        yield
        return
    with unmeasured():
        yield


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return Scheduler(DURATIONS, WaitingApart).pytest_xdist_make_scheduler(config, log)


def pytest_collection_finish() -> None:
    gc.freeze()

settings.register_profile(
    "agent-tck", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=5000
)  # on demand: pytest tests/test_fuzz.py --hypothesis-profile deep
settings.load_profile("agent-tck")
