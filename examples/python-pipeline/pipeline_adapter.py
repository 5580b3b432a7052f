#!/usr/bin/env python3
"""An agent-tck adapter for the `pipeline` component (seed 002), on PyYAML and jsonschema.

It speaks the adapter protocol (docs/adapter-protocol.md): one JSON request per line on
stdin, one JSON response per line on stdout. Logs go to stderr.

Commands: start, contract.validate, pipeline.run, stop.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeGuard, cast

import yaml
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

MAX_BYTES, MAX_DEPTH, MAX_NODES = 1_048_576, 64, 100_000  # decision D-13
SEQUENCE = ["discovery-agent", "code-analyzer", "isolation-decider", "test-architect",
            "factory-agent", "test-implementer", "test-reviewer"]
CONTRACTS = ["response", "error", *SEQUENCE, "metadata"]
YAML_TAG = "tag:yaml.org,2002:"
PLAIN_TAGS = {"scalar": {"str", "int", "float", "bool", "null"}, "sequence": {"seq"},
              "mapping": {"map"}}
NEAR_MISSES = {"skipped": "skip", "ok": "success", "failed": "error", "stopped": "stop"}
# Keys the schemas allow in one case only (`else: {not: {required: [key]}}`).
ONLY_WITH = {"error": "status: error", "skip_reason": "status: skip",
             "subtype": "type: side_effect"}

JsonPath = tuple[str | int, ...]
Position = tuple[int, int]  # 1-based line and column
Node = yaml.ScalarNode | yaml.SequenceNode | yaml.MappingNode


class Refused(Exception):
    """A request refused before anything ran."""


@dataclass
class Problem(Exception):
    """An error at a JSON path, written at `where` (None: where the value at `path` is
    written, or its key if `at_key`). Raised, it refuses the whole document."""
    path: JsonPath
    message: str
    where: Position | None = None
    at_key: bool = False


def show(value: Any) -> str:
    return repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# --- Loading YAML safely (decision D-13) -------------------------------------------------

def position(mark: yaml.Mark) -> Position:
    return mark.line + 1, mark.column + 1


class Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a collection nested deeper than MAX_DEPTH before it
    composes it (PyYAML's composer recurses once per level)."""

    depth = -1  # the root collection is level 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if not self.check_event(yaml.CollectionStartEvent):
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:  # current_event: the one check_event looked at
                raise Problem((), f"document nests deeper than {MAX_DEPTH}",
                              position(self.current_event.start_mark))
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


Loader.yaml_implicit_resolvers = {  # SafeLoader's, without timestamps: a date is its text
    first: [(tag, regexp) for tag, regexp in resolvers if tag != YAML_TAG + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


@dataclass
class Loaded:
    """A document read as plain data: where each value and each key is written, and the
    text of each plain scalar (a marker must be written `true`)."""
    loader: Loader
    data: Any = None
    at: dict[JsonPath, Position] = field(default_factory=dict)
    key_at: dict[JsonPath, Position] = field(default_factory=dict)
    plain: dict[JsonPath, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    count: int = 0  # nodes read so far, every use of an alias counted
    open: set[int] = field(default_factory=set)  # the collections being read

    def value(self, node: Node, path: JsonPath) -> Any:
        """A node as plain data, aliases expanded. Refuses too many nodes, an alias inside
        its own anchor or nesting deeper than it is written, and tags not plain data's."""
        where = self.at[path] = position(node.start_mark)
        self.count += 1
        if self.count > MAX_NODES:
            raise Problem(path, f"document expands to more than {MAX_NODES} nodes (every use "
                                "of an alias counts)", where)
        if id(node) in self.open:
            raise Problem(path, "recursive alias", where)
        if len(path) > MAX_DEPTH and not isinstance(node, yaml.ScalarNode):
            raise Problem(path, f"document nests deeper than {MAX_DEPTH}", where)
        tag = node.tag.replace(YAML_TAG, "!!")
        if tag.removeprefix("!!") not in PLAIN_TAGS[node.id]:
            self.problems.append(Problem(path, f"tag {tag} is not allowed on a {node.id}", where))
            return None
        if isinstance(node, yaml.ScalarNode):
            if node.style is None:
                self.plain[path] = node.value
            try:
                return self.loader.construct_object(node)
            except (ValueError, KeyError, yaml.YAMLError):  # an integer too long to read, ...
                self.problems.append(Problem(path, f"{show(node.value)} is no {tag}", where))
                return None
        self.open.add(id(node))
        data = self.mapping(node, path) if isinstance(node, yaml.MappingNode) else \
            [self.value(item, (*path, i)) for i, item in enumerate(node.value)]
        self.open.remove(id(node))
        return data

    def mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        """Keys are strings, not merge keys, and repeated only with the same value."""
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            where = position(key_node.start_mark)
            if key_node.tag == YAML_TAG + "merge":
                self.problems.append(Problem(path, "merge keys (<<) are not allowed", where))
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != YAML_TAG + "str":
                self.problems.append(Problem(
                    path, f"key {show(key_node.value)} is not a string (quote it)", where))
                continue
            key = key_node.value
            value = self.value(value_node, (*path, key))
            if key not in out:
                out[key], self.key_at[(*path, key)] = value, where
            elif json.dumps(out[key]) != json.dumps(value):
                first = self.key_at[(*path, key)][0]
                self.problems.append(Problem((*path, key), f"duplicate key {key!r} with a "
                                     f"different value (first at line {first})", where))
        return out


def load_yaml(text: str) -> tuple[Loaded | None, list[Problem]]:
    """Load one YAML document as plain data, safely, or say why not."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        return None, [Problem((), f"document is {size} bytes, over the limit of {MAX_BYTES}",
                              (1, 1))]
    bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if bad:
        at = bad.start()
        return None, [Problem((), f"character U+{ord(bad.group()):04X} is not allowed in YAML",
                              (text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)))]
    loaded = Loaded(Loader(text))
    try:
        root = loaded.loader.get_single_node()
        if root is None:
            return None, [Problem((), "document is empty", (1, 1))]
        loaded.data = loaded.value(cast(Node, root), ())
    except Problem as problem:
        return None, [problem]
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        return None, [Problem((), f"YAML syntax error: {e.problem}",
                              position(mark) if mark else (1, 1))]
    finally:
        loaded.loader.dispose()
    return (None, loaded.problems) if loaded.problems else (loaded, [])


# --- Checking a document against its JSON Schema (schemas/contracts/) --------------------

SCHEMAS = {path.name.removesuffix(".schema.json"): json.loads(path.read_text("utf-8"))
           for path in (Path(__file__).resolve().parents[2] / "schemas" / "contracts")
           .glob("*.schema.json")}
REGISTRY: Registry[Any] = Registry().with_resources(  # `$ref`s find the others by `$id`
    (schema["$id"], Resource.from_contents(schema)) for schema in SCHEMAS.values())
VALIDATORS = {name: Draft202012Validator(schema, registry=REGISTRY)
              for name, schema in SCHEMAS.items()}


def hint(word: Any, words: list[Any]) -> str:
    """"; did you mean X?" when `word` is a near miss of one of `words`."""
    if not isinstance(word, str):
        return ""
    near = NEAR_MISSES.get(word)
    close = [near] if near in words else difflib.get_close_matches(
        word, [w for w in words if isinstance(w, str)], 1)
    return f"; did you mean {close[0]!r}?" if close else ""


def problems_of(e: ValidationError) -> list[Problem]:
    """One jsonschema error as problems, each at its own path, in the seed's words."""
    path = tuple(e.absolute_path)
    instance: Any = e.instance
    value: Any = e.validator_value
    schema: Any = e.schema
    if e.validator == "enum":
        return [Problem(path, f"{show(instance)} is not one of "
                              f"{', '.join(map(repr, value))}{hint(instance, value)}")]
    if e.validator == "additionalProperties":
        known, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        return [Problem((*path, k), f"unexpected key {k!r}{hint(k, list(known))}", at_key=True)
                for k in instance
                if k not in known and not any(re.search(p, k) for p in patterns)]
    if "propertyNames" in e.relative_schema_path:
        return [Problem((*path, instance), f"unexpected key {instance!r}: markers are "
                        "{agent}_completed, _version, _skipped or _skip_reason, and agent "
                        "names use snake_case", at_key=True)]
    if e.validator == "not" and "required" in value:
        return [Problem((*path, k), f"{k!r} is allowed only with {ONLY_WITH.get(k, 'another')}",
                        at_key=True) for k in value["required"]]
    return [Problem(path, e.message)]


def schema_problems(contract: str, data: Any) -> list[Problem]:
    errors = list(VALIDATORS[contract].iter_errors(data))
    if any(list(e.absolute_path) == ["status"] for e in errors):
        # a wrong status: what the schema asks of each status does not apply
        errors = [e for e in errors if not {"then", "else"} & set(e.relative_schema_path)]
    return [problem for e in errors for problem in problems_of(e)]


# --- Rules a schema cannot say -----------------------------------------------------------

def dicts(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """The entries of a list that are mappings, with their indexes."""
    items = value if isinstance(value, list) else []
    return [(i, v) for i, v in enumerate(items) if isinstance(v, dict)]


def slug_of(source: str) -> str:
    return os.path.splitext(source)[0].replace("/", "_")


def behavior_rules(doc: dict[str, Any], at: JsonPath) -> list[Problem]:
    """Behavior ids are unique, every behavior_id names one, and a terminal value names its
    behavior (PL-2.1 to PL-2.3)."""
    out, bank = [], dict[Any, int]()  # each id, and the index of its behavior
    for i, behavior in dicts(doc.get("behaviors")):
        bid = behavior.get("id")
        if bid in bank:
            out.append(Problem((*at, "behaviors", i, "id"),
                               f"behavior id {bid!r} is already used by behaviors[{bank[bid]}]"))
        bank.setdefault(bid, i)
    for m, method in dicts(doc.get("methods")):
        path = (*at, "methods", m)
        refs = [((*path, "side_effects", e), effect)
                for e, effect in dicts(method.get("side_effects"))]
        for c, char in dicts(method.get("characteristics")):
            refs += [((*path, "characteristics", c, "values", v), value)
                     for v, value in dicts(char.get("values"))]
        for where, entry in refs:
            ref = entry.get("behavior_id")
            if isinstance(ref, str) and ref not in bank:
                out.append(Problem((*where, "behavior_id"), f"behavior_id {ref!r} is not the "
                                   "id of any entry of behaviors[]"))
            elif ref is None and entry.get("terminal") is True:
                out.append(Problem(where, f"terminal value {json.dumps(entry.get('value'))} "
                                          "has no behavior_id"))
    return out


def tree_rules(doc: dict[str, Any], at: JsonPath) -> list[Problem]:
    """A characteristic depends on one of its own method, applies to values its parent has,
    and is one level below it, or at level 1 without one (PL-2.4, PL-2.5)."""
    out = []
    for m, method in dicts(doc.get("methods")):
        chars = dicts(method.get("characteristics"))
        for c, char in chars:
            path = (*at, "methods", m, "characteristics", c)
            name, when, level = char.get("depends_on"), char.get("when_parent"), char.get("level")
            parent = next((p for _, p in chars if p.get("name") == name), None)
            if name is None and when is not None:
                out.append(Problem((*path, "when_parent"),
                                   "when_parent is set but depends_on is null"))
            if name is None and is_int(level) and level != 1:
                out.append(Problem((*path, "level"), f"level {level} with depends_on null: "
                                   "a characteristic without a parent is at level 1"))
            if name is None:
                continue
            if parent is None:
                out.append(Problem((*path, "depends_on"), f"depends_on {name!r} is not a "
                                   "characteristic of the same method"))
                continue
            if when is None:
                out.append(Problem((*path, "when_parent"),
                                   "depends_on is set but when_parent is null"))
            values = [json.dumps(v.get("value")) for _, v in dicts(parent.get("values"))]
            for w, value in enumerate(when if isinstance(when, list) else []):
                if json.dumps(value) not in values:
                    out.append(Problem((*path, "when_parent", w), f"when_parent value "
                                       f"{value!r} is not a value of {name!r}"))
            above = parent.get("level")
            if is_int(level) and is_int(above) and level != above + 1:
                out.append(Problem((*path, "level"), f"level {level} but depends_on {name!r} "
                                   f"is at level {above}: expected {above + 1}"))
    return out


def slug_rule(doc: dict[str, Any], at: JsonPath) -> list[Problem]:
    """The slug is the source path with / as _ and no extension (PL-2.6)."""
    source, slug = doc.get("source_file"), doc.get("slug")
    if not isinstance(source, str):
        return []
    if ".." in PurePosixPath(source).parts or source.startswith("/"):
        return [Problem((*at, "source_file"), f"source_file {source!r} has no slug: an "
                        "absolute path or one with '..' leads out of the project")]
    if isinstance(slug, str) and slug != slug_of(source):
        return [Problem((*at, "slug"), f"slug {slug!r} does not follow source_file: "
                        f"expected {slug_of(source)!r}")]
    return []


def discovery_rules(doc: dict[str, Any]) -> list[Problem]:
    """An item depends only on classes whose methods are all in earlier waves (PL-2.7); the
    summary counts what the document lists (PL-2.8)."""
    waves = dicts(doc.get("method_waves"))
    items = [(w, i, wave.get("wave"), item) for w, wave in waves
             for i, item in dicts(wave.get("items"))]
    out = []
    for w, i, number, item in items:
        if not is_int(number):
            continue
        for d, dep in dicts(item.get("cross_class_deps")):
            late = [(n, other.get("method_id")) for _, _, n, other in items
                    if other.get("class_name") == dep.get("class") and is_int(n) and n >= number]
            if late:
                out.append(Problem(("method_waves", w, "items", i, "cross_class_deps", d),
                                   f"{item.get('method_id')} (wave {number}) depends on "
                                   f"{dep.get('class')}, but {late[0][1]} is in wave {late[0][0]}"))
    summary = doc.get("summary")
    if not isinstance(summary, dict):
        return out
    files = [f for _, f in dicts(doc.get("files"))]
    counts = {"total_methods": len(items), "total_files": len(files), "waves_count": len(waves),
              "selected_methods": sum(item.get("selected") is True for *_, item in items)}
    out += [Problem(("summary", k), f"summary says {k}: {summary[k]}, the document lists {n}")
            for k, n in counts.items() if is_int(summary.get(k)) and summary[k] != n]
    by_zone = summary.get("by_zone")
    for zone, said in by_zone.items() if isinstance(by_zone, dict) else []:
        n = sum(isinstance(f.get("complexity"), dict) and f["complexity"].get("zone") == zone
                for f in files)
        if is_int(said) and said != n:
            out.append(Problem(("summary", "by_zone", zone), f"summary says {zone}: {said}, "
                               f"the document lists {n} {zone} files"))
    return out


def marker_rule(doc: dict[str, Any], plain: dict[JsonPath, str]) -> list[Problem]:
    """Completion and skip markers are true, written `true` (PL-2.9)."""
    automation = doc.get("automation")
    out = []
    for key, value in automation.items() if isinstance(automation, dict) else []:
        path = ("automation", key)
        if key.endswith(("_completed", "_skipped")) and value is not True:
            out.append(Problem(path, f"marker {key} must be true, not {json.dumps(value)}"))
        elif key.endswith(("_completed", "_skipped")) and plain.get(path, "true") != "true":
            out.append(Problem(path, f"marker {key} is written {plain[path]!r}: write true"))
    return out


def rule_problems(contract: str, loaded: Loaded) -> list[Problem]:
    """The rules of seed 002 that JSON Schema cannot say, for the contracts they concern."""
    doc = loaded.data
    if not isinstance(doc, dict):
        return []
    bank, at = (doc, ()) if contract == "metadata" else (doc.get("data"), ("data",))
    out = []
    if contract in ("metadata", "code-analyzer") and isinstance(bank, dict):
        out += behavior_rules(bank, at) + tree_rules(bank, at) + slug_rule(bank, at)
    if contract == "discovery-agent":
        out += discovery_rules(doc)
    if contract in ("metadata", "test-architect"):
        out += marker_rule(doc, loaded.plain)
    return out


# --- contract.validate -------------------------------------------------------------------

def infer_contract(doc: Any) -> str:
    """The contract a document is written for: its status, or the keys only one agent's
    output has."""
    if not isinstance(doc, dict) or "status" not in doc:
        return "metadata"
    if doc["status"] in ("error", "stop"):
        return "error" if doc["status"] == "error" else "discovery-agent"
    data = doc["data"] if isinstance(doc.get("data"), dict) else {}
    for key, where, contract in (
            ("method_waves", doc, "discovery-agent"), ("structure", doc, "test-architect"),
            ("spec_file", doc, "test-architect"), ("behaviors", data, "code-analyzer"),
            ("factories", data, "factory-agent"), ("files_created", data, "test-implementer"),
            ("tests_passed", data, "test-reviewer"), ("methods", data, "isolation-decider")):
        if key in where:
            return contract
    return "response"


def locate(problem: Problem, loaded: Loaded | None) -> Position:
    """Where a problem is written: its own place, its key's, or its value's (or the nearest
    enclosing value's)."""
    if problem.where is not None or loaded is None:
        return problem.where or (1, 1)
    if problem.at_key and problem.path in loaded.key_at:
        return loaded.key_at[problem.path]
    path = problem.path
    while path and path not in loaded.at:
        path = path[:-1]
    return loaded.at.get(path, (1, 1))


def validate_document(text: str, contract: str | None) -> dict[str, Any]:
    """Load the YAML safely, check it against its contract (named, or inferred) and the
    rules beyond the schema, and list every error where it is."""
    if contract is not None and contract not in CONTRACTS:
        raise Refused(f"unknown contract {contract!r}: one of {', '.join(CONTRACTS)}")
    loaded, problems = load_yaml(text)
    if loaded is not None:
        contract = contract or infer_contract(loaded.data)
        rules = rule_problems(contract, loaded)
        problems = [p for p in schema_problems(contract, loaded.data)
                    if p.path not in {r.path for r in rules}] + rules
    errors: list[dict[str, Any]] = []
    for p in problems:
        line, column = locate(p, loaded)
        path = "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in p.path)
        error = {"line": line, "column": column, "path": path, "message": p.message}
        if error not in errors:
            errors.append(error)
    return {"valid": not errors, "contract": contract,
            "errors": sorted(errors, key=lambda e: (e["line"], e["column"]))}


# --- pipeline.run ------------------------------------------------------------------------

class AgentFailed(Exception):
    """AgentFailed(agent, message): the run ends in error, in that agent's name (None:
    before any agent)."""


def snake(agent: str) -> str:
    return agent.replace("-", "_")


def refusal(base: Path, source: str, agents: dict[str, Any], start_at: str | None) -> str | None:
    """Why the pipeline cannot start, if it cannot (PL-4.11, PL-4.12)."""
    strange = [name for name in agents if name not in SEQUENCE]
    if strange:
        return f"agent {strange[0]!r} is not in the seed's sequence"
    if start_at is not None and start_at not in agents:
        return f"cannot re-run from {start_at!r}: the pipeline was not given that agent"
    if not source or source != source.strip():
        return f"source path {source!r} is empty or has white space around it"
    if os.path.isabs(source):
        return f"source path {source!r} must be relative to the base directory"
    if ".." in PurePosixPath(source).parts:
        return f"source path {source!r} has a '..' component"
    for folder in ("tmp", "tmp/rspec_metadata"):
        real = os.path.realpath(base / folder)
        if os.path.lexists(base / folder) and not real.startswith(os.path.realpath(base) + os.sep):
            return f"{folder} leads outside the base directory"
    return None


def read_metadata(path: Path, agent: str | None) -> dict[str, Any]:
    try:
        loaded, problems = load_yaml(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise AgentFailed(agent, f"{path.name} cannot be read: {e}") from e
    if loaded is None or not isinstance(loaded.data, dict):
        why = problems[0].message if problems else "not a mapping"
        raise AgentFailed(agent, f"{path.name} cannot be read: {why}")
    return loaded.data


def check_prerequisites(base: Path, source: str, meta: Path, name: str,
                        previous: str | None) -> None:
    """The input files exist, and the previous agent's marker is set (PL-4.4, PL-4.5)."""
    if not (base / source).is_file():
        raise AgentFailed(name, f"{source} does not exist")
    if previous is None:
        return
    if not meta.is_file():
        raise AgentFailed(name, f"{meta.name} does not exist")
    automation = read_metadata(meta, name).get("automation")
    marker = f"{snake(previous)}_completed"
    if not (isinstance(automation, dict) and automation.get(marker) is True):
        raise AgentFailed(name, f"{marker}: true is missing from {meta.name}")


def answer_of(name: str, agent: dict[str, Any], base: Path) -> dict[str, Any]:
    """Run a scripted agent: its answer, if it is in the seed's envelope (PL-4.14) and not
    an error (PL-4.6)."""
    for path in agent.get("removes", []):
        (base / path).unlink(missing_ok=True)
    if agent.get("crashes"):
        raise AgentFailed(name, f"{name} crashed: {agent['crashes']}")
    loaded, problems = load_yaml(agent["response"])
    reply = loaded.data if loaded else None
    if not isinstance(reply, dict):
        why = problems[0].message if problems else f"{show(reply)} is not a mapping"
        raise AgentFailed(name, f"{name} answered outside the envelope: {why}")
    status = reply.get("status")
    if status not in ("success", "error", "stop" if name == SEQUENCE[0] else "skip"):
        raise AgentFailed(name, f"{name} answered a status it does not have: {show(status)}")
    needed = {"error": "error", "skip": "skip_reason", "stop": "reason"}.get(status)
    if needed and not (isinstance(reply.get(needed), str) and reply[needed]):
        raise AgentFailed(name, f"{name} answered status: {status} without its {needed}")
    if status == "error":
        raise AgentFailed(name, reply["error"])
    return reply


def merge(into: dict[str, Any], update: dict[str, Any]) -> None:
    """Merge `update` into `into`, mapping by mapping."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value


def write_metadata(path: Path, name: str, agent: dict[str, Any], reply: dict[str, Any]) -> None:
    """Add the agent's writes and markers to the metadata file (PL-4.3, PL-4.7), if it can
    be read back, through a temporary file renamed over it (PL-4.10)."""
    meta = read_metadata(path, name) if path.is_file() else {}
    merge(meta, agent.get("writes") or {})
    markers = {"completed": True, "version": agent.get("version", "1.0")}
    if reply["status"] == "skip":
        markers |= {"skipped": True, "skip_reason": reply["skip_reason"]}
    merge(meta, {"automation": {f"{snake(name)}_{k}": v for k, v in markers.items()}})
    text = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    problems = load_yaml(text)[1]
    if problems:
        raise AgentFailed(name, f"metadata file not written: {problems[0].message}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text[:len(text) // 2] if agent.get("crash_mid_write") else text)
            if agent.get("crash_mid_write"):
                raise OSError("the agent crashed while it was being written")
        os.replace(temporary, path)
    except OSError as e:
        os.unlink(temporary)
        raise AgentFailed(name, f"metadata file not written: {e}") from e


def run_agents(request: dict[str, Any], calls: list[list[str]]) -> dict[str, Any]:
    """Refuse what cannot run, use a valid cache, else run the agents one at a time in the
    seed's order (PL-4.1), each after checking its prerequisites."""
    base, source, start_at = Path(request["base_dir"]), request["source_file"], \
        request.get("start_at")
    agents = {agent["name"]: agent for agent in request["agents"]}
    why = refusal(base, source, agents, start_at)
    if why:
        return {"outcome": "refused", "message": why}
    order = [name for name in SEQUENCE if name in agents]
    order = order[order.index(start_at):] if start_at else order
    meta = base / "tmp" / "rspec_metadata" / f"{slug_of(source)}.yml"
    if os.path.lexists(meta):  # a cache (PL-4.9), unless it is another file's (PL-4.13)
        data = read_metadata(meta, None)
        owner, automation = data.get("source_file"), data.get("automation")
        if owner is not None and owner != source:
            raise AgentFailed(None, f"{meta.name} is the metadata of {owner}, not of "
                                    f"{source}: the two files share a slug")
        if start_at is None and (base / source).is_file() \
                and data.get("source_mtime") == int((base / source).stat().st_mtime) \
                and isinstance(automation, dict) \
                and all(automation.get(f"{snake(n)}_completed") is True for n in order):
            return {"outcome": "cached"}
    first = SEQUENCE.index(order[0]) if order else 0
    previous = SEQUENCE[first - 1] if first else None  # the first needs the seed's previous
    for name in order:
        check_prerequisites(base, source, meta, name, previous)
        calls.append(["start", name])
        try:
            reply = answer_of(name, agents[name], base)
            if reply["status"] == "stop":  # PL-4.8
                return {"outcome": "stopped", "reason": reply["reason"]}
            write_metadata(meta, name, agents[name], reply)
        finally:
            calls.append(["end", name])
        previous = name
    return {"outcome": "completed"}


def run_pipeline(request: dict[str, Any]) -> dict[str, Any]:
    """The outcome, the failed agent, message, reason, and the calls in order."""
    calls: list[list[str]] = []
    answer: dict[str, Any] = {"failed_agent": None, "message": None, "reason": None}
    try:
        answer |= run_agents(request, calls)
    except AgentFailed as e:
        answer |= {"outcome": "error", "failed_agent": e.args[0], "message": e.args[1]}
    return answer | {"calls": calls}


# --- The protocol ------------------------------------------------------------------------

def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one request: start declares the `pipeline` component and no backend."""
    cmd = request.get("cmd")
    if cmd == "start":
        return {"version": 1, "implementation": {
            "name": "python-pipeline-example", "language": "python", "version": "0.1.0",
            "components": ["pipeline"], "backends": []}}
    if cmd == "contract.validate":
        return validate_document(request["document"], request["contract"])
    if cmd == "pipeline.run":
        return run_pipeline(request)
    if cmd == "stop":
        return {"stopped": True}
    return {"error": {"message": f"unsupported command: {cmd}"}}


def main() -> None:
    for line in filter(str.strip, sys.stdin):
        request = json.loads(line)
        try:
            answer = handle(request)
        except Refused as e:
            answer = {"error": {"message": str(e)}}
        except Exception as e:  # an answer, never a crash: the suite reports it as errored
            print("[python-pipeline]", request.get("cmd"), repr(e), file=sys.stderr)
            answer = {"error": {"message": f"{type(e).__name__}: {e}"}}
        print(json.dumps({"seq": request["seq"], **answer}), flush=True)
        if request.get("cmd") == "stop":
            return


if __name__ == "__main__":
    main()
