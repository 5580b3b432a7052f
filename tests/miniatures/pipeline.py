"""Broken implementations of the `pipeline` component: each is the reference with one defect.

A miniature is the in-process driver with one function of the reference swapped, for the
duration of each driver call, for a defective one (or a driver method overridden). Each
docstring says, in one line, what the miniature gets wrong; `EXPECTED` says which requirements
the suite must then report as failed, and no others.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath
from typing import Any
from unittest import mock

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.reference.pipeline import (
    commands,
    loader,
    orchestrator,
    rules,
    schemas,
    slug,
    store,
    validate,
)
from agent_tck.reference.pipeline.loader import Limits, Position
from agent_tck.reference.pipeline.orchestrator import Reply

Swap = tuple[object, str, object]


class Miniature(InProcessDriver):
    """The reference, with `swaps` applied while a pipeline call runs."""

    swaps: tuple[Swap, ...] = ()

    @contextmanager
    def _defect(self) -> Iterator[None]:
        with ExitStack() as stack:
            for target, name, value in self.swaps:
                stack.enter_context(mock.patch.object(target, name, value))
            yield

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        with self._defect():
            return super().contract_validate(document, contract)

    def pipeline_run(self, base_dir: str, source_file: str, agents: list[dict[str, Any]],
                     start_at: str | None = None) -> dict[str, Any]:
        with self._defect():
            return super().pipeline_run(base_dir, source_file, agents, start_at)


def reach(miniature: type[InProcessDriver]) -> tuple[Callable[..., Any], ...]:
    """The functions of the reference in whose place `miniature` runs its own: its
    `functions` where it names them, else the ones it swaps (tests/test_pipeline_broken.py
    judges it on the scenarios that call them)."""
    functions: tuple[Callable[..., Any], ...] = getattr(miniature, "functions", ())
    swaps: tuple[Swap, ...] = getattr(miniature, "swaps", ())
    return functions or tuple(getattr(target, name) for target, name, _ in swaps)


def _without(rule: rules.Rule) -> dict[str, Any]:
    return {contract: tuple((at, tuple(r for r in table if r is not rule)) for at, table in spec)
            for contract, spec in rules.RULES.items()}


def _rule_dropped(rule: rules.Rule) -> type[Miniature]:
    class Dropped(Miniature):
        swaps = ((rules, "RULES", _without(rule)),)
        functions = (rule,)  # what no longer runs

    Dropped.__doc__ = f"Does not check {rule.__name__}."
    return Dropped


# --- validators -----------------------------------------------------------------------------

class AcceptsEverything(InProcessDriver):
    """Considers every document valid."""

    functions = (commands.contract_validate,)

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        verdict = super().contract_validate(document, contract)
        return {**verdict, "valid": True, "errors": []}


class RejectsEverything(InProcessDriver):
    """Considers every document invalid."""

    functions = (commands.contract_validate,)

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        verdict = super().contract_validate(document, contract)
        error = {"line": 1, "column": 1, "path": "$", "message": "rejected"}
        return {**verdict, "valid": False, "errors": [error]}


class AnyStatusField(Miniature):
    """Accepts error and skip_reason whatever the status."""

    swaps = ((validate, "_schema_issues", lambda doc, contract: (
        i for i in _ORIGINAL_SCHEMA_ISSUES(doc, contract)
        if "is allowed only with" not in i.message)),)


class OpenEnums(Miniature):
    """Accepts any word where the seed lists the allowed ones."""

    swaps = ((validate, "_schema_issues", lambda doc, contract: (
        i for i in _ORIGINAL_SCHEMA_ISSUES(doc, contract) if "is not one of" not in i.message)),)


class NoPatterns(Miniature):
    """Accepts any string where the schema gives a pattern."""

    swaps = ((validate, "_schema_issues", lambda doc, contract: (
        i for i in _ORIGINAL_SCHEMA_ISSUES(doc, contract) if "does not match" not in i.message)),)


class OpenObjects(Miniature):
    """Accepts keys the contract does not define."""

    swaps = ((validate, "_schema_issues", lambda doc, contract: (
        i for i in _ORIGINAL_SCHEMA_ISSUES(doc, contract) if "unexpected key" not in i.message)),)


class NoHint(Miniature):
    """Rejects near-miss status words without naming the seed's word."""

    swaps = ((validate, "near_miss", lambda word, allowed: None),)


class FirstErrorOnly(Miniature):
    """Reports only the first error of a document."""

    swaps = ((validate, "validate_document", lambda doc, contract: itertools.islice(
        _ORIGINAL_VALIDATE_DOCUMENT(doc, contract), 1)),)


def _tagless_dispatch(self: Any, node: Node, path: loader.Path) -> Any:
    mark = node.start_mark
    self.document.positions.setdefault(path, Position(mark.line + 1, mark.column + 1,
                                                      getattr(node, "value", None)))
    if isinstance(node, MappingNode):
        return self.mapping(node, path)
    if isinstance(node, SequenceNode):
        return [self.node(item, (*path, i)) for i, item in enumerate(node.value)]
    assert isinstance(node, ScalarNode)
    if node.tag in loader.SCALAR_TAGS:
        return self.scalars.yaml_constructors[node.tag](self.scalars, node)
    return node.value


class AnyTag(Miniature):
    """Loads a tagged node as if it had no tag."""

    swaps = ((loader._Builder, "dispatch", _tagless_dispatch),)


_ORIGINAL_DISPATCH = loader._Builder.dispatch


def _dateless_dispatch(self: Any, node: Node, path: loader.Path) -> Any:
    if isinstance(node, ScalarNode) and node.tag == loader.TIMESTAMP:
        raise self.refuse(node, path, f"tag {loader.short_tag(node.tag)} is not allowed")
    return _ORIGINAL_DISPATCH(self, node, path)


class RefusesDates(Miniature):
    """Refuses a date written without quotes, as if it were a tag someone wrote."""

    swaps = ((loader._Builder, "dispatch", _dateless_dispatch),)


def _measure_without_the_path(self: Any, node: Node, path: loader.Path) -> tuple[int, int]:
    if isinstance(node, ScalarNode):
        return 1, -1
    if id(node) in self.active:
        raise self.refuse(node, path, "recursive alias: a node contains itself")
    sized: tuple[int, int] = self.sizes.get(id(node)) or self.expand(node, path)
    return sized


class AliasDepthUnseen(Miniature):
    """Measures an alias's depth once, where its anchor is, not where each use puts it."""

    swaps = ((loader._Builder, "measure", _measure_without_the_path),)


def _shared_node(self: Any, node: Node, path: loader.Path) -> Any:
    cache = self.__dict__.setdefault("shared", {})
    if id(node) not in cache:
        cache[id(node)] = self.dispatch(node, path)
    return cache[id(node)]


class SharedAliases(Miniature):
    """Builds an aliased node once and shares it, without measuring what it expands to."""

    swaps = ((loader._Builder, "measure", lambda self, node, path: (1, 0)),
             (loader._Builder, "node", _shared_node))


class _Limited(InProcessDriver):
    limits = Limits()
    functions = (commands.contract_validate,)

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        report = validate.validate_text(document, "<document>", contract, self.limits)
        errors = [{k: v for k, v in i.to_dict().items() if k != "file"} for i in report.issues]
        return {"valid": report.valid, "contract": report.contract, "errors": errors}


class NoSizeLimit(_Limited):
    """Parses documents of any size."""

    limits = Limits(max_bytes=1 << 40)


class NoDepthLimit(_Limited):
    """Parses documents nested to any depth."""

    limits = Limits(max_depth=1 << 20)


def _write_unread(self: store.MetadataStore, metadata: dict[str, Any]) -> None:
    """MetadataStore.write without reading back what it writes."""
    self.directory.mkdir(parents=True, exist_ok=True)
    self.path.write_text(yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True),
                         encoding="utf-8")


class WritesWhatItCannotRead(Miniature):
    """Writes metadata without reading it back, however deep it nests."""

    swaps = ((store.MetadataStore, "write", _write_unread),)


class TakesAnyMetadataFile(Miniature):
    """Takes the metadata file of its slug as its own, whichever source file it names."""

    swaps = ((orchestrator, "_check_owner", lambda store: None),)


class DropsForeignAgents(InProcessDriver):
    """Runs the seed's agents it is given and silently leaves out any other."""

    functions = (commands.pipeline_run,)

    def pipeline_run(self, base_dir: str, source_file: str, agents: list[dict[str, Any]],
                     start_at: str | None = None) -> dict[str, Any]:
        known = [a for a in agents if a["name"] in orchestrator.AGENTS]
        return super().pipeline_run(base_dir, source_file, known, start_at)


_MEASURE = loader._Builder.measure


def _strings_uncounted(self: Any, node: Node, path: loader.Path) -> tuple[int, int]:
    return (0, -1) if isinstance(node, ScalarNode) else _MEASURE(self, node, path)


class CountsOnlyCollections(Miniature):
    """Counts the lists and mappings an alias expands to, not its strings."""

    swaps = ((loader._Builder, "measure", _strings_uncounted),)


def _nesting_one_short(text: str, source: str, limits: Limits) -> None:
    depth = -1
    for event in yaml.parse(text, Loader=loader.COMPOSER):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth >= limits.max_depth:  # `>`, turned as a mutant turned the other check
                raise loader.DocumentError(source, 1, 1, "$",
                                           f"document nests deeper than {limits.max_depth}")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class DepthLimitOneShort(Miniature):
    """Refuses a document nesting exactly as deep as the limit allows."""

    swaps = ((loader, "_check_nesting", _nesting_one_short),)


def _at_the_start(text: str, source: str, character: str) -> loader.DocumentError:
    return loader.DocumentError(source, 1, 1, "$",
                                f"YAML syntax error: character U+{ord(character):04X} is not "
                                "allowed")


class CharacterErrorAtTheStart(Miniature):
    """Puts the error of a character YAML does not allow at 1:1, wherever the character is."""

    swaps = ((loader, "_not_allowed", _at_the_start),)


_WHERE = loader.Document.where


def _root_at_one(self: loader.Document, path: loader.Path, *, key: bool = False) -> Position:
    return Position(1, 1) if not path else _WHERE(self, path, key=key)


class RootAtLineOne(Miniature):
    """Puts an error of the whole document at 1:1, before the comments it opens with."""

    swaps = ((loader.Document, "where", _root_at_one),)


def _last_key_wins(self: Any, node: MappingNode, path: loader.Path) -> dict[str, Any]:
    result = {}
    for key_node, value_node in node.value:
        key = self.key(key_node, path)
        mark = key_node.start_mark
        self.document.key_positions[(*path, key)] = Position(mark.line + 1, mark.column + 1)
        result[key] = self.node(value_node, (*path, key))
    return result


class LastKeyWins(Miniature):
    """Keeps the last value of a repeated key, as YAML readers do."""

    swaps = ((loader._Builder, "mapping", _last_key_wins),)


class NeverInfers(Miniature):
    """Checks every document it is not told about against the plain envelope."""

    swaps = ((validate, "infer_contract", lambda value, source="": "response"),)


def _status_in_anything(value: Any, source: str = "") -> str:
    """infer_contract, looking for `status` in whatever the document is, as in a mapping."""
    if "status" not in value:
        return "metadata"
    if value.get("status") == "error":  # a list has no get
        return "error"
    return schemas.infer_contract(value, source)


class LooksForStatusInLists(Miniature):
    """Looks for `status` in a document that is no mapping (and crashes on a list naming it)."""

    swaps = ((validate, "infer_contract", _status_in_anything),)


# --- orchestrators --------------------------------------------------------------------------

class OrderAsGiven(Miniature):
    """Runs the agents in the order it is given them."""

    swaps = ((orchestrator, "in_order", lambda agents: list(agents)),)


class SlugKeepsExtension(Miniature):
    """Names the metadata file after the source path with its extension."""

    swaps = ((store, "slug_for",
              lambda source: str(slug.check_source_path(source)).replace("/", "_")),)


class OneVersion(Miniature):
    """Writes version 1.0 in every agent's marker."""

    swaps = ((orchestrator, "_record", lambda st, md, name, reply, response: _ORIGINAL_RECORD(
        st, md, name, Reply(reply.response, reply.writes), response)),)


def _just_read(st: store.MetadataStore, name: str, previous: str) -> dict[str, Any]:
    return st.read()


class NoMarkerCheck(Miniature):
    """Starts an agent without looking for the previous agent's marker."""

    swaps = ((orchestrator, "_check_prerequisites", _just_read),)


class NoInputCheck(Miniature):
    """Starts an agent without checking that its input files exist."""

    swaps = ((orchestrator, "_check_inputs", lambda st, name: None),)


def _retrying_call(agent: Callable[..., Reply], context: Any) -> Reply:
    reply = _ORIGINAL_CALL(agent, context)
    if "status: error" in str(reply.response):
        return _ORIGINAL_CALL(agent, context)
    return reply


class RetriesOnce(Miniature):
    """Calls an agent that failed a second time."""

    swaps = ((orchestrator, "_call", _retrying_call),)


def _converted(status: str, into: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    def response(name: str, text: Any) -> dict[str, Any]:
        value = _ORIGINAL_RESPONSE(name, text)
        return into(value) if value["status"] == status else value

    return response


class SkipIsFailure(Miniature):
    """Treats an agent that skips as one that failed."""

    swaps = ((orchestrator, "_response", _converted(
        "skip", lambda v: {"status": "error", "error": v["skip_reason"]})),)


class IgnoresStop(Miniature):
    """Goes on after the discovery-agent says stop."""

    swaps = ((orchestrator, "_response", _converted("stop", lambda v: {"status": "success"})),)


def _lenient(name: str, text: Any) -> dict[str, Any]:
    try:
        return _ORIGINAL_RESPONSE(name, text)
    except orchestrator._Stop:
        return {"status": "success"}


class TakesAnyAnswer(Miniature):
    """Reads an answer outside the seed's envelope (not YAML, an unknown status, an error
    without its message) as a success."""

    swaps = ((orchestrator, "_response", _lenient),)


def _cache(check_mtime: bool, check_markers: bool) -> Any:
    def valid(st: store.MetadataStore, order: list[str]) -> bool:
        if not st.exists():
            return False
        metadata = st.read()
        automation = metadata.get("automation") or {}
        mtime_ok = metadata.get("source_mtime") == int(st.source_path.stat().st_mtime)
        markers_ok = all(automation.get(orchestrator.marker(a)) is True for a in order)
        return (mtime_ok or not check_mtime) and (markers_ok or not check_markers)

    return valid


class CacheIgnoresMtime(Miniature):
    """Trusts cached metadata whatever the source file's mtime."""

    swaps = ((orchestrator, "cache_valid", _cache(check_mtime=False, check_markers=True)),)


class CacheIgnoresMarkers(Miniature):
    """Trusts cached metadata that an earlier run left half done."""

    swaps = ((orchestrator, "cache_valid", _cache(check_mtime=True, check_markers=False)),)


def _write_in_place(self: store.MetadataStore, metadata: dict[str, Any]) -> None:
    self.directory.mkdir(parents=True, exist_ok=True)
    with self.path.open("w", encoding="utf-8") as stream:
        yaml.safe_dump(metadata, stream, sort_keys=False)


class WritesInPlace(Miniature):
    """Writes the metadata file in place, not atomically."""

    swaps = ((store.MetadataStore, "write", _write_in_place),)


class AcceptsDotDot(Miniature):
    """Takes any source path as given, `..` and absolute ones included."""

    swaps = ((slug, "check_source_path", lambda source: PurePosixPath(source)),)


_ORIGINAL_SCHEMA_ISSUES = validate._schema_issues
_ORIGINAL_VALIDATE_DOCUMENT = validate.validate_document
_ORIGINAL_RECORD = orchestrator._record
_ORIGINAL_CALL = orchestrator._call
_ORIGINAL_RESPONSE = orchestrator._response
assert schemas.AGENTS and Path  # the modules above are the ones patched

CONTRACTS = {"PL-1.1", "PL-1.2", "PL-1.5", "PL-1.6", "PL-1.7", "PL-1.8", "PL-1.9", "PL-1.10",
             "PL-1.11", "PL-1.12"}

# Miniature -> the requirements the suite must report as failed against it, and no others.
EXPECTED: dict[type[InProcessDriver], set[str]] = {
    AcceptsEverything: {*CONTRACTS - {"PL-1.2"}, "PL-1.3", "PL-1.4",
                        *(f"PL-2.{i}" for i in range(1, 10)),
                        "PL-3.1", "PL-3.2", "PL-3.3", "PL-3.4", "PL-3.5"},
    RejectsEverything: {*CONTRACTS, "PL-1.3", "PL-1.4", *(f"PL-2.{i}" for i in range(1, 10)),
                        "PL-3.1", "PL-3.2", "PL-3.3", "PL-3.4", "PL-3.5"},
    AnyStatusField: {"PL-1.1"},
    OpenEnums: {"PL-1.3", "PL-1.4", "PL-1.8"},
    NoHint: {"PL-1.4"},
    NoPatterns: {"PL-1.7", "PL-1.11", "PL-3.1"},
    OpenObjects: {"PL-1.6", "PL-1.10", "PL-1.12"},
    FirstErrorOnly: {"PL-1.6", "PL-1.10", "PL-2.1", "PL-2.5", "PL-2.7", "PL-2.9", "PL-3.1"},
    # PL-3.1 too: building scalars its own way, it lets an integer too long to read escape.
    AnyTag: {"PL-3.1", "PL-3.2"},
    RefusesDates: {"PL-3.2"},
    AliasDepthUnseen: {"PL-3.4"},
    # PL-3.4 too: unmeasured, an alias nests past 64 levels unseen.
    SharedAliases: {"PL-3.3", "PL-3.4"},
    NoSizeLimit: {"PL-3.4"},
    NoDepthLimit: {"PL-3.4"},
    DepthLimitOneShort: {"PL-3.4"},
    CountsOnlyCollections: {"PL-3.3"},
    DropsForeignAgents: {"PL-4.12"},
    TakesAnyMetadataFile: {"PL-4.13"},
    WritesWhatItCannotRead: {"PL-4.10"},
    LooksForStatusInLists: {"PL-3.6"},
    LastKeyWins: {"PL-3.5"},
    CharacterErrorAtTheStart: {"PL-3.1"},
    RootAtLineOne: {"PL-3.1"},
    NeverInfers: {"PL-1.2", "PL-1.5", "PL-1.6", "PL-1.7", "PL-1.9", "PL-3.6"},
    _rule_dropped(rules.behavior_ids_resolve): {"PL-2.1"},
    _rule_dropped(rules.behavior_ids_unique): {"PL-2.2"},
    _rule_dropped(rules.terminal_has_behavior): {"PL-2.3"},
    _rule_dropped(rules.parents_resolve): {"PL-2.4"},
    _rule_dropped(rules.levels_consistent): {"PL-2.5"},
    _rule_dropped(rules.slug_matches_source): {"PL-2.6"},
    _rule_dropped(rules.waves_respect_dependencies): {"PL-2.7"},
    _rule_dropped(rules.summary_counts_match): {"PL-2.8"},
    _rule_dropped(rules.markers_written_true): {"PL-2.9"},
    OrderAsGiven: {"PL-4.1"},
    # PL-4.13 too: the other file's metadata is not where it looks, so it runs and completes
    SlugKeepsExtension: {"PL-4.2", "PL-4.3", "PL-4.4", "PL-4.5", "PL-4.6", "PL-4.7", "PL-4.9",
                         "PL-4.10", "PL-4.13", "PL-4.14"},
    OneVersion: {"PL-4.3"},
    NoMarkerCheck: {"PL-4.4"},
    NoInputCheck: {"PL-4.5"},
    # PL-4.14 too: an answer outside the envelope is a failure, which it calls again
    RetriesOnce: {"PL-4.6", "PL-4.14"},
    SkipIsFailure: {"PL-4.7"},
    IgnoresStop: {"PL-4.8"},
    TakesAnyAnswer: {"PL-4.14"},
    CacheIgnoresMtime: {"PL-4.9"},
    CacheIgnoresMarkers: {"PL-4.9"},
    WritesInPlace: {"PL-4.10"},
    # PL-2.6 too: a source path with `..` then has a slug, which the document's does not match.
    AcceptsDotDot: {"PL-2.6", "PL-4.11"},
}
