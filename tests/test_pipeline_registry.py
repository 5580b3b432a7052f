"""The pipeline's requirement registry and its feature tags agree, both ways."""

from __future__ import annotations

from steps import registry


def pipeline_requirements() -> dict[str, registry.Requirement]:
    return {k: v for k, v in registry.load().items() if v.component == "pipeline"}


def test_every_requirement_has_a_scenario_and_every_tag_a_requirement() -> None:
    tags = {t: where for t, where in registry.tags_in().items()
            if any(w.startswith("pipeline/") for w in where)}
    assert set(pipeline_requirements()) == set(tags)


def test_musts_cite_the_seed_and_shoulds_a_decision_or_the_issue() -> None:
    for req in pipeline_requirements().values():
        if req.level == "MUST":
            assert req.source.startswith("002_b146205674f7a9a3.txt"), req.id
        else:
            assert req.source.startswith(("decision D-10", "issue 5")), req.id
