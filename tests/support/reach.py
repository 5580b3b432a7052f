"""Which scenarios a broken agent's defect can change, so that CI runs those alone.

A miniature broken agent (tests/miniatures/agent.py) is the reference with one defect, and
says where the defect is: its `reach`, places in `reference/` whose lines it changes. A
scenario that runs none of those lines in the reference runs nothing the defect changed, so
its verdict is the reference's (every scenario passes against the reference: the control
tests). So the broken agent is judged on the scenarios that run its reach, and the others
count as not run; where no scenario runs its reach, that is an error of the test.

Which scenario runs which line comes from a run of the reference's agent component under
coverage (`mutation.scenarios`, the map the mutation tool judges mutants by), with the time
scale of the nested runs, made once per test session and shared by its workers (the agent
component's in shards run at once, their maps merged: `SHARDS`). A place:

    reference/supervisor.py:Supervisor._enforce            every line of that function
    reference/supervisor.py:Supervisor._enforce:os.kill(   its lines that contain the text

A broken agent with no reach (its defect shows in every request) is judged in CI on the
scenarios of the requirements it must fail (tests/test_broken.py). AGENT_TCK_BROKEN=whole runs
every scenario for every broken agent (on demand, CONTRIBUTING.md): the check that no reach is
too narrow, and that a defect with none fails nothing more. One too narrow in the other way (a
requirement its defect breaks in no scenario of its reach) fails in CI too: that requirement
is then not run, not failed.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mutation import listed
from mutation.plan import Planner
from mutation.scenarios import AT_COLLECTION, ROOT, merged
from tests.support.once import made_once

WHOLE = os.environ.get("AGENT_TCK_BROKEN") == "whole"
MAP_OPTIONS = ("--time-scale", "0.02")  # tests/support/runsuite.py's nested runs
# The agent component's map, run whole, mostly waits (its scenarios' deadlines), and every
# broken agent's test waits for it: its shards are run at once and their maps merged.
SHARDS = {"agent": 4}


def lines_of(place: str) -> tuple[str, set[int]]:
    """The file and line numbers of `place` (see the module's docstring)."""
    where, qualname, *text = place.split(":", 2)
    source = (ROOT / where).read_text()
    node = _function(ast.parse(source), qualname.split("."), place)
    assert node.end_lineno is not None
    numbers = set(range(node.lineno, node.end_lineno + 1))
    if text:
        lines = source.splitlines()
        numbers = {n for n in numbers if text[0] in lines[n - 1]}
    if not numbers:
        raise LookupError(f"reach {place!r}: no line of {qualname} contains {text[0]!r}")
    return where, numbers


def _function(tree: ast.AST, names: list[str], place: str) -> ast.AST:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == names[0]:
            return node if len(names) == 1 else _function(node, names[1:], place)
    raise LookupError(f"reach {place!r}: {names[0]} is not defined there")


def scenarios(places: tuple[str, ...], found: dict[str, Any]) -> set[str]:
    """The scenarios (test function names) that run any line of `places`, in the reference
    and in the processes it starts (the reaper), as the mutation tool finds a mutant's: a line
    of a statement written over several counts as the statement's first, which coverage
    records."""
    return _running([lines_of(place) for place in places], found)


def functions_scenarios(functions: tuple[Any, ...], found: dict[str, Any]) -> set[str]:
    """The scenarios that run any line of `functions` (of `reference/`): a scenario that calls
    none of them calls none of what a miniature puts in their place either."""
    return _running([_lines_of_function(f) for f in functions], found)


def _lines_of_function(function: Any) -> tuple[str, set[int]]:
    source = inspect.getsourcefile(function)
    if source is None:
        raise LookupError(f"reach {function!r}: no source file")
    lines, first = inspect.getsourcelines(function)
    return str(listed(Path(source), ROOT)), set(range(first, first + len(lines)))


def _running(places: list[tuple[str, set[int]]], found: dict[str, Any]) -> set[str]:
    planner = Planner({"map": found})
    names: set[str] = set()
    for where, numbers in places:
        ran = planner.by_line("map", where)
        names.update(n for line in numbers for first in planner.statements(where, line, line)
                     for n in ran.get(first, ()))
    return names - {AT_COLLECTION}


def keyword(places: tuple[str, ...], found: dict[str, Any]) -> str:
    """A -k expression that selects the scenarios that run `places` (pytest's -k matches a
    name by part, so it may select a few more: that is safe)."""
    return _selecting(scenarios(places, found), places, "agent")


def functions_keyword(functions: tuple[Any, ...], found: dict[str, Any], component: str) -> str:
    """A -k expression that selects the scenarios of `component`'s map `found` that call
    `functions` (as `keyword`)."""
    return _selecting(functions_scenarios(functions, found), functions, component)


def _selecting(names: set[str], reach: tuple[Any, ...], component: str) -> str:
    if not names:
        raise LookupError(f"no scenario of the {component} component runs the reach {reach}")
    return " or ".join(sorted(names))


def shared_map(root: Path, component: str = "agent") -> dict[str, Any]:
    """`component`'s map, made by the first worker that asks and kept in `root` (the
    directory every worker of the session shares): in `SHARDS` runs at once, merged."""
    def make(made: Path) -> None:
        shards = SHARDS.get(component, 1)
        parts = [made.with_name(f"{made.name}.{k}") for k in range(1, shards + 1)]
        with ThreadPoolExecutor(shards) as pool:
            runs = list(pool.map(lambda k: _measure(component, parts[k - 1], k, shards),
                                 range(1, shards + 1)))
        # Exit 1 with a map: a scenario of the reference failed in it (a flake on a busy
        # machine). The map is kept: a broken agent it leaves a scenario short of fails
        # on its own, where 45 would all fail here.
        for done, part in zip(runs, parts, strict=True):
            if done.returncode not in (0, 1) or not part.exists():
                raise RuntimeError(f"the {component} component's map failed ({done.returncode}):"
                                   f"\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        made.write_text(json.dumps(merged([json.loads(p.read_text()) for p in parts])))
        for part in parts:
            part.unlink()

    out = made_once(root, f"{component}-scenario-map.json", make)
    found: dict[str, Any] = json.loads(out.read_text())
    return found


def _measure(component: str, out: Path, k: int, shards: int) -> subprocess.CompletedProcess[str]:
    """The map of the `k`th of `shards` shards of `component`'s scenarios, written to `out`."""
    argv = [sys.executable, "-m", "mutation.scenarios", component, str(out), *MAP_OPTIONS]
    if shards > 1:
        argv += ["--shard", f"{k}/{shards}"]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
