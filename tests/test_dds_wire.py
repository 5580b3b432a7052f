"""The DDS wire contract and the DDS driver's options."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("cyclonedds")

from cyclonedds.util import duration

from agent_tck import wire


def test_genesis_field_names() -> None:
    request = [f.name for f in dataclasses.fields(wire.AgentRequest)]
    reply = [f.name for f in dataclasses.fields(wire.AgentReply)]
    assert request == ["request_id", "message", "conversation_id", "target_service_guid",
                       "service_instance_tag", "metadata"]
    assert reply == ["request_id", "message", "status", "conversation_id",
                     "replier_service_guid", "service_instance_tag", "metadata"]


def test_an_agents_states_reach_a_reader_that_joins_after_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/dds.md: the status topic keeps the last 64 states per agent for late joiners. A
    monitor (the suite's own participant, on a loaded machine) may match an agent's writer
    after its first states: it still reads each of them, in order. Cyclone DDS keeps for late
    joiners what the durability service's history says, not the writer's (one sample per
    key by default: the monitor would read the last state alone)."""
    from cyclonedds.domain import DomainParticipant
    from cyclonedds.pub import DataWriter
    from cyclonedds.sub import DataReader
    from cyclonedds.topic import Topic

    from agent_tck.reference.dds.config import LOOPBACK
    from tests.support.dds import domain

    monkeypatch.setenv("CYCLONEDDS_URI", f"file://{LOOPBACK}")
    agent, monitor = DomainParticipant(domain(9)), DomainParticipant(domain(9))
    try:
        writer = DataWriter(agent, Topic(agent, wire.STATUS_TOPIC, wire.AgentStatus),
                            wire.STATUS_WRITER_QOS)
        for n, state in enumerate(("DISCOVERING", "READY", "BUSY"), start=1):
            writer.write(wire.AgentStatus("g-1", "A", state, n, "", -1, "", "", n, 0.0, "{}"))
        reader = DataReader(monitor, Topic(monitor, wire.STATUS_TOPIC, wire.AgentStatus),
                            wire.READER_QOS)
        seen: list[str] = []
        deadline = time.monotonic() + 20
        while len(seen) < 3 and time.monotonic() < deadline:
            seen += [s.state for s in reader.take(N=16) if s.sample_info.valid_data]
            time.sleep(0.05)
        assert seen == ["DISCOVERING", "READY", "BUSY"]
    finally:
        monitor.__del__()
        agent.__del__()


def documented_topics() -> dict[str, tuple[str, list[str]]]:
    """docs/dds.md's table of topics: topic -> (type, fields)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "dds.md").read_text()
    rows = re.findall(r"^\| `(agent_tck_\w+)` \| `(\w+)` \| \w+ \| `([^`]+)`", text, re.M)
    return {topic: (kind, [f.strip() for f in fields.split(",")]) for topic, kind, fields in rows}


def test_the_contract_is_the_documented_one() -> None:
    """The one definition both sides use is the page's: each topic's type and fields in order,
    the keys (requests, replies, offers and grants by request_id, statuses by agent_guid,
    events by none) and the QoS the page gives. A change to the contract changes judge and
    judged alike, so no conformance run can see it: this is where it shows."""
    documented = documented_topics()
    assert len(documented) == 6
    assert {topic: (kind.__name__, [f.name for f in dataclasses.fields(kind)])
            for topic, kind in wire.TOPICS.items()} == documented
    keys = {kind.__name__: [name for name, marks in kind.__idl_field_annotations__.items()
                            if marks.get("key")] for kind in wire.TOPICS.values()}
    assert keys == {"AgentRequest": ["request_id"], "AgentReply": ["request_id"],
                    "AgentOffer": ["request_id"], "AgentGrant": ["request_id"],
                    "AgentStatus": ["agent_guid"], "AgentEvent": []}
    from cyclonedds.core import Policy

    reliable = Policy.Reliability.Reliable(duration(seconds=1))
    assert {str(p) for p in wire.WRITER_QOS} == {str(p) for p in (
        reliable, Policy.Durability.TransientLocal, Policy.History.KeepLast(1))}
    assert {str(p) for p in wire.READER_QOS} == {str(p) for p in (
        reliable, Policy.Durability.TransientLocal, Policy.History.KeepAll)}
    assert {str(p) for p in wire.STATUS_WRITER_QOS} == {str(p) for p in (
        reliable, Policy.Durability.TransientLocal, Policy.History.KeepLast(64),
        Policy.DurabilityService(0, Policy.History.KeepLast(64), -1, -1, -1))}
    assert {str(p) for p in wire.EVENT_QOS} == {str(p) for p in (
        reliable, Policy.Durability.Volatile, Policy.History.KeepAll)}


def test_the_dds_drivers_options_are_read_and_bad_ones_named() -> None:
    from agent_tck.kit.drivers.dds import parse_options, served_backends
    from agent_tck.kit.errors import UsageError
    from agent_tck.kit.registry import ACP_BACKENDS, KNOWN_BACKENDS

    assert parse_options("domain=7; backends=codex") == {"domain": "7", "backends": "codex"}
    with pytest.raises(UsageError, match=r"cannot read option 'colour=red'"):
        parse_options("colour=red")
    assert served_backends(None) == (*KNOWN_BACKENDS, *ACP_BACKENDS)
    assert served_backends("codex, gemini") == ("codex", "gemini")
    for bad in ("", "acme", "claude,acme"):
        with pytest.raises(UsageError, match=f"backends={bad!r} must name some of"):
            served_backends(bad)


def test_every_worker_of_the_most_a_run_takes_has_domains_of_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`-n` takes up to 64 workers (tests/test_cli_run.py); each uses its domain and the next
    (the transport's), and two workers on one domain would see each other's requests."""
    from agent_tck.kit.drivers.dds import MAX_DOMAIN, default_domain

    used = []
    for worker in range(64):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{worker}")
        used += [default_domain(), default_domain() + 1]
    assert len(set(used)) == 128 and min(used) == 100 and max(used) <= MAX_DOMAIN


@pytest.mark.parametrize(("text", "error"), [
    (None, "is not a file"), ("", "is not an XML document: no element found"),
    ('<?xml version="1.0"?>\n<!-- none -->\n', "is not an XML document: no element found"),
    ("not XML", "is not an XML document: syntax error"),
])
def test_the_dds_driver_refuses_a_configuration_cyclone_would_not_run_as_written(
        tmp_path: Path, text: str | None, error: str) -> None:
    """A file without an element would give the suite's own participants Cyclone DDS's
    default configuration: multicast on every interface."""
    from agent_tck.kit.drivers.dds import LOOPBACK, usable_config
    from agent_tck.kit.errors import UsageError

    config = tmp_path / "dds.xml"
    if text is not None:
        config.write_text(text)
    with pytest.raises(UsageError, match=f"'{config}' {error}"):
        usable_config(config)
    assert usable_config(LOOPBACK) == LOOPBACK


@pytest.mark.parametrize(("key", "value", "carried"), [
    ("model", "opus", True), ("model", 5, False), ("command", ["claude"], False),
    ("model", "a\0b", False), ("timeout", 30, True), ("timeout", "30", False),
    ("timeout", True, False), ("strip_env", ["KEY", ""], True), ("strip_env", "KEY", False),
    ("strip_env", 5, False), ("env", {"A": "1"}, True), ("env", {"A": 1}, False),
    ("env", {"A": "a\0b"}, False), ("env", ["A=1"], False), ("env", {"A=": "1"}, False),
    ("env", {"": "1"}, False), ("env", {"A\0": "1"}, False),
])
def test_a_served_agent_is_given_only_what_a_command_line_carries(
        key: str, value: object, carried: bool) -> None:
    """Text without NUL, and numbers of seconds as numbers: anything else would arrive as
    something else (5 as "5", a name as its letters) or not at all, so the suite calls it
    unsendable and the scenario not applicable over DDS."""
    from agent_tck.kit.drivers.dds import _uncarried

    why = _uncarried(key, value)
    assert (why is None) == carried, why
    assert why is None or why.startswith(key), why


def test_a_reply_from_an_agent_the_scenario_did_not_start_fails_it_saying_so(
        tmp_path: Path) -> None:
    """Another run's served agent on the same domain can take a request; the judge names it and
    the domain, where a bare lookup failed with an empty StopIteration."""
    from types import SimpleNamespace
    from typing import Any, cast

    from agent_tck.steps.transport_steps import TransportWorld

    driver = SimpleNamespace(domain=101, replies=lambda rid: [{"service_instance_tag": "tck-2-1"}])
    world = TransportWorld(cast("Any", driver), tmp_path, 1.0, cast("Any", None),
                           names={"A": "tck-7-1", "B": "tck-7-2"})
    assert world.label("tck-7-2") == "B"
    with pytest.raises(AssertionError, match=r"'tck-2-1' is none of this scenario's agents .*"
                                             r"shares DDS domain 101"):
        world.replier("r1")
