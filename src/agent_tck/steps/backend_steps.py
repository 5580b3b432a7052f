"""Steps of the `backends` component: one line in, events out, through the driver."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_bdd import parsers, then, when

from agent_tck.doubles.backends import as_printed
from agent_tck.kit.drivers import Driver
from agent_tck.kit.verdicts import require_backend
from agent_tck.steps.world import ParseWorld


@when(parsers.parse("the {backend} backend parses:"), target_fixture="parsed")
def backend_parses(driver: Driver, tmp_path: Path, time_scale: float, backend: str,
                   docstring: str) -> ParseWorld:
    require_backend(driver, backend)
    lines = [as_printed(backend, line) for line in docstring.splitlines() if line.strip()]
    events = [driver.parse_line(backend, line) for line in lines]
    return ParseWorld(driver, tmp_path, time_scale, lines, events)


@then("the events are:")
def events_are(parsed: ParseWorld, docstring: str) -> None:
    assert parsed.without_raw() == json.loads(docstring)


@then("each event carries the line it came from as raw")
def events_carry_their_line(parsed: ParseWorld) -> None:
    for line, events in zip(parsed.lines, parsed.events, strict=True):
        assert events, f"the line gave no event: {line}"
        for event in events:
            assert event.get("raw") == json.loads(line), (
                f"the {event.get('kind')} event's raw is not its line, parsed: "
                f"{event.get('raw')!r}")


@then("there are no events")
def no_events(parsed: ParseWorld) -> None:
    assert parsed.events == [[]]
