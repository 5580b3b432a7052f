"""A CLI's stream lines as it prints them, whatever the CLI (decision D-1).

Each backend's builders (`<backend>/lines.py`) return one JSON object as the CLI prints it on
one line. They write the fields that matter; `complete` adds every other field a recorded line
of the same shape has, so each line is valid against schemas/cli/ with its required fields
(tests/test_transcripts.py): the suite never emits flat shapes that no real CLI prints.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import uuid
from collections.abc import Callable

from agent_tck.doubles.backends.base import Line

# Objects whose keys are the tool's or the model's, not the CLI's: only their type is checked
# (doubles/realcli/shapes.py), and a template never fills them.
FREE_FORM = {"input", "arguments", "result", "tool_use_result", "modelUsage", "parameters",
             "models"}
Shape = Callable[[Line], str]  # the shape a line belongs to in schemas/cli, e.g. `system/init`

_ids = itertools.count(1)


def uid() -> str:
    return str(uuid.uuid4())


def next_id() -> int:
    """A number no other line of this process was given."""
    return next(_ids)


@functools.cache
def _templates(backend: str, shape: Shape) -> dict[str, Line]:
    """The first real line of each shape of `backend`: recorded runs first, then the
    documented lines (fixtures/transcripts), the sources of schemas/cli/."""
    from agent_tck.doubles.backends.transcripts import documented, index

    recorded = [raw for t in index() if t.backend == backend for raw in t.lines()]
    found: dict[str, Line] = {}
    for raw in [*recorded, *documented(backend)]:
        value = json.loads(raw)
        found.setdefault(shape(value), value)
    return found


def complete(backend: str, shape: Shape, line: Line) -> Line:
    """`line` with the fields it leaves out taken from a recorded line of its shape; its own
    fields and their order are kept. A shape never recorded is returned as it is."""
    template = _templates(backend, shape).get(shape(line))
    return line if template is None else _merge(line, template)


def _merge(line: Line, template: Line) -> Line:
    merged = dict(line)
    for key, value in template.items():
        if key not in merged:
            merged[key] = copy.deepcopy(value)
        elif isinstance(merged[key], dict) and isinstance(value, dict) and key not in FREE_FORM:
            merged[key] = _merge(merged[key], value)
    return merged
