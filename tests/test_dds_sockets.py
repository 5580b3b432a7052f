"""The sockets a served agent opens with the shipped loopback configuration, read from /proc.

Cyclone DDS 11.0.1 binds only its transmit socket to the interface's address (127.0.0.1):
its unicast receive sockets, the discovery and data ports of its participant index, are bound
to the wildcard address whatever the configuration says (`ddsi_udp_create_conn`); there is no
option to bind them elsewhere. docs/dds.md says what follows from that. This test fails
when a Cyclone DDS binds otherwise, so the documents are corrected with it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytest.importorskip("cyclonedds")

from tests.support.dds import domain, start_served, stop

DOMAIN = domain(5)
pytestmark = pytest.mark.timeout(60)
BASE = 7400 + 250 * DOMAIN  # Cyclone's port mapping: PB + DG x domain
LOOPBACK, ANY = "0100007F", "00000000"  # 127.0.0.1 and 0.0.0.0 as /proc/net/udp writes them


def inet_sockets(pid: int) -> dict[str, list[tuple[str, int]]]:
    """The local (address, port) of each internet socket of `pid`, by /proc/net table."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    found: dict[str, list[tuple[str, int]]] = {}
    for table in ("udp", "udp6", "tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                address, port = fields[1].split(":")
                found.setdefault(table, []).append((address, int(port, 16)))
    return found


def settled_sockets(pid: int) -> dict[str, list[tuple[str, int]]]:
    """Once the participant has its two unicast receive sockets (it opens them on joining)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = inet_sockets(pid)
        if len([a for a, _ in found.get("udp", []) if a == ANY]) >= 2:
            return found
        time.sleep(0.2)
    pytest.fail(f"the served agent (pid {pid}) opened no unicast sockets in 30 s: "
                f"{inet_sockets(pid)}")


def test_the_loopback_configuration_sends_from_loopback_and_receives_on_every_address(
        tmp_path: Path) -> None:
    proc = start_served("sockets", DOMAIN, str(tmp_path))  # no CLI there: DEGRADED, joined
    try:
        found = settled_sockets(proc.pid)
    finally:
        stop(proc)
    assert set(found) == {"udp"}, f"sockets other than UDP over IPv4: {found}"
    sending = sorted(port for address, port in found["udp"] if address == LOOPBACK)
    receiving = sorted(port for address, port in found["udp"] if address == ANY)
    assert len(sending) == 1  # a port of the system's choosing
    index = (receiving[0] - BASE - 10) // 2
    assert receiving == [BASE + 10 + 2 * index, BASE + 11 + 2 * index], receiving
    assert 0 <= index < 40  # MaxAutoParticipantIndex: discovery and data, no multicast port
    assert len(found["udp"]) == 3, found
