"""pytest-bdd's step lookup, remembered per test session, module and step.

For every step it runs, pytest-bdd (8 and 9) asks pytest for the definitions of every fixture
name and keeps the step functions visible to the scenario that parse the step's text: a third
of the CPU of a conformance run in-process, since pytest 9.2's lookup rebuilds node ids on each
call. Once collection is over, the step definitions a module's scenarios see do not change, so
they are listed once per session and module (`visible`), and each step's type and text is
matched against that list once; the answer is the same definitions in the same order. A
pytest-bdd without these functions is left as it is (slower, never wrong); one with the lookup
but not the names it walks with gets its own lookup remembered per step.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

# The module, not the `scenario` function pytest_bdd exports under the same name.
bdd_scenario: Any = importlib.import_module("pytest_bdd.scenario")

Lookup = Callable[..., Iterable[Any]]
Visible = Callable[[Any, Any], list[tuple[Any, Any]]]
WALKS_WITH = ("get_fixture_names", "getfixturedefs", "step_function_context_registry")


def install() -> None:
    """Replace pytest-bdd's lookup by a remembering one (once per process)."""
    original: Lookup | None = getattr(bdd_scenario, "find_fixturedefs_for_step", None)
    if original is None or getattr(original, "remembering", False):
        return
    walk = visible if all(hasattr(bdd_scenario, name) for name in WALKS_WITH) else None
    bdd_scenario.find_fixturedefs_for_step = remembering(original, walk)


def visible(fixturemanager: Any, node: Any) -> list[tuple[Any, Any]]:
    """Every step definition `node` sees, with its context (type and parser), walked as
    pytest-bdd walks them: every fixture name, and pytest's own visibility rules."""
    contexts = bdd_scenario.step_function_context_registry
    found = []
    for name in bdd_scenario.get_fixture_names(fixturemanager=fixturemanager):
        for fixturedef in bdd_scenario.getfixturedefs(fixturemanager, name, node) or []:
            context = contexts.get(fixturedef.func)
            if context is not None:
                found.append((fixturedef, context))
    return found


def remembering(original: Lookup, walk: Visible | None = None) -> Lookup:
    """`original`, with its answers kept per fixture manager (one per test session, so a
    nested session never sees another's definitions), module and step; with `walk`, the
    definitions a module sees are listed once and each new step matched against them."""
    sessions: weakref.WeakKeyDictionary[Any, tuple[dict[str, Any], dict[Any, list[Any]]]] = (
        weakref.WeakKeyDictionary())

    def lookup(step: Any, fixturemanager: Any, node: Any) -> Iterator[Any]:
        modules, known = sessions.setdefault(fixturemanager, ({}, {}))
        module = node.nodeid.partition("::")[0]
        key = (module, step.type, step.name)
        if key in known:
            return iter(known[key])
        if walk is None:
            known[key] = list(original(step=step, fixturemanager=fixturemanager, node=node))
        else:
            if module not in modules:
                modules[module] = walk(fixturemanager, node)
            known[key] = [fixturedef for fixturedef, context in modules[module]
                          if context.type in (None, step.type)
                          and context.parser.is_matching(step.name)]
        return iter(known[key])

    lookup.remembering = True  # type: ignore[attr-defined]
    lookup.original = original  # type: ignore[attr-defined]
    return lookup
