"""The contract schemas: valid against the metaschema, consistently named, and every seed
example valid against its contract (with the plain jsonschema library, not only ours)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from agent_tck.reference.pipeline import schemas

SCHEMA_FILES = sorted(schemas.SCHEMA_DIR.glob("*.schema.json"))
EXAMPLES = sorted((schemas.SCHEMA_DIR / "examples").glob("*.yml"))


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_is_valid_against_the_metaschema(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_id_names_its_file(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema["$id"] == f"https://agent-tck.example/schemas/contracts/{path.name}"


def test_every_contract_has_a_schema_and_examples() -> None:
    names = {p.name.removesuffix(".schema.json") for p in SCHEMA_FILES}
    assert names == {*schemas.CONTRACTS, "defs"}
    assert {p.name.split(".")[0] for p in EXAMPLES} == set(schemas.CONTRACTS)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_seed_example_is_valid_with_plain_jsonschema(path: Path) -> None:
    validator = schemas.validator(path.name.split(".")[0])
    assert list(validator.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8")))) == []


def test_the_factory_agent_contract_is_labelled_ours() -> None:
    schema = schemas.schemas()["factory-agent"]
    assert schema["title"] == "factory-agent output (ours: decision D-10)"
    assert schema["$comment"] == "agent-tck decision D-10: not from the seed."


@pytest.mark.parametrize(("definition", "words"), [
    ("response_status", ["success", "error", "skip"]),
    ("discovery_status", ["success", "stop", "error"]),
    ("stop_reason", ["red_zone_new_code", "user_cancelled"]),
    ("method_mode", ["new", "modified", "unchanged"]),
    ("zone", ["green", "yellow", "red"]),
    ("characteristic_type", ["boolean", "presence", "enum", "range", "sequential"]),
    ("setup_type", ["model", "data", "action"]),
    ("behavior_type", ["terminal", "success", "side_effect"]),
    ("side_effect_subtype", ["webhook", "email"]),
])
def test_enums_are_the_seeds_words(definition: str, words: list[str]) -> None:
    assert schemas.schemas()["defs"]["$defs"][definition]["enum"] == words


@pytest.mark.parametrize(("value", "source", "contract"), [
    ({"status": "success"}, "tmp/rspec_metadata/a.yml", "metadata"),
    ([1, 2], "x.yml", "metadata"),
    ({"status": "error", "error": "x"}, "x.yml", "error"),
    ({"status": "success", "reason": "x"}, "x.yml", "discovery-agent"),
    ({"status": "success", "data": {"methods": []}}, "x.yml", "isolation-decider"),
    ({"status": "success", "data": "text"}, "x.yml", "response"),
])
def test_infer_contract(value: object, source: str, contract: str) -> None:
    assert schemas.infer_contract(value, source) == contract


def test_an_unknown_contract_is_named_in_the_error() -> None:
    with pytest.raises(ValueError) as caught:
        schemas.validator("coder")
    assert str(caught.value) == (
        "unknown contract 'coder': expected one of response, error, discovery-agent,"
        " code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer,"
        " test-reviewer, metadata")
