"""The adapter protocol's schemas (schemas/adapter/), one validator per message kind."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from steps.paths import SCHEMAS


@cache
def registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.rglob("*.schema.json")):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """The validator of `schemas/adapter/<name>.schema.json` (e.g. `start.request`)."""
    schema = json.loads((SCHEMAS / "adapter" / f"{name}.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema, registry=registry())


def commands() -> list[str]:
    return sorted(
        p.name.removesuffix(".request.schema.json")
        for p in (SCHEMAS / "adapter").glob("*.request.schema.json")
    )


def problems(name: str, message: Any) -> list[str]:
    """Every way `message` breaks its schema, each with its JSON path."""
    return [
        f"{e.json_path}: {e.message}"
        for e in sorted(validator(name).iter_errors(message), key=lambda e: e.json_path)
    ]
