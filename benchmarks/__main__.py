"""`python -m benchmarks [--quick] [--out FILE]`: run every benchmark, print the table and
write it, with the machine it ran on, to docs/benchmarks.md (between the generated markers)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agent_tck.kit.paths import ROOT
from benchmarks import parse_rate, requests, stream, suite
from benchmarks.report import Row, machine, table

BEGIN, END = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"
VALIDATE = Row(
    "`agent-tck validate` vs check-jsonschema",
    "measured in docs/benchmarks.md section Pipeline, by the pipeline work",
    "",
    "",
    ">= 3x",
    None,
)


def run_all(quick: bool) -> list[Row]:
    lines, repeats = (100_000, 1) if quick else (1_000_000, 3)
    found = stream.rows(lines, repeats)
    found += [requests.overhead(10 if quick else 40), *requests.precision(10 if quick else 30)]
    found += parse_rate.rows(5 if quick else 20)
    found += suite.rows(repeats)
    return [*found, VALIDATE]


def write(path: Path, rows: list[Row], seconds: float) -> None:
    generated = (
        f"{BEGIN}\nMeasured on {machine()}, {time.strftime('%Y-%m-%d')}, "
        f"in {seconds:.0f} s (`python -m benchmarks`).\n\n{table(rows)}\n{END}"
    )
    text = path.read_text() if path.exists() else f"# Benchmarks\n\n{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    path.write_text(head + generated + tail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100,000 lines, one repeat")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args(argv)
    start = time.monotonic()
    rows = run_all(args.quick)
    print(f"{machine()}\n\n{table(rows)}")
    write(args.out, rows, time.monotonic() - start)
    return 0  # a missed target is a figure to read, not a failure


if __name__ == "__main__":
    sys.exit(main())
