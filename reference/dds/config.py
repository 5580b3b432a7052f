"""Which Cyclone DDS configuration a process uses: the shipped loopback one unless told.

Cyclone DDS reads `CYCLONEDDS_URI` when a process creates its first entity on a domain, so
`activate` must run before any participant exists. It overrides an inherited value on
purpose: Cyclone's own default multicasts on every interface, and this project's rule is
loopback unless a configuration is passed explicitly (`--dds-config FILE`).
"""

from __future__ import annotations

import ctypes.util
import glob
import ipaddress
import os
import xml.etree.ElementTree as ET
from pathlib import Path

from agent_tck.reference.exceptions import ConfigError

ENV = "CYCLONEDDS_URI"
LOOPBACK = Path(__file__).resolve().parent.parent / "cyclonedds-loopback.xml"
MAX_DOMAIN = 232  # Cyclone's port mapping leaves room for domain ids 0..232


def config_uri(path: str | os.PathLike[str] | None = None) -> str:
    """The `file://` URI of `path`, or of the shipped loopback configuration; ConfigError for
    a file that is no XML document. Cyclone DDS takes a file without an element (empty, or
    a declaration and comments only) for no settings at all: its default configuration,
    multicast on every interface, instead of the one the caller named."""
    chosen = Path(path) if path is not None else LOOPBACK
    _elements(chosen)
    return "file://" + str(chosen.resolve())


def activate(path: str | os.PathLike[str] | None = None) -> str:
    """Make this process (and its children) use `path`, by default the loopback config."""
    uri = config_uri(path)
    os.environ[ENV] = uri
    return uri


def loopback_only(path: str | os.PathLike[str] | None) -> bool:
    """Whether the configuration binds DDS to loopback interfaces alone (the shipped one
    does); a configuration that names no interface, or any other, reaches the network."""
    if path is None:
        return True
    interfaces = [(e.get("name"), e.get("address"))
                  for e in _elements(path) if _tag(e) == "NetworkInterface"]
    interfaces += [(None, e.text) for e in _elements(path)
                   if _tag(e) == "NetworkInterfaceAddress"]
    return bool(interfaces) and all(_loopback(name, address) for name, address in interfaces)


def security_problem(path: str | os.PathLike[str] | None) -> str | None:
    """Why the configuration's DDS Security cannot work here (this Cyclone DDS build has
    no security plugins), or None: it asks for none, or the plugins are there."""
    if path is None or not any(_tag(e) == "Security" for e in _elements(path)):
        return None
    if _security_plugins():
        return None
    return (f"DDS configuration {str(path)!r} asks for DDS Security, but this Cyclone DDS "
            "build has no security plugins (libdds_security_auth, _ac, _crypto): the PyPI "
            "wheel is built without them; use a Cyclone DDS built with ENABLE_SECURITY")


def _elements(path: str | os.PathLike[str]) -> list[ET.Element]:
    """Every element of the configuration `path`; ConfigError when it is not a regular file
    (a named pipe would keep the parser waiting for a writer) or not an XML document."""
    if not Path(path).is_file():
        raise ConfigError(f"DDS configuration {str(path)!r} is not a file")
    try:
        return list(ET.parse(path).iter())
    except (OSError, ET.ParseError) as exc:
        raise ConfigError(f"DDS configuration {str(path)!r} cannot be read: {exc}") from None


def _tag(element: ET.Element) -> str:
    return str(element.tag).rpartition("}")[2]


def _loopback(name: str | None, address: str | None) -> bool:
    if name is not None:
        return name in ("lo", "lo0")
    try:
        return ipaddress.ip_address((address or "").strip()).is_loopback
    except ValueError:
        return (address or "").strip() in ("lo", "lo0", "localhost")


def _security_plugins() -> bool:
    """Cyclone loads `dds_security_auth` like any shared library, or from beside its own."""
    if ctypes.util.find_library("dds_security_auth"):
        return True
    try:
        import cyclonedds
    except ImportError:
        return False
    here = Path(cyclonedds.__file__).resolve().parent
    return bool(glob.glob(str(here.parent / "cyclonedds.libs" / "libdds_security_auth*"))
                or glob.glob(str(here / "**" / "libdds_security_auth*"), recursive=True))


def check_domain(domain: int) -> int:
    if isinstance(domain, bool) or not 0 <= domain <= MAX_DOMAIN:
        raise ConfigError(f"DDS domain id must be 0..{MAX_DOMAIN}, got {domain!r}")
    return domain
