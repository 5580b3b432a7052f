"""Served agents forked from one warm process instead of each starting Python anew.

A served agent of the reference spends much of its CPU importing Cyclone DDS and the reference
before it does anything, and a run starts one or more per scenario. The DDS driver starts this
fork server once instead (`python -m agent_tck.kit.drivers.forkserve MODULE...`: it imports
those modules and waits), and has it fork each served agent: the child takes the command line,
working directory, environment and output files the driver would have given a new process, and
runs the module as `python -m` would. Only the interpreter's start is shared; what the agent
does after it is its own. The driver forks its default command, and another command only when
told to (`--impl "dds:serve=CMD;fork=on"`, for a command of this interpreter: `forkable`), and
only where the environment leaves what the interpreter decided at its start unchanged
(`STARTUP`); `--impl "dds:fork=off"` starts every served agent anew.

The protocol, a JSON object a line: the driver writes {"argv", "cwd", "env", "stdout",
"stderr"} (argv: [python, "-m", module, args...] or [python, script, args...]; stderr None:
with stdout; paths absolute) and the server answers {"pid": N} once it forked, or {"errno",
"error", "filename"} when the directory or an output file cannot be opened (the OSError
Popen would raise). It says {"exit": N, "code": C} when that child ended (C as subprocess
gives it: negative for a signal) and keeps it a zombie, so its pid is nobody else's, until
the driver, having seen the code, writes {"reap": N}: as Popen's child stays until `poll`
sees it end. The server ends when its stdin closes; its children have a parent-death signal
(SIGTERM), as it has, and the driver kills what of them is left (`ForkServer._settle`).

Where a forked child still differs from a new process: /proc/PID/cmdline and environ show
the server's (the child's own are in `sys.argv` and `os.environ`), and every child has the
server's hash seed (a PYTHONHASHSEED of its own starts it anew).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import importlib
import json
import math
import os
import random
import runpy
import select
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_tck.kit import observe
from agent_tck.kit.drivers.base import end_with_parent
from agent_tck.kit.errors import DriverError

# What the interpreter, the C library and Cyclone DDS's import read from the environment when
# a process starts (the path, flags, the streams' encoding, the loader, the allocator, the
# time zone, the user site, the library's home): a child whose environment differs there
# starts anew.
STARTUP = ("PYTHON", "LANG", "LC_", "LD_", "GLIBC_TUNABLES", "MALLOC_", "TZ", "HOME",
           "CYCLONEDDS_HOME")
START_TIMEOUT = 30.0
GRACE = 2.0  # for the children of a server that ended, to end on their SIGTERM
MAX_ARG_STRLEN = 32 * 4096  # Linux: the longest argument or variable exec takes, with its NUL


@functools.cache
def supported() -> bool:
    """Whether this system has what the server needs: pidfds (Linux 5.3), which keep each
    child in sight once the server that forked it is gone."""
    try:
        fd = observe.pidfd(os.getpid())
    except OSError:
        return False
    if fd is not None:
        os.close(fd)
    return fd is not None


def forkable(argv: Sequence[str]) -> bool:
    """Whether the server can run `argv`: this interpreter, with a module (`-m`) or a script,
    and no option of the interpreter's own."""
    return (len(argv) >= 2 and this_interpreter(argv[0])
            and ((argv[1] == "-m" and len(argv) >= 3) or not argv[1].startswith("-")))


def this_interpreter(path: str) -> bool:
    """`path` (absolute, or from the current folder) runs this interpreter in this environment:
    it is `sys.executable`, or another name for the same interpreter in the same folder (a
    virtual environment's `python` and `python3`). The same interpreter linked from another
    folder is not: a venv's `python` links to its base interpreter, whose packages differ."""
    given, this = os.path.abspath(path), os.path.abspath(sys.executable)
    return given == this or (
        os.path.realpath(os.path.dirname(given)) == os.path.realpath(os.path.dirname(this))
        and os.path.exists(given) and os.path.realpath(given) == os.path.realpath(this))


def startup(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(STARTUP)}


def execable(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether exec would take this command line and environment, by a count that errs on the
    side of no: a forked child must not start where a new process would fail (E2BIG, or
    Popen's ValueError for a NUL or a name with "=")."""
    if any(not k or "=" in k for k in env):
        return False
    strings = [os.fsencode(s) for s in (*argv, *(f"{k}={v}" for k, v in env.items()))]
    pointer = 8
    return (all(b"\0" not in s and len(s) + 1 <= MAX_ARG_STRLEN for s in strings)
            and sum(len(s) + 1 + pointer for s in strings) <= os.sysconf("SC_ARG_MAX"))


# --- the server ----------------------------------------------------------------------------

def serve(preload: Sequence[str]) -> None:
    for module in preload:
        importlib.import_module(module)
    gc.freeze()  # a child's collections would touch, and so copy, every page of it
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    live: set[int] = set()  # forked, their end not said yet
    pending = b""
    while True:
        for key, _ in selector.select():
            if key.fd == wake_r:
                os.read(wake_r, 4096)
                _ended(live)
                continue
            data = os.read(0, 65536)
            if not data:  # closed: first the ends that came before, whose SIGCHLD may wait
                _ended(live)  # unread in this round of events
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                _answer(json.loads(line), live)


def _answer(request: dict[str, Any], live: set[int]) -> None:
    if "reap" in request:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(request["reap"], 0)
        return
    try:
        fds = _opened(request)
    except OSError as error:
        _say({"errno": error.errno, "error": error.strerror, "filename": error.filename})
        return
    try:
        pid = os.fork()
    except OSError as error:  # EAGAIN, ENOMEM: what Popen would raise
        _say({"errno": error.errno, "error": error.strerror, "filename": None})
        pid = -1
    if pid == 0:
        _become(request, *fds)  # never returns
    for fd in set(fds):
        os.close(fd)
    if pid > 0:
        live.add(pid)
        _say({"pid": pid})


def _opened(spec: dict[str, Any]) -> tuple[int, int, int]:
    """Its working directory and output files, opened here, where a failure can be told."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    opened: list[int] = []
    try:
        # O_PATH: as chdir, it needs the right to search the directory, not to read it
        opened.append(os.open(spec["cwd"], os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        opened.append(os.open(spec["stdout"], flags, 0o666))
        if spec["stderr"] is not None:
            opened.append(os.open(spec["stderr"], flags, 0o666))
    except OSError:
        for fd in opened:
            os.close(fd)
        raise
    return opened[0], opened[1], opened[-1]


def _ended(live: set[int]) -> None:
    """Say which children ended, without blocking, and leave them zombies."""
    for pid in sorted(live):
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None:
            live.discard(pid)
            code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            _say({"exit": pid, "code": code})


def _say(message: dict[str, Any]) -> None:
    os.write(1, json.dumps(message).encode() + b"\n")


def _become(spec: dict[str, Any], cwd: int, out: int, err: int) -> None:
    """In the child: be what `python -m MODULE ARGS` started with `spec` would be, and run it.
    An exception ends the process as it would end that one (a traceback, exit 1)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    end_with_parent()  # the server forked it: its parent (kit.drivers.base._PARENT)
    os.fchdir(cwd)
    os.environ.clear()
    os.environ.update(spec["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    random.seed()  # not the server's sequence, shared by every child
    _, first, *args = spec["argv"]
    # As `python -m` and `python SCRIPT` have it, unless the path is safe (PYTHONSAFEPATH,
    # which the server has as its children do: `STARTUP`), where sys.path[0] is no directory
    # of the command's.
    if first == "-m":
        sys.argv = args
        if not sys.flags.safe_path:
            sys.path[0] = os.getcwd()
        runpy.run_module(args[0], run_name="__main__", alter_sys=True)
    else:
        sys.argv = [first, *args]
        if not sys.flags.safe_path:
            sys.path[0] = os.path.dirname(os.path.abspath(first))
        runpy.run_path(first, run_name="__main__")
    sys.exit(0)


# --- the driver's side ---------------------------------------------------------------------

class Forked:
    """A child of the fork server, with what of subprocess.Popen the DDS driver uses."""

    def __init__(self, server: ForkServer, pid: int, args: list[str]) -> None:
        self.server, self.pid, self.args = server, pid, args
        self.returncode: int | None = None
        # Taken while the server keeps its pid (a zombie at worst): this process for good,
        # even once the server is gone and the pid is free.
        self.pidfd = os.pidfd_open(pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            self.server.pump(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            self.server.pump(left)
        return self.returncode  # type: ignore[return-value]  # set by pump

    def send_signal(self, sig: int) -> None:
        """As Popen's: nothing once it is known to have ended (its pid may be another's)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # ended since: as Popen's
                signal.pidfd_send_signal(self.pidfd, sig)

    def settle(self, code: int) -> None:
        self.returncode = code
        os.close(self.pidfd)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_SHARED: dict[tuple[object, ...], ForkServer] = {}
_FORGOTTEN: list[ForkServer] = []  # a forked child's copies of its parent's: kept, not closed


def shared(preload: Sequence[str], cwd: str, env: Mapping[str, str]) -> ForkServer:
    """The fork server of this process for `preload` and `cwd`, started with `env` the first
    time (what a child takes from the server's environment is what `startup` keeps): one for
    every driver of a test session, so its start is paid once. It ends with this process."""
    key = (tuple(preload), cwd, tuple(sorted(startup(env).items())))
    server = _SHARED.get(key)
    if server is None or server.proc.poll() is not None:
        server = _SHARED[key] = ForkServer(preload, cwd, env)
    return server


def _forget_inherited() -> None:
    """In a child forked from a process with fork servers (a test runner that forks per
    test, or a Popen child before its exec): they are its parent's. Their pipes here become
    /dev/null, so nothing of the child's reaches them, and the child starts its own servers."""
    null = os.open(os.devnull, os.O_RDWR)
    for server in _SHARED.values():
        for fd in server.fds():
            os.dup2(null, fd, inheritable=False)
    os.close(null)
    _FORGOTTEN.extend(_SHARED.values())
    _SHARED.clear()


@atexit.register
def _close_shared() -> None:
    for server in _SHARED.values():
        server.close()


os.register_at_fork(after_in_child=_forget_inherited)


class ForkServer:
    """The server process and the children it forked for us."""

    def __init__(self, preload: Sequence[str], cwd: str, env: Mapping[str, str]) -> None:
        self.env = startup(env)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", __name__, *preload], cwd=cwd, env=dict(env),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=end_with_parent)
        self.children: dict[int, Forked] = {}
        self.answers: list[dict[str, Any]] = []  # to spawn requests, not yet claimed
        self.codes: dict[int, int] = {}  # ended before `spawn` claimed them
        self.ended = False  # its output closed: it is gone, and its children with it
        self.pending = b""
        assert self.proc.stdout is not None
        self.out = self.proc.stdout.fileno()
        self.said = select.poll()
        self.said.register(self.out, select.POLLIN)

    def fits(self, argv: Sequence[str], env: Mapping[str, str]) -> bool:
        """Whether a child of `argv` with `env` would start as the server did, and as a new
        process would start at all."""
        return (not self.ended and self.proc.poll() is None and startup(env) == self.env
                and execable(argv, env))

    def spawn(self, argv: list[str], cwd: str, env: Mapping[str, str], stdout: Path,
              stderr: Path | None) -> Forked:
        spec = {"argv": argv, "cwd": os.path.abspath(cwd), "env": dict(env),
                "stdout": os.path.abspath(stdout),
                "stderr": None if stderr is None else os.path.abspath(stderr)}
        self._tell(spec)
        if not _until(lambda: bool(self.answers) or self.ended, self.pump, START_TIMEOUT):
            # Its late answer would be taken for the next child's: no next child of it.
            self.close()
            raise DriverError(f"the fork server forked nothing in {START_TIMEOUT:g} s")
        if not self.answers:
            raise DriverError(f"the fork server of served agents ended "
                              f"(code {self.proc.wait()})")
        answer = self.answers.pop(0)
        if "errno" in answer:
            raise OSError(answer["errno"], answer["error"], answer["filename"])
        pid = answer["pid"]
        child = self.children[pid] = Forked(self, pid, argv)
        if pid in self.codes:
            self._ended(pid, self.codes.pop(pid))
        return child

    def pump(self, timeout: float | None) -> None:
        """Read what the server said within `timeout` seconds (None: until it says something)."""
        if self.ended or not self.said.poll(
                None if timeout is None else max(0, math.ceil(timeout * 1000))):
            return
        data = os.read(self.out, 65536)
        if not data:
            self._settle()
            return
        self.pending += data
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            said = json.loads(line)
            if "exit" not in said:
                self.answers.append(said)
            elif said["exit"] in self.children:
                self._ended(said["exit"], said["code"])
            else:
                self.codes[said["exit"]] = said["code"]

    def _ended(self, pid: int, code: int) -> None:
        """Its code is seen: its pid may go (Popen frees it when `poll` sees the end)."""
        self.children.pop(pid).settle(code)
        with contextlib.suppress(DriverError):  # a server gone has no zombies to keep
            self._tell({"reap": pid})

    def _settle(self) -> None:
        """The server is gone (all it said read), and the codes of its children that had not
        ended with it. They had its death as a signal (SIGTERM): one that ends within `GRACE`
        seconds is reported so (-SIGTERM), one that does not is killed (-SIGKILL). Nothing of
        them outlives the server."""
        self.ended = True
        with contextlib.suppress(KeyError):
            self.said.unregister(self.out)
        left = {child.pidfd: child for child in self.children.values()}
        ending = select.poll()
        for pidfd in left:
            ending.register(pidfd, select.POLLIN)
        end = time.monotonic() + GRACE
        while left and (wait := end - time.monotonic()) > 0:
            for pidfd, _ in ending.poll(math.ceil(wait * 1000)):
                ending.unregister(pidfd)
                left.pop(pidfd).settle(-signal.SIGTERM)
        for child in left.values():
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)
            select.select([child.pidfd], [], [])  # killed: it ends at once
            child.settle(-signal.SIGKILL)
        self.children.clear()

    def _tell(self, request: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):  # ValueError: its pipe closed here
            raise DriverError(f"the fork server of served agents ended "
                              f"(code {self.proc.wait()})") from None

    def fds(self) -> list[int]:
        """This process's ends of the server's pipes."""
        return [pipe.fileno() for pipe in (self.proc.stdin, self.proc.stdout)
                if pipe is not None and not pipe.closed]

    def close(self) -> None:
        """Its stdin closed, it ends; its children, told by their parent-death signal, too
        (`_settle`)."""
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(5.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        while not self.ended:  # the ends it said before its own, then `_settle`
            self.pump(None)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _until(done: Callable[[], bool], pump: Callable[[float], None], within: float) -> bool:
    end = time.monotonic() + within
    while not done():
        left = end - time.monotonic()
        if left <= 0:
            return False
        pump(left)
    return True


if __name__ == "__main__":
    serve(sys.argv[1:])
