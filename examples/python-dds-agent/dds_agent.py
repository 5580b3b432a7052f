"""A DDS-native served agent for agent-tck's `transport` component, written from docs/dds.md.

    python dds_agent.py --name NAME --domain N --dds-config FILE --backend B [--working-dir DIR]
        [--timeout S] [--grace-period S] [--command CLI] [--model M] [--credentials MODE] [-v]

The coding agent itself (running the CLI, parsing its stream, timeouts, resuming a session) is
the reference's `agent_tck.reference.agent.CodingAgent`; this module is the DDS service around
it: the six topics of `agent_tck.wire`, the offer/grant handshake, the pending list,
conversation affinity, states and events, and a clean stop on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import queue
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NoReturn

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
from agent_tck.reference.agent import AgentConfig, CodingAgent, NodeEvent, judge
from agent_tck.reference.events import Event
from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.feed import Feed
from agent_tck.reference.status import State, Status
from agent_tck.reference.supervisor import Outcome, Supervisor, run_process

log = logging.getLogger("dds_agent")
OFFER_WAIT = 5.0  # seconds an offer waits for its grant before it is withdrawn
REPLY_KEEP = 60.0  # seconds a reply's key stays registered
FORGET = 600.0  # seconds a settled request id is remembered (a late grant is ignored)
TICK = 0.2  # the longest wait on the bus: deadlines are checked this often


def fail(message: str) -> NoReturn:
    """Refuse to start: the error on stderr, a non-zero exit, nothing joined."""
    print(f"dds_agent: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_domain(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) > 232:
        fail(f"--domain {value!r} is no DDS domain id (a number from 0 to 232)")
    return int(value)


def check_config(path: str) -> str:
    """The absolute path of a Cyclone DDS configuration this agent can use, or exit."""
    what = f"cannot use the DDS configuration {path!r}"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            fail(f"{what}: it is no regular file")
        root = ET.parse(path).getroot()
    except OSError as exc:
        fail(f"{what}: {exc.strerror}")
    except ET.ParseError as exc:
        fail(f"{what}: it is no XML document with an element ({exc})")
    asks_security = any(isinstance(e.tag, str)
                        and e.tag.rpartition("}")[2].lower() in ("security", "ddssecurity")
                        for e in root.iter())
    if asks_security and not has_security_plugins():
        fail(f"{what}: it asks for DDS Security, and this Cyclone DDS build has no DDS Security "
             "plugins")
    return os.path.abspath(path)


def has_security_plugins() -> bool:
    import cyclonedds

    package = Path(cyclonedds.__file__).parent
    folders = [d for d in (package, package.parent / "cyclonedds.libs") if d.is_dir()]
    return any("security" in f.name for d in folders for f in d.iterdir())


def client_timeout(metadata: str) -> float | None:
    """The `timeout` a request's metadata gives, when it is a positive number of seconds."""
    try:
        value = json.loads(metadata).get("timeout")
        seconds = float(value) if not isinstance(value, bool) else math.nan
    except (ValueError, RecursionError, AttributeError, TypeError, OverflowError):
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


class StoppableRun(Supervisor):
    """The reference's supervisor, made stoppable by a signal to the agent: `stop` brings the
    deadline forward, so the CLI gets SIGTERM, SIGKILL after the grace period, and is reaped,
    as at a timeout. It looks every TICK whether it was stopped."""

    current: ClassVar[StoppableRun | None] = None
    stopping: ClassVar[str | None] = None  # the signal's name

    def __init__(self, proc: subprocess.Popen[bytes], timeout: float, grace: float,
                 run_id: str = "") -> None:
        super().__init__(proc, timeout, grace, run_id)
        StoppableRun.current = self
        if StoppableRun.stopping:
            self.deadline = time.monotonic()

    def _wait_time(self) -> float:
        return min(super()._wait_time(), TICK)

    @classmethod
    def stop(cls, signame: str) -> None:
        cls.stopping = signame
        if cls.current is not None:
            cls.current.deadline = time.monotonic()


def run_stoppable(argv: Sequence[str], stdin: bytes | Feed, on_line: Callable[[str], None], *,
                  cwd: str | None, env: Any, timeout: float, grace: float) -> Outcome:
    return run_process(argv, stdin, on_line, cwd=cwd, env=env, timeout=timeout, grace=grace,
                       supervisor=StoppableRun)


def judge_stoppable(backend: str, timeout: float, outcome: Outcome,
                    fold: Any) -> tuple[Status, str | None]:
    if StoppableRun.stopping and outcome.timed_out:
        return Status.SIGNALED, (f"{backend} was terminated: the agent received "
                                 f"{StoppableRun.stopping} and stopped")
    return judge(backend, timeout, outcome, fold)


@dataclass
class Pending:
    request: Any  # AgentRequest
    expires: float | None  # time.monotonic() when its client stops waiting


class Service:
    """One agent on one domain. Everything but the run of a request happens on the main
    thread; the run's thread publishes states, events and the reply, and hands back."""

    def __init__(self, args: argparse.Namespace, config: AgentConfig) -> None:
        self.args, self.config = args, config
        self.name: str = args.name or f"{args.backend}-{socket.gethostname()}-{os.getpid()}"
        self.credentials = config.credentials
        self.lock = threading.Lock()  # publication order = sequence order
        self.state: State | None = None
        self.state_seq = self.event_seq = 0
        self.serving = False
        self.request_id = ""  # the request running, for states and events
        self.pending: dict[str, Pending] = {}  # arrival order; withdrawn offers go to the back
        self.offered: dict[str, Pending] = {}  # offered for, open or withdrawn, not settled
        self.open_offer: tuple[str, float] | None = None  # request id, when it is withdrawn
        self.obligations: list[Pending] = []  # granted to this agent, not run yet
        self.settled: dict[str, float] = {}  # request id -> when it was settled
        self.owners: dict[str, str] = {}  # conversation -> guid of the agent that answered last
        self.sessions: dict[str, str] = {}  # conversation -> the session its replies named
        self.online: dict[str, bool] = {}  # agent guid -> online
        self.replies: deque[tuple[float, Any]] = deque()
        self.done: queue.SimpleQueue[tuple[Any, dict[str, Any]]] = queue.SimpleQueue()
        self.worker: threading.Thread | None = None
        self.stop: str | None = None

    def metadata(self) -> str:
        c = self.config
        return json.dumps({
            "backend": c.backend, "model": c.model, "credentials": self.credentials,
            "timeout": c.timeout, "grace_period": c.grace_period, "working_dir": c.working_dir,
            "domain": self.args.domain, "pid": os.getpid(), "host": socket.gethostname()})

    def publish_state(self, state: State, reason: str, request_id: str = "") -> None:
        with self.lock:
            previous, self.state = self.state, state
            self.state_seq += 1
            self.status_writer.write(wire.AgentStatus(
                agent_guid=self.guid, agent_name=self.name, state=state.name,
                state_code=int(state), previous=previous.name if previous is not None else "",
                previous_code=int(previous) if previous is not None else -1, reason=reason,
                request_id=request_id, sequence=self.state_seq, timestamp=time.time(),
                metadata=self.metadata()))
        log.info("%s: %s (%s)", self.name, state.name, reason)

    def on_node(self, event: NodeEvent) -> None:
        if self.serving:
            self.publish_state(event.state, event.reason, self.request_id)

    def on_event(self, event: Event) -> None:
        with self.lock:
            self.event_seq += 1
            self.event_writer.write(wire.AgentEvent(
                request_id=self.request_id, agent_guid=self.guid, sequence=self.event_seq,
                event=json.dumps(event.to_dict(), default=str)))

    # --- joining -------------------------------------------------------------------------
    def join(self, dds_config: str) -> None:
        os.environ["CYCLONEDDS_URI"] = f"file://{dds_config}"
        self.participant = DomainParticipant(self.args.domain)
        self.guid = str(self.participant.guid)
        p = self.participant

        def topic(name: str, kind: Any) -> Any:
            return Topic(p, name, kind)

        self.status_writer = DataWriter(p, topic(wire.STATUS_TOPIC, wire.AgentStatus),
                                        wire.STATUS_WRITER_QOS)
        self.publish_state(State.DISCOVERING,
                           f"joining DDS domain {self.args.domain} as {self.name}")
        self.reply_writer = DataWriter(p, topic(wire.REPLY_TOPIC, wire.AgentReply),
                                       wire.WRITER_QOS)
        self.offer_writer = DataWriter(p, topic(wire.OFFER_TOPIC, wire.AgentOffer),
                                       wire.WRITER_QOS)
        self.event_writer = DataWriter(p, topic(wire.EVENT_TOPIC, wire.AgentEvent),
                                       wire.EVENT_QOS)
        self.waitset = WaitSet(p)
        self.guard = GuardCondition(p)
        self.waitset.attach(self.guard)
        self.readers: dict[str, Any] = {}
        for name, kind in ((wire.STATUS_TOPIC, wire.AgentStatus),
                           (wire.REPLY_TOPIC, wire.AgentReply),
                           (wire.REQUEST_TOPIC, wire.AgentRequest),
                           (wire.GRANT_TOPIC, wire.AgentGrant)):
            reader = DataReader(p, topic(name, kind), wire.READER_QOS)
            self.waitset.attach(ReadCondition(
                reader, SampleState.NotRead | ViewState.Any | InstanceState.Any))
            self.readers[name] = reader

    def take(self, topic: str) -> list[Any]:
        samples: list[Any] = []
        while batch := self.readers[topic].take(N=256):
            samples += batch
        return samples

    # --- the loop ------------------------------------------------------------------------
    def serve(self, agent: CodingAgent, ready: tuple[State, str]) -> int:
        self.agent = agent
        agent.stream_listeners.append(self.on_event)
        agent.run_process = run_stoppable
        agent.judge = judge_stoppable
        self.serving = True
        if self.stop is None:
            self.publish_state(*ready)
        while self.stop is None:
            self.waitset.wait(int(TICK * 1e9))
            self.guard.take()
            self.step(time.monotonic())
        if self.worker is not None:
            self.worker.join()
        self.publish_state(State.OFFLINE, f"received {self.stop}")
        for writer in (self.reply_writer, self.status_writer):
            writer.wait_for_acks(int(2e9))
        return 0

    def on_signal(self, signum: int, frame: object) -> None:
        self.stop = signal.Signals(signum).name
        StoppableRun.stop(self.stop)

    def step(self, now: float) -> None:
        while not self.done.empty():
            request, response = self.done.get()
            self.learn(request.conversation_id, self.guid, response.get("session_id"))
            self.worker = None
        for sample in self.take(wire.STATUS_TOPIC):
            status = getattr(sample, "key_sample", sample)
            alive = sample is status and sample.state != State.OFFLINE.name
            self.online[status.agent_guid] = alive
        for reply in self.take(wire.REPLY_TOPIC):
            if not hasattr(reply, "key_sample"):
                try:
                    session = json.loads(reply.metadata).get("session_id")
                except (ValueError, RecursionError, AttributeError):
                    session = None
                self.learn(reply.conversation_id, reply.replier_service_guid, session)
        for sample in self.take(wire.REQUEST_TOPIC):
            if hasattr(sample, "key_sample"):  # its client unregistered it, or is gone
                self.drop(sample.key_sample.request_id)
            else:
                self.receive(sample, now)
        for grant in self.take(wire.GRANT_TOPIC):
            if not hasattr(grant, "key_sample"):
                self.granted(grant.request_id, grant.agent_guid)
        self.expire(now)
        if self.open_offer is not None and now >= self.open_offer[1]:
            self.withdraw()
        while self.replies and now - self.replies[0][0] >= REPLY_KEEP:
            self.reply_writer.unregister_instance(self.replies.popleft()[1])
        while self.settled and now - next(iter(self.settled.values())) >= FORGET:
            del self.settled[next(iter(self.settled))]
        if self.worker is None and self.stop is None:
            if self.obligations:
                self.run(self.obligations.pop(0))
            elif self.open_offer is None:
                self.offer(now)

    def learn(self, conversation: str, guid: str, session: object) -> None:
        if conversation:
            self.owners[conversation] = guid
            if isinstance(session, str) and session:
                self.sessions[conversation] = session

    def receive(self, request: Any, now: float) -> None:
        rid = request.request_id
        if rid in self.settled or rid in self.pending or rid in self.offered:
            return
        if request.target_service_guid not in ("", self.guid):
            return
        if request.service_instance_tag not in ("", self.name):
            return
        timeout = client_timeout(request.metadata)
        self.pending[rid] = Pending(request, now + timeout if timeout is not None else None)

    def granted(self, rid: str, guid: str) -> None:
        if rid in self.settled:
            return  # a repeated grant
        if guid == self.guid and rid not in self.offered:
            return  # a grant for a request this agent never offered to take
        self.settled[rid] = time.monotonic()
        mine = self.offered.pop(rid, None)
        self.pending.pop(rid, None)
        if self.open_offer is not None and self.open_offer[0] == rid:
            self.open_offer = None
        if mine is not None:
            self.unregister_offer(rid)
            if guid == self.guid:
                self.obligations.append(mine)

    def drop(self, rid: str) -> None:
        self.pending.pop(rid, None)
        self.obligations = [p for p in self.obligations if p.request.request_id != rid]
        if self.offered.pop(rid, None) is not None:
            self.unregister_offer(rid)
        if self.open_offer is not None and self.open_offer[0] == rid:
            self.open_offer = None

    def expire(self, now: float) -> None:
        every = [*self.pending.values(), *self.offered.values(), *self.obligations]
        for p in every:
            if p.expires is not None and now >= p.expires:
                self.settled[p.request.request_id] = now
                self.drop(p.request.request_id)

    def withdraw(self) -> None:
        """The open offer was not granted in time: its request goes to the back of the list."""
        assert self.open_offer is not None
        rid, self.open_offer = self.open_offer[0], None
        self.pending[rid] = self.offered[rid]
        self.unregister_offer(rid)

    def offer(self, now: float) -> None:
        for rid, p in self.pending.items():
            owner = self.owners.get(p.request.conversation_id)
            if owner is not None and owner != self.guid and self.online.get(owner, False):
                continue  # the agent that answered this conversation last takes it
            self.offered[rid] = self.pending.pop(rid)
            self.open_offer = (rid, now + OFFER_WAIT)
            self.offer_writer.write(wire.AgentOffer(
                request_id=rid, agent_guid=self.guid, agent_name=self.name))
            return

    def unregister_offer(self, rid: str) -> None:
        offer = wire.AgentOffer(request_id=rid, agent_guid=self.guid, agent_name=self.name)
        with contextlib.suppress(Exception):  # never written, or already unregistered
            self.offer_writer.unregister_instance(offer)

    def run(self, p: Pending) -> None:
        if self.open_offer is not None:
            self.withdraw()
        request = p.request
        session = self.sessions.get(request.conversation_id) if request.conversation_id else None
        self.request_id = request.request_id
        self.worker = threading.Thread(target=self.work, args=(request, session))
        self.worker.start()

    def work(self, request: Any, session: str | None) -> None:
        try:
            response = self.agent.process(request.message, session)
        except Exception as exc:  # the agent's own failure: still a reply
            response = {"message": f"internal error: {exc}", "status": int(Status.HARNESS_ERROR),
                        "backend": self.config.backend, "tool_calls": 0, "session_id": None,
                        "error": str(exc)}
        reply = wire.AgentReply(
            request_id=request.request_id, message=str(response["message"]),
            status=int(response["status"]), conversation_id=request.conversation_id,
            replier_service_guid=self.guid, service_instance_tag=self.name,
            metadata=json.dumps(response, default=str))
        self.reply_writer.write(reply)
        self.replies.append((time.monotonic(), reply))
        self.done.put((request, response))
        self.guard.set(True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dds_agent", description="A DDS-native served agent")
    parser.add_argument("--name")
    parser.add_argument("--domain", default="0")
    parser.add_argument("--dds-config", required=True)
    parser.add_argument("--backend", default="claude")
    parser.add_argument("--working-dir")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--grace-period", type=float, default=5.0)
    parser.add_argument("--command")
    parser.add_argument("--model")
    parser.add_argument("--credentials", choices=("login", "api-key", "probe"))
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(name)s: %(message)s")
    args.domain = check_domain(args.domain)
    dds_config = check_config(args.dds_config)
    try:
        config = AgentConfig(backend=args.backend, working_dir=args.working_dir,
                             timeout=args.timeout, grace_period=args.grace_period,
                             command=args.command, model=args.model,
                             credentials=args.credentials)
        service = Service(args, config)
        agent = None if args.credentials == "probe" else CodingAgent(
            config, listeners=[service.on_node])
    except ConfigError as exc:
        fail(str(exc))
    for signum in (signal.SIGTERM, signal.SIGINT):  # before any state is published
        signal.signal(signum, service.on_signal)
    try:
        service.join(dds_config)
    except Exception as exc:  # Cyclone DDS refused the configuration or the domain
        fail(f"cannot join DDS domain {args.domain} with {args.dds_config!r}: {exc}")
    if agent is None:  # a probe runs the CLI once: after DISCOVERING, as docs/dds.md says
        agent = CodingAgent(config, listeners=[service.on_node])
        service.credentials = agent.credentials
    ready = (agent.state, f"serving requests on DDS domain {args.domain}")
    if args.credentials == "probe":
        ready = (agent.state, f"{ready[1]}; {agent.created}")
    command = agent.backend.command
    if agent.state is State.READY and shutil.which(command) is None:
        ready = (State.DEGRADED, f"{command!r} was not found on PATH; requests will fail to "
                                 "launch")
    return service.serve(agent, ready)


if __name__ == "__main__":
    raise SystemExit(main())
