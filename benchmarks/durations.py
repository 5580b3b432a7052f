"""`python -m benchmarks.durations REPORT.json [OUT]`: the times `agent-tck run -n N` deals its
scenarios by (kit/schedule.py), from the JSON report of a run against the reference
(`agent-tck run --json REPORT.json`): each scenario of a second or more, and each module's mean
of the others.
OUT defaults to kit/durations.json. Run it again when the suite's long scenarios change: a
stale file costs speed only."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from agent_tck.kit.files import write_atomically
from agent_tck.kit.schedule import DURATIONS, module_of

LONG = 1.0  # seconds: a scenario this long is recorded by name


def durations(report: dict[str, object]) -> dict[str, dict[str, float]]:
    scenarios = report["scenarios"]
    assert isinstance(scenarios, list)
    by_module: dict[str, list[float]] = defaultdict(list)
    long: dict[str, float] = {}
    for scenario in scenarios:
        nodeid, seconds = scenario["nodeid"], float(scenario["duration"])
        by_module[module_of(nodeid)].append(seconds)
        if seconds >= LONG:
            long[nodeid] = round(seconds, 1)
    # A module's mean stands for its scenarios not recorded by name: those under LONG (all of
    # them where none is), not the long ones a mean of all would weigh them with.
    short = {m: [s for s in t if s < LONG] or t for m, t in by_module.items()}
    modules = {m: round(sum(t) / len(t), 3) for m, t in sorted(short.items())}
    return {"scenarios": dict(sorted(long.items())), "modules": modules}


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    out = Path(argv[1]) if len(argv) == 2 else DURATIONS
    write_atomically(out, json.dumps(durations(report), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
