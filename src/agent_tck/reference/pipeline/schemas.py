"""The contract schemas (`schemas/contracts/*.schema.json`): loading, and which one a document is.

Each contract is one JSON Schema (draft 2020-12) named after the agent whose output it
describes; `defs` holds what they share. Validators are built once and cached.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agent_tck.reference.exceptions import ContractError

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas" / "contracts"
SUFFIX = ".schema.json"

AGENTS = ("discovery-agent", "code-analyzer", "isolation-decider", "test-architect",
          "factory-agent", "test-implementer", "test-reviewer")
CONTRACTS = ("response", "error", *AGENTS, "metadata")

# What a document holds under `data` that names the agent that wrote it.
DATA_KEYS = (("behaviors", "code-analyzer"), ("factories", "factory-agent"),
             ("files_created", "test-implementer"), ("tests_passed", "test-reviewer"),
             ("methods", "isolation-decider"))


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """Every schema file by name (`code-analyzer`, `defs`, ...)."""
    return {p.name.removesuffix(SUFFIX): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(SCHEMA_DIR.glob(f"*{SUFFIX}"))}


@cache
def registry() -> Registry[Any]:
    resources = [(s["$id"], Resource.from_contents(s)) for s in schemas().values()]
    return Registry().with_resources(resources)


@cache
def validator(contract: str) -> Draft202012Validator:
    """The validator of one contract; `ContractError` if there is no such contract."""
    if contract not in CONTRACTS:
        raise ContractError(f"unknown contract {contract!r}: expected one of"
                            f" {', '.join(CONTRACTS)}")
    return Draft202012Validator(schemas()[contract], registry=registry())


def infer_contract(value: Any, source: str = "") -> str:
    """The contract a document claims by its shape, when the user did not name one.

    A file under `rspec_metadata/` or without `status` is a metadata file; an error response is
    `error`; otherwise the keys each agent's output alone has decide, else the plain envelope.
    """
    if "rspec_metadata" in Path(source).parts[:-1] or not isinstance(value, dict):
        return "metadata"
    if "status" not in value:
        return "metadata"
    if value.get("status") == "error":
        return "error"
    if {"method_waves", "reason"} & value.keys() or value.get("status") == "stop":
        return "discovery-agent"
    if {"structure", "spec_file"} & value.keys():
        return "test-architect"
    data = value.get("data")
    if isinstance(data, dict):
        for key, contract in DATA_KEYS:
            if key in data:
                return contract
    return "response"
