"""`python -m tests.support.normalized`: fixtures/normalized-events.json, the spec's normalized
events (decision D-2) of the default turn's lines of each backend, as the reference parses
them. The agent steps expect them of an implementation that does not declare the `backends`
component (RP-1.1's "each line is passed to ClaudeBackend.parse_line"), so the steps never
import the reference; tests/test_normalized.py keeps the file current."""

from __future__ import annotations

import json
import sys
from typing import Any

from agent_tck.doubles.backends import NAMES, profile
from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.kit.files import write_atomically
from agent_tck.steps.agent_steps import NORMALIZED, without_ids
from agent_tck.steps.world import default_turn


def expected() -> dict[str, list[dict[str, Any]]]:
    """Backend -> each line of its default turn with the reference's events for it, their
    ids left out (`without_ids`: the fake CLIs number them through a process)."""
    reference = InProcessDriver()
    return {backend: [_known(backend, line, reference) for line in default_turn(profile(backend))]
            for backend in NAMES}


def _known(backend: str, line: dict[str, Any], reference: InProcessDriver) -> dict[str, Any]:
    events = reference.parse_line(backend, json.dumps(line))
    return {"line": without_ids(line), "events": [
        {**e, "raw": without_ids(e["raw"])} if "raw" in e else e for e in events]}


def main() -> int:
    write_atomically(NORMALIZED, json.dumps(expected(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {NORMALIZED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
