"""The DDS wire contract as the reference's modules name it; it is defined once, in
agent_tck.wire, which the judge reads too."""

from agent_tck.wire import (
    EVENT_QOS,
    EVENT_TOPIC,
    GRANT_TOPIC,
    OFFER_TOPIC,
    READER_QOS,
    REPLY_TOPIC,
    REQUEST_TOPIC,
    STATUS_TOPIC,
    STATUS_WRITER_QOS,
    WRITER_QOS,
    AgentEvent,
    AgentGrant,
    AgentOffer,
    AgentReply,
    AgentRequest,
    AgentStatus,
)

__all__ = ["EVENT_QOS", "EVENT_TOPIC", "GRANT_TOPIC", "OFFER_TOPIC", "READER_QOS", "REPLY_TOPIC",
           "REQUEST_TOPIC", "STATUS_TOPIC", "STATUS_WRITER_QOS", "WRITER_QOS", "AgentEvent",
           "AgentGrant", "AgentOffer", "AgentReply", "AgentRequest", "AgentStatus"]
