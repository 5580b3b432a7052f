"""Served agents with one defect each, for the transport suite to catch.

    python tests/miniatures/dds.py DEFECT serve --backend claude ...

Each defect is one small patch of the reference service:
- twice:           every reply is published twice
- ignores-target:  takes requests addressed to another agent
- no-offline:      stops without publishing OFFLINE
- no-resume:       never resumes a conversation's session
- anonymous:       its states say nothing of its backend, model or credentials
- hidden-tools:    publishes no tool_start event on the event topic
- unnumbered:      numbers every state it publishes 1
- events-unnumbered: numbers every event it publishes 1
- finds-every-cli: READY when its CLI is not on its PATH
- no-affinity:     takes any conversation's requests, whoever answered it
- strict-metadata: ends on a request whose metadata is not JSON
- holds-offers:    keeps an offer open until its client grants it, however long
- exits-0-refusing: says what is wrong with its domain or DDS configuration, and exits 0
- forgets-failed-session: a reply without a session id ends the conversation's session
- own-config:      checks the DDS configuration file it is given, then joins with its own
- stops-at-anothers: drops what it read after the first request addressed to another agent
- spins:           its loop never waits for the bus: it burns a CPU while idle
- deaf-to-the-gone: never hears that a writer went away (a client, an agent killed by SIGKILL)
- runs-unoffered-grants: takes a grant naming it as its own offer, for a request it never offered
- keeps-lost-offers: ignores a grant to another agent: its offer stays open until that one replies
- takes-zero-timeouts: takes a request's timeout of 0 at its word, and drops the request at once
- keeps-the-probe-quiet: its READY state's reason leaves out what its credentials probe found
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_tck.reference.dds import bus, cli, config, service, types
from agent_tck.reference.dds.service import AgentService

_reply = AgentService._reply
_read_requests = AgentService._read_requests
_read_grants = AgentService._read_grants
_start = AgentService._start
_describe = service._describe
_on_event = AgentService._on_event
_publish_state = service.StatePublisher.publish


def _reply_twice(self: AgentService, request: types.AgentRequest,
                 response: dict[str, Any]) -> None:
    """Publishes every reply twice."""
    _reply(self, request, response)
    _reply(self, request, response)


def _any_target(self: AgentService, request: types.AgentRequest) -> bool:
    """Takes requests addressed to another agent."""
    return True


def _silent_shutdown(self: AgentService, reason: str) -> None:
    """Leaves without publishing OFFLINE."""
    self.bus.close()


def _never_resume(self: AgentService, pending: Any) -> None:
    """Forgets every conversation before running a request."""
    self.conversations.clear()
    _start(self, pending)


def _anonymous(config: Any, domain: int, credentials: str | None) -> dict[str, Any]:
    """Describes itself in its states without its backend, model or credentials."""
    described = _describe(config, domain, credentials)
    return {k: v for k, v in described.items() if k not in ("backend", "model", "credentials")}


def _hide_tools(self: AgentService, event: Any) -> None:
    """Publishes every event of a request's stream but its tool calls."""
    if event.kind != "tool_start":
        _on_event(self, event)


def _unnumbered(self: service.StatePublisher, *args: Any, **kwargs: Any) -> None:
    """Numbers every state 1."""
    self.sequence = 0
    _publish_state(self, *args, **kwargs)


def _events_unnumbered(self: AgentService, event: Any) -> None:
    """Numbers every event 1."""
    self.event_sequence = 0
    _on_event(self, event)


def _finds_every_cli(agent: Any, config: Any) -> None:
    """Never finds a problem with its CLI before a request."""
    return None


def _any_conversation(self: AgentService, request: types.AgentRequest) -> bool:
    """Takes any conversation's requests, whichever agent answered it last."""
    return True


def _strict_metadata(text: str, on_error: Any = None) -> dict[str, Any]:
    """Reads metadata as JSON and lets what is not JSON raise."""
    value: dict[str, Any] = json.loads(text) if text else {}
    return value


def _zero_is_a_timeout(value: Any, default: float) -> float:
    """Any number that is not below 0 is a timeout (the reference's `value > 0` as `>= 0`)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    return float(value) if ok else default


def _keeps_the_probe_quiet(self: service.StatePublisher, state: service.State, reason: str,
                          request_id: str = "") -> None:
    """Publishes READY with the service's own words alone (the reference adds the agent's
    reason when it probed: "...; agent created; credentials: ...")."""
    if state is service.State.READY:
        reason = reason.partition(";")[0]
    _publish_state(self, state, reason, request_id)


def _forgets_failed_session(self: AgentService, reply: types.AgentReply) -> None:
    """Learns from another agent's reply the session it names, none when it names none."""
    if reply.conversation_id:
        session = bus.loads_object(reply.metadata).get("session_id")
        owner = service.Conversation(reply.replier_service_guid,
                                     session if isinstance(session, str) else None)
        self._remember(reply.conversation_id, owner)


def _own_config(path: Any = None) -> str:
    """Refuses a file it cannot use, as the reference does, then joins with the loopback
    configuration it ships instead of the file."""
    config.config_uri(path)
    return config.activate(None)


class _Read:
    """A reader that has already taken what it holds."""

    def __init__(self, data: list[Any], gone: list[Any]) -> None:
        self.data, self.gone = data, gone

    def take(self) -> tuple[list[Any], list[Any]]:
        return self.data, self.gone


def _reading_only(reader: str, kept: Any, method: Any) -> Any:
    """`method` of the service, given only what `kept(service, data)` keeps of what its
    `reader` took."""

    def patched(self: AgentService, *args: Any) -> None:
        real = getattr(self, reader)
        data, gone = real.take()
        setattr(self, reader, _Read(kept(self, data), gone))
        try:
            method(self, *args)
        finally:
            setattr(self, reader, real)

    return patched


def _to_the_first_not_addressed(self: AgentService, data: list[Any]) -> list[Any]:
    """What was read up to the first request addressed to another agent."""
    cut = next((i for i, r in enumerate(data) if not self._addressed(r)), len(data))
    return data[:cut + 1]


def _own_grants(self: AgentService, data: list[Any]) -> list[Any]:
    return [grant for grant in data if grant.agent_guid == self.guid]


def _spins(self: bus.Bus, seconds: float) -> None:
    """Returns at once, whatever is on the bus."""


def _grants_as_offers(self: AgentService) -> None:
    """Counts each grant naming it as an offer it made, then reads the grants as the
    reference does: a grant for a request it never offered to take runs it."""
    real = self.grants
    data, gone = real.take()
    for grant in data:
        if grant.agent_guid == self.guid and grant.request_id in self.pending:
            self.offered_ever[grant.request_id] = None
    self.grants = _Read(data, gone)
    try:
        _read_grants(self)
    finally:
        self.grants = real


_TAKE = bus.Inbox.take


def _deaf_to_the_gone(self: bus.Inbox[Any]) -> tuple[list[Any], list[Any]]:
    """What the reader took, without the instances whose writer went away."""
    data, _ = _TAKE(self)
    return data, []


DEFECTS: dict[str, tuple[Any, str, Any]] = {
    "twice": (AgentService, "_reply", _reply_twice),
    "ignores-target": (AgentService, "_addressed", _any_target),
    "no-offline": (AgentService, "shutdown", _silent_shutdown),
    "no-resume": (AgentService, "_start", _never_resume),
    "anonymous": (service, "_describe", _anonymous),
    "hidden-tools": (AgentService, "_on_event", _hide_tools),
    "unnumbered": (service.StatePublisher, "publish", _unnumbered),
    "events-unnumbered": (AgentService, "_on_event", _events_unnumbered),
    "finds-every-cli": (service, "_launch_problem", _finds_every_cli),
    "no-affinity": (AgentService, "_may_take", _any_conversation),
    "strict-metadata": (service, "loads_object", _strict_metadata),
    "holds-offers": (service, "OFFER_WAIT", math.inf),
    "exits-0-refusing": (cli, "USAGE", cli.OK),
    "forgets-failed-session": (AgentService, "_learn", _forgets_failed_session),
    "own-config": (bus, "activate", _own_config),
    "stops-at-anothers": (AgentService, "_read_requests",
                          _reading_only("requests", _to_the_first_not_addressed, _read_requests)),
    "keeps-lost-offers": (AgentService, "_read_grants",
                          _reading_only("grants", _own_grants, _read_grants)),
    "spins": (bus.Bus, "wait", _spins),
    "deaf-to-the-gone": (bus.Inbox, "take", _deaf_to_the_gone),
    "runs-unoffered-grants": (AgentService, "_read_grants", _grants_as_offers),
    "takes-zero-timeouts": (service, "_number", _zero_is_a_timeout),
    "keeps-the-probe-quiet": (service.StatePublisher, "publish", _keeps_the_probe_quiet),
}

if __name__ == "__main__":
    defect, *argv = sys.argv[1:]
    owner, attribute, patch = DEFECTS[defect]
    setattr(owner, attribute, patch)
    sys.exit(cli.main(argv))
