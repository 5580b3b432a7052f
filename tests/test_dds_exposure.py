"""`serve` refuses what would expose the machine: a CLI that acts without asking, served on
a DDS configuration that reaches the network; DDS Security that this build cannot give."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path

import pytest

from agent_tck.reference.agent import AgentConfig
from agent_tck.reference.backends import get_backend
from agent_tck.reference.dds import cli, config
from agent_tck.reference.dds.config import LOOPBACK, loopback_only, security_problem
from agent_tck.reference.exceptions import ConfigError

NETWORK = '<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="eth0"/>' \
          '</Interfaces></General></Domain></CycloneDDS>'


def xml(tmp_path: Path, text: str) -> str:
    path = tmp_path / "dds.xml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(("backend", "args", "found"), [
    ("claude", ("--dangerously-skip-permissions",), "--dangerously-skip-permissions"),
    ("claude", ("--permission-mode", "bypassPermissions"), "--permission-mode bypassPermissions"),
    ("claude", ("--verbose", "--permission-mode", "bypassPermissions"),  # named as written
     "--permission-mode bypassPermissions"),
    ("claude", ("--permission-mode=bypassPermissions",), "--permission-mode=bypassPermissions"),
    ("claude", ("--permission-mode", "acceptEdits"), None),
    ("claude", ("--permission-mode",), None),  # its value missing: the CLI refuses it
    ("claude", ("--verbose",), None),
    ("codex", ("--dangerously-bypass-approvals-and-sandbox",),
     "--dangerously-bypass-approvals-and-sandbox"),
    ("codex", ("-s", "danger-full-access"), "-s danger-full-access"),
    ("codex", ("--sandbox=danger-full-access",), "--sandbox=danger-full-access"),
    ("codex", ("--sandbox", "workspace-write"), None),
    ("gemini", ("--yolo",), "--yolo"),
    ("gemini", ("--approval-mode", "yolo"), "--approval-mode yolo"),
    ("gemini", ("--approval-mode=auto_edit",), None),
])
def test_each_backend_knows_its_bypass_options(
        backend: str, args: tuple[str, ...], found: str | None) -> None:
    assert get_backend(backend).bypass(args) == found


@pytest.mark.parametrize(("interfaces", "expected"), [
    ('<NetworkInterface name="lo"/>', True),
    ('<NetworkInterface address="127.0.0.1"/>', True),
    ('<NetworkInterface name="lo"/><NetworkInterface name="eth0"/>', False),
    ('<NetworkInterface address="192.168.1.4"/>', False),
    ("", False),  # Cyclone then picks an interface itself
])
def test_loopback_only_reads_the_configured_interfaces(
        tmp_path: Path, interfaces: str, expected: bool) -> None:
    text = f"<CycloneDDS><Domain><General><Interfaces>{interfaces}</Interfaces></General>" \
           "</Domain></CycloneDDS>"
    assert loopback_only(xml(tmp_path, text)) is expected


@pytest.mark.parametrize(("address", "expected"), [
    ("lo", True), (" 127.0.0.1 ", True), ("localhost", True), ("::1", True),
    ("eth0", False), ("10.0.0.7", False), ("", False),
])
def test_loopback_only_reads_the_older_single_address_setting(
        tmp_path: Path, address: str, expected: bool) -> None:
    """Cyclone DDS's older `General/NetworkInterfaceAddress` takes an address or an
    interface's name."""
    text = f"<CycloneDDS><Domain><General><NetworkInterfaceAddress>{address}" \
           "</NetworkInterfaceAddress></General></Domain></CycloneDDS>"
    assert loopback_only(xml(tmp_path, text)) is expected


def test_the_security_plugins_are_looked_for_where_cyclone_loads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the loader's path, or beside the cyclonedds package (its wheel's `.libs` folder, or
    within a build of its own); without the package there is nothing to load them."""
    asked: list[str] = []
    monkeypatch.setattr(config.ctypes.util, "find_library",
                        lambda name: asked.append(name) or "libdds_security_auth.so.0")
    assert config._security_plugins() and asked == ["dds_security_auth"]
    monkeypatch.setattr(config.ctypes.util, "find_library", lambda name: None)
    package = tmp_path / "site" / "cyclonedds"
    package.mkdir(parents=True)
    fake = types.ModuleType("cyclonedds")
    fake.__file__ = str(package / "__init__.py")
    monkeypatch.setitem(sys.modules, "cyclonedds", fake)
    assert not config._security_plugins()
    libs = tmp_path / "site" / "cyclonedds.libs"
    libs.mkdir()
    (libs / "libdds_security_auth-1a2b3c.so").write_bytes(b"")
    assert config._security_plugins()
    (libs / "libdds_security_auth-1a2b3c.so").rename(tmp_path / "elsewhere.so")
    (package / "lib" / "dds").mkdir(parents=True)  # at any depth
    (package / "lib" / "dds" / "libdds_security_auth.so").write_bytes(b"")
    assert config._security_plugins()
    monkeypatch.setitem(sys.modules, "cyclonedds", None)  # its import fails
    assert not config._security_plugins()


def test_the_shipped_configuration_is_loopback_only() -> None:
    assert loopback_only(None) and loopback_only(LOOPBACK)


def test_a_bypass_on_the_network_is_refused_before_joining_the_domain(tmp_path: Path) -> None:
    err = io.StringIO()
    dds = xml(tmp_path, NETWORK)
    code = cli.main(["serve", "--backend", "claude", "--dds-config", dds,
                     "--cli-arg=--dangerously-skip-permissions"], io.StringIO(), err)
    assert code == cli.USAGE
    assert "refusing to serve claude with '--dangerously-skip-permissions'" in err.getvalue()
    assert dds in err.getvalue() and "--allow-bypass-on-network" in err.getvalue()


def test_a_bypass_on_loopback_or_explicitly_allowed_is_served(tmp_path: Path) -> None:
    bypassing = AgentConfig(backend="codex", extra_args=("--yolo",))
    cli._check_exposure(bypassing, None, allowed=False)
    cli._check_exposure(bypassing, xml(tmp_path, NETWORK), allowed=True)
    with pytest.raises(ConfigError, match="'--yolo'"):
        cli._check_exposure(bypassing, xml(tmp_path, NETWORK), allowed=False)
    cli._check_exposure(AgentConfig(backend="codex"), xml(tmp_path, NETWORK), allowed=False)


def test_dds_security_without_its_plugins_is_refused_clearly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secure = xml(tmp_path, "<CycloneDDS><Domain><Security><Authentication/></Security>"
                           "</Domain></CycloneDDS>")
    monkeypatch.setattr(config, "_security_plugins", lambda: False)
    problem = security_problem(secure)
    assert problem is not None and secure in problem and "no security plugins" in problem
    assert security_problem(None) is None and security_problem(LOOPBACK) is None
    monkeypatch.setattr(config, "_security_plugins", lambda: True)
    assert security_problem(secure) is None


def test_an_unreadable_configuration_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"dds\.xml' cannot be read"):
        loopback_only(xml(tmp_path, "<CycloneDDS><Domain>"))
