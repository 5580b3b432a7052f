"""Where the project's own tests spend their time: a pytest plugin and its table.

    python -m tests -p benchmarks.testcpu          # writes .testcpu/<worker>.jsonl
    python -m benchmarks.testcpu [DIR]             # the table, slowest module first
    python -m benchmarks.testcpu DIR --durations tests/durations.json
                                                   # the times `python -m tests` deals by

Each worker notes, for every test, its wall time and the CPU it used: its own process's and
that of the processes it started and waited for (harnesses, reapers, adapters, served agents,
nested pytest runs in subprocesses), from getrusage around the test. A child that is never
waited for is not counted, and a worker's children are counted at the test that reaps them.
On demand only; nothing here is an assertion.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

OUT = Path(os.environ.get("AGENT_TCK_TESTCPU", ".testcpu"))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    wall, cpu = time.monotonic(), _cpu()
    yield
    entry = {"test": item.nodeid, "wall": time.monotonic() - wall, "cpu": _cpu() - cpu}
    OUT.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(OUT / f"{worker}.jsonl", "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


def entries(where: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(where.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def durations(where: Path) -> dict[str, dict[str, float]]:
    """The tests' wall times in kit/schedule.py's form (each test of a second or more, each
    module's mean of the others) and the CPU of each of those tests, which tests/conftest.py
    deals the tests to the workers by (tests/support/dealing.py)."""
    from benchmarks.durations import durations as of_report

    found = entries(where)
    report: dict[str, object] = {
        "scenarios": [{"nodeid": e["test"], "duration": e["wall"]} for e in found]}
    recorded = of_report(report)
    long = recorded["scenarios"]
    recorded["cpu"] = {e["test"]: round(e["cpu"], 2) for e in sorted(found, key=lambda e: e["test"])
                       if e["test"] in long}
    return recorded


def table(where: Path) -> str:
    """Per module: tests, wall and CPU seconds, share of the suite's CPU; slowest first."""
    modules: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for entry in entries(where):
        row = modules[entry["test"].split("::")[0]]
        row[0] += 1
        row[1] += entry["wall"]
        row[2] += entry["cpu"]
    total = sum(row[2] for row in modules.values()) or 1.0
    lines = ["| module | tests | wall s | CPU s | CPU share |", "|---|---:|---:|---:|---:|"]
    for name, (count, wall, cpu) in sorted(modules.items(), key=lambda kv: -kv[1][2]):
        lines.append(f"| {name} | {count:.0f} | {wall:.0f} | {cpu:.0f} | {cpu / total:.0%} |")
    lines.append(f"| all | {sum(r[0] for r in modules.values()):.0f} | "
                 f"{sum(r[1] for r in modules.values()):.0f} | {total:.0f} | 100% |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    from agent_tck.kit.files import write_atomically  # not at import: this is a test plugin

    where = Path(argv[0]) if argv and not argv[0].startswith("--") else OUT
    if "--durations" in argv:
        at = argv.index("--durations")
        if at + 1 >= len(argv):
            print("--durations needs the file to write", file=sys.stderr)
            return 2
        write_atomically(Path(argv[at + 1]), json.dumps(durations(where), indent=1) + "\n")
        return 0
    print(table(where))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
