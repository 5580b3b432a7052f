"""JSON Schemas of the raw lines each real CLI prints, built from recorded transcripts.

Lines are grouped by shape: Claude's by `type` (and `subtype` for `system` and `result`
lines), Codex's by `type` (and the item's `type` for item events). Each shape's schema is
inferred from every line of that shape in fixtures/transcripts/ (recorded runs, plus the
hand-written documented-<backend>.jsonl for shapes no scripted run produces): the fields seen,
their JSON types, the fields present every time (required), and no others, down to
STRICT_DEPTH levels of nesting. `problems()` checks lines against it and says which line,
which shape and which field differ, so a new CLI version that prints something new is caught
by name (tests/test_transcripts.py).

    python -m agent_tck.doubles.realcli.shapes   # rebuild schemas/cli/*.schema.json from fixtures
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.backends.lines import FREE_FORM
from agent_tck.kit.paths import SCHEMAS

CLI_SCHEMAS = SCHEMAS / "cli"
STRICT_DEPTH = 4  # objects nested deeper are only checked to be objects
JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
              (list, "array"), (dict, "object"), (type(None), "null"))


def shape_of(backend: str, line: dict[str, Any]) -> str:
    """The shape a decoded line belongs to, e.g. `system/init` or `item.completed/agent_message`."""
    return PROFILES[backend].shape_of(line)


def _json_type(value: Any) -> str:
    return next(name for cls, name in JSON_TYPES if type(value) is cls)


def infer(values: list[Any], depth: int = 0, free: bool = False) -> dict[str, Any]:
    """The narrowest schema (of this module's kind) that every value satisfies."""
    types = sorted({_json_type(v) for v in values})
    schema: dict[str, Any] = {"type": types[0] if len(types) == 1 else types}
    if free:
        return schema
    objects = [v for v in values if isinstance(v, dict)]
    if objects and depth < STRICT_DEPTH:
        keys = sorted({k for o in objects for k in o})
        schema["properties"] = {
            k: infer([o[k] for o in objects if k in o], depth + 1, k in FREE_FORM) for k in keys
        }
        schema["required"] = [k for k in keys if all(k in o for o in objects)]
        schema["additionalProperties"] = False
    items = [i for v in values if isinstance(v, list) for i in v]
    if items:
        schema["items"] = infer(items, depth + 1)
    return schema


def build(backend: str, lines: Iterable[str]) -> dict[str, Any]:
    """The schema of `backend`'s lines: one definition per shape, chosen by `shape_of`."""
    by_shape: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # not a shape: problems() reports it
        if not isinstance(value, dict):
            continue
        by_shape.setdefault(shape_of(backend, value), []).append(value)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://agent-tck.dev/schemas/cli/{backend}.schema.json",
        "title": f"Lines of `{PROFILES[backend].title}`",
        "description": "Built by `python -m agent_tck.doubles.realcli.shapes` from "
                       "fixtures/transcripts/ (recorded real runs and documented shapes); do not "
                       "edit by hand.",
        "$defs": {shape: infer(values) for shape, values in sorted(by_shape.items())},
    }


def problems(
    backend: str, schema: dict[str, Any], lines: Iterable[str], where: str
) -> list[str]:
    """One message per line that is not JSON, of an unknown shape, or off its shape's schema."""
    found = []
    for number, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            found.append(f"{where}:{number}: not JSON ({exc})")
            continue
        definitions = schema["$defs"]
        found += [f"{where}:{number}: {p}" for p in _off_shape(backend, value, definitions)]
    return found


def off_schema(backend: str, value: Any) -> list[str]:
    """What makes one decoded line unlike the lines of `backend` in schemas/cli/."""
    text = json.dumps(value, sort_keys=True)
    if len(text) > REMEMBERED:  # the hostile scenarios' megabyte lines: checked, not kept
        return _off_shape(backend, value, load_cached(backend)["$defs"])
    return list(_off_text(backend, text))


REMEMBERED = 64 * 1024  # the longest line whose answer is remembered


@functools.lru_cache(maxsize=4096)
def _off_text(backend: str, text: str) -> tuple[str, ...]:
    """off_schema of the line `text`, remembered: every scenario checks the lines its script
    makes the fake harness print, most of them the same lines (half a second of CPU in a
    run of the agent component, most of it building validators)."""
    return tuple(_off_shape(backend, json.loads(text), load_cached(backend)["$defs"]))


def _off_shape(backend: str, value: Any, definitions: dict[str, Any]) -> list[str]:
    shape = shape_of(backend, value) if isinstance(value, dict) else "not an object"
    definition = definitions.get(shape)
    if definition is None:
        return [f"a shape we do not know: {shape}"]
    return [f"{shape}: field {'/'.join(str(p) for p in e.absolute_path) or '(the line)'}: "
            f"{e.message}" for e in jsonschema.Draft202012Validator(definition).iter_errors(value)]


def schema_path(backend: str) -> Path:
    return CLI_SCHEMAS / f"{backend}.schema.json"


def load(backend: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_path(backend).read_text(encoding="utf-8"))
    return loaded


load_cached = functools.cache(load)


def expected(backend: str) -> dict[str, Any]:
    """The schema the fixtures give now."""
    from agent_tck.doubles.backends.transcripts import documented, index

    lines = [line for t in index() if t.backend == backend for line in t.lines()]
    return build(backend, [*lines, *documented(backend)])


def write_schemas() -> None:
    from agent_tck.kit.files import write_atomically

    CLI_SCHEMAS.mkdir(exist_ok=True)
    for backend in PROFILES:
        write_atomically(schema_path(backend), json.dumps(expected(backend), indent=2) + "\n")
        print(f"wrote {schema_path(backend)}")


if __name__ == "__main__":
    write_schemas()
    sys.exit(0)
