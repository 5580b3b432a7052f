"""Drivers: how the suite reaches an implementation (in-process, stdio adapter, DDS)."""

from __future__ import annotations

from steps.drivers.base import Driver, ImplInfo, RequestResult
from steps.exceptions import UsageError


def make_driver(impl: str) -> Driver:
    """The driver for `--impl`: `reference` (in-process), `dds[:options]` (served agents
    over DDS, see `steps.drivers.dds`) or an adapter command line."""
    if impl == "reference":
        from steps.drivers.inprocess import InProcessDriver

        return InProcessDriver()
    if impl == "dds" or impl.startswith("dds:"):
        return make_dds_driver(impl.partition(":")[2])
    if not impl.strip():
        raise UsageError("--impl is empty: give 'reference' or an adapter command")
    from steps.drivers.stdio import StdioDriver

    return StdioDriver(impl)


def make_dds_driver(options: str = "", domain_offset: int = 0) -> Driver:
    """The DDS driver; a usage error when Cyclone DDS is not installed."""
    if not dds_available():
        raise UsageError("--impl dds needs Cyclone DDS: pip install 'agent-tck[dds]'")
    from steps.drivers.dds import DdsDriver

    return DdsDriver(options, domain_offset=domain_offset)


def dds_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("cyclonedds") is not None


__all__ = ["Driver", "ImplInfo", "RequestResult", "make_driver"]
