"""The orchestrator: runs the rspec pipeline's agents with the seed's protocol (seed 002).

Agents run one at a time, in the seed's order, whatever order they are given in. Before each
one the orchestrator checks, in the metadata file on disk, the previous agent's
`{agent}_completed: true`, and that its input files exist; else the pipeline stops with an
error. `status: error` stops everything (no retry); `skip` is success with the skip markers;
the discovery-agent's `stop` halts with its reason. Before any of that, cached metadata is
used if it is valid (the seed's cache flowchart). A stop is an outcome, not an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_tck.reference.exceptions import ContractError, DocumentError
from agent_tck.reference.pipeline.loader import load_document
from agent_tck.reference.pipeline.schemas import AGENTS
from agent_tck.reference.pipeline.store import MetadataStore

STATUSES = {"discovery-agent": ("success", "stop", "error")}
DEFAULT_STATUSES = ("success", "error", "skip")


@dataclass(frozen=True)
class Context:
    """What an agent is given: where things are and the metadata as the previous agents left
    it (a copy: agents change the file through `Reply.writes`)."""

    agent: str
    source_file: str
    slug: str
    metadata_path: Path
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What an agent gives back: its final message (YAML text, or already parsed), what it
    adds to the metadata file, and the version written in its `{agent}_version` marker."""

    response: str | Mapping[str, Any]
    writes: Mapping[str, Any] = field(default_factory=dict)
    version: str = "1.0"


Agent = Callable[[Context], Reply]


@dataclass
class PipelineResult:
    """How a run ended: `completed`, `cached`, `stopped` (discovery `stop`) or `error`."""

    outcome: str
    metadata_path: Path
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed_agent: str | None = None
    message: str = ""
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "ran": self.ran, "skipped": self.skipped,
                "failed_agent": self.failed_agent, "message": self.message,
                "reason": self.reason}


class _Stop(Exception):
    """Ends the run early with an outcome (internal)."""

    def __init__(self, outcome: str, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.outcome, self.message, self.reason = outcome, message, reason


def marker(agent: str, what: str = "completed") -> str:
    """`code-analyzer` -> `code_analyzer_completed` (agent names use snake_case)."""
    return f"{agent.replace('-', '_')}_{what}"


def run_pipeline(base_dir: Path, source_file: str, agents: Mapping[str, Agent],
                 start_at: str | None = None) -> PipelineResult:
    """Run `agents` (some of the seed's seven, by name) on `source_file` under `base_dir`;
    `start_at` re-runs from that agent (seed 002, Recovery Protocol).

    `PathError` if the source path could leave the metadata directory; `ContractError` for an
    agent name the seed does not have. Everything else is the result's outcome.
    """
    if not agents:
        raise ContractError("a pipeline needs at least one agent")
    unknown = sorted((set(agents) | {start_at or AGENTS[0]}) - set(AGENTS))
    if unknown or (start_at is not None and start_at not in agents):
        name = unknown[0] if unknown else start_at
        raise ContractError(f"unknown agent {name!r}: the pipeline's agents are"
                            f" {', '.join(a for a in AGENTS if a in agents)}")
    store = MetadataStore(base_dir, source_file)
    order = in_order(agents)
    result = PipelineResult("completed", store.path)
    current = None
    try:
        _check_owner(store)
        if cache_valid(store, order):
            result.outcome = "cached"
            return result
        for current in order[order.index(start_at or order[0]):]:
            _step(store, order, current, agents[current], result)
    except _Stop as stop:
        result.outcome, result.message, result.reason = stop.outcome, stop.message, stop.reason
        result.failed_agent = current
    return result


def _check_owner(store: MetadataStore) -> None:
    """Two source paths can share a slug (`app/services_payment.rb`, `app/services/payment.rb`);
    a metadata file whose `source_file` names another file is never taken as this one's."""
    if not store.exists():
        return
    owner = _read(store, "cache validation").get("source_file")
    if isinstance(owner, str) and owner != store.source_file:
        raise _Stop("error", f"slug collision: {store.path} belongs to {owner}, not "
                             f"{store.source_file}; neither is run, cached or overwritten")


def in_order(agents: Mapping[str, Agent]) -> list[str]:
    """The names of `agents` in the seed's Agent Sequence."""
    return [name for name in AGENTS if name in agents]


def cache_valid(store: MetadataStore, order: list[str]) -> bool:
    """The seed's flowchart: metadata exists, its source_mtime is the file's mtime, and every
    agent's `_completed` marker is true. Unreadable metadata stops the run (recovery is human)."""
    if not store.exists() or not store.source_path.is_file():
        return False
    metadata = _read(store, "cache validation")
    if metadata.get("source_mtime") != int(store.source_path.stat().st_mtime):
        return False
    automation = metadata.get("automation")
    return isinstance(automation, dict) and all(automation.get(marker(a)) is True for a in order)


def _read(store: MetadataStore, who: str) -> dict[str, Any]:
    try:
        return store.read()
    except DocumentError as exc:
        raise _Stop("error", f"{who}: metadata file refused: {exc}") from None


def _step(store: MetadataStore, order: list[str], name: str, agent: Agent,
          result: PipelineResult) -> None:
    _check_inputs(store, name)
    previous = previous_agent(order, name)
    # the discovery-agent starts a full analysis afresh; every other agent enriches the file
    metadata = {} if previous is None else _check_prerequisites(store, name, previous)
    result.ran.append(name)
    reply = _call(agent, Context(name, store.source_file, store.slug, store.path, metadata))
    response = _response(name, reply.response)
    status = response["status"]
    if status == "error":
        raise _Stop("error", f"{name} failed: {response['error']}")
    if status == "stop":
        raise _Stop("stopped", f"{name} stopped: {response['reason']}", response["reason"])
    if status == "skip":
        result.skipped.append(name)
    _record(store, metadata, name, reply, response)


def previous_agent(order: list[str], name: str) -> str | None:
    """The agent whose marker `name` needs: the one before it in this run, or, for the first
    agent of a run, the one before it in the seed's sequence (None for the discovery-agent)."""
    index = order.index(name)
    if index > 0:
        return order[index - 1]
    index = AGENTS.index(name)
    return AGENTS[index - 1] if index > 0 else None


def _check_prerequisites(store: MetadataStore, name: str, previous: str) -> dict[str, Any]:
    metadata = _read(store, name)
    automation = metadata.get("automation")
    if not (isinstance(automation, dict) and automation.get(marker(previous)) is True):
        raise _Stop("error", f"{name} cannot start: {marker(previous)}: true is missing from"
                             f" {store.path}")
    return metadata


def _check_inputs(store: MetadataStore, name: str) -> None:
    if not store.source_path.is_file():
        raise _Stop("error", f"{name} cannot start: source file {store.source_file} does not"
                             " exist")
    if name != AGENTS[0] and not store.exists():
        raise _Stop("error", f"{name} cannot start: metadata file {store.path} does not exist")


def _call(agent: Agent, context: Context) -> Reply:
    try:
        return agent(context)
    except Exception as exc:  # an agent is foreign code: its crash is the pipeline's error
        raise _Stop("error", f"{context.agent} crashed: {type(exc).__name__}: {exc}") from None


def _response(name: str, response: str | Mapping[str, Any]) -> dict[str, Any]:
    """The reply's envelope, checked: a known status, and the field that status requires."""
    try:
        value = load_document(response, f"<{name} response>").value \
            if isinstance(response, str) else dict(response)
    except DocumentError as exc:
        raise _Stop("error", f"{name} returned unreadable YAML: {exc}") from None
    allowed = STATUSES.get(name, DEFAULT_STATUSES)
    status = value.get("status") if isinstance(value, dict) else None
    if status not in allowed:
        raise _Stop("error", f"{name} returned status {status!r}: expected one of"
                             f" {', '.join(allowed)}")
    needed = {"error": "error", "skip": "skip_reason", "stop": "reason"}.get(status)
    if needed and not value.get(needed):
        raise _Stop("error", f"{name} returned status {status} without {needed}")
    return value


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _record(store: MetadataStore, metadata: dict[str, Any], name: str, reply: Reply,
            response: dict[str, Any]) -> None:
    """Merge the agent's writes and its markers, and write the file atomically."""
    automation = _mapping(metadata.get("automation"))
    updated = {**metadata, **reply.writes}
    automation.update(_mapping(updated.get("automation")))
    automation[marker(name)] = True
    automation[marker(name, "version")] = reply.version
    if response["status"] == "skip":
        automation[marker(name, "skipped")] = True
        automation[marker(name, "skip_reason")] = response["skip_reason"]
    updated["automation"] = automation
    try:
        store.write(updated)
    except (yaml.YAMLError, OSError) as exc:
        raise _Stop("error", f"{name}: metadata file not written ({type(exc).__name__}); the"
                             " previous file is intact") from None
    except DocumentError as exc:
        raise _Stop("error", f"{name}: its metadata could not be read back, so it was not "
                             f"written ({exc.message}); the previous file is intact") from None
