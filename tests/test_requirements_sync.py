"""Meta-tests for the `responses` and `runner` components: the requirement registries and the
`@req` tags of their feature files agree both ways, and every scenario carries a tag."""

from __future__ import annotations

import re

import pytest

from steps.paths import FEATURES
from steps.registry import load, tags_in

COMPONENTS = ("responses", "runner")
SCENARIO = re.compile(r"^\s*(Scenario|Scenario Outline|Example):")


@pytest.mark.parametrize("component", COMPONENTS)
def test_every_requirement_has_a_scenario_and_every_tag_a_requirement(component: str) -> None:
    registry = {r.id for r in load().values() if r.component == component}
    tags = {tag for tag, where in tags_in().items()
            if any(w.startswith(f"{component}/") for w in where)}
    assert registry - tags == set(), "requirements without a scenario"
    assert tags - registry == set(), "tags without a requirement"


@pytest.mark.parametrize("component", COMPONENTS)
def test_every_scenario_is_tagged_with_a_requirement(component: str) -> None:
    untagged = []
    for path in sorted((FEATURES / component).glob("*.feature")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if SCENARIO.match(line) and "@req:" not in lines[number - 1]:
                untagged.append(f"{path.name}:{number + 1}")
    assert untagged == []


@pytest.mark.parametrize("component", COMPONENTS)
def test_seed_statements_are_must_and_decisions_should(component: str) -> None:
    for req in (r for r in load().values() if r.component == component):
        if req.level == "MUST":
            assert req.source.startswith("seed "), req
        else:
            assert "decision" in req.source, req
