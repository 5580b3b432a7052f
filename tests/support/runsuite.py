"""Run the conformance suite programmatically and return requirement verdicts.

The reference's in-process verdicts are computed once per component, keyword and test session
and shared by every test that compares against them (real-cli aside: those tests change the
environment the scenarios see). A comparison of another driver with them takes them from the
slice's collection instead (`in_process`): in-process the reference passes every scenario, and
this same session's run of the suite (`steps/suite`) fails on any that fails. That run does
not fail on a scenario skipped or not applicable in-process: a comparison runs for real what
only an in-process agent is judged on.

`CROSS_DRIVER`: the scenarios the cross-driver comparisons run (the reference over the stdio
adapter and over DDS against the reference in-process). The drivers carry requests and answers
whatever the backend, so CI compares the backend-neutral scenarios and Claude's (about 40% of
the agent component's CPU); AGENT_TCK_CROSS_DRIVER=all compares every scenario.
"""

from __future__ import annotations

import argparse
import functools
import os

import pytest

from agent_tck.kit import failures, registry, verdicts
from agent_tck.kit import run as run_command
from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT
from tests.support.nested import unmeasured

CLAUDE_ONLY = "not codex and not gemini"  # claude's scenarios and the backend-neutral ones
CROSS_DRIVER = None if os.environ.get("AGENT_TCK_CROSS_DRIVER") == "all" else CLAUDE_ONLY


SHOWN = 50_000  # characters of `Verdicts.failures`: a broken adapter fails hundreds


class Verdicts(dict[str, str]):
    """Requirement ID -> verdict, and `failures`: the failed requirements with their failed
    scenarios as `agent-tck run` tells them (kit/failures.py), or, where none failed, the
    requirements not passed; for an assertion's message, so that a comparison that fails
    shows why, not only which."""

    failures = ""


def verdicts_for(
    impl: str,
    components: list[str],
    keyword: str | None = None,
    adapter_timeout: float = DEFAULT_TIMEOUT,
) -> Verdicts:
    """Requirement ID -> verdict for a run of `components` against `impl` ("not run" for a
    requirement none of whose scenarios `keyword` selects)."""
    return _verdicts(scenario_results(impl, components, keyword, adapter_timeout), impl,
                     components, keyword)


def in_process(components: list[str], keyword: str | None = None) -> Verdicts:
    """The reference's in-process verdicts on the scenarios `keyword` selects, each of them
    passed: the slice is collected, not run again (the suite's own run in this session,
    `steps/suite`, fails on any scenario that fails)."""
    results = _nested(_args("reference", components, keyword, DEFAULT_TIMEOUT),
                      "--collect-only", "-q")
    assert results, f"no scenario of {components} is selected by {keyword!r}"
    for result in results:
        result.verdict = verdicts.PASSED
    return _verdicts(results, "reference", components, keyword)


def _verdicts(results: list[verdicts.ScenarioResult], impl: str, components: list[str],
              keyword: str | None) -> Verdicts:
    judged = _fold(results, components, selected=keyword is not None)
    found = Verdicts({v.req.id: v.verdict for v in judged})
    unpassed = {rid: v for rid, v in found.items() if v != verdicts.PASSED}
    told = failures.explain(judged) or f"not passed: {unpassed}"
    cut = f"\n[... {len(told) - SHOWN} characters cut]" if len(told) > SHOWN else ""
    found.failures = f"against {impl}:\n{told[:SHOWN]}{cut}"
    return found


def folded(results: list[verdicts.ScenarioResult], components: list[str],
           selected: bool = False) -> dict[str, str]:
    """Requirement ID -> verdict of `components`' requirements, from scenario results (of a
    `selected` part of the scenarios: a requirement with none is "not run", not failed)."""
    return {v.req.id: v.verdict for v in _fold(results, components, selected)}


def _fold(results: list[verdicts.ScenarioResult], components: list[str],
          selected: bool) -> list[verdicts.ReqVerdict]:
    reqs = {k: v for k, v in registry.load().items() if v.component in components}
    return verdicts.fold(reqs, results, selected)


def scenario_results(
    impl: str,
    components: list[str],
    keyword: str | None = None,
    adapter_timeout: float = DEFAULT_TIMEOUT,
    reqs: list[str] | None = None,
) -> list[verdicts.ScenarioResult]:
    """What each scenario of a run of `components` against `impl` came to (of the scenarios
    `keyword` selects, and of those of the requirements `reqs`, when given)."""
    if impl == "reference" and "real-cli" not in components and reqs is None:
        return [result for c in components for result in _reference(c, keyword)]
    return _run(impl, components, keyword, adapter_timeout, reqs)


@functools.cache
def _reference(component: str, keyword: str | None) -> tuple[verdicts.ScenarioResult, ...]:
    return tuple(_run("reference", [component], keyword, DEFAULT_TIMEOUT))


def _run(
    impl: str, components: list[str], keyword: str | None, adapter_timeout: float,
    reqs: list[str] | None = None,
) -> list[verdicts.ScenarioResult]:
    return _nested(_args(impl, components, keyword, adapter_timeout, reqs))


def _nested(args: argparse.Namespace, *extra: str) -> list[verdicts.ScenarioResult]:
    """A conformance run of `args` in this process (`extra`: more pytest arguments), its
    scenarios' results."""
    collector = verdicts.Collector()
    with run_command.hermetic(), run_command.private_basetemp() as basetemp, unmeasured():
        code = pytest.main([*run_command.pytest_args(args), *basetemp, *extra],
                           plugins=[collector])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), code
    return list(collector.results.values())


def _args(impl: str, components: list[str], keyword: str | None, adapter_timeout: float,
          reqs: list[str] | None = None) -> argparse.Namespace:
    return argparse.Namespace(impl=impl, time_scale=0.02, component=components, keyword=keyword,
                              req=reqs, markexpr=None, adapter_timeout=adapter_timeout)


def failing(impl: str, components: list[str]) -> set[str]:
    return failing_in(scenario_results(impl, components), components)


def failing_in(results: list[verdicts.ScenarioResult], components: list[str],
               selected: bool = False) -> set[str]:
    """The requirements failed or errored in `results` (of a `selected` part of the
    scenarios: a requirement none of whose scenarios ran is not failed)."""
    return {rid for rid, v in folded(results, components, selected).items()
            if v in (verdicts.FAILED, verdicts.ERRORED)}
