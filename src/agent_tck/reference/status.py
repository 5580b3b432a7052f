"""Response status codes and agent states: the numbers a caller sees.

Status 0 is success; every failure has its own code so a caller can tell a timeout from a
crash without parsing text (decision D-4). States use GENESIS's numeric values (decision D-7).
"""

from __future__ import annotations

from enum import IntEnum


class Status(IntEnum):
    """The `status` of a response."""

    OK = 0
    HARNESS_ERROR = 1  # the CLI reported an error, or exited non-zero
    SIGNALED = 2  # the CLI died by a signal the agent did not send
    TIMEOUT = 3  # the request exceeded the agent's timeout; the CLI was terminated
    LAUNCH_FAILED = 4  # the CLI could not be started (missing, not executable)
    BUSY = 5  # the agent was handling another request; nothing was run


class State(IntEnum):
    """Agent lifecycle states, numbered as in GENESIS."""

    JOINING = 0
    DISCOVERING = 1
    READY = 2
    BUSY = 3
    DEGRADED = 4
    OFFLINE = 5
