"""The step definitions and the features agree: no step text is defined twice (pytest-bdd
would silently take the last one), and every definition is used by some feature."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import parse
from gherkin.parser import Parser
from gherkin.token_scanner import TokenScanner

from agent_tck.kit.paths import FEATURES, PACKAGE

STEP_MODULES = sorted((PACKAGE / "steps").glob("*_steps.py"))
KINDS = {"Context": "given", "Action": "when", "Outcome": "then"}


def definitions() -> list[tuple[str, str, str, str]]:
    """(kind, how, pattern, where) for every @given/@when/@then in the step modules; `how` is
    "string", "parse" or "re"."""
    found = []
    for path in STEP_MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
                        and decorator.func.id in ("given", "when", "then")):
                    continue
                arg = decorator.args[0]
                if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute):
                    how, pattern = arg.func.attr, ast.literal_eval(arg.args[0])
                else:
                    how, pattern = "string", ast.literal_eval(arg)
                found.append((decorator.func.id, how, pattern, f"{path.name}:{node.lineno}"))
    return found


def feature_steps() -> Iterator[tuple[str, str]]:
    """(kind, text) of every step of every feature, outlines expanded with their examples."""
    for path in sorted(FEATURES.rglob("*.feature")):
        document = Parser().parse(TokenScanner(path.read_text(encoding="utf-8")))
        for child in _scenarios(document["feature"]["children"]):
            rows = [dict(zip([c["value"] for c in e["tableHeader"]["cells"]],
                             [c["value"] for c in row["cells"]], strict=True))
                    for e in child.get("examples", []) if e.get("tableHeader")
                    for row in e["tableBody"]] or [{}]
            for row in rows:
                kind = "given"
                for step in child["steps"]:
                    kind = KINDS.get(step["keywordType"], kind)
                    text = step["text"]
                    for name, value in row.items():
                        text = text.replace(f"<{name}>", value)
                    yield kind, text


def _scenarios(children: list[dict[str, object]]) -> Iterator[dict[str, object]]:
    for child in children:
        if "rule" in child:
            yield from _scenarios(child["rule"]["children"])  # type: ignore[index]
        for key in ("scenario", "background"):
            if key in child:
                yield child[key]  # type: ignore[misc]


def _matches(how: str, pattern: str, text: str) -> bool:
    if how == "string":
        return pattern == text
    if how == "parse":
        return parse.compile(pattern).parse(text) is not None
    return re.fullmatch(pattern, text) is not None


def test_no_step_text_is_defined_twice() -> None:
    seen: dict[tuple[str, str], str] = {}
    twice = []
    for kind, _, pattern, where in definitions():
        if (kind, pattern) in seen:
            twice.append(f"{kind} {pattern!r}: {seen[kind, pattern]} and {where}")
        seen[kind, pattern] = where
    assert twice == []


def test_every_step_definition_is_used_by_some_feature() -> None:
    steps = set(feature_steps())
    assert len(steps) > 300
    unused = [f"{where}: {kind} {pattern!r}" for kind, how, pattern, where in definitions()
              if not any(k == kind and _matches(how, pattern, t) for k, t in steps)]
    assert unused == []


def test_the_scan_sees_every_module_and_kind() -> None:
    found = definitions()
    assert {Path(w.split(":")[0]).name for *_, w in found} == {p.name for p in STEP_MODULES}
    assert {kind for kind, *_ in found} == {"given", "when", "then"}
    assert {how for _, how, *_ in found} == {"string", "parse", "re"}
