"""Bounds on numbers that come from outside (settings, command lines, requests)."""

from __future__ import annotations

import json
from typing import Any

from agent_tck.reference.exceptions import ConfigError

# A week. Longer is no deadline at all, and inf or 1e300 overflow the clock arithmetic.
MAX_SECONDS = 7 * 24 * 3600.0


def seconds(name: str, value: object) -> float:
    """`value` as a duration, or ConfigError naming `name` and the value: a positive, finite
    number of seconds up to MAX_SECONDS (NaN, inf, booleans and strings are refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
        0 < value <= MAX_SECONDS  # False for NaN
    ):
        raise ConfigError(f"{name} must be a positive number of seconds up to "
                          f"{MAX_SECONDS:g}, got {value!r}")
    return float(value)


def loads_json(text: str) -> Any:
    """`text` as JSON, strictly: NaN and Infinity are a ValueError (JSON has neither). Deep
    nesting raises RecursionError: callers that face peers catch both."""
    return json.loads(text, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")
