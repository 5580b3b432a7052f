"""The JUnit report is what the common CI viewers (Jenkins, GitLab, GitHub's reporters, Maven
Surefire's tools) accept: it validates against the strictest of their rules
(tests/schemas/junit.xsd), counts what it holds, and keeps each scenario's requirements where
every viewer shows them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from lxml import etree

from agent_tck.kit import registry, reports, verdicts
from agent_tck.kit.drivers.base import ImplInfo
from tests.test_reports import hostile_run

SCHEMA = etree.XMLSchema(etree.parse(str(Path(__file__).parent / "schemas" / "junit.xsd")))


def every_verdict() -> reports.Run:
    reqs = list(registry.load().values())[:6]
    outcomes = [
        (verdicts.PASSED, "", ""),
        (verdicts.FAILED, "E  AssertionError: exit code 1\nE  assert 1 == 0", "AssertionError: x"),
        (verdicts.ERRORED, "Timeout (>120.0s) from pytest-timeout.", "Failed: Timeout"),
        (verdicts.NA, "not applicable: codex only", ""),
        (verdicts.SKIPPED, "", ""),
        (verdicts.NOT_RUN, "", ""),
    ]
    scenarios = [
        verdicts.ScenarioResult(f"test_{i}[claude]", f"test_{i}", req.component, (req.id,),
                                verdict, evidence=evidence, error=error, duration=0.25)
        for i, (req, (verdict, evidence, error)) in enumerate(zip(reqs, outcomes, strict=True))
    ]
    info = ImplInfo("wrapper", "go", "1.2", ("agent",), ("claude",))
    return reports.Run(info, scenarios, verdicts.fold(registry.load(), scenarios), False, {}, [],
                       "NOT CONFORMANT")


@pytest.mark.parametrize("run", [every_verdict, hostile_run])
def test_the_report_validates_against_what_ci_viewers_accept(run: object) -> None:
    document = etree.fromstring(reports.to_junit(run()).encode())  # type: ignore[operator]
    SCHEMA.assertValid(document)


def test_the_suite_counts_what_it_holds_and_each_case_names_its_requirement() -> None:
    run = every_verdict()
    suite = etree.fromstring(reports.to_junit(run).encode())
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped", "time")} == {
        "tests": "6", "failures": "1", "errors": "1", "skipped": "3", "time": "1.500"}
    cases = suite.findall("testcase")
    assert [c.findtext("system-out") for c in cases] == [
        f"requirements: {s.reqs[0]}" for s in run.scenarios]
    [failure] = suite.iter("failure")
    assert (failure.get("type"), failure.get("message")) == ("AssertionError",
                                                            "E  assert 1 == 0")
    [error] = suite.iter("error")
    assert error.get("type") == "Failed" and "Timeout" in (error.text or "")
    assert [s.get("message") for s in suite.iter("skipped")] == [
        "not applicable: codex only", "skipped", "not run"]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props == {"implementation": "wrapper", "version": "1.2", "verdict": "NOT CONFORMANT"}


def test_each_case_is_classed_by_its_component_and_a_run_without_a_pass_counts_its_skips(
        ) -> None:
    run = every_verdict()
    suite = etree.fromstring(reports.to_junit(run).encode())
    assert [c.get("classname") for c in suite.findall("testcase")] == [
        s.component for s in run.scenarios]
    unpassed = [s for s in run.scenarios if s.verdict != verdicts.PASSED]
    none_passed = dataclasses.replace(run, scenarios=unpassed)
    suite = etree.fromstring(reports.to_junit(none_passed).encode())
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "5", "failures": "1", "errors": "1", "skipped": "3"}


def test_a_run_that_passed_everything_counts_no_failure_error_or_skip() -> None:
    """A CI viewer marks a suite red on any failure or error it counts."""
    run = every_verdict()
    passed = dataclasses.replace(run, scenarios=run.scenarios[:1])
    assert [s.verdict for s in passed.scenarios] == [verdicts.PASSED]
    suite = etree.fromstring(reports.to_junit(passed).encode())
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "1", "failures": "0", "errors": "0", "skipped": "0"}


def test_the_schema_refuses_what_strict_viewers_refuse() -> None:
    """The schema is not vacuous: per-testcase properties (pytest's record_property), a failure
    without its type and a count that is no number are each refused."""
    good = reports.to_junit(every_verdict())
    for bad in (good.replace("<system-out>requirements",
                             '<properties><property name="r" value="x" /></properties>'
                             "<system-out>requirements", 1),
                good.replace(' type="AssertionError"', "", 1),
                good.replace('tests="6"', 'tests="six"', 1)):
        assert bad != good
        assert not SCHEMA.validate(etree.fromstring(bad.encode())), bad[:300]
