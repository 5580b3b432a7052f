"""The DDS driver (`--impl dds` or `--impl "dds:domain=N;config=FILE;serve=CMD"`).

Each agent is a served process (by default `python -m agent_tck.reference.dds serve`; `serve=CMD`
names any command taking the same flags), started with the scenario's settings and the
fake harness on its PATH. The driver waits for READY on the monitoring topic, sends requests
addressed to that agent by name, and reports the states and stream events the agent
published for each request. Cyclone DDS runs with the shipped loopback configuration unless
`config=FILE` says otherwise. The domain id defaults to one derived from the pytest-xdist worker
or the process id; the driver claims it, and the one above it, on this machine
(kit.drivers.domains), moving to the next free pair when another run holds them, so parallel
runs do not meet.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from agent_tck.kit.drivers import domains, forkserve
from agent_tck.kit.drivers.base import (
    INHERITED_ENV,
    ImplInfo,
    RequestResult,
    end_with_parent,
)
from agent_tck.kit.drivers.dds_wire import Wire
from agent_tck.kit.drivers.forkserve import Forked, ForkServer
from agent_tck.kit.drivers.protocol import ProtocolDriver
from agent_tck.kit.errors import DriverError, Refused, Unsendable, UsageError
from agent_tck.kit.observe import Held, held_by
from agent_tck.kit.paths import CHECKOUT, PACKAGE
from agent_tck.kit.registry import ACP_BACKENDS, KNOWN_BACKENDS
from agent_tck.wire import EVENT_TOPIC

REPLY_FIELDS = ("request_id", "message", "status", "conversation_id", "replier_service_guid",
                "service_instance_tag", "metadata")
LOOPBACK = PACKAGE / "reference" / "cyclonedds-loopback.xml"
FLAGS = {"backend": "--backend", "working_dir": "--working-dir", "timeout": "--timeout",
         "grace_period": "--grace-period", "command": "--command", "model": "--model",
         "credentials": "--credentials"}
SECONDS = ("timeout", "grace_period")  # flags whose value is a number of seconds
START_TIMEOUT = 30.0
SETTLE_TIMEOUT = 5.0  # how long states and events may trail the reply
STOP_TIMEOUT = 15.0
MAX_LIVE = 3  # served agents kept running; older ones are stopped to make room
DEFAULT_TIMEOUT = 300.0
DEFAULT_GRACE = 5.0
MAX_DOMAIN = domains.HIGHEST


Process = subprocess.Popen[bytes] | Forked  # a served agent: started anew, or forked


def reference_serve() -> list[str]:
    """The reference's `serve` command line, the default served agent. The reference is
    imported, to name it, only where the driver serves or forks it: judging another
    implementation's `serve=CMD` started anew loads none of it into the judge's process."""
    from agent_tck.reference.dds import cli

    return [sys.executable, "-m", str(cli.__package__), "serve"]


def preload() -> tuple[str, ...]:
    """What a fork server imports before it forks served agents: the reference's command line
    and service (most of an agent's start, and of the project's broken services')."""
    from agent_tck.reference.dds import cli, service

    return cli.__name__, service.__name__


def default_domain() -> int:
    """Each pytest-xdist worker its own pair, 100 and 101 for the first (the transport
    scenarios use the next domain up), up to 226 and 227 for the 64th, the most `-n` takes;
    elsewhere 100..199, the pid spreading concurrent runs. The pair a driver would like: it
    takes the next free one when another run holds it (kit.drivers.domains)."""
    worker = xdist_worker()
    return 100 + 2 * worker if worker is not None else 100 + os.getpid() % 100


def xdist_worker() -> int | None:
    """The number of the pytest-xdist worker this process is (gw0 -> 0), or None."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def parse_options(options: str) -> dict[str, str]:
    """`domain=N;config=FILE;serve=CMD;backends=A,B` -> a dict; unknown keys are a usage
    error."""
    found: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in options.split(";"))):
        key, sep, value = item.partition("=")
        if not sep or key not in ("domain", "config", "serve", "backends", "fork"):
            raise UsageError(f"--impl dds: cannot read option {item!r} "
                             "(known: domain=N, config=FILE, serve=CMD, backends=A,B, fork=on|off)")
        found[key] = value
    return found


def served_backends(value: str | None) -> tuple[str, ...]:
    """The backends the served agents run: `backends=A,B`, by default every backend the kit
    knows (the reference serves them all)."""
    known = (*KNOWN_BACKENDS, *ACP_BACKENDS)
    if value is None:
        return known
    backends = tuple(b.strip() for b in value.split(",") if b.strip())
    unknown = [b for b in backends if b not in known]
    if not backends or unknown:
        raise UsageError(f"--impl dds: backends={value!r} must name some of "
                         f"{', '.join(known)}")
    return backends


def usable_config(config: Path) -> Path:
    """`config`, or UsageError when it is no regular file (a named pipe would block its
    reader) or no XML document: Cyclone DDS takes a file without an element (empty, or a
    declaration and comments only) for its default configuration, on every interface."""
    if not config.is_file():
        raise UsageError(f"--impl dds: DDS configuration {str(config)!r} is not a file")
    try:
        ElementTree.parse(config)
    except (OSError, ElementTree.ParseError) as exc:
        raise UsageError(f"--impl dds: DDS configuration {str(config)!r} is not an XML "
                         f"document: {exc}") from None
    return config


@dataclass(frozen=True)
class Ended:
    """How a served agent that was to refuse its command line ended."""

    code: int | None  # None: it was still running when the wait was over (then stopped)
    stderr: str
    states: list[dict[str, Any]]  # what it published on the monitoring topic, in order


@dataclass
class Served:
    """A served agent process the driver started."""

    name: str
    argv: list[str]
    proc: Process
    log: Path
    timeout: float
    grace: float

    @property
    def budget(self) -> float:
        """How long a request to it may take: its deadline, its grace period, and room."""
        return self.timeout + self.grace + 30.0


class DdsDriver(ProtocolDriver):
    """Agents served over DDS. Only the agent commands travel over DDS; any other command of
    the protocol is an error (the driver declares only what it serves)."""

    env_apart = False  # `env` is the served agent's own environment

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        raise DriverError(f"{cmd} is not served over DDS")

    def __init__(self, options: str = "", *, domain_offset: int = 0) -> None:
        opts = parse_options(options)
        self.options = options
        try:
            domain = int(opts.get("domain", default_domain()))
        except ValueError:
            raise UsageError(
                f"--impl dds: domain must be a number, got {opts['domain']!r}") from None
        self.config = config = usable_config(Path(opts.get("config") or LOOPBACK).resolve())
        # Cyclone DDS reads this when the first participant is created, just below.
        os.environ["CYCLONEDDS_URI"] = f"file://{config}"
        self.serve = shlex.split(opts.get("serve", "")) or reference_serve()
        fork = opts.get("fork")
        if fork not in (None, "on", "off"):
            raise UsageError(f"--impl dds: fork must be on or off, got {fork!r}")
        if fork == "on" and not forkserve.supported():
            raise UsageError("--impl dds: fork=on needs pidfds (Linux 5.3 or newer), which "
                             "this system does not offer")
        if fork == "on" and not forkserve.forkable(self.serve):
            raise UsageError(f"--impl dds: fork=on needs a serve command run by "
                             f"{sys.executable} or another name for it in its folder (a "
                             f"script or -m MODULE), got {self.serve}")
        # The reference's own command is forked unless told not to (kit.drivers.forkserve);
        # another implementation's starts as its author wrote it, unless told to fork.
        self.forks = fork == "on" or (fork is None and self._serves_the_reference()
                                       and forkserve.supported())
        self.info = ImplInfo("agent-tck reference over DDS", "python", _version(),
                             ("agent", "transport"), served_backends(opts.get("backends")))
        self.cwd = os.getcwd()
        # the pair this driver holds on this machine until `close` (kit.drivers.domains): the
        # named one, or the first free one from the default
        self.claimed: int | None = domains.claim(domain % (MAX_DOMAIN + 1),
                                                 chosen="domain" in opts)
        self.domain = (self.claimed + domain_offset) % (MAX_DOMAIN + 1)
        try:
            self.wire = Wire(self.domain)
        except BaseException:
            self.release()
            raise
        self.wires = [self.wire]  # the first is the driver's own; more with `add_clients`
        self.sent: dict[str, Wire] = {}
        self.served: dict[str, Served] = {}
        self.logs = Path(tempfile.mkdtemp(prefix="agent-tck-dds-"))
        self.ids = itertools.count(1)

    # --- the Driver protocol ---------------------------------------------------------------

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]:
        """DDS has no parse command: a served agent does not declare the `backends`
        component, whose scenarios alone send one."""
        raise DriverError(f"parse_line of a {backend} line: a served agent parses no line for "
                          "the suite over DDS (it does not declare the backends component)")

    def agent_create(self, settings: dict[str, Any], replaced: tuple[str, str] | None = None,
                     ) -> tuple[str, list[dict[str, Any]]]:
        """`replaced`: an option of the command line (`--dds-config`, ...) and its value
        instead of the driver's."""
        name = f"tck-{os.getpid()}-{next(self.ids)}"
        argv = self._argv(name, settings)  # what it cannot carry stops no agent for nothing
        if replaced is not None:
            _replace(argv, *replaced)
        self._make_room()
        served = self._start(name, argv, settings)
        self.served[name] = served
        try:
            up = self.wire.wait(lambda: self._up(served), START_TIMEOUT)
        except Refused:
            # It exited before it was up (it refused its settings, or crashed): forgotten, or
            # every later agent would wait for it to match and time out.
            del self.served[name]
            raise
        if not up:
            self.agent_stop(name)
            raise DriverError(f"served agent {name} did not become READY in {START_TIMEOUT:g} s "
                              f"({shlex.join(served.argv)}):\n{_tail(served.log)}")
        return name, self.states(name)

    resumes_sessions = False  # a conversation_id resumes a session here (docs/dds.md)

    def agent_request(
        self, agent: str, message: str, session_id: str | None = None
    ) -> RequestResult:
        if session_id is not None:
            raise DriverError("over DDS a session is resumed by conversation_id, not by "
                              f"session_id ({session_id!r}); see docs/dds.md")
        return self.agent_request_concurrently(agent, [message])[0]

    def agent_request_concurrently(self, agent: str, messages: list[str]) -> list[RequestResult]:
        return self._ask(agent, messages)

    def agent_converse(self, agent: str, message: str, conversation_id: str) -> RequestResult:
        """One request of conversation `conversation_id`: the served agent resumes the CLI
        session of that conversation's earlier requests, as a GENESIS client asks it to."""
        return self._ask(agent, [message], conversation_id)[0]

    def _ask(self, agent: str, messages: list[str],
             conversation_id: str = "") -> list[RequestResult]:
        served = self.served[agent]
        budget = served.budget
        unsendable = [m for m in messages if not _utf8(m)]
        if unsendable:
            raise Unsendable(f"a DDS string is UTF-8: {unsendable[0][:80]!r} is not")
        rids = [self.wire.send(m, agent=agent, conversation_id=conversation_id, timeout=budget)
                for m in messages]
        asks = [self.wire.asks[rid] for rid in rids]
        if not self.wire.wait(lambda: all(a.replies for a in asks), budget):
            raise DriverError(f"served agent {agent} did not reply in {budget:g} s:\n"
                              f"{_tail(served.log)}")
        self.wire.wait(lambda: all(self._settled(agent, rid) for rid in rids), SETTLE_TIMEOUT)
        self.wire.pump(0.02)  # stream events may trail the state change by a hair
        results = [self._result(agent, rid) for rid in rids]
        for rid in rids:
            self.wire.retire(rid)
        return results

    def agent_request_killed(self, agent: str, message: str, started: Callable[[], bool],
                             within: float) -> None:
        """The served agent is SIGKILLed and reaped; nothing else of it is touched."""
        served = self.served[agent]
        rid = self.wire.send(message, agent=agent, timeout=served.budget)
        if not self.wire.wait(lambda: started() or served.proc.poll() is not None, within) \
                or not started():
            log = _tail(served.log)
            self.agent_stop(agent)  # a dead agent left among the served holds up the next
            self.wire.retire(rid)
            raise DriverError(f"the request's CLI had not started {within:g} s after "
                              f"{message!r} was sent:\n{log}")
        served.proc.kill()
        served.proc.wait()
        del self.served[agent]
        self.wire.retire(rid)

    def held(self, agent: str) -> Held | None:
        return held_by(self.served[agent].proc.pid)

    def agent_info(self, agent: str) -> dict[str, Any]:
        self.wire.pump(0)
        last = self.states(agent)[-1]
        return {"state": last["state"], "timeout": last["metadata"].get("timeout")}

    def _serves_the_reference(self) -> bool:
        """The served command is the reference's own (named as it is, or left to the default):
        only a `python -m` command of this interpreter can be, so no other loads the
        reference to be compared with it."""
        return self.serve[:2] == [sys.executable, "-m"] and self.serve == reference_serve()

    def close(self) -> None:
        for name in list(self.served):
            self.agent_stop(name)
        for wire in self.wires:
            wire.close()
        shutil.rmtree(self.logs, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Let the claim on this driver's domains go (once)."""
        if self.claimed is not None:
            domains.release(self.claimed)
            self.claimed = None

    # --- beyond the protocol: what the transport steps need --------------------------------

    def states(self, agent: str) -> list[dict[str, Any]]:
        """Every state `agent` published so far, in its order."""
        found = [s for s in self.wire.statuses if s["agent"] == agent]
        return sorted(found, key=lambda s: int(s["sequence"]))

    def events(self, rid: str) -> list[dict[str, Any]]:
        """The stream events published under request `rid`, in their order."""
        return [event for _, event in sorted(self.numbered_events(rid), key=lambda e: e[0])]

    def numbered_events(self, rid: str) -> list[tuple[int, dict[str, Any]]]:
        """(sequence number, event) of the stream events published under request `rid`, in
        arrival order, once the agent that ran it has left BUSY (events may trail the reply,
        and the state)."""
        wire = self.sent[rid]

        def settled() -> bool:
            return any(s["request_id"] == rid and s["state"] != "BUSY" for s in wire.statuses)

        self._pump_all(self.wires, settled, SETTLE_TIMEOUT)
        self._pump_all(self.wires, lambda: False, 0.02)
        return list(wire.events.get(rid, []))

    def agent_stop(self, agent: str, sig: signal.Signals = signal.SIGTERM) -> int | None:
        """Signal a served agent, wait (SIGKILL after STOP_TIMEOUT), reap; its exit code."""
        served = self.served.pop(agent, None)
        if served is None:
            return None
        proc = served.proc
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            code = proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        self.wire.wait(lambda: self._offline(agent), 2.0)
        return code

    def serve_replaced(self, settings: dict[str, Any], option: str, value: str) -> Ended:
        """Start a served agent whose command line is `agent_create`'s for `settings` with the
        value of `option` (`--domain`, `--dds-config`, ...) replaced by `value`; wait for it to
        exit (at most START_TIMEOUT, then stop it); how it ended."""
        name = f"tck-{os.getpid()}-{next(self.ids)}"
        argv = self._argv(name, settings)
        _replace(argv, option, value)
        self._make_room()
        stderr = self.logs / f"{name}.stderr"
        served = self.served[name] = self._start(name, argv, settings, stderr=stderr)
        exited = self.wire.wait(lambda: served.proc.poll() is not None, START_TIMEOUT)
        self.wire.pump(0.3)  # a state it published before it exited may trail its exit
        if exited:
            del self.served[name]
        else:
            self.agent_stop(name)
        return Ended(served.proc.returncode if exited else None, _tail(stderr),
                     self.states(name))

    def pid(self, agent: str) -> int:
        return self.served[agent].proc.pid

    def add_clients(self, count: int, *, grants: bool = True) -> list[int]:
        """`count` more client participants (with `grants=False`, ones that never grant a
        request to an agent); their indices for `send`."""
        first = len(self.wires)
        self.wires += [Wire(self.domain, grants=grants) for _ in range(count)]
        return list(range(first, len(self.wires)))

    def send(self, message: str, *, agent: str = "", conversation_id: str = "",
             client: int = 0, timeout: float = 120.0, metadata: str | None = None) -> str:
        """Publish a request from client `client` without waiting; its request_id. Its
        metadata says `timeout`, unless `metadata` is given: then it is sent as it is."""
        wire = self.wires[client]
        rid = wire.send(message, agent=agent, conversation_id=conversation_id,
                        timeout=timeout, metadata=metadata)
        self.sent[rid] = wire
        return rid

    def grant(self, rid: str, agent: str, *, client: int = 0) -> None:
        """Client `client` grants request `rid` to `agent`, whether or not it offered."""
        guid = self.states(agent)[-1]["guid"]
        self.wires[client].grant(rid, guid)

    def wait_replies(self, rids: list[str], timeout: float, linger: float = 0.3) -> bool:
        """Pump every client until each of `rids` has a reply (or a served agent exited on
        its own: `exited` says which), then `linger` seconds more (a second reply to the same
        request would arrive then); whether all were answered."""
        wires = {id(w): w for w in (self.sent[rid] for rid in rids)}.values()

        def answered() -> bool:
            return all(self.sent[rid].asks[rid].replies for rid in rids)

        self._pump_all(wires, lambda: answered() or self.exited() is not None, timeout)
        self._pump_all(self.wires, lambda: False, linger)
        return answered()

    def exited(self) -> str | None:
        """A served agent that exited without being stopped: its name, code and log, or None."""
        for served in self.served.values():
            if served.proc.poll() is not None:
                return (f"served agent {served.name} exited with code "
                        f"{served.proc.returncode}:\n{_tail(served.log)}")
        return None

    def replies(self, rid: str) -> list[dict[str, Any]]:
        """Every reply sample seen for `rid`, as dicts of the GENESIS reply fields."""
        return [{f: getattr(r, f) for f in REPLY_FIELDS}
                for r in self.sent[rid].asks[rid].replies]

    def offers(self, rid: str) -> list[str]:
        """The names of the agents that offered to take `rid`, in arrival order."""
        names = {s["guid"]: s["agent"] for wire in self.wires for s in wire.statuses}
        return [names.get(guid, guid) for guid in self.sent[rid].asks[rid].offers]

    def wait_offer(self, rid: str, timeout: float) -> bool:
        """Pump the client of `rid` until some agent offered to take it; whether one did."""
        wire = self.sent[rid]
        return self._pump_all([wire], lambda: bool(wire.asks[rid].offers), timeout)

    def wait_state(self, agent: str, state: str, timeout: float) -> bool:
        return self.wire.wait(lambda: any(s["state"] == state for s in self.states(agent)),
                              timeout)

    def _pump_all(self, wires: Any, done: Any, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() >= end:
                return False
            for wire in wires:
                wire.pump(0.01)
        return True

    # --- helpers ---------------------------------------------------------------------------

    def _argv(self, name: str, settings: dict[str, Any]) -> list[str]:
        """The served agent's command line; Unsendable for settings it cannot carry."""
        argv = [*self.serve, "--name", name, "--domain", str(self.domain),
                "--dds-config", str(self.config)]
        env_and_strip = _set_and_stripped(settings)
        if env_and_strip:
            raise Unsendable(f"a served agent's env is the environment it inherits, which "
                             f"strip_env removes from: {', '.join(env_and_strip)} cannot be both")
        for key, value in settings.items():
            if value is None:
                continue
            if key not in (*FLAGS, "env", "strip_env"):
                raise DriverError(f"setting {key!r} cannot be given to a served agent "
                                  f"(known: {', '.join(sorted(FLAGS))}, env, strip_env)")
            why = _uncarried(key, value)
            if why is not None:
                raise Unsendable(f"a command line and an environment carry text: {why}")
            if key == "strip_env":
                argv += [arg for name in value for arg in ("--strip-env", name)]
            elif key != "env":
                argv += [FLAGS[key], str(value)]
        return argv

    def _start(self, name: str, argv: list[str], settings: dict[str, Any], *,
               stderr: Path | None = None) -> Served:
        """Its stdout, and its stderr unless `stderr` names a file of its own, go to its log."""
        # Served agents inherit what every implementation inherits from the suite (a nesting
        # variable, API keys): see kit.drivers.base.INHERITED_ENV.
        env = self._env(settings.get("env") or {})
        env["AGENT_TCK_AGENT"] = name  # the harness records it: which agent ran it
        log = self.logs / f"{name}.log"
        server = self._fork_server(argv, env)
        if server is not None:
            proc: Process = server.spawn(argv, self.cwd, env, log, stderr)
        else:
            with log.open("wb") as out, (stderr or Path(os.devnull)).open("wb") as err:
                proc = subprocess.Popen(argv, cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err if stderr else subprocess.STDOUT,
                                        preexec_fn=end_with_parent)
        return Served(name, argv, proc, log, float(settings.get("timeout") or DEFAULT_TIMEOUT),
                      float(settings.get("grace_period") or DEFAULT_GRACE))

    def _env(self, own: dict[str, str]) -> dict[str, str]:
        """A served agent's environment, with `own` (the scenario's) on the suite's."""
        env = {**os.environ, **INHERITED_ENV, **own}
        env["CYCLONEDDS_URI"] = f"file://{self.config}"
        if CHECKOUT is not None:  # so `serve=` commands of the project's tests find `tests`
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT),
                                                              env.get("PYTHONPATH")]))
        return env

    def _fork_server(self, argv: list[str], env: dict[str, str]) -> ForkServer | None:
        """The fork server to start `argv` with `env` from, or None: start it anew."""
        if not self.forks:
            return None
        server = forkserve.shared(preload(), self.cwd, self._env({}))
        return server if server.fits(argv, env) else None

    def _up(self, served: Served) -> bool:
        """READY (or DEGRADED) published and our event reader matched its event writer."""
        if served.proc.poll() is not None:
            tail = _tail(served.log)  # what it said: a refusal of its settings, or a crash
            raise Refused(f"served agent {served.name} exited with code "
                          f"{served.proc.returncode}:\n{tail}", tail)
        states = [s["state"] for s in self.states(served.name)]
        try:
            matched = self.wire.readers[EVENT_TOPIC].get_matched_publications()
        except IndexError:  # cyclonedds: the match count changed while it listed them
            return False
        return bool({"READY", "DEGRADED"} & set(states)) and len(matched) >= len(self.served)

    def _settled(self, agent: str, rid: str) -> bool:
        return any(s["request_id"] == rid and s["state"] != "BUSY" for s in self.states(agent))

    def _offline(self, agent: str) -> bool:
        return any(s["state"] == "OFFLINE" for s in self.states(agent))

    def _result(self, agent: str, rid: str) -> RequestResult:
        reply = self.wire.asks[rid].replies[0]
        response = json.loads(reply.metadata)
        states = [s for s in self.states(agent) if s["request_id"] == rid]
        events = [event for _, event in sorted(self.wire.events.get(rid, []),
                                               key=lambda e: e[0])]
        return RequestResult(response, states, events)

    def _make_room(self) -> None:
        while len(self.served) >= MAX_LIVE:
            self.agent_stop(next(iter(self.served)))


def _set_and_stripped(settings: dict[str, Any]) -> list[str]:
    """The variables `settings` both sets in env and names in strip_env."""
    env, strip = settings.get("env"), settings.get("strip_env")
    if not isinstance(env, dict) or not isinstance(strip, list | tuple):
        return []
    return sorted(name for name in env if name in strip)


def _uncarried(key: str, value: Any) -> str | None:
    """Why a served agent's command line (or its environment, for `env`) cannot carry `value`
    as setting `key`, or None: each value arrives as text without NUL."""
    if key in SECONDS:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return None
        return f"{key} {value!r} would arrive as {str(value)!r}, as a number would"
    if key == "env":
        names = list(value) if isinstance(value, dict) else []
        if not all(isinstance(n, str) and n and "=" not in n and "\0" not in n for n in names):
            return f"env {value!r:.80} names a variable no environment can hold"
        texts = list(value.values()) if isinstance(value, dict) else [None]
    elif key == "strip_env":
        texts = list(value) if isinstance(value, list | tuple) else [None]
    else:
        texts = [value]
    if all(isinstance(text, str) and "\0" not in text for text in texts):
        return None
    return f"{key} {value!r:.80} is not text without NUL"


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _replace(argv: list[str], option: str, value: str) -> None:
    """Give `option` of a served agent's command line `argv` the value `value`."""
    if option not in argv[:-1]:
        raise DriverError(f"a served agent's command line has no {option}: {argv}")
    argv[argv.index(option) + 1] = value


def _tail(log: Path, size: int = 2000) -> str:
    try:
        return log.read_bytes()[-size:].decode("utf-8", errors="replace")
    except OSError:
        return "(no log)"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent-tck")
    except PackageNotFoundError:
        return "unknown"
