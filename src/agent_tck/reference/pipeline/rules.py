"""The rules of the contracts that JSON Schema cannot say (issue 5, seed 002).

Each rule is a small function from a document (its data and the source positions) to problems
`(path, message)`. Rules read defensively: a document that breaks the schema too must not crash
them, so every container is checked before it is walked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from agent_tck.reference.pipeline.loader import Document, Path
from agent_tck.reference.pipeline.slug import slug_for

Problem = tuple[Path, str]
Rule = Callable[[Document, Path, Any], Iterator[Problem]]


def shown(value: Any) -> str:
    """A value as YAML writes it: strings quoted, `true`, `false`, `null`, numbers as is."""
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _methods(root: dict[str, Any], at: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for i, method in enumerate(_list(root.get("methods"))):
        if isinstance(method, dict):
            yield (*at, "methods", i), method


def _characteristics(root: dict[str, Any], at: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path, method in _methods(root, at):
        for j, char in enumerate(_list(method.get("characteristics"))):
            if isinstance(char, dict):
                yield (*path, "characteristics", j), char


def _values(char: dict[str, Any], at: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for k, value in enumerate(_list(char.get("values"))):
        if isinstance(value, dict):
            yield (*at, "values", k), value


# --- the behavior bank ----------------------------------------------------------------------

def behavior_ids_unique(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """Behavior ids are unique in `behaviors[]`."""
    seen: dict[str, int] = {}
    for i, behavior in enumerate(_list(_dict(root).get("behaviors"))):
        bid = _dict(behavior).get("id")
        if isinstance(bid, str) and bid in seen:
            yield (*at, "behaviors", i, "id"), (f"behavior id {bid!r} is already used by"
                                                f" behaviors[{seen[bid]}]")
        elif isinstance(bid, str):
            seen[bid] = i


def _references(root: dict[str, Any], at: Path) -> Iterator[tuple[Path, Any]]:
    for path, method in _methods(root, at):
        for j, effect in enumerate(_list(method.get("side_effects"))):
            if "behavior_id" in _dict(effect):
                yield (*path, "side_effects", j, "behavior_id"), effect["behavior_id"]
    for path, char in _characteristics(root, at):
        for vpath, value in _values(char, path):
            if "behavior_id" in value:
                yield (*vpath, "behavior_id"), value["behavior_id"]


def behavior_ids_resolve(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """Every `behavior_id` names a behavior of `behaviors[]`."""
    known = {_dict(b).get("id") for b in _list(_dict(root).get("behaviors"))}
    for path, bid in _references(_dict(root), at):
        if bid not in known:
            yield path, f"behavior_id {bid!r} is not the id of any entry of behaviors[]"


def terminal_has_behavior(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """A terminal value (`terminal: true`) names the behavior it ends in."""
    for path, char in _characteristics(_dict(root), at):
        for vpath, value in _values(char, path):
            if value.get("terminal") is True and "behavior_id" not in value:
                yield vpath, (f"terminal value {shown(value.get('value'))} has no behavior_id: a"
                              " terminal branch must name its behavior")


# --- characteristics: parents and levels -----------------------------------------------------

def _parent_problems(char: dict[str, Any], parent: dict[str, Any] | None) -> Iterator[Problem]:
    name, when = char.get("depends_on"), char.get("when_parent")
    if parent is None:
        yield ("depends_on",), (f"depends_on {name!r} is not a characteristic of the same"
                                " method")
        return
    if when is None:
        yield ("when_parent",), f"when_parent is null but depends_on is {name!r}"
        return
    offered = [_dict(v).get("value") for v in _list(parent.get("values"))]
    listed = ", ".join(shown(v) for v in offered)
    for i, value in enumerate(_list(when)):
        if value not in offered:
            yield ("when_parent", i), (f"when_parent value {shown(value)} is not a value of"
                                       f" {name!r} (its values: {listed})")


def _level_problem(char: dict[str, Any], parent: dict[str, Any] | None) -> str | None:
    level = char.get("level")
    if char.get("depends_on") is None:
        return None if level == 1 else (f"level {level!r} with depends_on null: a"
                                         " characteristic without a parent is at level 1")
    if parent is None or not isinstance(parent.get("level"), int):
        return None
    expected = parent["level"] + 1
    return None if level == expected else (f"level {level!r} but depends_on"
                                           f" {char['depends_on']!r} is at level"
                                           f" {parent['level']}: expected {expected}")


def _by_method(root: dict[str, Any], at: Path) -> Iterator[tuple[Path, dict[str, Any],
                                                             dict[str, dict[str, Any]]]]:
    for path, method in _methods(root, at):
        chars = [c for c in _list(method.get("characteristics")) if isinstance(c, dict)]
        names = {c["name"]: c for c in chars if isinstance(c.get("name"), str)}
        for j, char in enumerate(_list(method.get("characteristics"))):
            if isinstance(char, dict):
                yield (*path, "characteristics", j), char, names


def parents_resolve(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """`depends_on` names a characteristic of the same method; `when_parent` values exist in
    that parent; `when_parent` is set exactly when `depends_on` is."""
    for path, char, names in _by_method(_dict(root), at):
        if char.get("depends_on") is None:
            if char.get("when_parent") is not None:
                yield (*path, "when_parent"), "when_parent is set but depends_on is null"
            continue
        parent = names.get(char["depends_on"]) if isinstance(char["depends_on"], str) else None
        for sub, message in _parent_problems(char, parent):
            yield (*path, *sub), message


def levels_consistent(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """`level` is 1 without a parent, else the parent's level + 1."""
    for path, char, names in _by_method(_dict(root), at):
        name = char.get("depends_on")
        parent = names.get(name) if isinstance(name, str) else None
        message = _level_problem(char, parent)
        if message:
            yield (*path, "level"), message


# --- slug, markers ---------------------------------------------------------------------------

def slug_matches_source(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """The slug is the source path with `/` -> `_`, no extension."""
    slug, source = _dict(root).get("slug"), _dict(root).get("source_file")
    if not (isinstance(slug, str) and isinstance(source, str)):
        return
    try:
        expected = slug_for(source)
    except ValueError as exc:
        yield (*at, "source_file"), str(exc)
        return
    if slug != expected:
        yield (*at, "slug"), f"slug {slug!r} does not match source_file {source!r}: expected" \
                             f" {expected!r}"


def markers_written_true(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """Completion and skip markers are written `true`: YAML 1.1 spellings (`yes`, `on`, `True`)
    read as strings or differently elsewhere."""
    for key in _dict(_dict(root).get("automation")):
        if not key.endswith(("_completed", "_skipped")):
            continue
        path = (*at, "automation", key)
        written = doc.where(path).raw
        if _dict(root)["automation"][key] is True and written != "true":
            yield path, f"marker {key} is written {written!r}: write true"


# --- discovery: waves and summary -----------------------------------------------------------

def _items(root: dict[str, Any]) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    for i, wave in enumerate(_list(root.get("method_waves"))):
        number = _dict(wave).get("wave")
        for j, item in enumerate(_list(_dict(wave).get("items"))):
            if isinstance(item, dict) and isinstance(number, int):
                yield ("method_waves", i, "items", j), number, item


def waves_respect_dependencies(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """No item depends on a class that has a method in the same or a later wave."""
    items = list(_items(_dict(root)))
    for path, wave, item in items:
        for k, dep in enumerate(_list(item.get("cross_class_deps"))):
            cls = _dict(dep).get("class")
            later = [(w, i) for _, w, i in items if i.get("class_name") == cls and w >= wave]
            if later:
                w, other = later[0]
                yield (*at, *path, "cross_class_deps", k), (
                    f"{item.get('method_id')} (wave {wave}) depends on {cls}, but"
                    f" {other.get('method_id')} is in wave {w}: a dependency must be in an"
                    " earlier wave")


def _counts(root: dict[str, Any]) -> dict[str, int]:
    items = [item for _, _, item in _items(root)]
    files = [_dict(f) for f in _list(root.get("files"))]
    return {"total_methods": len(items),
            "selected_methods": sum(1 for i in items if i.get("selected") is True),
            "total_files": len(files),
            "waves_count": len(_list(root.get("method_waves")))}


def summary_counts_match(doc: Document, at: Path, root: Any) -> Iterator[Problem]:
    """`summary` counts what the document lists: methods, selected ones, files, waves, zones."""
    summary = _dict(_dict(root).get("summary"))
    for key, actual in _counts(_dict(root)).items():
        if key in summary and summary[key] != actual:
            yield (*at, "summary", key), f"summary says {key}: {summary[key]!r}, the document" \
                                         f" lists {actual}"
    zones = Counter(_dict(_dict(f).get("complexity")).get("zone")
                    for f in _list(_dict(root).get("files")))
    for zone, said in _dict(summary.get("by_zone")).items():
        if said != zones.get(zone, 0):
            yield (*at, "summary", "by_zone", zone), (f"summary says {zone}: {said!r}, the"
                                                     f" document lists {zones.get(zone, 0)}"
                                                     f" {zone} files")


ANALYSIS: tuple[Rule, ...] = (behavior_ids_unique, behavior_ids_resolve, terminal_has_behavior,
                              parents_resolve, levels_consistent, slug_matches_source)
RULES: dict[str, tuple[tuple[Path, tuple[Rule, ...]], ...]] = {
    "code-analyzer": ((("data",), ANALYSIS),),
    "metadata": (((), (*ANALYSIS, markers_written_true)),),
    "test-architect": (((), (markers_written_true,)),),
    "discovery-agent": (((), (waves_respect_dependencies, summary_counts_match)),),
}


def check(doc: Document, contract: str) -> list[Problem]:
    """Every problem the rules of `contract` find in `doc`."""
    problems: list[Problem] = []
    for at, rules in RULES.get(contract, ()):
        root = doc.value
        for step in at:
            root = _dict(root).get(step) if isinstance(step, str) else None
        for rule in rules:
            problems.extend(rule(doc, at, root))
    return problems
