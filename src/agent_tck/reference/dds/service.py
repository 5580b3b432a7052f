"""The reference agent served on DDS: lifecycle on the status topic, requests shared by offers.

One loop thread owns every DDS read and all bookkeeping; one worker thread at a time runs
`CodingAgent.process`. Load sharing (see `docs/dds.md`): an idle agent offers to take the
oldest request it may serve, holds at most one open offer, and runs a request only when its
client grants it; a grant to another agent (or a withdrawal) settles the request for every
other agent. So a request runs exactly once, and a BUSY agent never takes a second one.

An offer nobody grants within OFFER_WAIT is withdrawn and its request goes to the back of
the queue, so one request whose client never grants (a dead or hostile peer) cannot keep an
agent from everyone else. A grant is an obligation: one that comes for an offer already
withdrawn, or while the agent is busy, is run as soon as the agent is free, before any new
offer. So no granted request is lost, and none runs twice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import signal
import socket
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tck.reference.agent import AgentConfig, CodingAgent, NodeEvent
from agent_tck.reference.dds import types
from agent_tck.reference.dds.bus import Bus, dumps, loads_object
from agent_tck.reference.events import Event
from agent_tck.reference.status import State, Status

log = logging.getLogger(__name__)

TICK = 0.2  # the longest the loop sleeps when nothing happens (stop flag, deadlines)
DEFAULT_REQUEST_TTL = 3600.0  # how long a request waits for an agent when it says nothing
REPLY_RETENTION = 60.0  # how long a reply stays in the writer's history for late readers
ACK_WAIT = 1.0  # on shutdown, how long to wait for readers to acknowledge the last samples
SETTLED_MEMORY = 10_000  # request ids remembered as taken elsewhere
MAX_REQUEST_TTL = 24 * 3600.0  # a request's own `timeout` is honoured up to this
MAX_PENDING = 1_000  # requests waiting at one agent at once
MAX_PENDING_CHARS = 64 << 20  # their messages and metadata together
MAX_CONVERSATIONS = 10_000  # conversations remembered (their owner and session), newest kept
MAX_PEERS = 10_000  # other agents' states remembered, newest kept (one forgotten reads OFFLINE)
OFFER_WAIT = 5.0  # an offer not granted in this time is withdrawn, its request sent to the back


class StopFlag(threading.Event):
    """Set (with a reason) to stop the service."""

    reason = "stopped"

    def stop(self, reason: str) -> None:
        self.reason = reason
        self.set()


@dataclass
class Pending:
    request: types.AgentRequest
    deadline: float


@dataclass
class Conversation:
    owner: str  # the guid of the agent that answered its last request
    session_id: str | None


class StatePublisher:
    """Writes every state change to the status topic; thread-safe."""

    def __init__(self, bus: Bus, name: str, metadata: dict[str, Any]) -> None:
        self.writer = bus.writer(types.STATUS_TOPIC, types.STATUS_WRITER_QOS)
        self.guid, self.name, self.metadata = bus.guid, name, dumps(metadata)
        self.state: State | None = None
        self.sequence = 0
        self.lock = threading.Lock()

    def publish(self, state: State, reason: str, request_id: str = "") -> None:
        with self.lock:
            previous, self.state = self.state, state
            self.sequence += 1
            self.writer.write(types.AgentStatus(
                agent_guid=self.guid, agent_name=self.name, state=state.name,
                state_code=int(state), previous=previous.name if previous is not None else "",
                previous_code=int(previous) if previous is not None else -1, reason=reason,
                request_id=request_id, sequence=self.sequence, timestamp=time.time(),
                metadata=self.metadata))
        log.info("%s: %s (%s)", self.name, state.name, reason)


class AgentService:
    """A `CodingAgent` answering requests on one DDS domain."""

    def __init__(self, config: AgentConfig, *, name: str, domain: int,
                 dds_config: str | None = None) -> None:
        self.config, self.name = config, name
        self.bus = Bus(domain, dds_config)
        self.guid = self.bus.guid
        self.states = StatePublisher(self.bus, name, _describe(config, domain,
                                                               config.credentials))
        self.states.publish(State.DISCOVERING, f"joining DDS domain {domain} as {name!r}")
        self.requests = self.bus.inbox(types.REQUEST_TOPIC)
        self.grants = self.bus.inbox(types.GRANT_TOPIC)
        self.replies_in = self.bus.inbox(types.REPLY_TOPIC)
        self.statuses = self.bus.inbox(types.STATUS_TOPIC)
        self.offers = self.bus.writer(types.OFFER_TOPIC)
        self.replies = self.bus.writer(types.REPLY_TOPIC)
        self.events = self.bus.writer(types.EVENT_TOPIC, types.EVENT_QOS)
        self.pending: OrderedDict[str, Pending] = OrderedDict()
        self.settled: set[str] = set()
        self.settled_order: deque[str] = deque()
        self.conversations: dict[str, Conversation] = {}
        self.peers: dict[str, str] = {}
        self.offered: str | None = None
        self.offered_at = 0.0
        self.offered_ever: OrderedDict[str, None] = OrderedDict()  # grants for these are owed
        self.owed: deque[str] = deque()  # granted to this agent, to run when it is free
        self.running: Pending | None = None
        self.worker: threading.Thread | None = None
        self.done: queue.SimpleQueue[tuple[Pending, dict[str, Any]]] = queue.SimpleQueue()
        self.sent: deque[tuple[float, str]] = deque()
        self.event_sequence = 0
        self.agent = CodingAgent(config)  # probes its credentials when asked to (D-22)
        self.states.metadata = dumps(_describe(config, domain, self.agent.credentials))
        self.agent.listeners.append(self._on_state)
        self.agent.stream_listeners.append(self._on_event)

    # --- lifecycle -------------------------------------------------------------------------

    def run(self, stop: StopFlag) -> None:
        """Serve until `stop` is set; then publish OFFLINE, whatever happened."""
        try:
            problem = _launch_problem(self.agent, self.config)
            if problem or self.agent.state is State.DEGRADED:
                self.states.publish(State.DEGRADED, problem or self.agent.created)
            else:
                probed = f"; {self.agent.created}" if self.config.credentials == "probe" else ""
                self.states.publish(State.READY, f"serving requests on DDS domain "
                                                 f"{self.bus.domain}{probed}")
            while not stop.is_set():
                self.step()
        finally:
            self.shutdown(stop.reason)

    def shutdown(self, reason: str) -> None:
        """Withdraw the open offer, end the running request, publish OFFLINE, leave."""
        self._close_offer()
        if self.worker is not None and self.worker.is_alive():
            _terminate_children(self.worker, self.config.grace_period)
        self._finish_done()
        self.states.publish(State.OFFLINE, reason)
        for writer in (self.replies, self.states.writer):  # let readers have the last word
            with contextlib.suppress(Exception):
                writer.wait_for_acks(int(ACK_WAIT * 1e9))
        self.bus.close()

    def step(self) -> None:
        """One turn of the loop: read everything, settle, finish, offer."""
        self.bus.wait(TICK)
        now = time.monotonic()
        self._read_statuses()
        self._read_replies()
        self._read_requests(now)
        self._read_grants()
        self._finish_done()
        self._expire(now)
        self._run_owed()
        self._offer(now)
        self._forget_replies(now)

    # --- reading ---------------------------------------------------------------------------

    def _read_requests(self, now: float) -> None:
        data, gone = self.requests.take()
        for request in data:
            rid = request.request_id
            if rid in self.settled or rid in self.pending or not self._addressed(request):
                continue
            if self._full(request):
                continue  # still on the bus for other agents, and for its client's timeout
            ttl = _number(loads_object(request.metadata).get("timeout"), DEFAULT_REQUEST_TTL)
            self.pending[rid] = Pending(request, now + min(ttl, MAX_REQUEST_TTL))
        for key in gone:  # the client went away: nobody waits for an answer
            self._settle(key.request_id)

    def _full(self, request: types.AgentRequest) -> bool:
        """Whether queuing `request` would pass the bounds on what waits here."""
        chars = sum(len(p.request.message) + len(p.request.metadata)
                    for p in self.pending.values())
        size = len(request.message) + len(request.metadata)
        if len(self.pending) < MAX_PENDING and chars + size <= MAX_PENDING_CHARS:
            return False
        log.warning("not queuing request %s (%d characters): %d requests of %d characters "
                    "already wait here", request.request_id, size, len(self.pending), chars)
        return True

    def _read_grants(self) -> None:
        data, gone = self.grants.take()
        for grant in data:
            rid = grant.request_id
            if grant.agent_guid != self.guid:
                self._settle(rid)
            elif rid in self.offered_ever and rid in self.pending and rid not in self.owed:
                self.owed.append(rid)
        for key in gone:
            self._settle(key.request_id)
        self._run_owed()

    def _read_replies(self) -> None:
        data, _ = self.replies_in.take()
        for reply in data:
            if reply.replier_service_guid != self.guid:
                self._settle(reply.request_id)
                self._learn(reply)

    def _read_statuses(self) -> None:
        """Other agents' states, for conversation affinity: at most MAX_PEERS are kept,
        however many agents come and go on the domain; one disposed of is forgotten (absent
        reads as OFFLINE)."""
        data, gone = self.statuses.take()
        for status in data:
            _keep_newest(self.peers, status.agent_guid, status.state, MAX_PEERS)
        for key in gone:
            self.peers.pop(key.agent_guid, None)

    def _learn(self, reply: types.AgentReply) -> None:
        """A conversation belongs to the agent that answered its last request."""
        if not reply.conversation_id:
            return
        session = loads_object(reply.metadata).get("session_id")
        known = self.conversations.get(reply.conversation_id)
        if not isinstance(session, str):
            session = known.session_id if known else None
        self._remember(reply.conversation_id, Conversation(reply.replier_service_guid, session))

    def _remember(self, conversation_id: str, conversation: Conversation) -> None:
        """Keep the newest MAX_CONVERSATIONS conversations: the map is in order of last use."""
        _keep_newest(self.conversations, conversation_id, conversation, MAX_CONVERSATIONS)

    # --- deciding --------------------------------------------------------------------------

    def _addressed(self, request: types.AgentRequest) -> bool:
        return (request.target_service_guid in ("", self.guid)
                and request.service_instance_tag in ("", self.name))

    def _may_take(self, request: types.AgentRequest) -> bool:
        """Conversation affinity: its owner takes it while the owner is alive."""
        conversation = self.conversations.get(request.conversation_id)
        if conversation is None or conversation.owner == self.guid:
            return True
        return self.peers.get(conversation.owner, State.OFFLINE.name) == State.OFFLINE.name

    def _run_owed(self) -> None:
        """Start the oldest request granted to this agent, if it is free."""
        while self.running is None and self.owed:
            rid = self.owed.popleft()
            if rid in self.pending:
                self._start(self.pending.pop(rid))

    def _offer(self, now: float) -> None:
        if self.running is not None or self.owed:
            return
        if self.offered is not None:
            if now < self.offered_at + OFFER_WAIT:
                return
            log.info("request %s: no grant in %g s; offering the next one", self.offered,
                     OFFER_WAIT)
            self.pending.move_to_end(self.offered)
            self._close_offer()
        for rid, pending in self.pending.items():
            if self._may_take(pending.request):
                self.offers.write(types.AgentOffer(rid, self.guid, self.name))
                self.offered, self.offered_at = rid, now
                self.offered_ever[rid] = None
                while len(self.offered_ever) > SETTLED_MEMORY:
                    self.offered_ever.popitem(last=False)
                return

    def _close_offer(self) -> None:
        if self.offered is not None:
            with contextlib.suppress(Exception):
                self.offers.unregister_instance(types.AgentOffer(self.offered, "", ""))
            self.offered = None

    def _settle(self, rid: str) -> None:
        """`rid` is someone else's now (or nobody's): forget it, remember that."""
        self.pending.pop(rid, None)
        self.offered_ever.pop(rid, None)
        if rid == self.offered:
            self._close_offer()
        if rid not in self.settled:
            self.settled.add(rid)
            self.settled_order.append(rid)
            if len(self.settled_order) > SETTLED_MEMORY:
                self.settled.discard(self.settled_order.popleft())

    def _expire(self, now: float) -> None:
        for rid in [rid for rid, p in self.pending.items() if p.deadline <= now]:
            self._settle(rid)

    # --- running ---------------------------------------------------------------------------

    def _start(self, pending: Pending) -> None:
        self._close_offer()
        self.running = pending
        conversation = self.conversations.get(pending.request.conversation_id)
        session = conversation.session_id if conversation else None
        self.worker = threading.Thread(target=self._work, args=(pending, session),
                                       name=f"request-{pending.request.request_id}")
        self.worker.start()

    def _work(self, pending: Pending, session: str | None) -> None:
        try:
            response = self.agent.process(pending.request.message, session)
        except Exception as exc:  # a bug must still answer the client and free the agent
            log.exception("request %s failed", pending.request.request_id)
            error = f"the agent failed: {exc!r}"
            response = {"message": error, "status": int(Status.HARNESS_ERROR),
                        "backend": self.config.backend, "tool_calls": 0, "session_id": None,
                        "error": error}
        self.done.put((pending, response))
        self.bus.wake()

    def _finish_done(self) -> None:
        while not self.done.empty():
            pending, response = self.done.get()
            self._reply(pending.request, response)
            self.running = None

    def _reply(self, request: types.AgentRequest, response: dict[str, Any]) -> None:
        rid = request.request_id
        self.replies.write(types.AgentReply(
            request_id=rid, message=str(response.get("message") or ""),
            status=int(response.get("status", 0)), conversation_id=request.conversation_id,
            replier_service_guid=self.guid, service_instance_tag=self.name,
            metadata=dumps(response)))
        self.sent.append((time.monotonic(), rid))
        if request.conversation_id:
            known = self.conversations.get(request.conversation_id)
            session = response.get("session_id") or (known.session_id if known else None)
            self._remember(request.conversation_id, Conversation(self.guid, session))
        self._settle(rid)

    def _forget_replies(self, now: float) -> None:
        while self.sent and self.sent[0][0] + REPLY_RETENTION <= now:
            _, rid = self.sent.popleft()
            with contextlib.suppress(Exception):
                self.replies.unregister_instance(
                    types.AgentReply(rid, "", 0, "", "", "", ""))

    # --- publishing (called from the worker thread) ----------------------------------------

    def _current(self) -> str:
        running = self.running
        return running.request.request_id if running is not None else ""

    def _on_state(self, event: NodeEvent) -> None:
        self.states.publish(event.state, event.reason, self._current())

    def _on_event(self, event: Event) -> None:
        self.event_sequence += 1
        self.events.write(types.AgentEvent(self._current(), self.guid, self.event_sequence,
                                           dumps(event.to_dict())))


def _keep_newest(mapping: dict[str, Any], key: str, value: Any, limit: int) -> None:
    """Set `key` as the newest entry of `mapping` (kept in order of last setting), and forget
    the oldest ones beyond `limit`."""
    mapping.pop(key, None)
    mapping[key] = value
    while len(mapping) > limit:
        del mapping[next(iter(mapping))]


def default_name(backend: str) -> str:
    return f"{backend}-{socket.gethostname()}-{os.getpid()}"


def _describe(config: AgentConfig, domain: int, credentials: str | None) -> dict[str, Any]:
    return {"backend": config.backend, "model": config.model, "credentials": credentials,
            "timeout": config.timeout, "grace_period": config.grace_period,
            "working_dir": config.working_dir,
            "domain": domain, "pid": os.getpid(), "host": socket.gethostname()}


def _launch_problem(agent: CodingAgent, config: AgentConfig) -> str | None:
    """Why requests will fail to start the CLI (the service is DEGRADED then), or None."""
    path = (config.env or {}).get("PATH", os.environ.get("PATH", os.defpath))
    if shutil.which(agent.backend.command, path=path) is None:
        return f"{agent.backend.command!r} was not found on PATH; requests will fail to launch"
    return None


def _number(value: Any, default: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else default


def _terminate_children(worker: threading.Thread, grace: float) -> None:
    """SIGTERM the running harness's process group; after `grace` SIGUSR1, which the reaper
    (reference/reaper.py) takes as "kill your whole tree"; SIGKILL last. The worker's
    supervisor reaps it. The harness, or its reaper, leads its own group (decision D-6)."""
    for sig in (signal.SIGTERM, signal.SIGUSR1, signal.SIGKILL):
        for pid in _children(os.getpid()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, sig)
        worker.join(grace)
        if not worker.is_alive():
            return


def _children(parent: int) -> list[int]:
    """Live child processes of `parent`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(entry.name))
    return found
