"""Mutants judged side by side: each worker owns a copy of the repository in which it applies
one mutant at a time. A copy holds its own `src/` (the code) and the top-level links into it
(`reference`, `kit`, pointing into the copy); every other top-level entry links to the
checkout. A judge runs
with the copy's `src/` first on `PYTHONPATH`, so the suite, and every process it starts,
imports the mutant. A judge is a process per mutant: `mutation.judge` for the reference,
`mutation.kit judge` for the kit's files.

Every judge runs in PID and mount namespaces of its own (`sandbox`), where it sees and can
signal only the processes it started: a mutant of the code that finds processes to signal (the
search by run tag in `reference/strays.py`, the reaper's walk of /proc) could otherwise reach
any process of the user. `in` turned to `not in` in the run tag's check, for one, sends
SIGTERM to every process of the user that does not carry the tag, the session among them."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from cosmic_ray.ast import get_ast
from cosmic_ray.mutating import MutationVisitor
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_item import MutationSpec, TestOutcome, WorkerOutcome, WorkResult

from agent_tck.reference import strays
from mutation import FIRST

ROOT = Path(__file__).resolve().parent.parent
OWN = ("src",)  # the code; the top-level links into it are copied as links, into the copy
TAG = "AGENT_TCK_MUTATION_JUDGE"  # in the environment of a judge and all it starts
# What a judge interrupted by the session's stop gives: no verdict (the session keeps none).
STOPPED = (TestOutcome.SURVIVED, json.dumps({"code": None, "failed": [], "interrupted": True}))


def sandbox() -> tuple[str, ...]:
    """The command that starts a judge in PID and mount namespaces of its own (the judge is
    their first process, and ends with everything it started), or () where this machine does
    not allow them (the session then says so). Killed, the namespace's first process takes
    every process in it along."""
    command: tuple[str, ...] = ("unshare", "--pid", "--mount-proc", "--kill-child")
    if os.geteuid() != 0:  # an unprivileged user: a user namespace, keeping its own id
        command += ("--map-current-user",)
    try:
        done = subprocess.run([*command, "true"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return command if done.returncode == 0 else ()


def make_copy(parent: Path) -> Path:
    """A new copy in `parent`, by its absolute path: a judge runs in the copy with the copy's
    `src/` on PYTHONPATH, which a relative path would look for inside the copy (and, finding
    nothing, Python would import the checkout's unmutated code)."""
    copy = Path(tempfile.mkdtemp(prefix="worker-", dir=parent)).resolve()
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in OWN:
            continue
        inside = entry.is_symlink() and Path(os.readlink(entry)).parts[:1] == OWN
        (copy / entry.name).symlink_to(os.readlink(entry) if inside else entry)
    no_cache = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for own in OWN:
        shutil.copytree(ROOT / own, copy / own, symlinks=True, ignore=no_cache)
    return copy


class Worker:
    def __init__(self, copy: Path, timeout: float, slot: int = 0,
                 sandbox: tuple[str, ...] = ()) -> None:
        self.copy, self.timeout, self.sandbox = copy, timeout, sandbox
        self.proc: subprocess.Popen[bytes] | None = None
        self.stopped = False
        self.run_id = uuid.uuid4().hex
        # The judge's temporary folders live here: what a judge killed mid-run leaves (its
        # run's folder, served agents' logs) is removed with it, not left in /tmp.
        self.tmp = copy / "tmp"
        self.tmp.mkdir(exist_ok=True)
        # PYTHONUNBUFFERED is left out: set on the machine, it makes every write to a pipe reach
        # the reader at once, and so hid a mutant of the reference that never flushed its
        # answers (a user's machine runs it without)
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        self.env = {**inherited, "PYTHONPATH": str(copy / "src"), "TMPDIR": str(self.tmp),
                    # a mutant and its restoration can share a second: never trust a .pyc
                    "PYTHONDONTWRITEBYTECODE": "1", TAG: self.run_id,
                    # DDS domains of its own, as pytest-xdist's worker `slot` has (100 + 2 *
                    # slot, kit/drivers/dds.py): by the pid, two judges' served agents could
                    # share one and answer each other's scenarios
                    "PYTEST_XDIST_WORKER": f"gw{slot}"}

    def judge(self, mutation: MutationSpec, tries: tuple[tuple[str, ...], ...],
              first: list[str] | None = None) -> WorkResult:
        """Apply `mutation` and run the judge with each of `tries` until one kills it, the
        scenarios of `first` first (those that caught the file's last mutants). The record
        says how long it took, in seconds."""
        assert tries, "a mutant no scenario runs is not judged"
        path = self.copy / mutation.module_path
        original = path.read_text()
        mutated = _mutated(original, mutation)
        if mutated is None:  # cosmic-ray cannot make it (an operator's bug): no mutant
            return WorkResult(worker_outcome=WorkerOutcome.NO_TEST)
        path.write_text(mutated)
        started = time.monotonic()
        try:
            for judge_args in tries:
                outcome, output = self._run(list(judge_args), first)
                if outcome != TestOutcome.SURVIVED or self.stopped:
                    break
        finally:
            path.write_text(original)
        output = _timed(output, time.monotonic() - started)
        return WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=outcome,
                          output=output, diff=_diff(original, mutated, mutation.module_path))

    def _run(self, judge_args: list[str], first: list[str] | None = None
             ) -> tuple[TestOutcome, str]:
        if self.stopped:  # interrupted between two judges: no more (its result is not kept)
            return STOPPED
        # A hung mutant is caught (the run's own timeouts would say so), but waiting for them
        # costs minutes: a few scenarios get a minute and some seconds each, more get `timeout`.
        keyword = _keyword(judge_args)
        timeout = self.timeout if keyword is None else \
            min(self.timeout, 60 + 5 * (keyword.count(" or ") + 1))
        judge = ["mutation.kit", "judge", *judge_args[1:]] if judge_args[:1] == ["--tests"] \
            else ["mutation.judge", *judge_args]  # a mutant of the kit: the project's tests
        proc = subprocess.Popen([*self.sandbox, sys.executable, "-m", *judge], cwd=self.copy,
                                env={**self.env, FIRST: json.dumps(first or [])},
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        self.proc = proc
        if self.stopped:  # stopped while it started: `stop` may have found no process to end
            self._end()
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return TestOutcome.KILLED, json.dumps({"code": "timeout", "failed": []})
        finally:
            self._end()
        if self.stopped:  # its group ended by the interrupt: no verdict
            return STOPPED
        last = out.decode(errors="replace").strip().rsplit("\n", 1)[-1]
        return (TestOutcome.SURVIVED if proc.returncode == 0 else TestOutcome.KILLED), last

    def stop(self) -> None:
        """No more judging: the running judge's process group ends (an interrupted session
        leaves no judge behind)."""
        self.stopped = True
        self._end()

    def _end(self) -> None:
        """The judge's process group ends, and every process its run left outside it (a
        mutated reaper that never exits, in a session of its own): found by the tag of this
        worker in their environment, as the reference finds a CLI's strays. Then what it left
        in its temporary folder goes."""
        proc, self.proc = self.proc, None
        if proc is not None:  # its group, whether or not its leader has ended and been reaped
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        strays.signal_tagged(self.run_id, signal.SIGKILL, tag=TAG)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(exist_ok=True)


def _timed(output: str, seconds: float) -> str:
    """A judge's record with the seconds its mutant took (all its tries) added."""
    try:
        record = json.loads(output)
    except ValueError:  # a judge that printed no record (it broke): kept as it is
        return output
    return json.dumps({**record, "seconds": round(seconds, 1)}) if isinstance(record, dict) \
        else output


def _keyword(judge_args: list[str]) -> str | None:
    """The scenarios a judge selects (`-k NAME or NAME ...`); None for whole components."""
    return judge_args[judge_args.index("-k") + 1] if "-k" in judge_args else None


def diff_of(mutation: MutationSpec, root: Path = ROOT) -> str:
    """The mutant as a diff of the checkout's file, without applying it ("" if it is gone)."""
    path = root / mutation.module_path
    if not path.is_file():
        return ""
    original = path.read_text()
    mutated = _mutated(original, mutation)
    return "" if mutated is None else _diff(original, mutated, mutation.module_path)


def _mutated(source: str, mutation: MutationSpec) -> str | None:
    """`source` with the mutation applied, or None where cosmic-ray cannot apply it (its
    ExceptionReplacer fails on some `except` clauses it offered at init). As cosmic-ray's
    `mutate_code`, but on a copy of the source's parse tree made once: a parse is most of a
    mutant's cost, and the list of equivalent mutants names dozens of one file's."""
    operator = get_operator(mutation.operator_name)(**mutation.operator_args)
    visitor = MutationVisitor(mutation.occurrence, operator)
    try:
        tree = visitor.walk(pickle.loads(_parsed(source)))
        mutated: str | None = tree.get_code() if visitor.mutation_applied else None
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return mutated


@functools.lru_cache(maxsize=8)
def _parsed(source: str) -> bytes:
    """`source`'s parse tree, pickled: loading a copy takes a fifth of a parse."""
    return pickle.dumps(get_ast(source))


def _diff(original: str, mutated: str, where: Path) -> str:
    import difflib

    return "".join(difflib.unified_diff(original.splitlines(True), mutated.splitlines(True),
                                        f"a/{where}", f"b/{where}", n=0))
