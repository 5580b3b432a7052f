"""Drivers: how the suite reaches an implementation (in-process, stdio adapter, DDS)."""

from __future__ import annotations

from steps.drivers.base import Driver, ImplInfo, RequestResult
from steps.exceptions import UsageError


def make_driver(impl: str) -> Driver:
    """The driver for `--impl`: `reference` (in-process) or an adapter command line."""
    if impl == "reference":
        from steps.drivers.inprocess import InProcessDriver

        return InProcessDriver()
    if not impl.strip():
        raise UsageError("--impl is empty: give 'reference' or an adapter command")
    from steps.drivers.stdio import StdioDriver

    return StdioDriver(impl)


__all__ = ["Driver", "ImplInfo", "RequestResult", "make_driver"]
