"""Which Cyclone DDS configuration a process uses: the shipped loopback one unless told.

Cyclone DDS reads `CYCLONEDDS_URI` when a process creates its first entity on a domain, so
`activate` must run before any participant exists. It overrides an inherited value on
purpose: Cyclone's own default multicasts on every interface, and this project's rule is
loopback unless a configuration is passed explicitly (`--dds-config FILE`).
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tck.reference.exceptions import ConfigError

ENV = "CYCLONEDDS_URI"
LOOPBACK = Path(__file__).resolve().parent.parent / "cyclonedds-loopback.xml"
MAX_DOMAIN = 232  # Cyclone's port mapping leaves room for domain ids 0..232


def config_uri(path: str | os.PathLike[str] | None = None) -> str:
    """The `file://` URI of `path`, or of the shipped loopback configuration."""
    chosen = Path(path) if path is not None else LOOPBACK
    if not chosen.is_file():
        raise ConfigError(f"DDS configuration {str(chosen)!r} is not a file")
    return "file://" + str(chosen.resolve())


def activate(path: str | os.PathLike[str] | None = None) -> str:
    """Make this process (and its children) use `path`, by default the loopback config."""
    uri = config_uri(path)
    os.environ[ENV] = uri
    return uri


def check_domain(domain: int) -> int:
    if isinstance(domain, bool) or not 0 <= domain <= MAX_DOMAIN:
        raise ConfigError(f"DDS domain id must be 0..{MAX_DOMAIN}, got {domain!r}")
    return domain
