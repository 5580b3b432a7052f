"""From an empty directory to a first verdict, as a new user gets there with an example adapter.

    python -m benchmarks.firstrun [--out docs/benchmarks.md]

In a new temporary directory: a virtual environment, agent-tck installed into it from this
checkout (as the README says until a release is on the package index; `pip install` builds
the wheel), then, for each example adapter written from the docs (examples/python-*), the
run of its component with `--progress`: the time to its first verdict line and to its
verdict. Each row's figure is the install plus that run; its baseline is the install alone.
`--out FILE` writes the table between the `firstrun` markers of FILE.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_tck.kit.paths import ROOT
from benchmarks.report import Row, machine, table, write

VERDICT_LINE = re.compile(r"^\[\d+/\d+\] ")  # `--progress`: a scenario's verdict
EXAMPLES = {  # example adapter -> the component it implements
    "python-runner/runner_adapter.py": "runner",
    "python-pipeline/pipeline_adapter.py": "pipeline",
    "python-responses-parser/responses_adapter.py": "responses",
}


def install(where: Path) -> tuple[Path, float]:
    """A virtual environment in `where` with agent-tck installed from the checkout: its
    `agent-tck` and the seconds the two steps took."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True)
    pip = where / "venv" / "bin" / "pip"
    subprocess.run([str(pip), "install", "-q", str(ROOT)], check=True, cwd=where,
                   capture_output=True)
    return where / "venv" / "bin" / "agent-tck", time.perf_counter() - start


def first_verdict(agent_tck: Path, adapter: str, component: str, cwd: Path) -> tuple[float, float,
                                                                                      str]:
    """Seconds to the first verdict line on stderr and to the end of the run, and its verdict
    line."""
    command = [str(agent_tck), "run", "--impl", f"{sys.executable} {ROOT / 'examples' / adapter}",
               "--component", component, "--progress"]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # a warning may come first
        if VERDICT_LINE.match(line):
            break
    first = time.perf_counter() - start
    try:
        out, err = proc.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    lines = out.strip().splitlines()
    return first, time.perf_counter() - start, lines[-1] if lines else err[-300:]


def rows() -> list[Row]:
    found = []
    with tempfile.TemporaryDirectory(prefix="agent-tck-firstrun-") as tmp:
        agent_tck, setup = install(Path(tmp))
        for adapter, component in EXAMPLES.items():
            first, whole, verdict = first_verdict(agent_tck, adapter, component, Path(tmp))
            found.append(Row(
                f"from an empty directory to the first verdict line: `{adapter}` "
                f"(`--component {component}`, whole run {whole:.0f} s: {verdict})",
                f"{setup + first:.0f} s",
                f"{setup:.0f} s (venv and install)",
                f"{(setup + first) / setup:.2f}x",
                "< 15 min",
                setup + first < 900,
            ))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.firstrun", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="also write the table into FILE between its `firstrun` markers")
    args = parser.parse_args(argv)
    start = time.monotonic()
    found = rows()
    seconds = time.monotonic() - start
    print(f"{machine()}\n\n{table(found)}\n\nfinished in {seconds:.0f} s")
    if args.out:
        write(args.out, found, seconds, "python -m benchmarks.firstrun", marker="firstrun")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
