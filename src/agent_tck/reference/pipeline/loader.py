"""Safe YAML loading for the pipeline contracts, with the source position of every node.

PyYAML's safe composer builds the node graph; we turn it into JSON-compatible data ourselves so
that nothing but plain data gets through (no Python tags, no custom tags, no merge keys, only
string keys), aliases cannot expand into a bomb, and every value and key keeps its line and
column. Each refusal is a `DocumentError` that says where and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agent_tck.reference.exceptions import DocumentError

Path = tuple[str | int, ...]

TAG_PREFIX = "tag:yaml.org,2002:"
SCALAR_TAGS = {f"{TAG_PREFIX}{t}" for t in ("str", "int", "float", "bool", "null")}
TIMESTAMP = f"{TAG_PREFIX}timestamp"
MAP, SEQ, STR = f"{TAG_PREFIX}map", f"{TAG_PREFIX}seq", f"{TAG_PREFIX}str"


@dataclass(frozen=True)
class Limits:
    """What one document may cost. Aliases count at every use, so a bomb hits `max_nodes`."""

    max_bytes: int = 1024 * 1024
    max_nodes: int = 100_000
    max_depth: int = 64


DEFAULT_LIMITS = Limits()
# libyaml's composer when PyYAML was built with it (same nodes and marks, several times faster)
COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

@dataclass(frozen=True)
class Position:
    """Where a node starts in the source (1-based), and a scalar's text as written."""

    line: int
    column: int
    raw: str | None = None


@dataclass
class Document:
    """Loaded data and where each part of it came from."""

    source: str
    value: Any
    positions: dict[Path, Position] = field(default_factory=dict)
    key_positions: dict[Path, Position] = field(default_factory=dict)

    def where(self, path: Path, *, key: bool = False) -> Position:
        """The position of the node at `path` (of its key if `key`), else its closest parent's."""
        table = self.key_positions if key else self.positions
        for end in range(len(path), -1, -1):
            found = table.get(path[:end]) or self.positions.get(path[:end])
            if found is not None:
                return found
        return Position(1, 1)


def json_path(path: Path) -> str:
    """`("data", "methods", 0)` -> `$.data.methods[0]` (python-jsonschema's `json_path`)."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def short_tag(tag: str) -> str:
    return "!!" + tag[len(TAG_PREFIX):] if tag.startswith(TAG_PREFIX) else tag


def load_document(text: str, source: str = "<document>",
                  limits: Limits = DEFAULT_LIMITS) -> Document:
    """Load one YAML document safely; raise `DocumentError` for anything but plain data."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # a lone surrogate (JSON can carry one): no text at all
        raise _not_allowed(text, source, text[exc.start]) from None
    if size > limits.max_bytes:
        raise DocumentError(source, 1, 1, "$",
                            f"document is {size} bytes, over the limit of {limits.max_bytes}")
    node = _compose(text, source, limits)
    if node is None:
        raise DocumentError(source, 1, 1, "$", "document is empty")
    return _Builder(source, limits).build(node)


def _children(node: Node) -> list[tuple[str | int, Node]]:
    """A collection's children with the path step to each (a key's text for a mapping)."""
    if isinstance(node, SequenceNode):
        return list(enumerate(node.value))
    if isinstance(node, MappingNode):
        return [(str(k.value), v) for k, v in node.value]
    return []


def _compose(text: str, source: str, limits: Limits) -> Node | None:
    try:
        _check_nesting(text, source, limits)
        return yaml.compose(text, Loader=COMPOSER)
    except yaml.MarkedYAMLError as exc:
        line, column = _position(exc.problem_mark or exc.context_mark)
        problem = exc.problem or exc.context or "invalid YAML"
        if "nesting depth" in problem:  # PyYAML >= 6.0.4 stops at its own limit (1000) first
            problem = f"document nests deeper than {limits.max_depth}"
        else:
            problem = f"YAML syntax error: {problem}"
        raise DocumentError(source, line, column, "$", problem) from None
    except yaml.reader.ReaderError as exc:
        raise _not_allowed(text, source, chr(exc.character)) from None
    except yaml.YAMLError as exc:
        raise DocumentError(source, 1, 1, "$", f"YAML error: {exc}") from None


def _not_allowed(text: str, source: str, character: str) -> DocumentError:
    """A character YAML does not allow (a control character but tab and line breaks), at its
    first place in `text`: the reader stops there. Named by its code point: it cannot be
    shown."""
    before = text[:text.find(character)]
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    return DocumentError(source, line, column, "$",
                         f"YAML syntax error: character U+{ord(character):04X} is not allowed")


def _position(mark: Any) -> tuple[int, int]:
    """A PyYAML mark (0-based, maybe absent) as 1-based line and column."""
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _check_nesting(text: str, source: str, limits: Limits) -> None:
    """Refuse deep nesting from the event stream, before composing: the composer recurses
    once per level, and `[[[[...` a hundred thousand deep would overflow the C stack."""
    depth = -1  # the root collection is at depth 0, as its JSON path `$` has no step
    for event in yaml.parse(text, Loader=COMPOSER):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limits.max_depth:
                line, column = _position(event.start_mark)
                raise DocumentError(source, line, column, "$",
                                    f"document nests deeper than {limits.max_depth}")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _Builder:
    """Node graph -> data. The graph is measured first (aliases counted at every use, in time
    proportional to its distinct nodes), so a bomb is refused before anything is built."""

    def __init__(self, source: str, limits: Limits) -> None:
        self.limits = limits
        self.document = Document(source, None)
        self.sizes: dict[int, tuple[int, int]] = {}
        self.active: set[int] = set()
        self.scalars = SafeConstructor()

    def build(self, node: Node) -> Document:
        self.measure(node, ())
        self.document.value = self.node(node, ())
        return self.document

    def refuse(self, node: Node, path: Path, message: str) -> DocumentError:
        mark = node.start_mark
        return DocumentError(self.document.source, mark.line + 1, mark.column + 1,
                             json_path(path), message)

    def measure(self, node: Node, path: Path) -> tuple[int, int]:
        """How many nodes `node` expands to, and how many levels of collections it holds
        below itself. Refuses cycles, depth and size over the limits, at the innermost node
        that breaks them; an alias is measured once and checked at every use."""
        if isinstance(node, ScalarNode):
            return 1, -1
        if id(node) in self.active:
            raise self.refuse(node, path, "recursive alias: a node contains itself")
        size, height = self.sizes.get(id(node)) or self.expand(node, path)
        if len(path) + height > self.limits.max_depth:
            raise self.refuse(node, path, f"document nests deeper than {self.limits.max_depth}")
        return size, height

    def expand(self, node: Node, path: Path) -> tuple[int, int]:
        if len(path) > self.limits.max_depth:
            raise self.refuse(node, path, f"document nests deeper than {self.limits.max_depth}")
        self.active.add(id(node))
        measured = [self.measure(child, (*path, key)) for key, child in _children(node)]
        self.active.discard(id(node))
        size = 1 + sum(s for s, _ in measured)
        if size > self.limits.max_nodes:
            raise self.refuse(node, path, f"document expands to more than {self.limits.max_nodes}"
                              " nodes (an alias bomb?)")
        self.sizes[id(node)] = size, 1 + max((h for _, h in measured), default=-1)
        return self.sizes[id(node)]

    def node(self, node: Node, path: Path) -> Any:
        return self.dispatch(node, path)

    def dispatch(self, node: Node, path: Path) -> Any:
        mark = node.start_mark
        raw = node.value if isinstance(node, ScalarNode) else None
        self.document.positions.setdefault(path, Position(mark.line + 1, mark.column + 1, raw))
        if isinstance(node, ScalarNode) and node.tag == STR:
            return node.value  # the common case, without the constructor's overhead
        if isinstance(node, MappingNode) and node.tag == MAP:
            return self.mapping(node, path)
        if isinstance(node, SequenceNode) and node.tag == SEQ:
            return [self.node(item, (*path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, ScalarNode) and node.tag in SCALAR_TAGS:
            try:
                return self.scalars.yaml_constructors[node.tag](self.scalars, node)
            except ValueError as exc:  # e.g. an integer of more than 4,300 digits
                raise self.refuse(node, path, f"{short_tag(node.tag)} {node.value[:40]!r}... "
                                              f"cannot be read: {exc}") from None
        if isinstance(node, ScalarNode) and node.tag == TIMESTAMP:
            return node.value  # JSON has no dates: keep the text as written
        raise self.refuse(node, path, f"tag {short_tag(node.tag)} is not allowed: a contract"
                          " holds plain data only (map, seq, str, int, float, bool, null)")

    def mapping(self, node: MappingNode, path: Path) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.key(key_node, path)
            value = self.node(value_node, (*path, key))
            if key in result and result[key] != value:
                first = self.document.key_positions[(*path, key)]
                raise self.refuse(key_node, (*path, key), f"duplicate key {key!r} with a"
                                  f" different value (first at line {first.line})")
            if key not in result:
                mark = key_node.start_mark
                self.document.key_positions[(*path, key)] = Position(mark.line + 1,
                                                                     mark.column + 1)
                result[key] = value
        return result

    def key(self, node: Node, path: Path) -> str:
        if node.tag == f"{TAG_PREFIX}merge":
            raise self.refuse(node, path, "merge keys (<<) are not allowed: write the keys out")
        if not isinstance(node, ScalarNode) or node.tag != STR:
            shown = node.value if isinstance(node, ScalarNode) else type(node).__name__
            raise self.refuse(node, path, f"key {shown!r} is not a string (quote it)")
        return str(node.value)
