"""Run one CLI process to completion under supervision (decision D-6).

The child gets its own process group. stdout and stderr are drained together by one selector
loop (no thread, no pipe deadlock); stdout is split into lines with a size cap, stderr keeps
only its tail, so memory stays bounded whatever the child prints. At the deadline the whole
group gets SIGTERM (a child that is talked with is first asked to stop, and signalled a grace
period later if it has not ended), after the grace period SIGKILL; so does a child that has not
ended a grace period after its turn did (decision D-38); descendants left behind
are killed, those that left the group too (found by the run id in their environment, see
reference/strays.py); the child is always reaped. On Linux the child also gets SIGTERM from
the kernel if the agent's thread that started it dies first (killed with SIGKILL): a coding
task never runs on unsupervised, and a served request asked again elsewhere never runs twice
at once.

On Linux the CLI runs under the reaper (reference/reaper.py), a child subreaper: every process
the CLI starts stays in its tree however it hides (its own session, a cleared environment, a
parent that exits), and is killed when the request ends. Elsewhere the group and the run tag
are what is left (reference/strays.py).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agent_tck.reference import reaper, strays
from agent_tck.reference.exceptions import LaunchError
from agent_tck.reference.feed import Feed

log = logging.getLogger(__name__)

CHUNK = 1 << 16
PR_SET_PDEATHSIG = 1


def _find_prctl() -> Any:
    """libc's prctl, found once here: a child between fork and exec must not load anything."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()


def _ends_with(parent: int) -> Callable[[], None]:
    """For the child before exec: SIGTERM when its parent dies; at once if it already has."""
    def arm() -> None:
        if _PRCTL is not None:
            _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)
    return arm


MAX_LINE = 16 << 20  # lines up to 16 MiB are read whole (D-6); longer ones are skipped
STDERR_TAIL = 4096
# After the child exits its pipes are read for as long as output keeps coming (what it left in
# them, however much: AG-H23), and LINGER more seconds without any, for a descendant's output.
LINGER = 0.2
EXIT_POLL = 0.05  # where there are no pidfds: how often the child's exit is looked for
REAPER = (sys.executable, "-I", "-S", reaper.__file__)
REAPER_EXIT = 5.0  # how long the reaper may take to empty its tree once told to
# The least a child is given to end after its turn did (D-38), whatever the grace period: a CLI
# that has just printed its last line may take a moment to exit on a busy machine.
AFTER_TURN = 2.0


@dataclass(frozen=True)
class Outcome:
    """How the process ended."""

    returncode: int
    timed_out: bool
    stderr_tail: str
    skipped_lines: int
    # Ended by the supervisor: it had not ended a grace period after its turn did (D-38).
    stopped_after_turn: bool = False


class LineSplitter:
    """Turns chunks of bytes into lines, skipping lines longer than `limit`."""

    def __init__(self, on_line: Callable[[str], None], limit: int = MAX_LINE) -> None:
        self.on_line = on_line
        self.limit = limit
        self.pending: list[bytes] = []
        self.pending_size = 0
        self.discarding = False
        self.skipped = 0

    def feed(self, chunk: bytes) -> None:
        pieces = chunk.split(b"\n")
        for piece in pieces[:-1]:
            self._end_line(piece)
        self._add(pieces[-1])

    def close(self) -> None:
        """Deliver a last line that had no newline."""
        if self.pending_size and not self.discarding:
            self._end_line(b"")
        self.pending, self.pending_size = [], 0

    def _add(self, piece: bytes) -> None:
        if not piece or self.discarding:
            return
        self.pending.append(piece)
        self.pending_size += len(piece)
        if self.pending_size > self.limit:
            self.skipped += 1
            log.warning("skipping a stdout line longer than %d bytes", self.limit)
            self.discarding = True
            self.pending, self.pending_size = [], 0

    def _end_line(self, piece: bytes) -> None:
        if self.discarding:
            self.discarding = False
            return
        if self.pending:
            piece = b"".join([*self.pending, piece])
            self.pending, self.pending_size = [], 0
        if len(piece) > self.limit:
            self.skipped += 1
            log.warning("skipping a stdout line longer than %d bytes", self.limit)
            return
        self.on_line(piece.decode("utf-8", errors="replace"))


def spawn(
    argv: Sequence[str], cwd: str | None, env: Mapping[str, str] | None, *, reaped: bool = False,
    reaper_command: Sequence[str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start `argv` in a new process group with all three pipes; under the reaper when
    `reaped` (`reaper_command`, REAPER by default: it is given REPORT_FD PARENT_PID ARGV... and
    must exec the reaper itself, not fork it). LaunchError naming the command when it cannot
    start; `_started` waits for the reaper's word, which is also what keeps this thread alive
    until the reaper has armed its parent-death signal."""
    report, told = os.pipe() if reaped else (-1, -1)
    # The reaper arms its own parent-death signal, so nothing runs between fork and exec and
    # Python can vfork; without it the child must arm it (and the whole agent is forked).
    reaper_argv = [*(reaper_command or REAPER), str(told), str(os.getpid())] if reaped else []
    try:
        proc = subprocess.Popen(
            [*reaper_argv, *argv],
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=None if reaped else _ends_with(os.getpid()),
            pass_fds=(told,) if reaped else (),
        )
    except OSError as exc:
        if reaped:
            os.close(report)
        raise start_error(argv[0], exc, cwd) from exc
    finally:
        if reaped:
            os.close(told)
    if reaped:
        _started(proc, report, argv[0])
    return proc


def _started(proc: subprocess.Popen[bytes], report: int, command: str) -> None:
    """Wait for the reaper's word on the exec: nothing (it ran) or the errno of a failure."""
    with os.fdopen(report, "rb") as pipe:
        failure = pipe.read()
    if failure:
        proc.communicate()
        raise launch_error(command, int(failure))


def start_error(command: str, exc: OSError, cwd: str | None) -> LaunchError:
    """Why subprocess could not start `command` in `cwd`: it names the working directory
    (`exc.filename`) when entering it is what failed, before any exec."""
    return launch_error(command, exc.errno, cwd if exc.filename == cwd else None)


def launch_error(command: str, code: int | None, workdir: str | None = None) -> LaunchError:
    """Why `command` could not be executed: its working directory `workdir`, when that is what
    could not be entered (removed since the agent was created), named; ENOENT for a file that
    is there means its `#!` interpreter is missing (a script of a deleted virtualenv): said so,
    and named."""
    why = os.strerror(code) if code else "unknown error"
    if workdir is not None:
        why = f"its working directory {workdir!r} cannot be entered: {why}"
    elif code == errno.ENOENT and os.path.isfile(command):
        with contextlib.suppress(OSError), open(command, "rb") as script:
            first = script.readline(4096)
            words = first[2:].split() if first.startswith(b"#!") else []
            if words:
                why = f"its interpreter {words[0].decode(errors='replace')!r} was not found"
    return LaunchError(f"cannot start {command!r}: {why}")


class Supervisor:
    """Feeds stdin, drains stdout and stderr, enforces the deadline, reaps.

    `reaped` (a class setting): the CLI runs under the reaper, where the kernel offers it."""

    reaped = reaper.works()
    reaper_command: tuple[str, ...] | None = None  # the reaper's command line; None: REAPER

    def __init__(
        self, proc: subprocess.Popen[bytes], timeout: float, grace: float, run_id: str = ""
    ) -> None:
        self.proc = proc
        self.run_id = run_id
        self.deadline = time.monotonic() + timeout
        self.grace = grace
        self.timed_out = False
        self.turn_end_at: float | None = None  # when the feed said the turn had ended
        self.stopped_after_turn = False
        self.term_at: float | None = None  # when SIGTERM goes
        self.kill_at: float | None = None
        self.exited_at: float | None = None
        self.output_at = 0.0  # when output last arrived
        self.abandon_at: float | None = None  # after SIGKILL, stop reading at this time
        self.stderr_tail = b""

    def run(self, stdin: bytes | Feed, on_line: Callable[[str], None]) -> Outcome:
        """`stdin` is written and closed; a Feed is written as it is sent to, and closed once
        it has ended (`on_line` may send to it)."""
        feed = stdin if isinstance(stdin, Feed) else Feed(stdin)
        splitter = LineSplitter(on_line)
        pidfd = strays.pidfd(self.proc.pid)  # the child is not reaped yet: it has one
        try:
            self._loop(feed, splitter, pidfd)
        finally:
            if pidfd is not None:
                os.close(pidfd)
            self._finish()
        splitter.close()
        return Outcome(
            returncode=self.proc.returncode,
            timed_out=self.timed_out,
            stderr_tail=self.stderr_tail.decode("utf-8", errors="replace"),
            skipped_lines=splitter.skipped,
            stopped_after_turn=self.stopped_after_turn,
        )

    def _loop(self, feed: Feed, splitter: LineSplitter, pidfd: int | None) -> None:
        """Feed stdin, read stdout and stderr, and enforce the deadline until `_done`. The
        child's exit is seen as its pidfd reads ready, or, with none, looked for every
        EXIT_POLL seconds."""
        proc = self.proc
        assert proc.stdin and proc.stdout and proc.stderr
        with selectors.DefaultSelector() as sel:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
            sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
            if pidfd is not None:
                sel.register(pidfd, selectors.EVENT_READ, "exit")
            readers = 2
            while not self._done(readers):
                self._tend(sel, feed)
                wait = self._wait_time()
                for key, _ in sel.select(wait if pidfd is not None else min(wait, EXIT_POLL)):
                    if key.data == "stdin":
                        self._write(sel, feed)
                    elif key.data == "exit":
                        sel.unregister(key.fileobj)
                        self.exited_at = time.monotonic()
                    elif self._read(key.fd, splitter):  # its lines handled: silence is the CLI's
                        self.output_at = time.monotonic()
                    else:
                        sel.unregister(key.fileobj)
                        readers -= 1
                if pidfd is None and self.exited_at is None and self._exited():
                    self.exited_at = time.monotonic()
                self._enforce(feed)

    def _exited(self) -> bool:
        """Whether the child has exited, left unreaped where the system can say so without
        reaping it (waitid; not on macOS before Python 3.13)."""
        waitid = getattr(os, "waitid", None)
        if waitid is None:
            return self.proc.poll() is not None
        return waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        """Read one chunk from stdout or stderr; False at end of file."""
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return False
        if self.proc.stdout is not None and fd == self.proc.stdout.fileno():
            splitter.feed(chunk)
        else:
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
        return True

    def _tend(self, sel: selectors.BaseSelector, feed: Feed) -> None:
        """Watch stdin for room while the feed has bytes to write; close it once the feed has
        ended and they are all written."""
        stdin = self.proc.stdin
        assert stdin is not None
        if stdin.closed:
            return
        watched = stdin in sel.get_map()
        if feed.pending and not watched:
            sel.register(stdin, selectors.EVENT_WRITE, "stdin")
        elif not feed.pending and feed.ended:
            if watched:
                sel.unregister(stdin)
            stdin.close()

    def _write(self, sel: selectors.BaseSelector, feed: Feed) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            feed.wrote(os.write(stdin.fileno(), feed.pending[:CHUNK]))
        except BrokenPipeError:
            feed.broken()
        if not feed.pending:
            sel.unregister(stdin)

    def _done(self, readers: int) -> bool:
        """The child has exited and its pipes are closed, or they stayed silent for LINGER
        (and not after the deadline, or LINGER after a late exit: a descendant may write on).

        A descendant that still holds stdout after the child exited is an orphan: it is
        killed with the group in `_finish`, not waited for.
        """
        now = time.monotonic()
        if self.abandon_at is not None and now >= self.abandon_at:
            return True
        if self.exited_at is None:
            return False
        cap = max(self.deadline, self.exited_at + LINGER)
        return readers == 0 or now >= min(self._silent_until(), cap)

    def _silent_until(self) -> float:
        """When the linger after the child's exit ends if no more output comes."""
        assert self.exited_at is not None
        return max(self.exited_at, self.output_at) + LINGER

    def _wait_time(self) -> float:
        stopping = self.timed_out or self.stopped_after_turn
        marks = [self.deadline if not stopping else None, self.term_at, self.kill_at,
                 self.abandon_at]
        if self.exited_at is not None:
            marks.append(self._silent_until())
        elif self.turn_end_at is not None and not stopping:
            marks.append(self.turn_end_at + self._after_turn())
        return max(0.0, min(m for m in marks if m is not None) - time.monotonic())

    def _enforce(self, feed: Feed) -> None:
        """SIGTERM to the group at the deadline, SIGKILL when the grace period is over. A feed
        with a last word for the deadline is sent it first, and SIGTERM waits a grace period
        for the child to end on its own. A child that has not ended a grace period after its
        turn did (AFTER_TURN at least) gets SIGTERM then, and SIGKILL a grace period later, as
        at a deadline."""
        now = time.monotonic()
        if feed.turn_ended and self.turn_end_at is None:
            self.turn_end_at = now
        if self.exited_at is None and not (self.timed_out or self.stopped_after_turn):
            if self.turn_end_at is not None and now >= self.turn_end_at + self._after_turn():
                self.stopped_after_turn = True
                self.term_at = now
            elif now >= self.deadline:
                self.timed_out = True
                self.term_at = now + self.grace if feed.deadline() else now
        if self.term_at is not None and now >= self.term_at:
            self._signal(signal.SIGTERM)
            self.term_at, self.kill_at = None, now + self.grace
        elif self.kill_at is not None and now >= self.kill_at:
            self._signal(signal.SIGKILL)
            self.kill_at = None
            self.abandon_at = now + max(self.grace, LINGER)

    def _after_turn(self) -> float:
        """How long a child may take to end after its turn did: a grace period, AFTER_TURN at
        least."""
        return max(self.grace, AFTER_TURN)

    def _signal(self, sig: signal.Signals) -> None:
        """`sig` to the CLI's group. Under the reaper it goes to the reaper, which relays
        SIGTERM to the CLI's group and every descendant outside it; SIGKILL is asked of it
        with SIGUSR1 (it must outlive its tree to find it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.reaped and sig == signal.SIGKILL:
                os.kill(self.proc.pid, signal.SIGUSR1)
            else:
                os.killpg(self.proc.pid, sig)
        if self.reaped:
            return
        if self.run_id and strays.signal_tagged(self.run_id, sig):
            log.debug("%s sent to processes of run %s outside the group", sig.name, self.run_id)

    def _finish(self) -> None:
        """Kill what is left of the group, close the pipes, and always reap the child.

        The child is not reaped yet (its exit was only seen), so its process group id cannot
        have been reused when the group is signalled (but where `_exited` had to reap it).
        """
        self._signal(signal.SIGKILL)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        if self.reaped:
            try:
                self.proc.wait(REAPER_EXIT)
            except subprocess.TimeoutExpired:
                log.warning("the reaper of pid %d did not end: killing its group", self.proc.pid)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def resolve(command: str, env: Mapping[str, str]) -> str:
    """The command's absolute path on `env`'s PATH (the PATH handed to the CLI); LaunchError
    naming the command, and whether it is missing or not executable, otherwise.

    Relative PATH entries are skipped: the agent would look them up in its own directory
    while the CLI runs in `working_dir`, so a `node_modules/.bin/claude` planted in the
    worked-on repository could run instead of the one the agent found."""
    path = os.pathsep.join(d for d in env.get("PATH", os.defpath).split(os.pathsep)
                           if os.path.isabs(d))
    found = shutil.which(command, path=path)
    if found is None:
        raise LaunchError(f"cannot start {command!r}: {_why_not_found(command, path)}")
    return os.path.abspath(found)


def _why_not_found(command: str, path: str) -> str:
    """Not on PATH at all, or there but not executable (which `shutil.which` skips)."""
    if os.sep in command:
        candidates = [command]
    else:
        candidates = [os.path.join(d, command) for d in path.split(os.pathsep) if d]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return f"{candidate} is not executable"
    return f"the command was not found on PATH ({path})"


class RunProcess(Protocol):
    """What an agent calls to run its CLI (`run_process`, or a stand-in in tests)."""

    def __call__(
        self,
        argv: Sequence[str],
        stdin: bytes | Feed,
        on_line: Callable[[str], None],
        *,
        cwd: str | None,
        env: Mapping[str, str] | None,
        timeout: float,
        grace: float,
    ) -> Outcome: ...


def run_process(
    argv: Sequence[str],
    stdin: bytes | Feed,
    on_line: Callable[[str], None],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout: float,
    grace: float,
    supervisor: type[Supervisor] = Supervisor,
) -> Outcome:
    """Run `argv` to completion under `supervisor`; raises LaunchError when it cannot start."""
    tagged_env, run_id = strays.tag_env(env)
    proc = spawn(argv, cwd, tagged_env, reaped=supervisor.reaped,
                 reaper_command=supervisor.reaper_command)
    return supervisor(proc, timeout, grace, run_id).run(stdin, on_line)
