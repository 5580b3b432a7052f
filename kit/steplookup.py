"""pytest-bdd's step lookup, remembered per test module and step.

For every step it runs, pytest-bdd (8 and 9) asks pytest for the definitions of every fixture
name and keeps the step functions visible to the scenario that parse the step's text: a third
of the CPU of a conformance run in-process, since pytest 9.2's lookup rebuilds node ids on each
call. Once collection is over, the step definitions a module's scenarios see do not change, so
the answer for one step's type and text in one module is computed once per test session and
given again, the same definitions in the same order. A pytest-bdd without the function is left
as it is (slower, never wrong).
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

# The module, not the `scenario` function pytest_bdd exports under the same name.
bdd_scenario: Any = importlib.import_module("pytest_bdd.scenario")

Lookup = Callable[..., Iterable[Any]]
Key = tuple[str, Any, str]


def install() -> None:
    """Replace pytest-bdd's lookup by a remembering one (once per process)."""
    original: Lookup | None = getattr(bdd_scenario, "find_fixturedefs_for_step", None)
    if original is None or getattr(original, "remembering", False):
        return
    bdd_scenario.find_fixturedefs_for_step = remembering(original)


def remembering(original: Lookup) -> Lookup:
    """`original`, with its answers kept per fixture manager (one per test session, so a
    nested session never sees another's definitions), module and step."""
    sessions: weakref.WeakKeyDictionary[Any, dict[Key, list[Any]]] = weakref.WeakKeyDictionary()

    def lookup(step: Any, fixturemanager: Any, node: Any) -> Iterator[Any]:
        known = sessions.setdefault(fixturemanager, {})
        key = (node.nodeid.partition("::")[0], step.type, step.name)
        if key not in known:
            known[key] = list(original(step=step, fixturemanager=fixturemanager, node=node))
        return iter(known[key])

    lookup.remembering = True  # type: ignore[attr-defined]
    return lookup
