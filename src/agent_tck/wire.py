"""The DDS wire contract of docs/dds.md: topic names, sample types and QoS, defined once.

The reference's served agent and client speak it, and so does the judge's own participant
(kit/drivers/dds_wire.py): a DDS-native agent in any language is judged against these types.
It imports nothing else of agent_tck, so the judge never reaches the reference to learn the
contract.

Field names of the request and reply follow GENESIS's RPC types. The offer and grant topics
carry the load-sharing handshake; the status topic is the monitoring topic (one instance per
agent); the event topic streams normalized events while a request runs. Strings hold JSON
where a structure is needed, so any DDS language binding can read every sample without
generated code beyond these six structs.
"""

# No `from __future__ import annotations`: Cyclone DDS resolves these hints at run time.

from dataclasses import dataclass

from cyclonedds.core import Policy, Qos
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import key
from cyclonedds.idl.types import int32, int64
from cyclonedds.util import duration

REQUEST_TOPIC = "agent_tck_request"
REPLY_TOPIC = "agent_tck_reply"
OFFER_TOPIC = "agent_tck_offer"
GRANT_TOPIC = "agent_tck_grant"
STATUS_TOPIC = "agent_tck_status"
EVENT_TOPIC = "agent_tck_event"


@dataclass
class AgentRequest(IdlStruct, typename="agent_tck::AgentRequest"):
    """A request; `target_service_guid` / `service_instance_tag` address one agent."""

    request_id: str
    key("request_id")
    message: str
    conversation_id: str
    target_service_guid: str
    service_instance_tag: str
    metadata: str  # JSON object: {"timeout": seconds the client waits, "client": name}


@dataclass
class AgentReply(IdlStruct, typename="agent_tck::AgentReply"):
    """The answer to one request; `metadata` is the full structured response as JSON."""

    request_id: str
    key("request_id")
    message: str
    status: int32
    conversation_id: str
    replier_service_guid: str
    service_instance_tag: str
    metadata: str


@dataclass
class AgentOffer(IdlStruct, typename="agent_tck::AgentOffer"):
    """An idle agent offers to take a request."""

    request_id: str
    key("request_id")
    agent_guid: str
    agent_name: str


@dataclass
class AgentGrant(IdlStruct, typename="agent_tck::AgentGrant"):
    """The client gives its request to one agent; an empty `agent_guid` withdraws it."""

    request_id: str
    key("request_id")
    agent_guid: str


@dataclass
class AgentStatus(IdlStruct, typename="agent_tck::AgentStatus"):
    """One published state change of one agent (a graph node event)."""

    agent_guid: str
    key("agent_guid")
    agent_name: str
    state: str
    state_code: int32
    previous: str  # "" for the first state
    previous_code: int32  # -1 for the first state
    reason: str
    request_id: str  # the request that caused the change, "" when none
    sequence: int64  # 1, 2, ... per agent
    timestamp: float  # seconds since the epoch
    metadata: str  # JSON: backend, model, credentials, timeout, grace_period, working_dir,
    # domain, pid, host (docs/dds.md, TR-10)


@dataclass
class AgentEvent(IdlStruct, typename="agent_tck::AgentEvent"):
    """One normalized stream event (decision D-2) of a running request, as JSON."""

    request_id: str
    agent_guid: str
    sequence: int64
    event: str


# Each topic's sample type.
TOPICS = {REQUEST_TOPIC: AgentRequest, REPLY_TOPIC: AgentReply, OFFER_TOPIC: AgentOffer,
          GRANT_TOPIC: AgentGrant, STATUS_TOPIC: AgentStatus, EVENT_TOPIC: AgentEvent}


def _reliable() -> Policy.Reliability.Reliable:
    return Policy.Reliability.Reliable(duration(seconds=1))


# Transient-local: a sample written before the peer's endpoint was discovered still
# reaches it, so no side has to wait for discovery before writing. Writers keep the last
# sample per key (per request, per agent) and unregister keys once they are settled.
WRITER_QOS = Qos(_reliable(), Policy.Durability.TransientLocal, Policy.History.KeepLast(1))
READER_QOS = Qos(_reliable(), Policy.Durability.TransientLocal, Policy.History.KeepAll)
# The status topic keeps an agent's last 64 states for late joiners. Cyclone DDS keeps for them
# what the durability service's history says, not the writer's (its default: the last sample
# per key), so both say 64.
STATUS_HISTORY = Policy.History.KeepLast(64)
STATUS_WRITER_QOS = Qos(_reliable(), Policy.Durability.TransientLocal, STATUS_HISTORY,
                        Policy.DurabilityService(0, STATUS_HISTORY, -1, -1, -1))
# Events are a live stream: volatile, every sample, in order.
EVENT_QOS = Qos(_reliable(), Policy.Durability.Volatile, Policy.History.KeepAll)
