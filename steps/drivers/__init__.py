"""Drivers: how the suite reaches an implementation (in-process, stdio adapter, DDS)."""

from __future__ import annotations

from steps.drivers.base import Driver, ImplInfo, RequestResult
from steps.exceptions import UsageError


def make_driver(impl: str, timeout: float = 120.0) -> Driver:
    """The driver for `--impl`: `reference` (in-process), `python:MODULE:FACTORY` (a Python
    implementation in-process: FACTORY() returns a Driver), or an adapter command line."""
    if impl == "reference":
        from steps.drivers.inprocess import InProcessDriver

        return InProcessDriver()
    if impl.startswith("python:"):
        return _python_driver(impl)
    if not impl.strip():
        raise UsageError("--impl is empty: give 'reference' or an adapter command")
    from steps.drivers.stdio import StdioDriver

    return StdioDriver(impl, timeout)


def _python_driver(impl: str) -> Driver:
    import importlib

    _, _, target = impl.partition(":")
    module, _, factory = target.partition(":")
    try:
        made: Driver = getattr(importlib.import_module(module), factory)()
    except (ImportError, AttributeError, ValueError) as exc:
        raise UsageError(f"--impl {impl!r}: cannot load {target!r}: {exc}") from exc
    return made


__all__ = ["Driver", "ImplInfo", "RequestResult", "make_driver"]
