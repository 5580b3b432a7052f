"""The adapter protocol's schemas (schemas/adapter/), one validator per message kind."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from agent_tck.kit.paths import SCHEMAS

MAX_INLINE = 16


@cache
def registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.rglob("*.schema.json")):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """The validator of `schemas/adapter/<name>.schema.json` (e.g. `start.request`), its
    references inlined once: resolving a `$ref` per array item made a 10,000-event answer
    cost seconds."""
    schema = json.loads((SCHEMAS / "adapter" / f"{name}.schema.json").read_text())
    inlined = inline(schema, registry().resolver(schema["$id"]))
    return jsonschema.Draft202012Validator(inlined, registry=registry())


def inline(node: Any, resolver: Any, depth: int = 0) -> Any:
    """`node` with every `$ref` replaced by what it points to, its siblings kept beside it
    (`allOf`). The protocol's schemas are not recursive: a chain deeper than MAX_INLINE is an
    error here rather than a reference left to resolve against the wrong base."""
    if isinstance(node, list):
        return [inline(item, resolver, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return {k: inline(v, resolver, depth) for k, v in node.items()}
    if depth >= MAX_INLINE:
        raise ValueError(f"$ref {ref!r}: references nested deeper than {MAX_INLINE}")
    resolved = resolver.lookup(ref)
    target = {k: v for k, v in resolved.contents.items() if k not in ("$id", "$schema")}
    target = inline(target, resolved.resolver, depth + 1)
    rest = {k: inline(v, resolver, depth) for k, v in node.items() if k != "$ref"}
    if not rest:
        return target
    return {**rest, "allOf": [*rest.get("allOf", []), target]}


def commands() -> list[str]:
    return sorted(
        p.name.removesuffix(".request.schema.json")
        for p in (SCHEMAS / "adapter").glob("*.request.schema.json")
    )


def problems(name: str, message: Any) -> list[str]:
    """Every way `message` breaks its schema, each with its JSON path, in JSON's words (an
    adapter may be written in any language: `null`, not Python's `None`)."""
    return [
        f"{e.json_path}: {said(e)}"
        for e in sorted(validator(name).iter_errors(message), key=lambda e: e.json_path)
    ]


def said(error: jsonschema.ValidationError) -> str:
    """`error` with its values written as JSON; jsonschema's own message (Python's reprs) for a
    keyword not listed here."""
    keyword, found = error.validator, error.instance
    wanted: Any = error.validator_value
    if keyword == "type":
        kinds = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return f"{_json(found)} is not of type {kinds}"
    if keyword == "required" and isinstance(found, dict):
        missing = [name for name in wanted if name not in found]
        return f"missing {', '.join(_json(name) for name in missing)} (required)"
    if keyword == "enum":
        return f"{_json(found)} is not one of {_json(wanted)}"
    if keyword == "const":
        return f"{_json(found)} is not {_json(wanted)}"
    return str(error.message)


def _json(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else f"{text[:limit]}..."
