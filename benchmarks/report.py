"""Rows of the benchmark table, the machine they ran on, and docs/benchmarks.md."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    """One measured figure, its baseline, and the target it is held to."""

    what: str
    measured: str
    baseline: str
    ratio: str
    target: str
    met: bool | None  # None: not judged here (see the notes)

    @property
    def verdict(self) -> str:
        return {True: "yes", False: "**no**", None: "n/a"}[self.met]


HEADER = ("what", "measured", "baseline", "ratio", "target", "met?")


def table(rows: Sequence[Row]) -> str:
    """A Markdown table, readable as plain text too."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        cells = (r.what, r.measured, r.baseline, r.ratio, r.target, r.verdict)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    return (
        f"{_cpu_model()}, {os.cpu_count()} cores visible, Linux {platform.release()}, "
        f"Python {platform.python_version()} ({sys.implementation.name})"
    )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def p95(values: Sequence[float]) -> float:
    """The 95th percentile, nearest rank: the value 95 % of the samples do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


def write(path: Path, rows: list[Row], seconds: float, command: str,
          marker: str = "benchmarks") -> None:
    """The table into `path` between its `marker` comments (added at the end if missing)."""
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    generated = (
        f"{begin}\nMeasured on {machine()}, {time.strftime('%Y-%m-%d')}, "
        f"in {seconds:.0f} s (`{command}`).\n\n{table(rows)}\n{end}"
    )
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if begin not in text:
        text += f"\n{begin}\n{end}\n"
    if end not in text.partition(begin)[2]:
        raise SystemExit(f"{path}: {begin} has no {end} after it; nothing written")
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    path.write_text(head + generated + tail)
