"""A flake hunt: run a command N times, optionally beside CPU-bound load, and tabulate every
test or requirement that ever failed.

    python -m benchmarks.flakes [--runs N] [--load K] [--fresh-clone [--commit REV]]
                                [--out FILE] [--logs DIR] [-- CMD ...]

CMD defaults to `bash .ci/run` (README command 2). With `--fresh-clone` each run happens in a
new clone checked out at one commit, as CI's does: `--commit REV`, or the HEAD the hunt started
at, so every run of a hunt tests the same code while work goes on in the checkout. `--load K`
keeps K busy-looping processes running for the whole hunt (started and stopped by pid).
Failures are read from pytest's summary lines (`FAILED id`, `ERROR id`) and from
`agent-tck run`'s verdict table (`ID LEVEL failed`).
The table goes to stdout and, with `--out`, to a Markdown file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from agent_tck.kit.paths import ROOT

PYTEST_FAILURE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
VERDICT_FAILURE = re.compile(r"^(\S+)\s+(?:MUST|SHOULD)\s+(?:failed|errored)\b", re.MULTILINE)
BUSY_LOOP = "while True: pass"
SUMMARY = "short test summary info"


@dataclass
class Run:
    code: int
    seconds: float
    load: float  # the 1-minute load average when the run ended
    commit: str
    failures: list[str] = field(default_factory=list)


def failures(output: str) -> list[str]:
    """Every failing test id or requirement id that `output` names, once each. Only pytest's
    last summary counts: failures of nested runs appear earlier, as a test's evidence."""
    summary = output.rpartition(SUMMARY)[2]
    found = PYTEST_FAILURE.findall(summary) + VERDICT_FAILURE.findall(summary)
    return sorted(set(found))


@contextlib.contextmanager
def cpu_load(count: int) -> Iterator[list[int]]:
    """`count` busy-looping processes (their pids) for the duration of the block."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(count)]
    try:
        yield [proc.pid for proc in procs]
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def resolve(rev: str) -> str:
    """The full commit `rev` names in the checkout; SystemExit naming it if none."""
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                          cwd=ROOT, text=True, capture_output=True, check=False)
    if done.returncode:
        raise SystemExit(f"flakes: {ROOT} has no commit to clone" if rev == "HEAD" else
                         f"flakes: --commit {rev!r} names no commit in {ROOT}")
    return done.stdout.strip()


def one_run(command: list[str], commit: str | None, log: Path) -> Run:
    """`command` once: in a new clone checked out at `commit`, or in the checkout if None."""
    with contextlib.ExitStack() as stack:
        cwd = ROOT
        if commit is not None:
            cwd = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "clone"
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(cwd)],
                           check=True)
            subprocess.run(["git", "checkout", "-q", commit], cwd=cwd, check=True)
        started = time.monotonic()
        with log.open("w") as out:
            code = run_group(command, cwd, out)
        seconds = time.monotonic() - started
        ran = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=cwd, text=True,
                             capture_output=True, check=False).stdout.strip()
    return Run(code, seconds, os.getloadavg()[0], ran, failures(log.read_text()))


def run_group(command: list[str], cwd: Path, out: IO[str]) -> int:
    """`command`'s exit code. It runs in a process group of its own, which is killed when it
    ends or when the hunt is stopped: nothing it started outlives its run. A stop that comes
    while the run is being started waits until it has its pid (raised inside Popen, after
    the fork, it would leave the run unknown and running)."""
    _STOP.deferred = True
    try:
        proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env={**os.environ, "CI": "true"},
                                start_new_session=True)
    finally:
        _STOP.deferred = False
    try:
        _STOP.raise_pending()
        return proc.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def table(runs: list[Run], command: list[str], load: int) -> str:
    counts = Counter(name for run in runs for name in run.failures)
    lines = [
        f"`{' '.join(command)}`, {len(runs)} runs, {load} CPU-bound processes beside it, "
        f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}.",
        "",
        "| run | commit | exit | minutes | load at end | failures |",
        "|---|---|---|---|---|---|",
    ]
    for i, run in enumerate(runs, 1):
        lines.append(f"| {i} | {run.commit} | {run.code} | {run.seconds / 60:.1f} | "
                     f"{run.load:.1f} | {len(run.failures)} |")
    lines += ["", "| failed | runs |", "|---|---|"]
    lines += [f"| `{name}` | {n} of {len(runs)} |" for name, n in counts.most_common()]
    if not counts:
        lines.append("| (nothing) | 0 |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flakes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--load", type=int, default=0, metavar="K")
    parser.add_argument("--fresh-clone", action="store_true")
    parser.add_argument("--commit", metavar="REV",
                        help="with --fresh-clone: the commit every run checks out "
                             "(default: HEAD when the hunt starts)")
    parser.add_argument("--out", type=Path, metavar="FILE")
    parser.add_argument("--logs", type=Path, metavar="DIR",
                        help="where each run's output is kept (default: a new temporary folder)")
    parser.add_argument("command", nargs="*", default=["bash", ".ci/run"])
    args = parser.parse_args(argv)
    if args.runs < 1 or args.load < 0:
        parser.error(f"--runs must be at least 1 and --load at least 0, got {args.runs}, "
                     f"{args.load}")
    if args.commit is not None and not args.fresh_clone:
        parser.error(f"--commit {args.commit} needs --fresh-clone (a run in the checkout "
                     "tests whatever is checked out)")
    commit = resolve("HEAD" if args.commit is None else args.commit) if args.fresh_clone \
        else None
    logs = args.logs or Path(tempfile.mkdtemp(prefix="agent-tck-flakes-"))
    logs.mkdir(parents=True, exist_ok=True)
    runs: list[Run] = []
    signal.signal(signal.SIGTERM, _STOP)
    with cpu_load(args.load):
        for i in range(1, args.runs + 1):
            run = one_run(args.command, commit, logs / f"run-{i}.log")
            runs.append(run)
            print(f"run {i}: exit {run.code}, {run.seconds:.0f} s, failures: "
                  f"{', '.join(run.failures) or 'none'}", flush=True)
    text = table(runs, args.command, args.load)
    print(text)
    if args.out:
        args.out.write_text(text)
    print(f"each run's output: {logs}")
    return 1 if any(run.code for run in runs) else 0


class _Stop:
    """SIGTERM ends the hunt as Ctrl-C does: the run and the load are stopped on the way out;
    while a run is being started (`deferred`) the stop waits for `raise_pending`."""

    deferred = False
    pending: int | None = None

    def __call__(self, signum: int, _: object) -> None:
        if self.deferred:
            self.pending = signum
            return
        raise SystemExit(128 + signum)

    def raise_pending(self) -> None:
        signum, self.pending = self.pending, None
        if signum is not None:
            raise SystemExit(128 + signum)


_STOP = _Stop()


if __name__ == "__main__":
    sys.exit(main())
