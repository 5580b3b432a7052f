"""One DDS participant with the agent topics, readers and writers, and a wait set.

Shared by the service and the client so both see the same topics with the same QoS.
`Bus.wait` blocks until a reader has data or `wake` is called (from any thread).
"""

from __future__ import annotations

import json
from typing import Any, Generic, TypeVar

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
from cyclonedds.util import duration

from agent_tck.reference.dds import types
from agent_tck.reference.dds.config import activate, check_domain
from agent_tck.reference.limits import loads_json

T = TypeVar("T")
ANY_SAMPLE = SampleState.Any | ViewState.Any | InstanceState.Any
BATCH = 256


class Inbox(Generic[T]):
    """A reader; `take` splits samples into data and keys whose writer went away."""

    def __init__(self, reader: DataReader[Any]) -> None:
        self.reader = reader

    def take(self) -> tuple[list[T], list[T]]:
        data: list[T] = []
        gone: list[T] = []
        while samples := self.reader.take(N=BATCH):
            for sample in samples:
                if sample.sample_info.valid_data:
                    data.append(sample)
                else:
                    gone.append(sample.key_sample)
            if len(samples) < BATCH:
                break
        return data, gone


class Bus:
    """A participant on `domain` with every topic; readers and writers on request."""

    def __init__(self, domain: int, dds_config: str | None = None) -> None:
        activate(dds_config)
        self.participant = DomainParticipant(check_domain(domain))
        self.domain = domain
        self.guid = str(self.participant.guid)
        self.topics = {
            name: Topic(self.participant, name, cls)
            for name, cls in (
                (types.REQUEST_TOPIC, types.AgentRequest),
                (types.REPLY_TOPIC, types.AgentReply),
                (types.OFFER_TOPIC, types.AgentOffer),
                (types.GRANT_TOPIC, types.AgentGrant),
                (types.STATUS_TOPIC, types.AgentStatus),
                (types.EVENT_TOPIC, types.AgentEvent),
            )
        }
        self.waitset = WaitSet(self.participant)
        self.guard = GuardCondition(self.participant)
        self.waitset.attach(self.guard)
        self._conditions: list[ReadCondition] = []

    def writer(self, topic: str, qos: Any = types.WRITER_QOS) -> DataWriter[Any]:
        return DataWriter(self.participant, self.topics[topic], qos=qos)

    def inbox(self, topic: str, qos: Any = types.READER_QOS) -> Inbox[Any]:
        reader: DataReader[Any] = DataReader(self.participant, self.topics[topic], qos=qos)
        condition = ReadCondition(reader, ANY_SAMPLE)
        self.waitset.attach(condition)
        self._conditions.append(condition)
        return Inbox(reader)

    def wait(self, seconds: float) -> bool:
        """Until a reader has samples, `wake` is called, or `seconds` pass; whether one of the
        first two ended it."""
        triggered: int = self.waitset.wait(duration(seconds=max(0.0, seconds)))
        self.guard.set(False)
        return triggered > 0

    def wake(self) -> None:
        self.guard.set(True)

    def close(self) -> None:
        """Delete the participant and everything in it (readers, writers, conditions).

        Deleting it now, not at garbage collection, is what makes peers see this
        participant's instances go away at once.
        """
        self.participant.__del__()


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads_object(text: str) -> dict[str, Any]:
    """The JSON object in `text`, or {} for anything else (metadata is optional): not JSON,
    NaN or Infinity, or nested beyond the parser's depth (a hostile peer on the domain)."""
    try:
        value = loads_json(text) if text else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
