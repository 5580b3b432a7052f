"""`python -m benchmarks [--quick | --full] [--out FILE]`: run every benchmark and print the
table, the machine it ran on and how long the run took. `--out FILE` also writes them into FILE
between the generated markers (`--out docs/benchmarks.md` refreshes the documented table);
nothing is written without it.

Sizes: the default (200,000-line streams, three repeats, one of each whole run but the serial
one) is what docs/benchmarks.md shows. The serial run, the slowest of all and the baseline of
`-n auto`'s speed-up, is left to `--full`, so that the default run fits in its five minutes.
`--quick` (100,000 lines, one repeat) is a smoke check; `--full` (1,000,000 lines, three
repeats of everything, the serial run) measures every row at its largest."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks import parse_rate, reports_bench, requests, stream, suite
from benchmarks.report import Row, machine, table, write

VALIDATE = Row(
    "`agent-tck validate` vs check-jsonschema",
    "measured in docs/benchmarks.md section Pipeline, by the pipeline work",
    "",
    "",
    ">= 3x",
    None,
)


SIZES = {  # lines per stream, stream repeats, whole-run repeats, requests, parse repeats
    "quick": (100_000, 1, 1, 10, 5),
    "default": (200_000, 3, 1, 20, 10),
    "full": (1_000_000, 3, 3, 40, 20),
}
SERIAL = {"full"}  # the sizes that run the whole suite in one process too


def run_all(size: str) -> list[Row]:
    lines, repeats, runs, requests_n, parses = SIZES[size]
    found = stream.rows(lines, repeats)
    found += [requests.overhead(requests_n), *requests.precision(requests_n)]
    found += parse_rate.rows(parses)
    found += suite.rows(runs, serial=size in SERIAL)
    found += [*reports_bench.rows(), *reports_bench.browser_rows()]
    return [*found, VALIDATE]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--quick", action="store_const", const="quick", dest="size",
                      help="100,000-line streams, one repeat: a smoke check")
    sizes.add_argument("--full", action="store_const", const="full", dest="size",
                      help="1,000,000-line streams, three repeats of everything")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="also write the table into FILE (e.g. docs/benchmarks.md)")
    args = parser.parse_args(argv)
    size: str = args.size or "default"
    start = time.monotonic()
    rows = run_all(size)
    seconds = time.monotonic() - start
    print(f"{machine()}\n\n{table(rows)}\n\nfinished in {seconds:.0f} s ({size} size)")
    if args.out:
        flag = {"quick": " --quick", "full": " --full"}.get(size, "")
        write(args.out, rows, seconds, f"python -m benchmarks{flag}")
        print(f"wrote {args.out}")
    return 0  # a missed target is a figure to read, not a failure


if __name__ == "__main__":
    sys.exit(main())
