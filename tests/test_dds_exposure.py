"""`serve` refuses what would expose the machine: a CLI that acts without asking, served on
a DDS configuration that reaches the network; DDS Security that this build cannot give."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit.paths import FIXTURES
from agent_tck.reference.agent import AgentConfig
from agent_tck.reference.backends import BACKENDS
from agent_tck.reference.dds import bypass, cli, config
from agent_tck.reference.dds.config import LOOPBACK, loopback_only, security_problem
from agent_tck.reference.exceptions import ConfigError

DOMAIN = 7
NETWORK = '<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="eth0"/>' \
          '</Interfaces></General></Domain></CycloneDDS>'


def xml(tmp_path: Path, text: str) -> str:
    path = tmp_path / "dds.xml"
    path.write_text(text)
    return str(path)


def refused_spelling(tmp_path: Path, backend: str, *args: str) -> str | None:
    """What `serve` names when it refuses `args` on a configuration that reaches the
    network, or None when it serves them."""
    config = AgentConfig(backend=backend, extra_args=args, working_dir=str(tmp_path))
    try:
        cli._check_exposure(config, xml(tmp_path, NETWORK), DOMAIN, allowed=False)
    except ConfigError as exc:
        named = re.match(rf"refusing to serve {backend} with (.*) on DDS configuration ",
                         str(exc))
        assert named, str(exc)
        return str(ast.literal_eval(named[1]))
    return None


@pytest.mark.parametrize(("backend", "args", "found"), [
    # Claude Code: commander.js
    ("claude", ("--dangerously-skip-permissions",), "--dangerously-skip-permissions"),
    ("claude", ("--allow-dangerously-skip-permissions",),
     "--allow-dangerously-skip-permissions"),
    ("claude", ("--permission-mode", "bypassPermissions"), "--permission-mode bypassPermissions"),
    ("claude", ("--verbose", "--permission-mode", "bypassPermissions"),  # named as written
     "--permission-mode bypassPermissions"),
    ("claude", ("--permission-mode=bypassPermissions",), "--permission-mode=bypassPermissions"),
    ("claude", ("--permission-mode=BypassPermissions",),  # a case the CLI refuses: no matter
     "--permission-mode=BypassPermissions"),
    ("claude", ("--settings", '{"permissions":{"defaultMode":"bypassPermissions"}}'),
     '--settings {"permissions":{"defaultMode":"bypassPermissions"}}'),
    ("claude", ('--settings={"permissions": {"defaultMode": "bypass\\u0050ermissions"}}',),
     '--settings={"permissions": {"defaultMode": "bypass\\u0050ermissions"}}'),
    ("claude", ("--agents", '{"fixer": {"prompt": "fix", "permissionMode": "bypassPermissions"}}'),
     '--agents {"fixer": {"prompt": "fix", "permissionMode": "bypassPermissions"}}'),
    ("claude", ("--append-system-prompt", "--dangerously-skip-permissions"),  # a value? counted
     "--dangerously-skip-permissions"),
    # Codex: clap
    ("codex", ("--dangerously-bypass-approvals-and-sandbox",),
     "--dangerously-bypass-approvals-and-sandbox"),
    ("codex", ("--yolo",), "--yolo"),
    ("codex", ("--dangerously-bypass-hook-trust",), "--dangerously-bypass-hook-trust"),
    ("codex", ("-s", "danger-full-access"), "-s danger-full-access"),
    ("codex", ("--sandbox", "danger-full-access"), "--sandbox danger-full-access"),
    ("codex", ("--sandbox=danger-full-access",), "--sandbox=danger-full-access"),
    ("codex", ("-sdanger-full-access",), "-sdanger-full-access"),
    ("codex", ("-s=danger-full-access",), "-s=danger-full-access"),
    ("codex", ("-c", 'sandbox_mode="danger-full-access"'), '-c sandbox_mode="danger-full-access"'),
    ("codex", ("-c", "sandbox_mode=danger-full-access"), "-c sandbox_mode=danger-full-access"),
    ("codex", ("--config", "sandbox_mode = 'danger-full-access'"),
     "--config sandbox_mode = 'danger-full-access'"),
    ("codex", ("--config=profiles.p.sandbox_mode=danger-full-access",),
     "--config=profiles.p.sandbox_mode=danger-full-access"),
    ("codex", ("-csandbox_mode=danger-full-access",), "-csandbox_mode=danger-full-access"),
    ("codex", ("-c", 'default_permissions=":danger-full-access"'),
     '-c default_permissions=":danger-full-access"'),
    ("codex", ("-c", 'sandbox_mode="d\\u0061nger-full-access"'),  # a TOML escape
     '-c sandbox_mode="d\\u0061nger-full-access"'),
    # Gemini CLI: yargs
    ("gemini", ("--yolo",), "--yolo"),
    ("gemini", ("-y",), "-y"),
    ("gemini", ("--y",), "--y"),
    ("gemini", ("--yolo=true",), "--yolo=true"),
    ("gemini", ("-dy",), "-dy"),
    ("gemini", ("-my",), "-my"),  # yargs sets every letter of a cluster, y too
    ("gemini", ("--approval-mode", "yolo"), "--approval-mode yolo"),
    ("gemini", ("--approval-mode=yolo",), "--approval-mode=yolo"),
    ("gemini", ("--approvalMode", "yolo"), "--approvalMode yolo"),
    ("gemini", ("--approvalMode=yolo",), "--approvalMode=yolo"),
])
def test_every_spelling_the_cli_accepts_of_acting_without_asking_is_refused(
        tmp_path: Path, backend: str, args: tuple[str, ...], found: str) -> None:
    assert refused_spelling(tmp_path, backend, *args) == found


@pytest.mark.parametrize(("backend", "args"), [
    ("claude", ("--permission-mode", "acceptEdits")),
    ("claude", ("--permission-mode", "auto")),  # a classifier still judges each action
    ("claude", ("--permission-mode",)),  # its value missing: the CLI refuses it
    ("claude", ("--verbose", "-p")),
    ("claude", ("--settings", '{"permissions": {"defaultMode": "acceptEdits"}}')),
    ("codex", ("--sandbox", "workspace-write")),
    ("codex", ("-s", "read-only", "-c", "approval_policy=never")),
    ("codex", ("--approve-for-me",)),  # reviewed automatically, in the workspace sandbox
    ("codex", ("-m", "gpt-5", "-c", "model_reasoning_effort=high")),
    ("gemini", ("--approval-mode=auto_edit",)),
    ("gemini", ("--no-yolo",)),
    ("gemini", ("-s", "-d")),
    ("gemini", ("--model", "gemini-2.5-pro")),
])
def test_options_that_still_ask_or_sandbox_are_served(
        tmp_path: Path, backend: str, args: tuple[str, ...]) -> None:
    assert refused_spelling(tmp_path, backend, *args) is None


@pytest.mark.parametrize(("content", "refused"), [
    ('{"permissions": {"defaultMode": "bypassPermissions"}}', True),
    ('{"permissions": {"defaultMode": "default", "allow": ["Read"]}, "cleanupPeriodDays": 9}',
     False),
    ("not JSON: the CLI's own reading cannot be judged", True),
])
def test_a_settings_file_is_read_from_the_working_directory(
        tmp_path: Path, content: str, refused: bool) -> None:
    (tmp_path / "settings.json").write_text(content)
    found = refused_spelling(tmp_path, "claude", "--settings", "settings.json")
    assert found == ("--settings settings.json" if refused else None)


def test_a_settings_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    """What the CLI would read there is unknown: missing, or no regular file (a named pipe
    would keep the check waiting), or larger than a settings file is, or a name the file
    system refuses. Larger is over 1 MiB (docs/security.md); one of 1 MiB is judged."""
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "big.json").write_text("{}" + " " * (1 << 20))  # its first MiB harmless
    (tmp_path / "mib.json").write_text(" " * ((1 << 20) - 2) + "{}")
    for name in ("missing.json", "pipe.json", "big.json", "x" * 300):
        assert refused_spelling(tmp_path, "claude", f"--settings={name}") == f"--settings={name}"
    assert refused_spelling(tmp_path, "claude", "--settings=mib.json") is None


def test_each_backend_has_a_table_of_its_spellings() -> None:
    assert set(bypass.PARSERS) == set(BACKENDS)


def test_an_acp_agent_without_a_table_has_every_option_refused(tmp_path: Path) -> None:
    assert refused_spelling(tmp_path, "claude-acp", "work", "--verbose") == "--verbose"
    assert refused_spelling(tmp_path, "codex-acp", "work") is None  # no option at all
    assert refused_spelling(tmp_path, "gemini-acp", "--yolo") == "--yolo"  # gemini's table


@pytest.mark.parametrize(("backend", "command"), [("claude", "claude"), ("codex", "codex exec")])
def test_the_tables_agree_with_the_pinned_clis_own_options(backend: str, command: str) -> None:
    """fixtures/cli-options.json holds the pinned CLIs' option tables: every option the
    guard knows is one of them and takes a value as the guard expects, the bypassing values
    are among its choices, every short option that takes a value ends a cluster, and every
    option called dangerous is known (a new one in a later pin fails here)."""
    options = {name: option for option in _options(command) for name in option["names"]}
    parser = bypass.PARSERS[backend]
    hidden = {"--yolo"}  # codex: an alias its --help does not list
    assert {f for f in parser.flags if f not in hidden} <= set(options)
    assert all(options[f]["value"] == "none" for f in parser.flags if f not in hidden)
    assert all(options[name]["value"] == "required" for name in parser.values)
    assert parser.short_values == {name for name, o in options.items()
                                   if len(name) == 2 and o["value"] != "none"}
    dangerous = {name for name in options if "dangerous" in name}
    assert dangerous <= set(parser.flags)
    for name, values in {"--permission-mode": ["bypassPermissions"],
                         "--sandbox": ["danger-full-access"]}.items():
        if name in options:
            assert all(v in options[name]["choices"] for v in values)
            assert all(parser.values[name](v, Path()) for v in values)


def _options(command: str) -> list[dict[str, Any]]:
    table = json.loads((FIXTURES / "cli-options.json").read_text())
    return list(table["commands"][command]["options"])


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
    assert loopback_only(xml(tmp_path, text), DOMAIN) is expected


def section(domain_id: str | None, interface: str, tag: str = "Domain") -> str:
    """One `<Domain>` section naming one interface; `domain_id` None: no id (any)."""
    attribute = "" if domain_id is None else f' Id="{domain_id}"'
    return f'<{tag}{attribute}><General><Interfaces><NetworkInterface name="{interface}"/>' \
           f"</Interfaces></General></{tag}>"


@pytest.mark.parametrize(("sections", "on_0", "on_7"), [
    ([section("0", "lo"), section("7", "eth0")], True, False),
    ([section("0", "lo")], True, False),  # no section for 7: Cyclone picks an interface
    ([section("any", "lo"), section("7", "eth0")], True, False),
    ([section(None, "lo"), section("7", "eth0")], True, False),
    ([section("7", "lo"), section("ANY", "eth0")], False, False),
    ([section("07", "lo"), section("0", "eth0")], False, True),
    ([section("any", "lo"), '<domain ID="7"><general><interfaces>'  # names in any case
      '<networkinterface Name="eth0"/></interfaces></general></domain>'], True, False),
    (['<Domain><Id>7</Id><General><Interfaces><NetworkInterface name="lo"/></Interfaces>'
      "</General></Domain>", section("0", "eth0")], False, True),  # the older <Id> element
    (['<Domain><Id>7</Id><General><Interfaces><NetworkInterface name="eth0"/></Interfaces>'
      "</General></Domain>", section("0", "lo")], True, False),  # ... naming another domain
    ([section("any", "lo"), '<General><Interfaces><NetworkInterface name="eth0"/>'
      "</Interfaces></General>"], False, False),  # settings of the top level, moved to any
    ([section("any", "lo"), section(None, "eth0", tag="DDSI2E")], False, False),
    ([section("seven", "eth0"), section("any", "lo")], False, False),  # an id Cyclone refuses
])
def test_loopback_only_judges_the_domain_being_joined(
        tmp_path: Path, sections: list[str], on_0: bool, on_7: bool) -> None:
    """Cyclone DDS applies each `<Domain>` section whose id is the domain joined or "any"
    and skips the others; so one configuration can be loopback on one domain and not on
    another."""
    path = xml(tmp_path, f'<CycloneDDS xmlns="https://cdds.io/config">{"".join(sections)}'
                         "</CycloneDDS>")
    assert (loopback_only(path, 0), loopback_only(path, 7)) == (on_0, on_7)


def test_a_configuration_whose_root_is_not_cyclonedds_is_not_judged_loopback(
        tmp_path: Path) -> None:
    """Cyclone DDS reads a file's settings under `<CycloneDDS>` only."""
    assert not loopback_only(xml(tmp_path, section("any", "lo")), DOMAIN)


def test_a_bypass_is_refused_on_the_domain_a_configuration_exposes(tmp_path: Path) -> None:
    dds = xml(tmp_path, f"<CycloneDDS>{section('0', 'lo')}{section('7', 'eth0')}</CycloneDDS>")
    bypassing = AgentConfig(backend="gemini", extra_args=("--yolo",))
    cli._check_exposure(bypassing, dds, 0, allowed=False)
    with pytest.raises(ConfigError, match=r"'--yolo' on DDS configuration '.*dds\.xml' for "
                                          "domain 7, which is not loopback-only"):
        cli._check_exposure(bypassing, dds, 7, allowed=False)


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
    assert loopback_only(xml(tmp_path, text), DOMAIN) is expected


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
    assert loopback_only(None, DOMAIN) and loopback_only(LOOPBACK, DOMAIN)


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
    cli._check_exposure(bypassing, None, DOMAIN, allowed=False)
    cli._check_exposure(bypassing, xml(tmp_path, NETWORK), DOMAIN, allowed=True)
    with pytest.raises(ConfigError, match="'--yolo'"):
        cli._check_exposure(bypassing, xml(tmp_path, NETWORK), DOMAIN, allowed=False)
    cli._check_exposure(AgentConfig(backend="codex"), xml(tmp_path, NETWORK), DOMAIN,
                        allowed=False)


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
        loopback_only(xml(tmp_path, "<CycloneDDS><Domain>"), DOMAIN)
