"""The judge's participant on the DDS wire contract (agent_tck.wire, docs/dds.md).

This client imports nothing of the reference: a DDS-native agent in any language is judged
by it, speaking the contract's types, topics and QoS (the DDS driver loads the reference
only to serve or fork it).
"""

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cyclonedds.core import (
    GuardCondition,
    InstanceState,
    ReadCondition,
    SampleState,
    ViewState,
    WaitSet,
)
from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

from agent_tck import wire

ANY_SAMPLE = SampleState.Any | ViewState.Any | InstanceState.Any


def status_dict(sample: Any) -> dict[str, Any]:
    """A status sample as the agent steps see node events."""
    return {"state": sample.state, "state_code": int(sample.state_code),
            "previous": sample.previous or None, "previous_code": int(sample.previous_code),
            "reason": sample.reason,
            "request_id": sample.request_id, "agent": sample.agent_name,
            "guid": sample.agent_guid,
            "sequence": int(sample.sequence), "timestamp": float(sample.timestamp),
            "metadata": json.loads(sample.metadata or "{}")}


@dataclass
class Ask:
    """One request in flight: the first offering agent gets it, once."""

    request: Any
    granted: str | None = None
    offers: list[str] = field(default_factory=list)
    replies: list[Any] = field(default_factory=list)


class Wire:
    """The suite's participant: sends requests, grants them, records everything it sees."""

    def __init__(self, domain: int, *, grants: bool = True) -> None:
        """`grants=False`: a client that never grants what it asks (one that hung, a peer
        that never meant to)."""
        self.participant = DomainParticipant(domain)
        self.domain, self.grants = domain, grants
        topics = {n: Topic(self.participant, n, cls) for n, cls in wire.TOPICS.items()}
        self.waitset = WaitSet(self.participant)
        self.guard = GuardCondition(self.participant)
        self.waitset.attach(self.guard)
        self.writers = {n: DataWriter(self.participant, topics[n], qos=wire.WRITER_QOS)
                        for n in (wire.REQUEST_TOPIC, wire.GRANT_TOPIC)}
        self.readers: dict[str, DataReader[Any]] = {}
        for name in (wire.OFFER_TOPIC, wire.REPLY_TOPIC, wire.STATUS_TOPIC, wire.EVENT_TOPIC):
            qos = wire.EVENT_QOS if name == wire.EVENT_TOPIC else wire.READER_QOS
            reader: DataReader[Any] = DataReader(self.participant, topics[name], qos=qos)
            self.waitset.attach(ReadCondition(reader, ANY_SAMPLE))
            self.readers[name] = reader
        self.asks: dict[str, Ask] = {}
        self.statuses: list[dict[str, Any]] = []  # every status sample, in arrival order
        self.gone: list[str] = []  # guids of agents whose status instance lost its writer
        self.events: dict[str, list[tuple[int, dict[str, Any]]]] = {}

    def send(self, message: str, *, agent: str = "", conversation_id: str = "",
             timeout: float = 60.0, metadata: str | None = None) -> str:
        """Publish a request; its metadata says `timeout`, unless `metadata` is given as is."""
        rid = str(uuid.uuid4())
        if metadata is None:
            metadata = json.dumps({"timeout": timeout, "client": "agent-tck suite"})
        request = wire.AgentRequest(rid, message, conversation_id, "", agent, metadata)
        self.asks[rid] = Ask(request)
        self.writers[wire.REQUEST_TOPIC].write(request)
        return rid

    def wait(self, done: Callable[[], bool], timeout: float) -> bool:
        """Pump samples until `done()` or `timeout` seconds pass; whether it is done."""
        end = time.monotonic() + timeout
        while not done():
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.pump(min(left, 0.2))
        return True

    def pump(self, seconds: float) -> None:
        self.waitset.wait(int(seconds * 1e9))
        for sample in self._take(wire.OFFER_TOPIC):
            self._on_offer(sample)
        for sample in self._take(wire.REPLY_TOPIC):
            ask = self.asks.get(sample.request_id)
            if ask is not None:
                ask.replies.append(sample)
        for sample in self._take(wire.STATUS_TOPIC):
            self.statuses.append(status_dict(sample))
        for sample in self._take(wire.EVENT_TOPIC):
            entry = (int(sample.sequence), json.loads(sample.event))
            self.events.setdefault(sample.request_id, []).append(entry)

    def grant(self, rid: str, guid: str) -> None:
        """Grant request `rid` to the agent `guid`, whatever it offered (a peer that grants
        what it did not ask, or what another client asked)."""
        self.writers[wire.GRANT_TOPIC].write(wire.AgentGrant(rid, guid))

    def retire(self, rid: str) -> None:
        """Drop a finished request from the writers' history (agents see it settled)."""
        ask = self.asks.get(rid)
        if ask is None:
            return
        if ask.granted is None:
            self.writers[wire.GRANT_TOPIC].write(wire.AgentGrant(rid, ""))
        self.writers[wire.REQUEST_TOPIC].unregister_instance(ask.request)
        self.writers[wire.GRANT_TOPIC].unregister_instance(wire.AgentGrant(rid, ""))

    def close(self) -> None:
        self.participant.__del__()

    def _on_offer(self, offer: Any) -> None:
        ask = self.asks.get(offer.request_id)
        if ask is None:
            return
        ask.offers.append(offer.agent_guid)
        tag = ask.request.service_instance_tag
        if self.grants and ask.granted is None and tag in ("", offer.agent_name):
            ask.granted = offer.agent_guid
            grant = wire.AgentGrant(offer.request_id, offer.agent_guid)
            self.writers[wire.GRANT_TOPIC].write(grant)

    def _take(self, topic: str) -> list[Any]:
        """Valid samples; for the status topic, also note agents whose writer is gone."""
        out = []
        while samples := self.readers[topic].take(N=256):
            for sample in samples:
                if sample.sample_info.valid_data:
                    out.append(sample)
                elif topic == wire.STATUS_TOPIC:
                    self.gone.append(sample.key_sample.agent_guid)
            if len(samples) < 256:
                break
        return out
