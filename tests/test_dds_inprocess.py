"""The service and the client in one process: a service thread, the fake harness on PATH."""

from __future__ import annotations

import io
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("cyclonedds")

from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.observe import process_state
from agent_tck.reference.agent import AgentConfig
from agent_tck.reference.dds import types
from agent_tck.reference.dds.bus import Bus, loads_object
from agent_tck.reference.dds.cli import main
from agent_tck.reference.dds.client import Client, Reply
from agent_tck.reference.dds.exceptions import NoReplyError
from agent_tck.reference.dds.service import AgentService, StopFlag
from tests.support.dds import domain

DOMAIN = domain(2)
pytestmark = pytest.mark.timeout(60)


class Served:
    """A service running in a thread, and a client of it."""

    def __init__(self, rig: HarnessRig, name: str = "inproc") -> None:
        config = AgentConfig(env={"PATH": rig.path()}, timeout=20, grace_period=1)
        self.service = AgentService(config, name=name, domain=DOMAIN)
        self.stop = StopFlag()
        self.thread = threading.Thread(target=self.service.run, args=(self.stop,))
        self.thread.start()
        self.client = Client(DOMAIN, name="test")

    def close(self) -> None:
        self.stop.stop("test over")
        self.thread.join(10)
        self.client.close()


@pytest.fixture
def rig(tmp_path: Path) -> HarnessRig:
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude").init("sess-in").text("thinking ").echo())
    return rig


@pytest.fixture
def served(rig: HarnessRig) -> Iterator[Served]:
    served = Served(rig)
    yield served
    served.close()


def test_a_reply_answers_its_request(served: Served) -> None:
    reply = served.client.ask("hello", timeout=20)
    assert (reply.message, reply.status) == ("echo: hello", 0)
    assert reply.replier_service_guid == served.service.guid
    assert reply.service_instance_tag == "inproc"
    assert reply.response["session_id"] == "sess-in"
    assert reply.to_dict()["agent"] == "inproc"


def test_requests_by_guid_and_by_name(served: Served) -> None:
    assert served.client.ask("a", agent=served.service.guid, timeout=20).status == 0
    assert served.client.ask("b", agent="inproc", timeout=20).status == 0


def test_several_requests_in_flight_are_answered_one_by_one(served: Served) -> None:
    rids = [served.client.submit(f"m{i}", timeout=20) for i in range(4)]
    assert [served.client.result(r).message for r in rids] == [f"echo: m{i}" for i in range(4)]


def test_a_conversation_resumes_its_session(served: Served, rig: HarnessRig) -> None:
    for message in ("one", "two"):
        served.client.ask(message, conversation_id="c", timeout=20)
    served.client.ask("three", conversation_id="other", timeout=20)
    argvs = [start["argv"] for start in rig.starts()]
    assert "--resume" not in argvs[0] and "--resume" not in argvs[2]
    assert argvs[1][argvs[1].index("--resume") + 1] == "sess-in"


def test_stream_events_are_published_with_the_request_id(served: Served) -> None:
    watcher = Bus(DOMAIN)
    events = watcher.inbox(types.EVENT_TOPIC, types.EVENT_QOS)
    served.client.ask("warm up", timeout=20)  # the watcher is matched by now
    reply = served.client.ask("hello", timeout=20)
    seen: list[types.AgentEvent] = []
    for _ in range(25):
        watcher.wait(0.2)
        seen += [e for e in events.take()[0] if e.request_id == reply.request_id]
        if len(seen) >= 4:
            break
    watcher.close()
    kinds = [loads_object(e.event)["kind"] for e in seen]
    assert kinds == ["init", "text", "text", "done"]  # "thinking ", the answer, the result
    assert [e.sequence for e in seen] == sorted(e.sequence for e in seen)


def test_a_request_nobody_grants_does_not_keep_the_agent_from_others(
        rig: HarnessRig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A peer publishes a request it will never grant, waiting a day; a real client's request
    that comes after it is still answered."""
    from agent_tck.reference.dds import service as service_module

    monkeypatch.setattr(service_module, "OFFER_WAIT", 0.5)
    served, peer = Served(rig), Bus(DOMAIN)
    try:
        hostile = peer.writer(types.REQUEST_TOPIC)
        hostile.write(types.AgentRequest("never", "x", "", "", "", '{"timeout": 86400}'))
        served.client.ask("warm up", timeout=20)  # whichever came first, both are matched now
        reply = served.client.ask("hello", timeout=20)
        assert (reply.message, reply.status) == ("echo: hello", 0)
        assert served.service.pending.keys() == {"never"}
    finally:
        served.close()
        peer.close()


def test_a_client_that_gives_up_says_who_was_there(served: Served) -> None:
    served.client.ask("warm up", timeout=20)
    with pytest.raises(NoReplyError, match="no agent named 'ghost' is online"):
        served.client.ask("hello", agent="ghost", timeout=0.5)


def test_a_client_that_gives_up_on_a_busy_agent_says_what_it_saw(served: Served,
                                                                  rig: HarnessRig) -> None:
    """Online but busy, the agent offers nothing: the message names it and its state."""
    rig.use(Script("claude").init().text("working").add("sleep", 60))
    served.client.submit("long", timeout=30)
    while not rig.starts():
        served.client.pump(0.05)
    with pytest.raises(NoReplyError,
                       match=r"no agent offered to take it \(agents seen: inproc \(BUSY\)\)$"):
        served.client.ask("hello", timeout=1)


def test_a_wake_from_another_thread_ends_a_wait_on_the_bus() -> None:
    """`Bus.wake` is how a served agent's worker thread tells its loop that a request is done.
    The loop mostly hears the agent's own READY status too, written just before; when it reads
    between the two, only the wake keeps the reply from waiting for the loop's next tick."""
    bus = Bus(DOMAIN)
    waker = threading.Timer(0.1, bus.wake)
    try:
        assert not bus.wait(0.05)  # nothing came: the time ran out
        waker.start()
        assert bus.wait(60)  # woken, not timed out
    finally:
        waker.cancel()
        waker.join()
        bus.close()


def test_a_client_pumped_with_no_time_left_reads_what_came_and_returns() -> None:
    """`pump` is the library's loop step: a caller whose deadline has just passed gives it
    no time, or less than none, and gets control back (DDS refuses a negative wait)."""
    client = Client(DOMAIN, name="test")
    try:
        client.pump(-0.5)
        client.pump(0.0)
    finally:
        client.close()


def _pump(client: Client, seconds: float) -> None:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        client.pump(left)


def test_a_client_grants_no_offer_from_an_agent_it_did_not_address() -> None:
    """A request for one agent, offered to by another (a hostile or mistaken peer): only the
    agent it names is granted it."""
    client, peer = Client(DOMAIN, name="test"), Bus(DOMAIN)
    try:
        offers, grants = peer.writer(types.OFFER_TOPIC), peer.inbox(types.GRANT_TOPIC)
        rid = client.submit("hello", agent="named", timeout=30)
        for offer in (types.AgentOffer(rid, "g-other", "other"),
                      types.AgentOffer(rid, "g-named", "named")):
            _pump(client, 1.0)  # the peer's writer matched before the offer is written
            offers.write(offer)
            _pump(client, 1.0)
        granted = [g.agent_guid for g in grants.take()[0] if g.request_id == rid]
        assert granted == ["g-named"]
    finally:
        client.close()
        peer.close()


def test_a_client_whose_agent_took_the_request_and_did_not_reply_says_so(
        served: Served, rig: HarnessRig) -> None:
    """Granted and never answered in time: the error names the agent that took it, and says
    the request was offered (the `ask` command's exit code tells the two apart)."""
    rig.use(Script("claude").init().text("working").add("sleep", 60))
    with pytest.raises(NoReplyError, match=r"agent 'inproc' took it but did not reply$") as err:
        served.client.ask("hello", timeout=3)
    assert err.value.offered


def test_a_client_waiting_for_a_reply_uses_next_to_no_cpu() -> None:
    """It sleeps on DDS between samples: a client that polled would spend its whole wait."""
    client = Client(DOMAIN, name="test")
    try:
        before = time.process_time()
        with pytest.raises(NoReplyError):
            client.ask("hello", agent="nobody", timeout=2)
        assert time.process_time() - before < 0.5
    finally:
        client.close()


def test_a_client_gives_up_no_sooner_than_its_deadline() -> None:
    """Its whole timeout is the agents' to answer in, the last second too: a one-second
    timeout with nobody there ends in NoReplyError, a second after it was asked, not before."""
    client = Client(DOMAIN, name="test")
    try:
        start = time.monotonic()
        with pytest.raises(NoReplyError):
            client.ask("hello", agent="nobody", timeout=1)
        assert time.monotonic() - start >= 1
    finally:
        client.close()


def test_a_request_that_fails_is_answered_with_its_status(served: Served,
                                                          rig: HarnessRig) -> None:
    rig.use(Script("claude").init().add("exit", 3))
    reply = served.client.ask("hello", timeout=20)
    assert reply.status == 1 and "exited with code 3" in reply.response["error"]


def test_a_failure_that_escapes_the_agent_is_still_answered_and_frees_it(
        served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug of the agent's own code that escapes `process` (which answers what fails inside
    it, decision D-24): the served agent still answers with status 1 naming the failure, and
    takes the next request."""
    process = served.service.agent.process

    def buggy(message: str, session_id: str | None = None) -> dict[str, object]:
        if message == "bug":
            raise RuntimeError("boom")
        return process(message, session_id)

    monkeypatch.setattr(served.service.agent, "process", buggy)
    reply = served.client.ask("bug", timeout=20)
    assert (reply.status, reply.message) == (1, "the agent failed: RuntimeError('boom')")
    assert reply.response["error"] == reply.message
    assert served.client.ask("hello", timeout=20).status == 0


def serve_until_signalled(rig: HarnessRig, monkeypatch: pytest.MonkeyPatch,
                          client_side: Callable[[Client], object]) -> tuple[int, object, Client]:
    """Run `serve` in this (main) thread; `client_side` runs in another, then SIGTERMs us."""
    monkeypatch.setenv("PATH", rig.path())
    outcome: list[object] = []

    def client_thread() -> None:
        client = Client(DOMAIN, name="signaller")
        try:
            outcome.append(client_side(client))
        finally:
            os.kill(os.getpid(), signal.SIGTERM)
            outcome.append(client)

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    thread = threading.Thread(target=client_thread)
    try:
        thread.start()
        code = main(["serve", "--backend", "claude", "--name", "cli", "--domain", str(DOMAIN),
                     "--grace-period", "1"], io.StringIO(), io.StringIO())
    finally:
        thread.join(30)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    client = outcome[-1]
    assert isinstance(client, Client)
    return code, (outcome[0] if len(outcome) > 1 else None), client


def test_serve_answers_and_stops_on_sigterm(rig: HarnessRig,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    code, reply, client = serve_until_signalled(
        rig, monkeypatch, lambda c: c.ask("hello", agent="cli", timeout=20))
    client.close()
    assert code == 0
    assert isinstance(reply, Reply) and reply.message == "echo: hello"


def test_sigterm_during_a_request_ends_the_harness_and_answers(
        rig: HarnessRig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig.use(Script("claude").init().text("working").add("sleep", 60))

    def send(client: Client) -> str:
        rid = client.submit("long", agent="cli", timeout=30)
        while not rig.starts():
            client.pump(0.05)
        return rid

    code, rid, client = serve_until_signalled(rig, monkeypatch, send)
    try:
        assert code == 0 and isinstance(rid, str)
        reply = client.result(rid)
    finally:
        client.close()
    start = rig.last_start()
    assert reply.status != 0
    assert rig.signals(start["pid"]) == ["SIGTERM"]
    assert process_state(start["pid"]) is None


def test_hostile_metadata_from_a_peer_is_no_object_and_no_crash() -> None:
    for text in ("[" * 100_000, '{"a": NaN}', '{"a": Infinity}', "[1]", "oops", ""):
        assert loads_object(text) == {}, text
