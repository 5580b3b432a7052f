"""The DDS service's decisions, in process: lifecycle, affinity, settling, configuration."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cyclonedds")

from agent_tck.reference.agent import AgentConfig
from agent_tck.reference.dds import service as service_module
from agent_tck.reference.dds import types
from agent_tck.reference.dds.bus import Bus
from agent_tck.reference.dds.config import (
    LOOPBACK,
    check_domain,
    config_uri,
    security_problem,
)
from agent_tck.reference.dds.service import AgentService, Conversation, StopFlag
from agent_tck.reference.exceptions import ConfigError
from tests.support.dds import domain

DOMAIN = domain(3)
pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[AgentService]:
    config = AgentConfig(env={"PATH": str(tmp_path)})  # no `claude` there
    svc = AgentService(config, name="unit", domain=DOMAIN)
    yield svc
    svc.bus.close()


def request(rid: str, conversation: str = "", tag: str = "", guid: str = ""
            ) -> types.AgentRequest:
    return types.AgentRequest(rid, "hi", conversation, guid, tag, "{}")


def test_lifecycle_with_a_missing_cli_is_degraded_then_offline(tmp_path: Path) -> None:
    watcher = Bus(DOMAIN)
    statuses = watcher.inbox(types.STATUS_TOPIC)
    svc = AgentService(AgentConfig(env={"PATH": str(tmp_path)}), name="deg", domain=DOMAIN)
    stop = StopFlag()
    thread = threading.Thread(target=svc.run, args=(stop,))
    thread.start()
    time.sleep(0.3)
    stop.stop("test over")
    thread.join(10)
    seen: list[tuple[str, str]] = []
    deadline = time.monotonic() + 5
    while len(seen) < 3 and time.monotonic() < deadline:
        watcher.wait(0.2)
        seen += [(s.state, s.reason) for s in statuses.take()[0] if s.agent_name == "deg"]
    watcher.close()
    assert [state for state, _ in seen] == ["DISCOVERING", "DEGRADED", "OFFLINE"]
    assert "'claude' was not found on PATH" in seen[1][1]
    assert seen[2][1] == "test over"


def test_only_requests_addressed_to_it_are_taken(service: AgentService) -> None:
    assert service._addressed(request("r1"))
    assert service._addressed(request("r2", tag="unit"))
    assert service._addressed(request("r3", guid=service.guid))
    assert not service._addressed(request("r4", tag="other"))
    assert not service._addressed(request("r5", guid="0110-other"))


def test_a_conversation_stays_with_its_live_owner(service: AgentService) -> None:
    service.conversations["mine"] = Conversation(service.guid, "s1")
    service.conversations["theirs"] = Conversation("peer", "s2")
    service.peers["peer"] = "BUSY"
    assert service._may_take(request("r1", "mine"))
    assert service._may_take(request("r2", "new"))
    assert not service._may_take(request("r3", "theirs"))
    service.peers["peer"] = "OFFLINE"  # the owner left: anyone may continue it
    assert service._may_take(request("r4", "theirs"))


def test_one_offer_at_a_time_and_settled_requests_are_forgotten(
        service: AgentService) -> None:
    for rid in ("a", "b"):
        service.pending[rid] = service_module.Pending(request(rid), time.monotonic() + 60)
    service._offer(0.0)
    assert service.offered == "a"
    service._offer(0.0)
    assert service.offered == "a"
    service._settle("a")  # granted to another agent
    assert service.offered is None and "a" not in service.pending and "a" in service.settled
    service._offer(0.0)
    assert service.offered == "b"


def test_an_offer_nobody_grants_is_withdrawn_and_the_next_request_offered(
        service: AgentService) -> None:
    for rid in ("never", "b"):
        service.pending[rid] = service_module.Pending(request(rid), time.monotonic() + 60)
    service._offer(100.0)
    assert service.offered == "never"
    service._offer(100.0 + service_module.OFFER_WAIT - 0.1)
    assert service.offered == "never"
    service._offer(100.0 + service_module.OFFER_WAIT)
    assert service.offered == "b"
    assert list(service.pending) == ["b", "never"]  # still waiting, at the back


def test_a_late_grant_is_owed_and_run_when_the_agent_is_free(
        service: AgentService, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(service, "_start", lambda p: started.append(p.request.request_id))
    for rid in ("late", "b"):
        service.pending[rid] = service_module.Pending(request(rid), time.monotonic() + 60)
    service._offer(0.0)
    service._offer(service_module.OFFER_WAIT)  # "late" withdrawn, "b" offered
    service.running = service_module.Pending(request("busy"), 0.0)  # b granted and running
    grant = types.AgentGrant("late", service.guid)
    monkeypatch.setattr(service, "grants", _Inbox([grant]))
    service._read_grants()
    assert started == [] and list(service.owed) == ["late"]
    service._offer(2 * service_module.OFFER_WAIT)
    assert service.offered == "b", "no new offer while a grant is owed"
    service.running = None
    service._run_owed()
    assert started == ["late"] and not service.owed


def test_a_grant_for_a_request_never_offered_is_ignored(
        service: AgentService, monkeypatch: pytest.MonkeyPatch) -> None:
    service.pending["x"] = service_module.Pending(request("x"), time.monotonic() + 60)
    monkeypatch.setattr(service, "grants", _Inbox([types.AgentGrant("x", service.guid)]))
    service._read_grants()
    assert not service.owed and "x" in service.pending


def test_expired_requests_are_dropped(service: AgentService) -> None:
    service.pending["old"] = service_module.Pending(request("old"), time.monotonic() - 1)
    service._expire(time.monotonic())
    assert "old" not in service.pending


def test_settled_memory_is_bounded(service: AgentService,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "SETTLED_MEMORY", 3)
    for i in range(5):
        service._settle(f"r{i}")
    assert service.settled == {"r2", "r3", "r4"}


def test_configuration_defaults_to_loopback() -> None:
    assert config_uri() == f"file://{LOOPBACK}"
    assert "<AllowMulticast>false</AllowMulticast>" in LOOPBACK.read_text()
    assert '<NetworkInterface name="lo"/>' in LOOPBACK.read_text()


@pytest.mark.parametrize("text", ["", " \n", '<?xml version="1.0"?>\n<!-- no element -->\n'])
def test_a_configuration_without_an_element_is_refused(tmp_path: Path, text: str) -> None:
    """Cyclone DDS would take it for no settings: its default, multicast on every interface."""
    path = tmp_path / "dds.xml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"dds\.xml' cannot be read: no element found"):
        config_uri(path)


def test_a_configuration_that_is_no_regular_file_is_refused_without_reading_it(
        tmp_path: Path) -> None:
    """A named pipe would keep the parser waiting for a writer that never comes."""
    pipe = tmp_path / "dds.xml"
    os.mkfifo(pipe)
    for check in (config_uri, security_problem):
        with pytest.raises(ConfigError, match=r"dds\.xml' is not a file"):
            check(pipe)


@pytest.mark.parametrize("bad", [-1, 233, True])
def test_domain_ids_are_checked(bad: int) -> None:
    with pytest.raises(ConfigError, match=r"DDS domain id must be 0\.\.232, got " + repr(bad)):
        check_domain(bad)


@pytest.mark.parametrize("bound", [0, 232])
def test_the_domain_ids_at_the_bounds_are_taken(bound: int) -> None:
    assert check_domain(bound) == bound


def test_what_waits_at_an_agent_is_bounded(service: AgentService,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """By count and by size; a request over the bound is left on the bus, not queued here."""
    monkeypatch.setattr(service_module, "MAX_PENDING", 2)
    monkeypatch.setattr(service_module, "MAX_PENDING_CHARS", 100)
    service.pending["a"] = service_module.Pending(request("a"), time.monotonic() + 60)
    assert not service._full(request("b"))
    big = types.AgentRequest("big", "x" * 99, "", "", "", "{}")
    assert service._full(big)
    service.pending["b"] = service_module.Pending(request("b"), time.monotonic() + 60)
    assert service._full(request("c"))


def test_a_request_cannot_wait_for_ever(service: AgentService,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A `timeout` of 1e400 (infinity in JSON) waits a day at most, not for ever."""
    sample = types.AgentRequest("forever", "hi", "", "", "", '{"timeout": 1e400}')
    monkeypatch.setattr(service, "requests", _Inbox([sample]))
    service._read_requests(0.0)
    assert service.pending["forever"].deadline == service_module.MAX_REQUEST_TTL


def test_remembered_conversations_are_bounded_newest_kept(
        service: AgentService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "MAX_CONVERSATIONS", 2)
    for name in ("c1", "c2", "c1", "c3"):
        service._remember(name, service_module.Conversation("owner", None))
    assert list(service.conversations) == ["c1", "c3"]


def test_remembered_peers_are_bounded_and_those_gone_forgotten(
        service: AgentService, monkeypatch: pytest.MonkeyPatch) -> None:
    """However many agents come and go on the domain, the states kept stay bounded: past
    MAX_PEERS the longest unheard of is forgotten, and one disposed of at once (absent reads
    as OFFLINE)."""
    monkeypatch.setattr(service_module, "MAX_PEERS", 2)
    statuses = [_status(guid, state) for guid, state in
                [("p1", "READY"), ("p2", "BUSY"), ("p1", "BUSY"), ("p3", "READY")]]
    monkeypatch.setattr(service, "statuses", _Inbox(statuses))
    service._read_statuses()
    assert list(service.peers.items()) == [("p1", "BUSY"), ("p3", "READY")]
    monkeypatch.setattr(service, "statuses", _Inbox([_status("p4", "OFFLINE")],
                                                    gone=[_Key("p1")]))
    service._read_statuses()
    assert list(service.peers.items()) == [("p3", "READY"), ("p4", "OFFLINE")]


def _status(guid: str, state: str) -> types.AgentStatus:
    return types.AgentStatus(guid, "peer", state, 0, "", -1, "", "", 1, 0.0, "{}")


class _Key:
    def __init__(self, agent_guid: str) -> None:
        self.agent_guid = agent_guid


class _Inbox:
    def __init__(self, data: list[Any], gone: list[Any] | None = None) -> None:
        self.data, self.gone = data, gone or []

    def take(self) -> tuple[list[Any], list[Any]]:
        return self.data, self.gone
