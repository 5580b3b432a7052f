"""Steps of the `pipeline` component (seed 002): contracts validated through the driver, and
the orchestrator run on scripted agents in a sandbox. Thin: arrange through the world, act
through the driver, assert on what a user sees (the verdict, the outcome, the files on disk).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from pytest_bdd import given, parsers, then, when

from agent_tck.kit.drivers import Driver
from agent_tck.kit.paths import SCHEMAS
from agent_tck.steps.pipeline_world import (
    PipelineWorld,
    contains,
    error_matches,
    parse_expected,
    shown,
)


@pytest.fixture
def pipeline(driver: Driver, tmp_path: Path, time_scale: float) -> PipelineWorld:
    project = tmp_path / "project"
    project.mkdir()
    return PipelineWorld(driver, project, time_scale)


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


# --- GIVEN: documents -----------------------------------------------------------------------

@given(parsers.parse("the seed's example \"{name}\""))
def seed_example(pipeline: PipelineWorld, name: str) -> None:
    pipeline.document = pipeline.example(name)


@given(parsers.parse("the seed's example \"{name}\" with \"{old}\" replaced by \"{new}\""))
def seed_example_changed(pipeline: PipelineWorld, name: str, old: str, new: str) -> None:
    text = pipeline.example(name)
    assert old in text, f"{name} does not contain {old!r}"
    pipeline.document = text.replace(old, new, 1)


@given(parsers.re(r'an? "(?P<contract>[\w-]+)" document:'))
def document_of(pipeline: PipelineWorld, contract: str, docstring: str) -> None:
    pipeline.contract, pipeline.document = contract, docstring + "\n"


@given(parsers.re(r'an? "(?P<contract>[\w-]+)" document with U\+(?P<code>[0-9A-F]{4,6}) '
                  r'in place of "(?P<mark>[^"]+)":'))
def document_with(pipeline: PipelineWorld, contract: str, code: str, mark: str,
                  docstring: str) -> None:
    """A character a feature file cannot show, written where `mark` is."""
    document_of(pipeline, contract, docstring.replace(mark, chr(int(code, 16))))


@given("a document:")
def document(pipeline: PipelineWorld, docstring: str) -> None:
    pipeline.contract, pipeline.document = None, docstring + "\n"


@given(parsers.parse('a "{contract}" document of {size:d} MiB'))
def huge_document(pipeline: PipelineWorld, contract: str, size: int) -> None:
    pipeline.contract = contract
    pipeline.document = "status: success\ndata: " + "x" * (size * 1024 * 1024) + "\n"


@given(parsers.parse('a "{contract}" document of exactly {size:d} bytes'))
def sized_document(pipeline: PipelineWorld, contract: str, size: int) -> None:
    """A valid response padded with one string to `size` bytes."""
    pipeline.contract = contract
    head = "status: success\ndata: "
    pipeline.document = head + "x" * (size - len(head) - 1) + "\n"


@given(parsers.re(r'an? "(?P<contract>[\w-]+)" document nesting (?P<depth>\d+) lists'
                  r'(?P<around> around a value)?$'))
def deep_document(pipeline: PipelineWorld, contract: str, depth: str, around: str | None
                  ) -> None:
    pipeline.contract = contract
    inner = "1" if around else ""
    pipeline.document = f"status: success\ndata: {'[' * int(depth)}{inner}{']' * int(depth)}\n"


@given(parsers.parse('a "{contract}" document whose data is an integer of {digits:d} digits'))
def long_integer_document(pipeline: PipelineWorld, contract: str, digits: int) -> None:
    pipeline.contract = contract
    pipeline.document = "status: success\ndata: " + "7" * digits + "\n"


@given(parsers.parse('a "{contract}" document holding {count:d} lists side by side'))
def wide_document(pipeline: PipelineWorld, contract: str, count: int) -> None:
    pipeline.contract = contract
    pipeline.document = "status: success\ndata: [" + ", ".join(["[]"] * count) + "]\n"


@given(parsers.parse('a "{contract}" document holding {count:d} lists side by side, then '
                     '{depth:d} nested'))
def wide_then_deep_document(pipeline: PipelineWorld, contract: str, count: int,
                            depth: int) -> None:
    """`data` is one list: `count` empty lists, then `depth` lists one inside the other."""
    pipeline.contract = contract
    pipeline.document = ("status: success\ndata: [" + "[], " * count + "[" * depth + "]" * depth
                         + "]\n")


@given("the behavior bank of a metadata file:")
def behavior_bank(pipeline: PipelineWorld, docstring: str) -> None:
    pipeline.contract, pipeline.document = "metadata", docstring + "\n"


@given("its methods:")
def its_methods(pipeline: PipelineWorld, docstring: str) -> None:
    pipeline.document = f"{pipeline.document}{docstring}\n"


# --- WHEN: validation -----------------------------------------------------------------------

@when("it is validated")
def validated(pipeline: PipelineWorld) -> None:
    pipeline.validate(pipeline.contract)


@when(parsers.parse('it is validated as "{contract}"'))
def validated_as(pipeline: PipelineWorld, contract: str) -> None:
    pipeline.validate(contract)


@when("it is validated without naming a contract")
def validated_inferred(pipeline: PipelineWorld) -> None:
    pipeline.validate(None)


# --- THEN: verdicts -------------------------------------------------------------------------

@then("it is valid")
def is_valid(pipeline: PipelineWorld) -> None:
    assert pipeline.errors == [], f"expected no errors, got:\n{shown(pipeline.errors)}"
    assert pipeline.verdict is not None and pipeline.verdict["valid"] is True


@then(parsers.parse('the contract used is "{contract}"'))
def contract_used(pipeline: PipelineWorld, contract: str) -> None:
    assert pipeline.verdict is not None and pipeline.verdict["contract"] == contract, \
        f"contract used: {pipeline.verdict and pipeline.verdict['contract']!r}"


def _missing(pipeline: PipelineWorld, docstring: str
             ) -> tuple[list[tuple[int, int, str, str]], int]:
    """The expected errors the invalid verdict lacks, and how many were expected."""
    expected, actual = parse_expected(docstring), pipeline.errors
    assert pipeline.verdict is not None and pipeline.verdict["valid"] is False
    return [e for e in expected if not any(error_matches(a, e) for a in actual)], len(expected)


@then("it is invalid with these errors:")
def invalid_with(pipeline: PipelineWorld, docstring: str) -> None:
    missing, count = _missing(pipeline, docstring)
    assert not missing and len(pipeline.errors) == count, (
        f"expected {count} errors, missing {missing}; got:\n{shown(pipeline.errors)}")


@then("its errors include:")
def errors_include(pipeline: PipelineWorld, docstring: str) -> None:
    """These errors, and maybe others: what else a document holds is its own to judge."""
    missing, _ = _missing(pipeline, docstring)
    assert not missing, f"missing {missing}; got:\n{shown(pipeline.errors)}"


@then(parsers.parse('it is invalid with one error, at "{path}", saying "{words}"'))
def invalid_with_one(pipeline: PipelineWorld, path: str, words: str) -> None:
    errors = pipeline.errors
    assert len(errors) == 1, f"expected one error, got:\n{shown(errors)}"
    assert errors[0]["path"].startswith(path) and words in errors[0]["message"], shown(errors)


@then(parsers.parse('it is valid, or invalid with one error, at "{path}", on line {line:d}'))
def valid_or_invalid_at(pipeline: PipelineWorld, path: str, line: int) -> None:
    """What the document holds is the implementation's to read or refuse; a refusal still
    says where (PL-3.1), and a crash is neither (the scenario then errors before this step)."""
    errors = pipeline.errors
    assert pipeline.verdict is not None
    if pipeline.verdict["valid"] is True:
        assert errors == [], f"valid, yet with errors:\n{shown(errors)}"
        return
    assert len(errors) == 1, f"expected one error, got:\n{shown(errors)}"
    error = errors[0]
    assert (error["path"], error["line"]) == (path, line) and error["message"], shown(errors)


@then(parsers.parse('the "{contract}" schema\'s title says "{words}"'))
def schema_title(contract: str, words: str) -> None:
    schema = json.loads((SCHEMAS / "contracts" / f"{contract}.schema.json").read_text())
    assert words in schema["title"], schema["title"]


# --- GIVEN: the pipeline's world ------------------------------------------------------------

@given(parsers.parse('the source file "{path}", last modified at {mtime:d}'))
def source_file(pipeline: PipelineWorld, path: str, mtime: int) -> None:
    target = pipeline.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("class Subject\nend\n", encoding="utf-8")
    os.utime(target, (mtime, mtime))


@given(parsers.parse('the source file "{path}" is gone'))
def source_gone(pipeline: PipelineWorld, path: str) -> None:
    (pipeline.root / path).unlink()


@given(parsers.parse('the agents are handed over in the order "{names}"'))
def handed_over(pipeline: PipelineWorld, names: str) -> None:
    pipeline.order = _names(names)
    assert sorted(pipeline.order) == sorted(pipeline.agents), "every agent, once"


@given(parsers.parse('one more agent, "{name}", that the seed\'s sequence does not have'))
def foreign_agent(pipeline: PipelineWorld, name: str) -> None:
    assert name not in pipeline.agents, f"{name} is one of the seed's agents"
    pipeline.agents[name] = {"name": name, "response": "status: success\n"}
    pipeline.order.append(name)


@given(parsers.parse('only the agents "{names}"'))
def only_agents(pipeline: PipelineWorld, names: str) -> None:
    pipeline.order = _names(names)
    pipeline.agents = {name: pipeline.agents[name] for name in pipeline.order}


@given(parsers.re(r'the "(?P<agent>[\w-]+)"(, version "(?P<version>[^"]+)",)? writes:'))
def agent_writes(pipeline: PipelineWorld, agent: str, version: str | None,
                 docstring: str) -> None:
    pipeline.agents[agent]["writes"] = yaml.safe_load(docstring)
    if version:
        pipeline.agents[agent]["version"] = version


@given(parsers.parse('the "{agent}" answers:'))
def agent_answers(pipeline: PipelineWorld, agent: str, docstring: str) -> None:
    pipeline.agents[agent]["response"] = docstring + "\n"


@given(parsers.parse('the "{agent}" removes "{path}"'))
def agent_removes(pipeline: PipelineWorld, agent: str, path: str) -> None:
    pipeline.agents[agent]["removes"] = [path]


@given(parsers.parse('the "{agent}" crashes while its metadata file is being written'))
def agent_crashes_writing(pipeline: PipelineWorld, agent: str) -> None:
    pipeline.agents[agent]["crash_mid_write"] = True


@given(parsers.parse('the "{agent}" crashes before it answers, saying "{message}"'))
def agent_crashes(pipeline: PipelineWorld, agent: str, message: str) -> None:
    pipeline.agents[agent]["crashes"] = message


@given(parsers.parse('the sandbox\'s "{name}" is a symbolic link to a folder outside it'))
def linked_outside(pipeline: PipelineWorld, name: str) -> None:
    outside = pipeline.root.parent / "outside"
    outside.mkdir(parents=True, exist_ok=True)
    (pipeline.root / name).symlink_to(outside, target_is_directory=True)


@given(parsers.parse('the metadata file "{path}" holds:'))
def metadata_holds(pipeline: PipelineWorld, path: str, docstring: str) -> None:
    target = pipeline.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(docstring + "\n", encoding="utf-8")
    pipeline.held[path] = docstring + "\n"


@given(parsers.parse('the metadata file "{path}" is a folder'))
def metadata_is_folder(pipeline: PipelineWorld, path: str) -> None:
    (pipeline.root / path).mkdir(parents=True)


@given(parsers.parse('a metadata file with source_mtime {mtime:d} and the markers of "{names}"'))
def metadata_with_markers(pipeline: PipelineWorld, mtime: int, names: str) -> None:
    automation = {f"{n.replace('-', '_')}_completed": True for n in _names(names)}
    text = yaml.safe_dump({"source_mtime": mtime, "automation": automation})
    metadata_holds(pipeline, "tmp/rspec_metadata/app_services_payment_processor.yml", text)


# --- WHEN: the pipeline runs ----------------------------------------------------------------

@when(parsers.parse('the pipeline runs on "{source}"'))
def pipeline_runs(pipeline: PipelineWorld, source: str) -> None:
    pipeline.run_pipeline(source)


@when("the pipeline runs on an empty source path")
def pipeline_runs_on_nothing(pipeline: PipelineWorld) -> None:
    pipeline.run_pipeline("")


AROUND = {"a line break after it": "{}\n", "a space before it": " {}"}


@when(parsers.re(r'the pipeline runs on "(?P<source>[^"]+)" with '
                 r'(?P<around>a line break after it|a space before it)$'))
def pipeline_runs_around(pipeline: PipelineWorld, source: str, around: str) -> None:
    pipeline.run_pipeline(AROUND[around].format(source))


@when(parsers.parse('the pipeline is re-run from "{agent}" on "{source}"'))
def pipeline_reruns(pipeline: PipelineWorld, agent: str, source: str) -> None:
    pipeline.run_pipeline(source, start_at=agent)


# --- THEN: outcomes and files ---------------------------------------------------------------

def _outcome_is(run: dict[str, Any], outcome: str) -> None:
    assert run["outcome"] == outcome, f"outcome {run['outcome']!r}: {run['message']}"


@then(parsers.parse('the outcome is "{outcome}"'))
def outcome_is(pipeline: PipelineWorld, outcome: str) -> None:
    _outcome_is(pipeline.outcome, outcome)


@then(parsers.parse('the outcome is not "{outcome}"'))
def outcome_is_not(pipeline: PipelineWorld, outcome: str) -> None:
    run = pipeline.outcome
    assert run["outcome"] != outcome, f"outcome {run['outcome']!r}: {run['message']}"


@then(parsers.parse('the outcome is "{outcome}", before any agent, saying "{words}"'))
def outcome_before_agents(pipeline: PipelineWorld, outcome: str, words: str) -> None:
    run = pipeline.outcome
    _outcome_is(run, outcome)
    assert run["failed_agent"] is None, f"failed agent: {run['failed_agent']!r}"
    assert words in run["message"], f"message: {run['message']!r}"


@then(parsers.parse('the outcome is "{outcome}", for "{agent}", saying "{words}"'))
def outcome_for(pipeline: PipelineWorld, outcome: str, agent: str, words: str) -> None:
    run = pipeline.outcome
    _outcome_is(run, outcome)
    assert run["failed_agent"] == agent, f"failed agent: {run['failed_agent']!r}"
    assert words in run["message"], f"message: {run['message']!r}"


@then(parsers.parse('the pipeline stops with an error of the "{agent}"'))
def stops_with_error_of(pipeline: PipelineWorld, agent: str) -> None:
    """Its wording is the implementation's own: it must say something."""
    run = pipeline.outcome
    _outcome_is(run, "error")
    assert run["failed_agent"] == agent, f"failed agent: {run['failed_agent']!r}"
    assert str(run["message"] or "").strip(), "the error says nothing"


@then(parsers.parse('the outcome is "{outcome}", with the reason "{reason}"'))
def outcome_with_reason(pipeline: PipelineWorld, outcome: str, reason: str) -> None:
    _outcome_is(pipeline.outcome, outcome)
    assert pipeline.outcome["reason"] == reason, f"reason: {pipeline.outcome['reason']!r}"


@then(parsers.parse('the agents ran one at a time, in this order: "{names}"'))
def ran_in_order(pipeline: PipelineWorld, names: str) -> None:
    expected = [[what, n] for n in _names(names) for what in ("start", "end")]
    assert pipeline.outcome["calls"] == expected, f"calls: {pipeline.outcome['calls']}"


@then("no agent ran")
def no_agent_ran(pipeline: PipelineWorld) -> None:
    assert pipeline.outcome["calls"] == [], f"calls: {pipeline.outcome['calls']}"


@then(parsers.parse("{count:d} agents ran"))
def agents_ran(pipeline: PipelineWorld, count: int) -> None:
    started = [name for what, name in pipeline.outcome["calls"] if what == "start"]
    assert len(started) == len(set(started)) == count, f"started: {started}"


@then(parsers.parse('the only metadata file is "{path}"'))
def only_metadata_file(pipeline: PipelineWorld, path: str) -> None:
    found = sorted(str(p.relative_to(pipeline.root))
                   for p in (pipeline.root / "tmp").rglob("*") if p.is_file())
    assert found == [path], f"files under tmp/: {found}"


def _metadata(pipeline: PipelineWorld, path: str) -> Any:
    target = pipeline.root / path
    assert target.is_file(), f"{path} does not exist"
    return yaml.safe_load(target.read_text(encoding="utf-8"))


@then(parsers.parse('the metadata file "{path}" contains:'))
def metadata_contains(pipeline: PipelineWorld, path: str, docstring: str) -> None:
    actual = _metadata(pipeline, path)
    assert contains(actual, yaml.safe_load(docstring)), f"{path} holds:\n{actual}"


@then(parsers.parse('the metadata file "{path}" is as it was'))
def metadata_unchanged(pipeline: PipelineWorld, path: str) -> None:
    assert path in pipeline.held, f"no step wrote {path}: nothing to compare with"
    now = (pipeline.root / path).read_text(encoding="utf-8")
    assert now == pipeline.held[path], f"{path} now holds:\n{now}"


@then(parsers.parse('the metadata file "{path}" has no "{marker}" marker'))
def metadata_lacks(pipeline: PipelineWorld, path: str, marker: str) -> None:
    automation = (_metadata(pipeline, path) or {}).get("automation") or {}
    assert marker not in automation, f"automation: {automation}"


@then(parsers.parse('"{directory}" holds no other file'))
def holds_no_other_file(pipeline: PipelineWorld, directory: str) -> None:
    found = sorted(p.name for p in (pipeline.root / directory).iterdir())
    assert found == ["app_services_payment_processor.yml"], f"{directory} holds {found}"


@then(parsers.parse('the pipeline is refused, saying "{words}"'))
def refused(pipeline: PipelineWorld, words: str) -> None:
    _outcome_is(pipeline.outcome, "refused")
    assert words in pipeline.outcome["message"], pipeline.outcome["message"]


@then("the sandbox holds no metadata file")
def no_metadata_anywhere(pipeline: PipelineWorld) -> None:
    found = [str(p) for p in pipeline.root.parent.rglob("*.yml")]
    assert found == [], f"metadata written: {found}"
