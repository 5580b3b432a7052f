"""Run the conformance suite programmatically and return requirement verdicts.

The reference's in-process verdicts are computed once per component and test session and
shared by every test that compares against them (real-cli aside: those tests change the
environment the scenarios see)."""

from __future__ import annotations

import argparse
import functools

import pytest

from agent_tck.kit import registry, verdicts
from agent_tck.kit import run as run_command
from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT
from tests.support.nested import unmeasured


def verdicts_for(
    impl: str,
    components: list[str],
    keyword: str | None = None,
    adapter_timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, str]:
    """Requirement ID -> verdict for a run of `components` against `impl`."""
    return folded(scenario_results(impl, components, keyword, adapter_timeout), components)


def folded(results: list[verdicts.ScenarioResult], components: list[str]) -> dict[str, str]:
    """Requirement ID -> verdict of `components`' requirements, from scenario results."""
    reqs = {k: v for k, v in registry.load().items() if v.component in components}
    return {v.req.id: v.verdict for v in verdicts.fold(reqs, results)}


def scenario_results(
    impl: str,
    components: list[str],
    keyword: str | None = None,
    adapter_timeout: float = DEFAULT_TIMEOUT,
) -> list[verdicts.ScenarioResult]:
    """What each scenario of a run of `components` against `impl` came to."""
    if impl == "reference" and keyword is None and "real-cli" not in components:
        return [result for c in components for result in _reference(c)]
    return _run(impl, components, keyword, adapter_timeout)


@functools.cache
def _reference(component: str) -> tuple[verdicts.ScenarioResult, ...]:
    return tuple(_run("reference", [component], None, DEFAULT_TIMEOUT))


def _run(
    impl: str, components: list[str], keyword: str | None, adapter_timeout: float
) -> list[verdicts.ScenarioResult]:
    args = argparse.Namespace(
        impl=impl,
        time_scale=0.02,
        component=components,
        keyword=keyword,
        markexpr=None,
        adapter_timeout=adapter_timeout,
    )
    collector = verdicts.Collector()
    with run_command.private_basetemp() as basetemp, unmeasured():
        code = pytest.main([*run_command.pytest_args(args), *basetemp], plugins=[collector])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), code
    return list(collector.results.values())


def failing(impl: str, components: list[str]) -> set[str]:
    return failing_in(scenario_results(impl, components), components)


def failing_in(results: list[verdicts.ScenarioResult], components: list[str]) -> set[str]:
    """The requirements failed or errored in `results`."""
    return {rid for rid, v in folded(results, components).items()
            if v in (verdicts.FAILED, verdicts.ERRORED)}
