"""Steps of the `transport` component: served agents on DDS, watched from the outside.

Each scenario gets its own DDS driver on its own domain (the session driver's domain + 1),
so agents of the agent scenarios never take its requests; the driver stops every agent it
started when the scenario ends, pass or fail. Without Cyclone DDS, or for an implementation
that is neither the reference nor `--impl dds`, the scenarios are not applicable.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import json
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends import profile
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.drivers import dds_available
from agent_tck.kit.observe import (
    cpu_seconds,
    cpu_wanted,
    group_members,
    process_state,
    wanted_between,
)
from agent_tck.kit.verdicts import not_applicable
from agent_tck.steps.world import World

if TYPE_CHECKING:
    from agent_tck.kit.drivers.dds import DdsDriver, Ended

GENESIS_STATES = {"JOINING": 0, "DISCOVERING": 1, "READY": 2, "BUSY": 3, "DEGRADED": 4,
                  "OFFLINE": 5}
REPLY_WAIT = 60.0
STOPPED_FOR = 0.5  # real seconds for requests to reach stopped agents' sockets
PIPE = object()
SECURE = object()  # the driver's own (loopback-only) configuration, DDS Security added
SECURITY = ('<Security><Authentication><Library path="dds_security_auth"'
            ' initFunction="init_authentication" finalizeFunction="finalize_authentication"/>'
            '</Authentication></Security>')
BAD_CONFIGS: dict[str, object] = {  # what the file holds; None: there is none, PIPE: a FIFO
    "does not exist": None,
    "is not XML": "this is not XML\n",
    "is empty": "",
    "holds an XML declaration and a comment only": '<?xml version="1.0"?>\n<!-- none -->\n',
    "is a named pipe": PIPE,
    "asks for DDS Security": SECURE,
}


@dataclass(repr=False)
class TransportWorld(World):
    """`driver` is the DDS driver: served agents and the clients that ask them."""

    rig: HarnessRig
    backend: str = "claude"
    names: dict[str, str] = field(default_factory=dict)  # label in the scenario -> name
    script: Script | None = None
    sent: dict[str, str] = field(default_factory=dict)  # request_id -> message
    codes: dict[str, int | None] = field(default_factory=dict)
    conversations: dict[str, list[str]] = field(default_factory=dict)  # id -> its requests
    ended: Ended | None = None  # how the agent started with a value it cannot use ended
    trace: Path | None = None  # where its DDS configuration has Cyclone DDS write its trace
    addressed: dict[str, str] = field(default_factory=dict)  # request_id -> agent's name

    @property
    def dds(self) -> DdsDriver:
        return cast("DdsDriver", self.driver)  # the fixture below makes it one

    def new_script(self) -> Script:
        if self.script is None:
            self.script = Script(self.backend, time_scale=self.time_scale)
        return self.script

    def start(self, label: str, backend: str, settings: dict[str, str] | None = None,
              replaced: tuple[str, str] | None = None) -> None:
        """`replaced`: an option of its command line and the value it has instead."""
        self.backend = backend
        if self.script is not None:  # what the harness plays from the agent's creation on
            self.rig.use(self.script)
        name, _ = self.dds.agent_create({"backend": backend, "env": {"PATH": self.rig.path()},
                                         **(settings or {})}, replaced)
        self.names[label] = name

    def start_replaced(self, backend: str, option: str, value: str) -> None:
        """Start an agent whose `option` is `value`, to see it refuse that value."""
        settings = {"backend": backend, "env": {"PATH": self.rig.path()}}
        self.ended = self.dds.serve_replaced(settings, option, value)

    def send(self, count: int, *, client: int = 0, agent: str | list[str] = "",
             conversation: str = "", metadata: str | None = None) -> list[str]:
        """`agent`: the name every request is addressed to, or each request's in turn."""
        if self.script is None:
            self.new_script().init().echo()
        self.rig.use(self.new_script())
        rids = []
        for i in range(count):
            message = f"request {len(self.sent) + 1} from client {client} ({i})"
            to = agent[i % len(agent)] if isinstance(agent, list) else agent
            rid = self.dds.send(message, agent=to, conversation_id=conversation,
                                client=client, metadata=metadata)
            self.sent[rid] = message
            rids.append(rid)
        if conversation:
            self.conversations.setdefault(conversation, []).extend(rids)
        return rids

    def label(self, name: str) -> str:
        """The scenario's label of the agent named `name`; an agent this scenario did not
        start (another run's on the same DDS domain) fails the scenario, saying so."""
        found = [label for label, known in self.names.items() if known == name]
        assert found, (f"{name!r} is none of this scenario's agents {self.names}: another run "
                       f"shares DDS domain {self.dds.domain}")
        return found[0]

    def replier(self, rid: str) -> str:
        """The label of the agent whose reply answered `rid`."""
        replies = self.dds.replies(rid)
        assert replies, f"{rid} got no reply"
        return self.label(replies[0]["service_instance_tag"])

    def wait_harness(self, timeout: float = REPLY_WAIT) -> None:
        """Until the harness has started (its SIGTERM trap is set) and begun its last step, a
        silent one: a harness that printed after its agent stopped reading would meet a
        closed pipe and end on it, before the agent's SIGTERM came."""
        assert self.script is not None
        silent = self.script.last_step
        end = time.monotonic() + timeout
        while not (self.rig.starts() and self.rig.began(silent)):
            assert time.monotonic() < end, ("the harness never started" if not self.rig.starts()
                                            else "the harness never reached its last step")
            time.sleep(0.01)

    def wait(self, rids: list[str]) -> None:
        answered = self.dds.wait_replies(rids, REPLY_WAIT)
        assert answered, self.dds.exited() or "some requests got no reply in time"


@pytest.fixture
def transport(pytestconfig: pytest.Config, harness_rig: HarnessRig, time_scale: float,
              tmp_path: Path) -> Iterator[TransportWorld]:
    impl: str = pytestconfig.getoption("--impl")
    if not dds_available():
        not_applicable("Cyclone DDS (cyclonedds) is not installed")
    if impl != "reference" and impl != "dds" and not impl.startswith("dds:"):
        not_applicable("transport scenarios serve the reference or --impl dds")
    from agent_tck.kit.drivers.dds import DdsDriver

    dds = DdsDriver(impl.partition(":")[2], domain_offset=1)
    try:
        yield TransportWorld(dds, tmp_path, time_scale, harness_rig)
    finally:
        dds.close()


# --- GIVEN --------------------------------------------------------------------------------

@given(parsers.re(r'a served agent "(?P<label>[^"]+)" with backend "(?P<backend>[^"]+)"\.$'))
def served_agent(transport: TransportWorld, label: str, backend: str) -> None:
    transport.start(label, backend)


@given(parsers.parse('a served agent "{label}" with backend "{backend}" and {setting} '
                     '"{value}".'))
def served_agent_with(transport: TransportWorld, label: str, backend: str, setting: str,
                      value: str) -> None:
    """`setting`: "credentials" or "the model"."""
    transport.start(label, backend, {setting.removeprefix("the "): value})


@given(parsers.parse('served agents "{first}" and "{second}" with backend "{backend}".'))
def served_agents(transport: TransportWorld, first: str, second: str, backend: str) -> None:
    transport.start(first, backend)
    transport.start(second, backend)


@given("the harness answers every request with its prompt.")
def answers_with_prompt(transport: TransportWorld) -> None:
    transport.new_script().init().echo()


@given(parsers.parse(
    "the harness answers every request with its prompt after {seconds:g} seconds."))
def answers_after(transport: TransportWorld, seconds: float) -> None:
    transport.new_script().init().add("sleep", seconds).echo()


@given(parsers.parse(
    "the harness answers every request with its prompt after {seconds:g} real seconds."))
def answers_after_real(transport: TransportWorld, seconds: float) -> None:
    """A pause that is measured against a client's own timeout, which is real time."""
    transport.new_script().init().add("sleep_real", seconds).echo()


@given(parsers.parse("the harness runs for {seconds:g} seconds."))
def runs_for(transport: TransportWorld, seconds: float) -> None:
    transport.new_script().init().text("working").add("sleep", seconds)


@given(parsers.parse("the harness ignores SIGTERM and runs for {seconds:g} seconds."))
def ignores_term_runs_for(transport: TransportWorld, seconds: float) -> None:
    transport.new_script().add("on_term", "ignore").init().text("working").add("sleep", seconds)


@given(parsers.parse("the harness runs {count:d} tools, each started then answered, then "
                     "answers."))
def runs_tools(transport: TransportWorld, count: int) -> None:
    script = transport.new_script().init()
    for i in range(1, count + 1):
        script.tool(f"toolu_{i:02d}", result=False).tool(f"toolu_{i:02d}", result=True)
    script.text("done").done("done")


@given(parsers.parse('the harness starts session "{session}".'))
def starts_session(transport: TransportWorld, session: str) -> None:
    transport.new_script().init(session).echo()


# --- WHEN ---------------------------------------------------------------------------------

@when("the harness, from now on, fails before it names a session.")
def fails_before_session(transport: TransportWorld) -> None:
    transport.script = Script(transport.backend, time_scale=transport.time_scale)
    transport.script.add("err", "error: the service is overloaded\n").add("exit", 1)


@when(parsers.re(r"one client sends (?P<count>\d+) requests? at once\.$"))
@when(parsers.re(r"one client sends (?P<count>\d+) requests?\.$"))
def one_client_sends(transport: TransportWorld, count: str) -> None:
    transport.wait(transport.send(int(count)))


@when(parsers.parse('one client sends {count:d} requests at once in conversation '
                     '"{conversation}".'))
@when(parsers.parse('one client sends {count:d} request in conversation "{conversation}".'))
def sends_in_conversation(transport: TransportWorld, count: int, conversation: str) -> None:
    transport.wait(transport.send(count, conversation=conversation))


@when(parsers.re(r"one client sends 1 request whose metadata is '(?P<metadata>.*)'\.$"))
def sends_with_metadata(transport: TransportWorld, metadata: str) -> None:
    transport.wait(transport.send(1, metadata=metadata))


@when(parsers.parse("one client sends 1 request whose metadata is {depth:d} JSON arrays, one "
                    "inside the other."))
def sends_nested_metadata(transport: TransportWorld, depth: int) -> None:
    transport.wait(transport.send(1, metadata="[" * depth + "]" * depth))


@when("a client that never grants a request sends 1 request, and an agent offers to take it.")
def silent_client_sends(transport: TransportWorld) -> None:
    [silent] = transport.dds.add_clients(1, grants=False)
    [rid] = transport.send(1, client=silent)
    assert transport.dds.wait_offer(rid, REPLY_WAIT), "no agent offered to take the request"


@when(parsers.parse('a served agent with backend "{backend}" is started with a DDS '
                     'configuration file that {file}.'))
def started_with_bad_config(transport: TransportWorld, backend: str, file: str) -> None:
    path = transport.root / "dds.xml"
    content = BAD_CONFIGS[file]
    if content is PIPE:
        os.mkfifo(path)
    elif content is SECURE:
        path.write_text(_own_config_with(transport, SECURITY))
    elif isinstance(content, str):
        path.write_text(content)
    transport.start_replaced(backend, "--dds-config", str(path))


@when(parsers.parse('a served agent with backend "{backend}" is started with the suite\'s own '
                     'DDS configuration plus a file for Cyclone DDS to write its trace to.'))
def started_with_tracing(transport: TransportWorld, backend: str) -> None:
    path, transport.trace = transport.root / "dds.xml", transport.root / "cyclonedds.trace"
    tracing = (f"<Tracing><Verbosity>config</Verbosity>"
               f"<OutputFile>{transport.trace}</OutputFile></Tracing>")
    path.write_text(_own_config_with(transport, tracing))
    transport.start("A", backend, replaced=("--dds-config", str(path)))


def _own_config_with(transport: TransportWorld, element: str) -> str:
    """The suite's own DDS configuration (loopback only) with `element` added to its domain."""
    own = transport.dds.config.read_text()
    assert own.count("</Domain>") == 1, f"{transport.dds.config} has not one <Domain>"
    return own.replace("</Domain>", f"{element}</Domain>")


@given("this Cyclone DDS build has no DDS Security plugins.")
def no_security_plugins() -> None:
    """Cyclone DDS loads `dds_security_auth` as any shared library, or from beside its own
    (the PyPI wheel has none)."""
    spec = importlib.util.find_spec("cyclonedds")
    packages = Path(spec.origin).parent.parent if spec and spec.origin else None
    beside = packages.glob("cyclonedds*/**/libdds_security_auth*") if packages else iter(())
    if ctypes.util.find_library("dds_security_auth") or any(beside):
        not_applicable("this Cyclone DDS build has DDS Security: the configuration can be used")


@when(parsers.parse('a served agent with backend "{backend}" is started with the domain id '
                    '"{domain}".'))
def started_with_bad_domain(transport: TransportWorld, backend: str, domain: str) -> None:
    transport.start_replaced(backend, "--domain", domain)


@when(parsers.re(r'the agent that answered conversation "(?P<conversation>[^"]+)" '
                 r'(?P<how>receives SIGTERM|dies without a word \(SIGKILL\))\.$'))
def owner_is_signalled(transport: TransportWorld, conversation: str, how: str) -> None:
    label = transport.replier(transport.conversations[conversation][-1])
    sig = signal.SIGKILL if "SIGKILL" in how else signal.SIGTERM
    transport.codes[label] = transport.dds.agent_stop(transport.names[label], sig)


@when(parsers.parse('one client sends {count:d} requests at once addressed to agent "{label}".'))
def sends_addressed(transport: TransportWorld, count: int, label: str) -> None:
    transport.wait(transport.send(count, agent=transport.names[label]))


@when(parsers.parse('agents "{first}" and "{second}" are stopped (SIGSTOP), one client sends '
                    '{count:d} requests addressed in turn to each, and the agents are continued '
                    '(SIGCONT).'))
def sends_in_turn_while_stopped(transport: TransportWorld, first: str, second: str,
                                count: int) -> None:
    names = [transport.names[first], transport.names[second]]
    pids = [transport.dds.pid(name) for name in names]
    try:
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        rids = transport.send(count, agent=names)
        time.sleep(STOPPED_FOR)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    transport.addressed.update((rid, names[i % 2]) for i, rid in enumerate(rids))
    transport.wait(rids)


@when(parsers.parse("{clients:d} clients each send {count:d} requests at once."))
def clients_send(transport: TransportWorld, clients: int, count: int) -> None:
    indices = transport.dds.add_clients(clients)
    rids = [rid for i in indices for rid in transport.send(count, client=i)]
    transport.wait(rids)


@when(parsers.parse("one client sends {count:d} request without waiting."))
def sends_without_waiting(transport: TransportWorld, count: int) -> None:
    transport.send(count)


@when(parsers.parse('agent "{label}" is BUSY, the client sends 1 request it waits '
                    '{seconds:g} second for.'))
def sends_short_lived(transport: TransportWorld, label: str, seconds: float) -> None:
    name = transport.names[label]
    assert transport.dds.wait_state(name, "BUSY", REPLY_WAIT), f"{label} never became BUSY"
    transport.send(1, metadata=json.dumps({"timeout": seconds, "client": "agent-tck suite"}))


@when(parsers.parse('agent "{label}" is BUSY, a client that never grants sends 1 request, and '
                    'another participant grants it to that agent.'))
def granted_unoffered(transport: TransportWorld, label: str) -> None:
    """The grant follows the request by a second, so that the agent has the request waiting
    when the grant comes (sent first, it would name a request the agent does not know)."""
    name = transport.names[label]
    assert transport.dds.wait_state(name, "BUSY", REPLY_WAIT), f"{label} never became BUSY"
    silent, other = transport.dds.add_clients(2, grants=False)
    (rid,) = transport.send(1, client=silent)
    time.sleep(1.0)
    transport.dds.grant(rid, name, client=other)


@when(parsers.parse('agent "{label}" receives SIGTERM.'))
def receives_sigterm(transport: TransportWorld, label: str) -> None:
    transport.codes[label] = transport.dds.agent_stop(transport.names[label])


@when(parsers.parse('agent "{label}" receives SIGTERM while BUSY.'))
def receives_sigterm_busy(transport: TransportWorld, label: str) -> None:
    name = transport.names[label]
    assert transport.dds.wait_state(name, "BUSY", REPLY_WAIT), f"{label} never became BUSY"
    transport.wait_harness()
    transport.codes[label] = transport.dds.agent_stop(name)


# --- THEN: replies ------------------------------------------------------------------------

def _replies(transport: TransportWorld) -> dict[str, list[dict[str, Any]]]:
    return {rid: transport.dds.replies(rid) for rid in transport.sent}


@then("every request gets exactly one reply with its own request_id.")
def exactly_one_reply(transport: TransportWorld) -> None:
    counts = {rid: len(replies) for rid, replies in _replies(transport).items()}
    assert all(n == 1 for n in counts.values()), f"replies per request: {counts}"
    for rid, replies in _replies(transport).items():
        assert replies[0]["request_id"] == rid


@then("every reply answers its own request's message.")
def answers_own_message(transport: TransportWorld) -> None:
    for rid, replies in _replies(transport).items():
        expected = f"echo: {transport.sent[rid]}"
        assert [r["message"] for r in replies] == [expected], f"{rid}: {replies}"


@then("every reply carries GENESIS's reply fields and the full response in metadata.")
def genesis_reply_fields(transport: TransportWorld) -> None:
    for replies in _replies(transport).values():
        for reply in replies:
            response = json.loads(reply["metadata"])
            assert {"message", "status", "backend", "tool_calls", "session_id",
                    "error"} <= set(response), f"metadata: {response}"
            assert (reply["message"], reply["status"]) == (response["message"],
                                                            response["status"])
            assert reply["conversation_id"] == "conv-fields"
            assert reply["replier_service_guid"], "no replier_service_guid"
            assert reply["service_instance_tag"] == transport.names["A"]


@then(parsers.parse('Cyclone DDS wrote that trace, which names the interface "{interface}".'))
def wrote_the_trace(transport: TransportWorld, interface: str) -> None:
    trace = transport.trace
    assert trace is not None and trace.is_file(), (
        f"no trace at {trace}: the served agent joined with another DDS configuration than "
        "the file it was given")
    said = f"NetworkInterface[@name]: {interface} "
    assert said in trace.read_text(errors="replace"), f"{trace} does not say {said!r}"


@then(parsers.parse('agent "{label}" uses less than a tenth of one CPU, and is running or '
                    'waiting its turn to run less than half the time, over the next '
                    '{seconds:g} real seconds.'))
def idles(transport: TransportWorld, label: str, seconds: float) -> None:
    """Running or waiting its turn: where the kernel says (Linux's schedstat). A loop that
    spins on a busy machine gets less than a tenth of a CPU, but is one or the other all the
    time; an agent that waits is so only when it wakes."""
    pid = transport.dds.pid(transport.names[label])
    before, wanted_before = cpu_seconds(pid), cpu_wanted(pid)
    time.sleep(seconds)
    after, wanted_after = cpu_seconds(pid), cpu_wanted(pid)
    assert before is not None and after is not None, f"agent {label} (pid {pid}) has ended"
    used = after - before
    assert used < seconds / 10, (
        f"agent {label} (pid {pid}) used {used:.2f} s of CPU in {seconds:g} s with nothing to do")
    if wanted_before is not None and wanted_after is not None:
        wanted = wanted_between(wanted_before, wanted_after)
        assert wanted < seconds / 2, (
            f"agent {label} (pid {pid}) was running or waiting its turn to run {wanted:.2f} s "
            f"of {seconds:g} s with nothing to do (it got {used:.2f} s of CPU: the machine is "
            "busy)")


@then(parsers.parse("the harness ran {count:d} times."))
def harness_ran(transport: TransportWorld, count: int) -> None:
    assert len(transport.rig.starts()) == count


@then(parsers.parse('agents "{first}" and "{second}" both answered requests.'))
def both_answered(transport: TransportWorld, first: str, second: str) -> None:
    repliers = {r["service_instance_tag"] for rs in _replies(transport).values() for r in rs}
    expected = {transport.names[first], transport.names[second]}
    assert repliers == expected, f"replies came from {repliers}"


@then(parsers.parse("the event topic shows, for every request, one tool_start event per tool, "
                    "{ids}, in that order, each naming its tool."))
def tool_events(transport: TransportWorld, ids: str) -> None:
    expected = [i.strip() for i in ids.split(",")]
    assert transport.sent, "no request was sent"
    for rid in transport.sent:
        starts = [e for e in transport.dds.events(rid) if e["kind"] == "tool_start"]
        assert [e.get("tool_id") for e in starts] == expected, f"{rid}: tool_start events {starts}"
        assert all(e.get("tool_name") for e in starts), f"{rid}: a tool without its name {starts}"


@then(parsers.parse('the states of agent "{label}" are numbered 1, 2, 3, ... in the order they '
                    'were published.'))
def states_numbered(transport: TransportWorld, label: str) -> None:
    """Numbered one after the other from the first state read. The suite's reader can join
    after the agent published its first state (no previous state): it then starts later in
    the count, but wherever a state has no previous one, it is number 1."""
    states = transport.dds.states(transport.names[label])
    assert states, "no state was read"
    numbers = [int(s["sequence"]) for s in states]
    first = numbers[0] if states[0]["previous"] else 1
    assert numbers == list(range(first, first + len(states))), f"state numbers {numbers}"
    chain = [(s["previous"] or None, s["state"]) for s in states]
    assert all(chain[i][0] == chain[i - 1][1] for i in range(1, len(chain))), (
        f"numbered out of the order published: {chain}")


@then("the events of the requests are numbered one after the other, in the order they were "
      "published.")
def events_numbered(transport: TransportWorld) -> None:
    last = 0
    for rid in transport.sent:
        numbered = sorted(transport.dds.numbered_events(rid), key=lambda e: e[0])
        numbers = [n for n, _ in numbered]
        assert numbers == list(range(last + 1, last + 1 + len(numbers))), (
            f"{rid}: event numbers {numbers} after {last}")
        kinds = [e["kind"] for _, e in numbered]
        assert kinds[:1] == ["init"] and kinds[-1:] == ["done"], f"{rid}: in that order {kinds}"
        last = numbers[-1]


@then("the event topic shows no tool_start event for any request, and its answer.")
def no_tool_events(transport: TransportWorld) -> None:
    assert transport.sent, "no request was sent"
    for rid in transport.sent:
        events = transport.dds.events(rid)
        assert [e for e in events if e["kind"] == "tool_start"] == [], f"{rid}: {events}"
        assert any(e["kind"] == "done" for e in events), f"{rid}: no done event in {events}"


@then(parsers.parse('every reply comes from agent "{label}".'))
def replies_from(transport: TransportWorld, label: str) -> None:
    repliers = {r["service_instance_tag"] for rs in _replies(transport).values() for r in rs}
    assert repliers == {transport.names[label]}, f"replies came from {repliers}"


@then("every reply comes from the agent its request was addressed to.")
def replies_from_addressed(transport: TransportWorld) -> None:
    wrong = {rid: [r["service_instance_tag"] for r in replies]
             for rid, replies in _replies(transport).items()
             if any(r["service_instance_tag"] != transport.addressed[rid] for r in replies)}
    assert transport.addressed and not wrong, (
        f"replies from another agent than the one addressed ({transport.addressed}): {wrong}")


@then(parsers.parse('the harness ran only for agent "{label}".'))
def harness_only_for(transport: TransportWorld, label: str) -> None:
    ran_for = {start["env"].get("AGENT_TCK_AGENT") for start in transport.rig.starts()}
    assert ran_for == {transport.names[label]}, f"the harness ran for {ran_for}"


@then(parsers.parse('no agent but "{label}" offered to take them.'))
def only_offers_from(transport: TransportWorld, label: str) -> None:
    offered = {name for rid in transport.sent for name in transport.dds.offers(rid)}
    assert offered == {transport.names[label]}, f"offers came from {offered}"


@then(parsers.parse('agents "{first}" and "{second}" were BUSY at the same time.'))
def busy_together(transport: TransportWorld, first: str, second: str) -> None:
    spans = {label: _busy_spans(transport, transport.names[label]) for label in (first, second)}
    assert any(max(a[0], b[0]) < min(a[1], b[1]) for a in spans[first] for b in spans[second]), (
        f"the agents ran one after the other (BUSY from, to, in seconds since the epoch): "
        f"{spans}")


def _busy_spans(transport: TransportWorld, name: str) -> list[tuple[float, float]]:
    """When agent `name` went BUSY and READY again, by the timestamps of its states."""
    spans, since = [], None
    for state in transport.dds.states(name):
        if state["state"] == "BUSY":
            since = state["timestamp"]
        elif since is not None:
            spans.append((since, state["timestamp"]))
            since = None
    return spans


@then("no agent was BUSY with two requests at once.")
def never_double_busy(transport: TransportWorld) -> None:
    for name in transport.names.values():
        running: str | None = None
        for state in transport.dds.states(name):
            if state["state"] == "BUSY":
                assert running is None, f"{name} took {state['request_id']} while on {running}"
                running = state["request_id"]
            elif state["state"] == "READY" and running is not None:
                assert state["request_id"] == running
                running = None


@then(parsers.parse('every reply has status {status:d} and a message naming "{word}".'))
def replies_status_naming(transport: TransportWorld, status: int, word: str) -> None:
    for rid, replies in _replies(transport).items():
        said = [(r["status"], r["message"]) for r in replies]
        assert said and all(s == status and word in m for s, m in said), f"{rid}: {said}"


@then(parsers.parse('the agent that answered conversation "{conversation}" first answered all '
                    'of its requests, and no other agent offered to take one.'))
def conversation_kept(transport: TransportWorld, conversation: str) -> None:
    first, *rest = transport.conversations[conversation]
    owner = transport.names[transport.replier(first)]
    repliers = {rid: transport.dds.replies(rid)[0]["service_instance_tag"] for rid in rest}
    assert set(repliers.values()) == {owner}, f"{owner} answered the first; then {repliers}"
    offered = {rid: transport.dds.offers(rid) for rid in rest}
    assert all(set(names) == {owner} for names in offered.values()), f"offers: {offered}"


@then("the other agent answered that request.")
def other_answered(transport: TransportWorld) -> None:
    stopped = set(transport.codes)
    assert len(stopped) == 1 and len(transport.names) == 2, f"stopped {stopped}"
    last = list(transport.sent)[-1]
    assert transport.replier(last) not in stopped, f"{last} was answered by {stopped}"


@then("the other client's request got exactly one reply, which answers its message.")
def other_client_answered(transport: TransportWorld) -> None:
    rid = list(transport.sent)[-1]
    said = [r["message"] for r in transport.dds.replies(rid)]
    assert said == [f"echo: {transport.sent[rid]}"], f"{rid}: {said}"


@then("the harness was never started.")
def harness_never_started(transport: TransportWorld) -> None:
    assert transport.rig.starts() == [], f"the harness ran: {transport.rig.starts()}"


@then("the client gets a reply with a non-zero status.")
def reply_non_zero(transport: TransportWorld) -> None:
    rids = list(transport.sent)
    assert transport.dds.wait_replies(rids, REPLY_WAIT), "the request got no reply"
    statuses = [r["status"] for rid in rids for r in transport.dds.replies(rid)]
    assert len(statuses) == 1 and statuses[0] != 0, f"statuses: {statuses}"


def _refused(transport: TransportWorld, value: str, why: str = "") -> None:
    """It ended, with a non-zero code and no state, and its error names `value` (and says
    `why`, when given)."""
    ended = transport.ended
    assert ended is not None, "no agent was started with a value it cannot use"
    assert ended.code is not None, f"it was still running after {value!r}: {ended.stderr}"
    assert ended.code != 0, f"it exited with code 0: {ended.stderr}"
    assert ended.states == [], f"it published {[s['state'] for s in ended.states]}"
    assert value in ended.stderr, f"its error does not name {value!r}: {ended.stderr!r}"
    assert why in ended.stderr, f"its error does not say {why!r}: {ended.stderr!r}"


@then("it exited with a non-zero code, published no state, and its error names the file.")
def refused_the_file(transport: TransportWorld) -> None:
    _refused(transport, str(transport.root / "dds.xml"))


@then(parsers.parse('it exited with a non-zero code, published no state, and its error names '
                    'the file and says "{why}".'))
def refused_the_file_saying(transport: TransportWorld, why: str) -> None:
    _refused(transport, str(transport.root / "dds.xml"), why)


@then(parsers.parse('it exited with a non-zero code, published no state, and its error names '
                    '"{value}".'))
def refused_the_value(transport: TransportWorld, value: str) -> None:
    _refused(transport, value)


# --- THEN: the monitoring topic -----------------------------------------------------------

@then(parsers.parse('the monitoring topic shows agent "{label}" in the states {states}.'))
def shows_states(transport: TransportWorld, label: str, states: str) -> None:
    seen = [s["state"] for s in transport.dds.states(transport.names[label])]
    assert seen == [s.strip() for s in states.split(",")], f"states seen: {seen}"


@then(parsers.parse('agent "{label}" has published no OFFLINE state.'))
def never_offline(transport: TransportWorld, label: str) -> None:
    seen = [s["state"] for s in transport.dds.states(transport.names[label])]
    assert "OFFLINE" not in seen, f"states seen: {seen}"


@then(parsers.parse("each state of agent \"{label}\" carries GENESIS's numeric value, "
                    "the state before it by name and number (none and -1 for the first) and "
                    "a reason."))
def states_well_formed(transport: TransportWorld, label: str) -> None:
    """-1 is no state of GENESIS's (they are numbered from 0): docs/dds.md, the status type."""
    previous, code = None, -1
    for state in transport.dds.states(transport.names[label]):
        assert state["state_code"] == GENESIS_STATES[state["state"]], state
        assert (state["previous"], state["previous_code"]) == (previous, code), state
        assert state["reason"], f"no reason: {state}"
        previous, code = state["state"], state["state_code"]


@then(parsers.parse('agent "{label}" published DEGRADED, and not READY, before its first '
                    'request, with a reason naming "{word}".'))
def degraded_before_requests(transport: TransportWorld, label: str, word: str) -> None:
    states = transport.dds.states(transport.names[label])
    before = [(s["state"], s["reason"]) for s in states[:next(
        (i for i, s in enumerate(states) if s["request_id"]), len(states))]]
    assert [s for s, _ in before if s in ("READY", "DEGRADED")] == ["DEGRADED"], before
    assert all(word in reason for s, reason in before if s == "DEGRADED"), before


@then(parsers.parse('agent "{label}" published READY with a reason naming "{word}", and gives '
                    'its credentials as "{mode}" in that state and every state after it.'))
def ready_says_credentials(transport: TransportWorld, label: str, word: str, mode: str) -> None:
    states = transport.dds.states(transport.names[label])
    ready = next((i for i, s in enumerate(states) if s["state"] == "READY"), None)
    assert ready is not None, f"no READY state: {[s['state'] for s in states]}"
    assert word in states[ready]["reason"], f"READY's reason: {states[ready]['reason']!r}"
    said = [(s["state"], s["metadata"].get("credentials")) for s in states[ready:]]
    assert all(given == mode for _, given in said), f"credentials from READY on: {said}"


@then(parsers.parse('every state of agent "{label}" on the monitoring topic describes it as:'))
def states_describe(transport: TransportWorld, label: str, datatable: list[list[str]]) -> None:
    """`datatable`: | field | value | rows, each value JSON (null: not set)."""
    expected = {field: json.loads(value) for field, value in datatable[1:]}
    states = transport.dds.states(transport.names[label])
    assert states, f"agent {label!r} published no state"
    for state in states:
        said = {field: state["metadata"].get(field, "(absent)") for field in expected}
        assert said == expected, f"the {state['state']} state says {said}"


@then(parsers.parse('the last state of agent "{label}" on the monitoring topic is '
                    '"{state}", with a reason.'))
def last_state(transport: TransportWorld, label: str, state: str) -> None:
    last = transport.dds.states(transport.names[label])[-1]
    assert last["state"] == state and last["reason"], f"last state: {last}"
    assert last["state_code"] == GENESIS_STATES[state]


@then(parsers.parse('the served process of agent "{label}" exited with code {code:d}.'))
def exited_with(transport: TransportWorld, label: str, code: int) -> None:
    assert transport.codes[label] == code


# --- THEN: the harness --------------------------------------------------------------------

@then(parsers.parse("the first request gets its reply, the second none in the {seconds:g} "
                    "seconds after it, and the harness ran once."))
def second_never_run(transport: TransportWorld, seconds: float) -> None:
    first, second = transport.sent
    transport.wait([first])
    assert not transport.dds.wait_replies([second], seconds), "the second request was run"
    pids = [start["pid"] for start in transport.rig.starts()]
    assert len(pids) == 1, f"the harness ran {len(pids)} times: pids {pids}"


@then("the harness was terminated via SIGTERM and no process of it remains.")
def harness_terminated(transport: TransportWorld) -> None:
    start = transport.rig.last_start()
    noted = [{k: e[k] for k in ("what", "signal", "code", "n", "t") if k in e}
             for e in transport.rig.record() if e.get("pid") == start["pid"]]
    assert transport.rig.signals(start["pid"])[:1] == ["SIGTERM"], (
        f"the harness got no SIGTERM; the served agent exited with {transport.codes}; what the "
        f"harness noted (t: its clock, time.monotonic()): {noted}; every start: "
        f"{[(s['pid'], s['ppid']) for s in transport.rig.starts()]} (pid, parent); the replies: "
        f"{[(r['status'], r['message'][:300]) for rs in _replies(transport).values() for r in rs]}")
    assert process_state(start["pid"]) is None, f"harness pid {start['pid']} remains"
    assert group_members(start["pgid"]) == [], "processes of the harness's group remain"


@then(parsers.parse("harness run {number:d} was started without resume flags."))
def run_without_resume(transport: TransportWorld, number: int) -> None:
    argv = transport.rig.starts()[number - 1]["argv"]
    assert "--resume" not in argv and "resume" not in argv, f"argv: {argv}"


@then(parsers.parse('harness run {number:d} was started with the "{backend}" resume flags '
                    'for session "{session}".'))
def run_with_resume(transport: TransportWorld, number: int, backend: str, session: str) -> None:
    argv = transport.rig.starts()[number - 1]["argv"]
    assert profile(backend).resumed_session(argv) == session, f"argv: {argv}"
