"""The client side of the served agent: send a request, grant it to one agent, await the reply.

A client is the arbiter of its own requests: it grants each request to the first agent
that offers to take it, exactly once, and accepts a reply only from that agent. One client
can have many requests in flight (`submit`, then `result` for each).

When the agent a request was granted to is gone before it replied (killed: its liveliness
is lost and its status instance disposed), the client asks again under a new request id
(`<id>~<n>`), so another agent can take it; the reply is returned under the original id. The
request ran at most once to completion: the dead agent can no longer reply.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from agent_tck.reference.dds import types
from agent_tck.reference.dds.bus import Bus, dumps, loads_object
from agent_tck.reference.dds.exceptions import NoReplyError

DEFAULT_TIMEOUT = 600.0
_GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Reply:
    """An agent's answer; `response` is the full structured response."""

    request_id: str
    message: str
    status: int
    conversation_id: str
    replier_service_guid: str
    service_instance_tag: str
    response: dict[str, Any]

    @classmethod
    def from_sample(cls, sample: types.AgentReply) -> Reply:
        return cls(sample.request_id, sample.message, int(sample.status),
                   sample.conversation_id, sample.replier_service_guid,
                   sample.service_instance_tag, loads_object(sample.metadata))

    def to_dict(self) -> dict[str, Any]:
        """The structured response with the transport's fields added."""
        return {**self.response, "request_id": self.request_id,
                "conversation_id": self.conversation_id, "agent": self.service_instance_tag,
                "agent_guid": self.replier_service_guid}


@dataclass
class _Ask:
    request: types.AgentRequest
    deadline: float
    granted: str | None = None
    offered_by: set[str] = field(default_factory=set)
    reply: Reply | None = None
    original: str = ""  # the request id the caller knows (the request's own until re-asked)
    asked: int = 1  # how many times it was published

    def accepts(self, offer: types.AgentOffer) -> bool:
        request = self.request
        return (request.target_service_guid in ("", offer.agent_guid)
                and request.service_instance_tag in ("", offer.agent_name))


class Client:
    """A participant that asks the agents on `domain`."""

    def __init__(self, domain: int, dds_config: str | None = None, name: str = "ask") -> None:
        self.bus = Bus(domain, dds_config)
        self.name = name
        self.requests = self.bus.writer(types.REQUEST_TOPIC)
        self.grants = self.bus.writer(types.GRANT_TOPIC)
        self.offers = self.bus.inbox(types.OFFER_TOPIC)
        self.replies = self.bus.inbox(types.REPLY_TOPIC)
        self.statuses = self.bus.inbox(types.STATUS_TOPIC)
        self.agents: dict[str, tuple[str, str]] = {}  # guid -> (name, state)
        self.asks: dict[str, _Ask] = {}

    def submit(self, message: str, *, conversation_id: str = "", agent: str = "",
               timeout: float = DEFAULT_TIMEOUT, request_id: str | None = None) -> str:
        """Publish a request; its id. `agent` is a name or a guid."""
        rid = request_id or str(uuid.uuid4())
        by_guid = bool(_GUID.match(agent))
        request = types.AgentRequest(
            request_id=rid, message=message, conversation_id=conversation_id,
            target_service_guid=agent if by_guid else "",
            service_instance_tag="" if by_guid else agent,
            metadata=dumps({"timeout": timeout, "client": self.name}))
        self.asks[rid] = _Ask(request, time.monotonic() + timeout, original=rid)
        self.requests.write(request)
        return rid

    def result(self, rid: str) -> Reply:
        """Wait for the reply to `rid`; NoReplyError when its time is up."""
        ask = self.asks[rid]
        while ask.reply is None and (left := ask.deadline - time.monotonic()) > 0:
            self.pump(left)
        self._retire(ask)
        if ask.reply is None:
            raise NoReplyError(self._why(ask), offered=bool(ask.offered_by))
        return ask.reply

    def ask(self, message: str, **options: Any) -> Reply:
        return self.result(self.submit(message, **options))

    def pump(self, seconds: float) -> None:
        """Wait up to `seconds` for samples, then grant offers and collect replies."""
        self.bus.wait(min(seconds, 0.5))
        for offer in self.offers.take()[0]:
            self._consider(offer)
        for sample in self.replies.take()[0]:
            ask = self.asks.get(sample.request_id)
            if ask and ask.reply is None and sample.replier_service_guid == ask.granted:
                ask.reply = replace(Reply.from_sample(sample), request_id=ask.original)
        data, gone = self.statuses.take()
        for status in data:
            self.agents[status.agent_guid] = (status.agent_name, status.state)
        for key in gone:
            name = self.agents.get(key.agent_guid, ("?", ""))[0]
            self.agents[key.agent_guid] = (name, "OFFLINE")
            self._ask_again(key.agent_guid)

    def close(self) -> None:
        self.bus.close()

    def _consider(self, offer: types.AgentOffer) -> None:
        ask = self.asks.get(offer.request_id)
        if ask is None or ask.reply is not None or not ask.accepts(offer):
            return
        ask.offered_by.add(offer.agent_name)
        if ask.granted is None:  # the first offer wins; the grant is never changed
            ask.granted = offer.agent_guid
            self.grants.write(types.AgentGrant(offer.request_id, offer.agent_guid))

    def _ask_again(self, gone: str) -> None:
        """Publish again, under a new id, each unanswered request granted to the agent `gone`."""
        for ask in [a for rid, a in self.asks.items() if a.request.request_id == rid]:
            if ask.granted == gone and ask.reply is None:
                self._unpublish(ask.request)
                ask.asked += 1
                ask.request = replace(ask.request, request_id=f"{ask.original}~{ask.asked}")
                ask.granted = None
                self.asks[ask.request.request_id] = ask
                self.requests.write(ask.request)

    def _retire(self, ask: _Ask) -> None:
        """Settle the request for every agent and drop it from the writers' history."""
        if ask.reply is None and ask.granted is None:
            self.grants.write(types.AgentGrant(ask.request.request_id, ""))  # withdrawn
        self._unpublish(ask.request)
        for rid in [rid for rid, a in self.asks.items() if a is ask]:
            del self.asks[rid]

    def _unpublish(self, request: types.AgentRequest) -> None:
        self.requests.unregister_instance(request)
        self.grants.unregister_instance(types.AgentGrant(request.request_id, ""))

    def _why(self, ask: _Ask) -> str:
        request = ask.request
        target = request.service_instance_tag or request.target_service_guid
        head = (f"no agent answered request {request.request_id} in time on DDS domain "
                f"{self.bus.domain}")
        if ask.granted is not None:
            name = self.agents.get(ask.granted, (ask.granted, ""))[0]
            return f"{head}: agent {name!r} took it but did not reply"
        online = {n: s for n, s in self.agents.values() if s != "OFFLINE"}
        if target and target not in online and not any(
                g == target for g in self.agents):
            return f"{head}: no agent named {target!r} is online"
        if not online:
            return f"{head}: no agent is online"
        seen = ", ".join(f"{n} ({s})" for n, s in sorted(online.items()))
        return f"{head}: no agent offered to take it (agents seen: {seen})"
