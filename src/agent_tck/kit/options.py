"""The options `agent-tck run` and the pytest plugin share, defined once.

`agent-tck run --impl X` hands them on to the nested pytest session, whose plugin reads them
back: both parsers are built from `SHARED`, so names, defaults and checks cannot drift."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT

MAX_SECONDS = 7 * 24 * 3600.0  # a week: more is no bound at all, and overflows timers
DEFAULT_TIME_SCALE = 0.02


def duration(text: str) -> float:
    """An argparse type: a positive number of seconds up to a week (NaN, inf and 1e300 are
    refused by name)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= MAX_SECONDS:  # False for NaN
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds up to {MAX_SECONDS:g}, got {text!r}")
    return value


SHARED: dict[str, dict[str, Any]] = {
    "--impl": {
        "default": "reference",
        "help": "implementation under test: 'reference' (in-process, the default), an adapter "
                "command line, 'python:MODULE:FACTORY', or 'dds[:options]' (served agents over "
                "DDS, see docs/dds.md)",
    },
    "--adapter-timeout": {
        "type": duration,
        "default": DEFAULT_TIMEOUT,
        "metavar": "SECONDS",
        "help": "how long an adapter may take to answer before it counts as hung",
    },
    "--time-scale": {
        "type": duration,
        "default": DEFAULT_TIME_SCALE,
        "help": "factor for the spec's wall-clock durations (1 = literal)",
    },
    "--isolate": {
        "action": "store_true",
        "help": "run the adapter, and all it starts, in user, mount and PID namespaces of its "
                "own: the kit's processes out of its sight, its installation read-only (Linux "
                "with user namespaces; docs/security.md)",
    },
    "--read-only": {
        "action": "append",
        "default": [],
        "metavar": "PATH",
        "help": "with --isolate: one more path the adapter finds read-only (repeatable)",
    },
    "--req": {
        "action": "append",
        "default": [],
        "metavar": "PATTERN",
        "help": "run only scenarios of matching requirement IDs (e.g. 'EH-*')",
    },
}


def add_shared(add: Callable[..., Any]) -> None:
    """Add the shared options with `add` (argparse's `add_argument`, pytest's `addoption`)."""
    for name, spec in SHARED.items():
        add(name, **spec)
