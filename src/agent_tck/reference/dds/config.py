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


def loopback_only(path: str | os.PathLike[str] | None, domain: int) -> bool:
    """Whether the configuration Cyclone DDS applies to `domain` binds DDS to loopback
    interfaces alone (the shipped one does); one that names no interface for that domain, or
    any other, reaches the network. Every section that applies must name loopback alone:
    Cyclone merges them, a later one overriding an earlier."""
    if path is None:
        return True
    interfaces = [found for part in _sections(path, domain) for found in _interfaces(part)]
    return bool(interfaces) and all(_loopback(name, address) for name, address in interfaces)


def _sections(path: str | os.PathLike[str], domain: int) -> list[ET.Element]:
    """The parts of the configuration that Cyclone DDS applies to `domain`: under the root
    `CycloneDDS` (in a file it reads nothing else), each `<Domain>` whose id is `domain` or
    "any" (or none), and the root and its `DDSI2E`, whose settings older configurations put
    there and Cyclone moves into every domain. Names are read in any case, as Cyclone does."""
    root = _elements(path)[0]
    if _tag(root) != "cyclonedds":
        return []
    return [root, *(part for part in root if _tag(part) in ("ddsi2e", "ddsi2")
                    or (_tag(part) == "domain" and _applies(part, domain)))]


def _applies(section: ET.Element, domain: int) -> bool:
    """Whether a `<Domain>` section is for `domain`, by its `Id` attribute or the older `<Id>`
    element. An id Cyclone cannot read (it refuses the configuration then) is taken to
    apply, so it can only make the judgement stricter."""
    ids = [value for key, value in section.attrib.items() if _local(key) == "id"]
    ids += [part.text or "" for part in section if _tag(part) == "id"]
    return all(_is_domain(text.strip(), domain) for text in ids)


def _is_domain(text: str, domain: int) -> bool:
    if text.lower() == "any":
        return True
    try:
        return int(text) == domain
    except ValueError:
        return True


def _interfaces(section: ET.Element) -> list[tuple[str | None, str | None]]:
    """The interfaces a section names (`General/Interfaces/NetworkInterface`, as a name or an
    address, and the older `General/NetworkInterfaceAddress`)."""
    found: list[tuple[str | None, str | None]] = []
    for general in _children(section, "general"):
        found += [(_attribute(e, "name"), _attribute(e, "address"))
                  for group in _children(general, "interfaces")
                  for e in _children(group, "networkinterface")]
        found += [(None, e.text) for e in _children(general, "networkinterfaceaddress")]
    return found


def _children(element: ET.Element, tag: str) -> list[ET.Element]:
    return [child for child in element if _tag(child) == tag]


def _attribute(element: ET.Element, name: str) -> str | None:
    return next((v for k, v in element.attrib.items() if _local(k) == name), None)


def security_problem(path: str | os.PathLike[str] | None) -> str | None:
    """Why the configuration's DDS Security cannot work here (this Cyclone DDS build has
    no security plugins), or None: it asks for none, or the plugins are there."""
    if path is None or not any(_tag(e) in ("security", "ddssecurity") for e in _elements(path)):
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
    """An element's name without its namespace, in lower case: Cyclone DDS reads names in
    any case."""
    return _local(str(element.tag))


def _local(name: str) -> str:
    return name.rpartition("}")[2].lower()


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
