"""Drivers: how the suite reaches an implementation (in-process, stdio adapter, DDS)."""

from __future__ import annotations

from collections.abc import Sequence

from agent_tck.kit.drivers.base import Driver, ImplInfo, RequestResult
from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT
from agent_tck.kit.errors import UsageError


def make_driver(impl: str, timeout: float = DEFAULT_TIMEOUT, isolate: bool = False,
                read_only: Sequence[str] = ()) -> Driver:
    """The driver for `--impl`: `reference` (in-process), `python:MODULE:FACTORY` (a Python
    implementation in-process: FACTORY() returns a Driver), `dds[:options]` (served agents over
    DDS, see `kit.drivers.dds`) or an adapter command line; `isolate` (an adapter's alone):
    its adapter runs in namespaces of its own, where the kit and `read_only` are read-only
    (docs/security.md)."""
    dds = impl == "dds" or impl.startswith("dds:")
    if isolate and (impl == "reference" or impl.startswith("python:") or dds):
        raise UsageError(f"--isolate needs an adapter command as --impl, not {impl!r}: an "
                         "implementation in the kit's own process (or served over DDS) "
                         "cannot be isolated from it")
    if read_only and not isolate:
        raise UsageError(f"--read-only {read_only[0]!r} is for an isolated adapter: give "
                         "--isolate too")
    if impl == "reference":
        from agent_tck.kit.drivers.inprocess import InProcessDriver

        return InProcessDriver()
    if impl.startswith("python:"):
        return _python_driver(impl)
    if dds:
        return make_dds_driver(impl.partition(":")[2])
    if not impl.strip():
        raise UsageError("--impl is empty: give 'reference' or an adapter command")
    from agent_tck.kit.drivers.stdio import StdioDriver

    return StdioDriver(impl, timeout, isolate, tuple(read_only))


def _python_driver(impl: str) -> Driver:
    import importlib

    _, _, target = impl.partition(":")
    module, _, factory = target.partition(":")
    try:
        made: Driver = getattr(importlib.import_module(module), factory)()
    except (ImportError, AttributeError, ValueError) as exc:
        raise UsageError(f"--impl {impl!r}: cannot load {target!r}: {exc}") from exc
    return made


def make_dds_driver(options: str = "", domain_offset: int = 0) -> Driver:
    """The DDS driver; a usage error when Cyclone DDS is not installed."""
    if not dds_available():
        raise UsageError("--impl dds needs Cyclone DDS: pip install 'agent-tck[dds]'")
    from agent_tck.kit.drivers.dds import DdsDriver

    return DdsDriver(options, domain_offset=domain_offset)


def dds_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("cyclonedds") is not None


__all__ = ["Driver", "ImplInfo", "RequestResult", "make_driver"]
