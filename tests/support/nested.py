"""A conformance run nested in a test, unmeasured by coverage.

Coverage of `reference/` is the suite's own scenarios (run by this same test session from
`steps/suite`) and the unit tests; a nested run against a broken implementation or a second
driver runs the same reference code again and only adds the tracer's cost (about a third of
such a run). So every nested run pauses the session's collector, if there is one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import coverage


@contextlib.contextmanager
def unmeasured() -> Iterator[None]:
    """Pause the running coverage collector (if any) for the `with` block."""
    current = coverage.Coverage.current()
    if current is None:
        yield
        return
    current.stop()
    try:
        yield
    finally:
        current.start()
