"""`serve` and `ask` end to end: a served reference agent, the fake harness on its PATH."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("cyclonedds")

from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.reference.dds.cli import main
from tests.support.dds import LOOPBACK_URI, domain, start_served, stop

DOMAIN = domain(0)
pytestmark = pytest.mark.timeout(60)


def ask(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["ask", *args, "--domain", str(DOMAIN)], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def rig(tmp_path: Path) -> HarnessRig:
    rig = HarnessRig(tmp_path / "harness")
    rig.use(Script("claude").init("sess-e2e").echo())
    return rig


@pytest.fixture
def served(rig: HarnessRig) -> Iterator[object]:
    # An inherited configuration must not win over the loopback default.
    proc = start_served("e2e", DOMAIN, rig.path(),
                        env={"CYCLONEDDS_URI": "file:///nonexistent.xml"})
    try:
        yield proc
    finally:
        stop(proc)


def test_ask_prints_the_answer_in_plain_text(served: object) -> None:
    assert ask("hello", "--timeout", "20") == (0, "echo: hello\n", "")


def test_ask_json_prints_the_whole_response(served: object) -> None:
    code, out, _ = ask("hello", "--json", "--conversation", "c-json", "--timeout", "20")
    reply = json.loads(out)
    assert code == 0
    assert reply["message"] == "echo: hello" and reply["status"] == 0
    assert reply["session_id"] == "sess-e2e" and reply["conversation_id"] == "c-json"
    assert reply["agent"] == "e2e" and reply["backend"] == "claude"


def test_a_conversation_resumes_its_session(served: object, rig: HarnessRig) -> None:
    for message in ("one", "two"):
        assert ask(message, "--conversation", "c-resume", "--timeout", "20")[0] == 0
    first, second = (start["argv"] for start in rig.starts())
    assert "--resume" not in first
    assert second[second.index("--resume") + 1] == "sess-e2e"


def test_the_served_agent_uses_the_loopback_configuration(served: object) -> None:
    """It answers although it inherited a configuration that does not exist (so the
    loopback default won), and nobody on this machine joined Cyclone's default multicast
    group 239.255.0.1 (0100FFEF in /proc/net/igmp)."""
    assert ask("ping", "--timeout", "20")[0] == 0
    assert "0100FFEF" not in Path("/proc/net/igmp").read_text()
    assert os.environ["CYCLONEDDS_URI"] == LOOPBACK_URI  # this process (ask) too


def test_ask_addressed_to_an_unknown_agent_fails_clearly(served: object) -> None:
    assert ask("ping", "--timeout", "20")[0] == 0  # the agent is up
    code, out, err = ask("hello", "--agent", "nobody", "--timeout", "0.5")
    assert (code, out) == (3, "")
    assert "no agent named 'nobody' is online" in err


def test_ask_with_no_agent_fails_clearly() -> None:
    code, out, err = ask("hello", "--timeout", "0.5")
    assert (code, out) == (3, "")
    assert err.startswith("error: no agent answered request ")
    assert err.rstrip().endswith(f"in time on DDS domain {DOMAIN}: no agent is online")


def test_a_failed_request_exits_1_with_the_error(rig: HarnessRig, served: object) -> None:
    rig.use(Script("claude").init().add("err", "boom\n").add("exit", 7))
    code, out, err = ask("hello", "--timeout", "20")
    assert code == 1
    assert "status 1" in err and "exited with code 7" in err
    assert "stderr: boom" in err  # the error whole, not only its first line (the message)
    # said once, on stderr: the message is the error's first line
    first = err.splitlines()[0].removeprefix("error: status 1: ")
    assert out == "" and err.count(first) == 1, (out, err)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_a_signal(rig: HarnessRig, sig: signal.Signals) -> None:
    """... and `--verbose` logs each state change on stderr, with its reason."""
    proc = start_served("stopper", DOMAIN, rig.path(), "--verbose")
    try:
        assert ask("ping", "--timeout", "20")[0] == 0
        proc.send_signal(sig)
        output = proc.communicate(timeout=15)[0].decode()
    finally:
        code = stop(proc, sig)
    assert code == 0
    # the line that says it is up, before anything was asked of it
    ready = f"stopper: serving claude requests on DDS domain {DOMAIN} (READY); SIGINT or "
    assert output.index(ready) < output.index("stopper: BUSY ("), output[:300]
    for state in ("DISCOVERING", "READY", "BUSY", "OFFLINE"):
        assert f"stopper: {state} (" in output
    assert f"stopper: OFFLINE (received {sig.name})" in output


@pytest.mark.parametrize(("argv", "message"), [
    ([], "the following arguments are required: command"),
    (["serve", "--backend", "nope"], "invalid choice: 'nope'"),
    (["serve"], "the following arguments are required: --backend"),
    (["ask", "hi", "--domain", "999"], "DDS domain id must be 0..232, got 999"),
    (["ask", "hi", "--timeout", "0"],
     "--timeout must be a positive number of seconds up to 604800, got 0.0"),
    (["ask", "hi", "--timeout", "nan"],
     "--timeout must be a positive number of seconds up to 604800, got nan"),
    (["serve", "--backend", "claude", "--timeout", "-1"],
     "timeout must be a positive number of seconds up to 604800, got -1.0"),
    (["serve", "--backend", "claude", "--grace-period", "inf"],
     "grace_period must be a positive number of seconds up to 604800, got inf"),
    (["ask", "hi", "--dds-config", "/nonexistent.xml"],
     "DDS configuration '/nonexistent.xml' is not a file"),
])
def test_usage_errors_exit_2(argv: list[str], message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out, err) == 2
    assert message in err.getvalue() and out.getvalue() == ""


def test_serve_and_ask_meet_on_domain_0_when_neither_names_one() -> None:
    """GENESIS's default domain, as its help says: a served agent and a client started without
    `--domain` find each other (parsed only: the tests themselves keep off domain 0)."""
    from agent_tck.reference.dds.cli import _parser

    parser = _parser()
    assert parser.parse_args(["serve", "--backend", "claude"]).domain == 0
    assert parser.parse_args(["ask", "hello"]).domain == 0


def test_help_goes_to_the_given_stream() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["ask", "--help"], out, err) == 0
    assert "--conversation ID" in out.getvalue() and err.getvalue() == ""


def test_python_dash_m_reference_dds_runs(rig: HarnessRig) -> None:
    rig.use(Script("codex").init().echo())
    proc = start_served("dash-m", DOMAIN, rig.path(), "--backend", "codex")
    try:
        assert ask("ping", "--agent", "dash-m", "--timeout", "20")[:2] == (0, "echo: ping\n")
        proc.terminate()
        output = proc.communicate(timeout=15)[0].decode()
    finally:
        assert stop(proc) == 0
    # the line that says it is up, and no state change logged without --verbose
    assert output == (f"dash-m: serving codex requests on DDS domain {DOMAIN} (READY); SIGINT "
                      "or SIGTERM stops it\n"), output


def _wait(client: object, what: str, until: object, seconds: float = 30,
          seen: object = None) -> None:
    """Pump `client` until `until()`; a failure says what the agents were, and what `seen()`
    tells."""
    from agent_tck.reference.dds.client import Client

    assert isinstance(client, Client) and callable(until)
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        client.pump(0.2)
    told = f"; {seen()}" if callable(seen) else ""
    assert until(), f"{what}: not within {seconds} s; agents seen: {client.agents}{told}"


def test_a_request_whose_agent_is_killed_is_taken_by_another_exactly_once(
        tmp_path: Path) -> None:
    """Agent `a` takes the request and is killed with SIGKILL while its CLI runs; its CLI gets
    SIGTERM from the kernel (never left running the task), the client asks again and agent
    `b` answers it: one reply, from `b`, under the id the caller has. The request is asked
    again as `<id>~2` (docs/dds.md), and the client keeps nothing of it once answered."""
    from agent_tck.reference.dds.client import Client

    hangs, answers = HarnessRig(tmp_path / "a"), HarnessRig(tmp_path / "b")
    hangs.use(Script("claude").init().add("sleep", 300))
    answers.use(Script("claude").init("sess-b").echo())
    client = Client(domain(1))
    first = start_served("a", domain(1), hangs.path())
    second = None
    try:
        _wait(client, "agent a ready", lambda: ("a", "READY") in client.agents.values())
        rid = client.submit("take me", timeout=40)
        _wait(client, "agent a ran the CLI", lambda: bool(hangs.starts()))
        second = start_served("b", domain(1), answers.path())
        _wait(client, "agent b ready", lambda: ("b", "READY") in client.agents.values())
        first.kill()
        _wait(client, "the request asked again", lambda: f"{rid}~2" in client.asks, seconds=30)
        reply = client.result(rid)
        kept = dict(client.asks)
        orphan = hangs.starts()[0]["pid"]
        _wait(client, "the killed agent's CLI got SIGTERM",
              lambda: hangs.signals(orphan) == ["SIGTERM"], seconds=10,
              seen=lambda: f"its signals {hangs.signals(orphan)}, its record's tail "
                           f"{hangs.record()[-4:]}")
    finally:
        for proc in (first, second):
            if proc is not None:
                stop(proc, signal.SIGKILL if proc is first else signal.SIGTERM)
        for start in hangs.starts():  # the killed agent's CLI leads its own process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(start["pgid"], signal.SIGKILL)
        client.close()
    assert (reply.request_id, reply.service_instance_tag, reply.status) == (rid, "b", 0)
    assert kept == {}, kept
    assert reply.message == "echo: take me"
    assert len(answers.starts()) == 1 and len(hangs.starts()) == 1


def test_an_agent_that_leaves_does_not_send_another_agents_request_round_again(
        tmp_path: Path) -> None:
    """Agent `b` runs the request; agent `a`, idle, is killed (SIGKILL: a clean stop says
    OFFLINE and leaves nothing to ask again). Only a request granted to the agent that died is
    asked again: asked again, this one would run twice, once `b` is free. `b`'s CLI outlasts
    the participant lease, after which the client sees `a` gone."""
    from agent_tck.reference.dds.client import Client

    idle, slow = HarnessRig(tmp_path / "a"), HarnessRig(tmp_path / "b")
    idle.use(Script("claude").init().echo())
    slow.use(Script("claude").init("sess-b").add("sleep_real", 20).echo())
    client = Client(domain(4))
    first = start_served("a", domain(4), idle.path())
    second = start_served("b", domain(4), slow.path())
    try:
        _wait(client, "both agents ready", lambda: {("a", "READY"), ("b", "READY")}
              <= set(client.agents.values()))
        rid = client.submit("slowly", agent="b", timeout=40)
        _wait(client, "agent b ran the CLI", lambda: bool(slow.starts()))
        first.kill()
        _wait(client, "agent a gone", lambda: ("a", "OFFLINE") in client.agents.values(),
              seconds=30)
        asked = sorted(client.asks)
        reply = client.result(rid)
    finally:
        stop(first, signal.SIGKILL)
        stop(second, signal.SIGTERM)
        client.close()
    assert asked == [rid], asked
    assert (reply.request_id, reply.service_instance_tag, reply.status) == (rid, "b", 0)
    assert len(slow.starts()) == 1 and idle.starts() == []
