"""The remembered step lookup gives pytest-bdd's answer, asking once per session, module and
step, and walking the definitions once per session and module (kit/steplookup.py)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from agent_tck.kit import steplookup
from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT
from tests.support import runsuite


@dataclass(frozen=True)
class Step:
    type: str
    name: str


@dataclass(frozen=True)
class Node:
    nodeid: str


class Manager:
    """A fixture manager stands for one test session (weakly referenced: hashable by id)."""


def counting() -> tuple[list[tuple[Any, ...]], Any]:
    asked: list[tuple[Any, ...]] = []

    def original(step: Step, fixturemanager: Manager, node: Node) -> Any:
        asked.append((step, fixturemanager, node.nodeid))
        yield from (f"{node.nodeid}:{step.name}:1", f"{node.nodeid}:{step.name}:2")
    return asked, original


def test_the_answer_is_the_originals_and_asked_once_per_module_and_step() -> None:
    asked, original = counting()
    lookup = steplookup.remembering(original)
    manager = Manager()
    given = Step("given", "an agent")
    first = list(lookup(step=given, fixturemanager=manager, node=Node("a.py::test_one[x]")))
    again = list(lookup(step=given, fixturemanager=manager, node=Node("a.py::test_two")))
    assert first == again == ["a.py::test_one[x]:an agent:1", "a.py::test_one[x]:an agent:2"]
    assert len(asked) == 1
    list(lookup(step=Step("when", "an agent"), fixturemanager=manager, node=Node("a.py::t")))
    list(lookup(step=given, fixturemanager=manager, node=Node("b.py::t")))
    list(lookup(step=Step("given", "two agents"), fixturemanager=manager, node=Node("a.py::t")))
    assert [(s.type, s.name, n) for s, _, n in asked] == [
        ("given", "an agent", "a.py::test_one[x]"), ("when", "an agent", "a.py::t"),
        ("given", "an agent", "b.py::t"), ("given", "two agents", "a.py::t")]


def test_another_session_asks_again() -> None:
    asked, original = counting()
    lookup = steplookup.remembering(original)
    step, node = Step("then", "it passes"), Node("a.py::t")
    for manager in (Manager(), Manager()):
        assert len(list(lookup(step=step, fixturemanager=manager, node=node))) == 2
    assert len(asked) == 2


def test_installed_once_in_pytest_bdd() -> None:
    module = importlib.import_module("pytest_bdd.scenario")
    steplookup.install()
    installed = module.find_fixturedefs_for_step
    steplookup.install()
    assert installed.remembering is True
    assert module.find_fixturedefs_for_step is installed


@dataclass(frozen=True)
class Parser:
    text: str

    def is_matching(self, name: str) -> bool:
        return name.startswith(self.text)


@dataclass(frozen=True)
class Context:
    type: str | None
    parser: Parser


def test_a_walk_is_once_per_module_and_each_step_matched_by_type_and_text() -> None:
    walks: list[str] = []
    definitions = [("given-any", Context("given", Parser("an "))),
                   ("typeless", Context(None, Parser("an agent"))),
                   ("when", Context("when", Parser("an agent")))]

    def walk(fixturemanager: Manager, node: Node) -> list[tuple[Any, Any]]:
        walks.append(node.nodeid)
        return definitions

    lookup = steplookup.remembering(counting()[1], walk)
    manager = Manager()
    found = [list(lookup(step=step, fixturemanager=manager, node=Node(nodeid)))
             for step, nodeid in [(Step("given", "an agent"), "a.py::t1"),
                                  (Step("given", "an answer"), "a.py::t2"),
                                  (Step("then", "an agent"), "b.py::t")]]
    assert found == [["given-any", "typeless"], ["given-any"], ["typeless"]]
    assert walks == ["a.py::t1", "b.py::t"]


def test_in_a_real_session_every_step_gets_what_pytest_bdd_gives(monkeypatch: Any) -> None:
    """A run of two components with the walked lookup and pytest-bdd's own side by side."""
    module = importlib.import_module("pytest_bdd.scenario")
    steplookup.install()
    original = module.find_fixturedefs_for_step.original
    walked = steplookup.remembering(original, steplookup.visible)
    compared: list[str] = []
    differ: list[tuple[str, list[Any], list[Any]]] = []

    def both(step: Any, fixturemanager: Any, node: Any) -> Any:
        found = list(walked(step=step, fixturemanager=fixturemanager, node=node))
        expected = list(original(step=step, fixturemanager=fixturemanager, node=node))
        compared.append(step.name)
        if found != expected:
            differ.append((step.name, found, expected))
        return iter(found)

    both.remembering = True  # type: ignore[attr-defined]
    monkeypatch.setattr(module, "find_fixturedefs_for_step", both)
    results = runsuite._run("reference", ["runner", "responses"], None, DEFAULT_TIMEOUT)
    assert {r.verdict for r in results} == {"passed"}
    assert len(set(compared)) > 50 and differ == []
