"""The stdio driver: an implementation behind the adapter protocol, in any language.

The suite starts the command (in a session of its own, under a keeper of its tree that kills
whatever it started when it is stopped, kit/drivers/subreaper.py; its stderr drained by a
thread that keeps a bounded tail, so it can never block nor fill memory or disk), writes one
JSON request per line and reads one JSON response per line, validating both against
schemas/adapter/. A crash, a hang (bounded by `timeout`), invalid JSON, a wrong `seq`, a
message that breaks its schema, or stray output raises DriverError with the transcript and the
stderr tail, and the implementation is restarted: one broken scenario never stops the run.

What the adapter says is made safe once, here (kit/text.py): every string of a message it
sends has its lone surrogates replaced by U+FFFD, and otherwise reaches the steps as sent (a
control character in an answer may be what a scenario checks); its transcript and stderr
tail, which are evidence and nothing else, are kept with their control characters escaped.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import selectors
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tck.kit.drivers.base import INHERITED_ENV, end_with_parent, until
from agent_tck.kit.drivers.protocol import ProtocolDriver
from agent_tck.kit.drivers.schemas import problems
from agent_tck.kit.errors import (
    AdapterExited,
    AdapterHung,
    BreaksSchema,
    DriverError,
    StrayOutput,
    Unsendable,
    UsageError,
)
from agent_tck.kit.observe import Held, held_by
from agent_tck.kit.text import printable, well_formed_json

# How long an adapter may take to answer one request. A scenario's own limit (pytest-timeout)
# is always longer (SCENARIO_MARGIN more), so a hang is "errored" with a restarted adapter,
# never a failed scenario whose late answer the next scenario would read.
DEFAULT_TIMEOUT = 60.0
SCENARIO_MARGIN = 60.0
STOP_TIMEOUT = 5.0  # how long `stop` may take before the adapter is signalled
STDERR_TAIL = 2000
STDERR_KEEP = 64 << 10  # bytes of the adapter's stderr kept in memory
MAX_MESSAGE = 64 << 20


SUBREAPER = Path(__file__).with_name("subreaper.py")
# The user's PYTHONSAFEPATH ("": unset), where an isolated run set its own for its workers
# (kit/run.py `hermetic`): what the adapter is given.
SAFE_PATH_WAS = "AGENT_TCK_PYTHONSAFEPATH_WAS"
START_TIMEOUT = 30.0  # for the keeper to say the adapter started


SHOWN = 4000  # characters of one message in a transcript: a payload of a few KB is whole


def shown(line: str) -> str:
    """`line` as a transcript shows it: whole up to SHOWN characters, else cut, saying so."""
    cut = len(line) - SHOWN
    return line if cut <= 0 else f"{line[:SHOWN]}... ({cut} more characters)"


class AdapterProcess:
    """One running adapter: its pipes, the bounded tail of its stderr and its transcript.

    `proc` is the adapter's keeper (kit/drivers/subreaper.py), whose child the adapter is,
    with the pipes; `pid` is the adapter's, which the keeper leaves unreaped (a zombie) once
    it has ended, until `stop`, so that pid and its process group's id stay the adapter's
    while they are signalled; `returncode` is the adapter's once it has ended."""

    def __init__(self, argv: list[str], cwd: str, isolate: bool = False,
                 read_only: tuple[str, ...] = ()) -> None:
        self.control, theirs = socket.socketpair()
        keeper = [sys.executable, "-I", "-S", str(SUBREAPER)]
        if isolate:
            kept = [*kept_from_adapters(cwd), *(Path(p).resolve() for p in read_only)]
            keeper += ["--isolate", *(w for p in kept for w in ("--read-only", str(p)))]
        try:
            self.proc = subprocess.Popen(
                [*keeper, str(theirs.fileno()), *argv],
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=adapter_environment(),
                preexec_fn=end_with_parent,
                pass_fds=(theirs.fileno(),),
            )
        except OSError as exc:
            self.control.close()
            raise DriverError(
                f"cannot start adapter {shlex.join(argv)!r}: {exc.strerror or exc}"
            ) from exc
        finally:
            theirs.close()
        self.told = b""
        self.notes: list[str] = []  # what its keeper could not do (`note ...`), in words
        self.returncode: int | None = None
        self.buffer = b""
        self.transcript: deque[str] = deque(maxlen=20)
        self.final_stderr: str | None = None
        # stderr is drained as it comes and only its last STDERR_KEEP bytes are kept, however
        # much the adapter writes (a pipe left unread would block it).
        self.kept = bytearray()
        self.kept_lock = threading.Lock()
        self.drainer = threading.Thread(target=self._drain_stderr, daemon=True)
        self.drainer.start()
        self.pid = self._started(argv)

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, 1 << 16):
                with self.kept_lock:
                    self.kept += chunk
                    del self.kept[:-STDERR_KEEP]

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message)
        self.transcript.append(f"-> {shown(line)}")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise AdapterExited(f"the adapter closed its stdin ({exc})") from exc

    def receive(self, timeout: float) -> str:
        """One line of stdout, waiting at most `timeout` seconds. Chunks are kept in a list
        and only the new chunk is searched for the newline, so a long line costs O(n)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        chunks, size = [self.buffer], len(self.buffer)
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in chunks[-1]:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.buffer = b"".join(chunks)
                    raise AdapterHung(timeout)
                if sel.select(left):
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        raise self._gone()
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_MESSAGE:
                        raise DriverError(f"a response is longer than {MAX_MESSAGE} bytes")
        line, _, self.buffer = b"".join(chunks).partition(b"\n")
        text = line.decode("utf-8", errors="replace")
        # evidence: shown as the kit reads it (no lone surrogate's escape either)
        self.transcript.append(f"<- {printable(shown(well_formed_json(text)))}")
        return text

    def pending(self) -> bytes:
        """What stdout holds beyond the last line read, taken without waiting (at most
        MAX_MESSAGE bytes)."""
        assert self.proc.stdout is not None
        fd, held = self.proc.stdout.fileno(), [self.buffer]
        while sum(map(len, held)) <= MAX_MESSAGE and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            held.append(chunk)
        self.buffer = b""
        return b"".join(held)

    def _started(self, argv: list[str]) -> int:
        """The adapter's pid, once its keeper says it was exec'd; DriverError when it could
        not be."""
        said = self._hear(START_TIMEOUT)
        while said is not None and said.startswith("note "):
            self.notes.append(said[5:])
            said = self._hear(START_TIMEOUT)
        if said is not None and said.startswith("pid "):
            return int(said.split()[1])
        self._end()
        self._close_pipes()
        if said is not None and said.startswith("error "):
            why = os.strerror(int(said.split()[1]))
            raise DriverError(f"cannot start adapter {shlex.join(argv)!r}: {why}")
        if said is not None and said.startswith("refused "):
            raise UsageError(f"--isolate: this machine refuses the adapter the namespaces it "
                             f"would run in ({said[8:]}); run without --isolate, or where user "
                             "namespaces are allowed (docs/security.md)")
        raise DriverError(f"cannot start adapter {shlex.join(argv)!r}: its keeper said "
                          f"{said!r} ({self.stderr_tail() or 'and nothing on stderr'})")

    def _hear(self, within: float) -> str | None:
        """The keeper's next line, waiting at most `within` seconds; None when it said nothing
        (or its socket ended)."""
        deadline = time.monotonic() + within
        while b"\n" not in self.told:
            left = max(0.0, deadline - time.monotonic())
            if not select.select([self.control], [], [], left)[0]:
                return None
            try:
                chunk = self.control.recv(4096)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            self.told += chunk
        line, _, self.told = self.told.partition(b"\n")
        return line.decode()

    def _exited(self, within: float) -> bool:
        """Whether the adapter exited within `within` seconds; its keeper leaves it unreaped
        (a zombie keeps its process group's id from being reused)."""
        while self.returncode is None:
            said = self._hear(within)
            if said is None:
                break
            if said.startswith("exit "):
                self.returncode = int(said.split()[1])
        return self.returncode is not None

    def _gone(self) -> AdapterExited:
        self._exited(within=1)
        code = self.returncode
        return AdapterExited(f"the adapter closed stdout (crashed? exit code {code})", code)

    def stderr_tail(self) -> str:
        if self.final_stderr is not None:
            return self.final_stderr
        with self.kept_lock:
            tail = bytes(self.kept[-STDERR_TAIL:])
        return printable(tail.decode("utf-8", errors="replace"))

    def stop(self, grace: float = 2.0) -> None:
        """Close stdin, wait, SIGTERM the group, wait, SIGKILL; then SIGKILL what is left of
        the adapter's process group (descendants it never ended) while its exited leader still
        holds the group's id; then have its keeper kill every process left below it, in any
        group or session, and reap them and the leader."""
        with contextlib.suppress(OSError):
            if self.proc.stdin:
                self.proc.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pid, sig)
            if self._exited(within=grace):
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self._end()
        self._close_pipes()

    def _end(self) -> None:
        """Close the keeper's socket: it kills and reaps everything below it, and exits."""
        self.control.close()
        self.proc.wait()

    def _close_pipes(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin:
                self.proc.stdin.close()
        with contextlib.suppress(OSError):
            if self.proc.stdout:
                self.proc.stdout.close()
        self.drainer.join(timeout=1)  # a process that left the tree may still hold stderr
        self.final_stderr = self.stderr_tail()
        with contextlib.suppress(OSError):
            if self.proc.stderr:
                self.proc.stderr.close()


def adapter_environment() -> dict[str, str]:
    """The environment an adapter starts with: the suite's, with `INHERITED_ENV`, and
    PYTHONSAFEPATH as the user had it before an isolated run set it for its workers."""
    env = {**os.environ, **INHERITED_ENV}
    if SAFE_PATH_WAS in env:
        was = env.pop(SAFE_PATH_WAS)
        if was:
            env["PYTHONSAFEPATH"] = was
        else:
            env.pop("PYTHONSAFEPATH", None)
    return env


def kept_from_adapters(cwd: str) -> list[Path]:
    """What an isolated adapter finds read-only: the kit's installation (its package, each
    folder a checkout's package links to), the Python it runs on (the virtual environment,
    the interpreter's own prefix) and every folder the kit imports from (its `sys.path`, the
    user's site-packages); but not the adapter's working directory `cwd`, nor a folder that
    holds it."""
    import site

    package = Path(__file__).parents[2]
    found = [package, *(p.resolve() for p in package.iterdir() if p.is_symlink())]
    found += [Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                          *filter(None, sys.path), site.getusersitepackages())]
    here = Path(cwd).resolve()
    return sorted({p for p in found if p.is_dir() and p != here and p not in here.parents})


class StdioDriver(ProtocolDriver):
    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT,
                 isolate: bool = False, read_only: tuple[str, ...] = ()) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise DriverError(f"cannot parse adapter command {command!r}: {exc}") from exc
        self.command, self.timeout, self.seq, self.isolate = command, timeout, 0, isolate
        self.read_only = read_only
        self.cwd = os.getcwd()
        self.process: AdapterProcess | None = None
        self.killed: list[AdapterProcess] = []  # adapters killed mid-request, not yet stopped
        self.restarts = 0
        self.info = self._start()

    def _start(self) -> Any:
        self.process = AdapterProcess(self.argv, self.cwd, self.isolate, self.read_only)
        try:
            return self.handshake()
        except DriverError:
            self._drop()
            raise

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        self._stop_killed()
        if self.process is None:
            self.restarts += 1
            self.process = AdapterProcess(self.argv, self.cwd, self.isolate, self.read_only)
            if cmd != "start":
                self.handshake()
        process = self.process
        self.seq += 1
        request = {"seq": self.seq, "cmd": cmd, **args}
        try:
            return self._exchange(process, request)
        except Unsendable as exc:  # nothing was sent: the adapter is not to blame and stays
            raise exc.during(cmd, self.seq, "") from None
        except DriverError as exc:
            evidence = self._evidence(process)
            self._drop()
            raise exc.during(cmd, self.seq, evidence) from None

    def _exchange(self, process: AdapterProcess, request: dict[str, Any],
                  timeout: float | None = None) -> dict[str, Any]:
        cmd = request["cmd"]
        self._post(process, request)
        text = process.receive(self.timeout if timeout is None else timeout)
        try:
            response = json.loads(well_formed_json(text))
        except (ValueError, RecursionError):
            raise StrayOutput(f"stray output or invalid JSON on stdout: {text[:200]!r}",
                              text[:200]) from None
        if not isinstance(response, dict):
            raise StrayOutput(f"stray output: expected a JSON object, got {text[:200]!r}",
                              text[:200])
        got = response.get("seq")
        if got != request["seq"]:
            late = isinstance(got, int) and 0 < got < request["seq"]
            raise DriverError(
                f"expected a response with seq {request['seq']}, got seq {got!r}" + (
                    ": an earlier request's, answered late or twice after its scenario ended"
                    if late else ""))
        schema = "common.error" if "error" in response else f"{cmd}.response"
        wrong = problems(schema, response) if schema != "common.error" else []
        if wrong:
            raise BreaksSchema(f"{cmd}.response", wrong)
        return response

    def agent_request_killed(self, agent: str, message: str, started: Callable[[], bool],
                             within: float) -> None:
        """The adapter is SIGKILLed alone (its process group is left as it is until the next
        call, so a CLI in that group is not ended by the suite) and a new one started at the
        next call."""
        process = self.process
        if process is None:  # dropped after a fault: the agent went with it
            raise DriverError(f"the adapter that created agent {agent!r} is gone")
        self.seq += 1
        self._post(process, {"seq": self.seq, "cmd": "agent.request", "agent": agent,
                             "message": message})
        try:
            if not until(lambda: started() or process._exited(0), within) or not started():
                raise DriverError(f"the request's CLI had not started {within:g} s after "
                                  f"{message!r} was sent:\n{self._evidence(process)}")
        except BaseException:
            self._drop()  # its answer to the request would be read as the next one's
            raise
        os.kill(process.pid, signal.SIGKILL)  # pinned: its keeper has not reaped it
        self.killed.append(process)
        self.process = None

    def unasked(self) -> str | None:
        """The adapter is stopped when it said something unasked: what it answers next could
        be an answer to a request of the scenario that just ended."""
        if self.process is None:
            return None
        said = self.process.pending()
        if not said:
            self.process.transcript.clear()  # the next scenario's evidence is its own exchange
            return None
        text = printable(said[:500].decode("utf-8", errors="replace"))
        self.process.transcript.append(f"<- {text}")
        evidence = self._evidence(self.process)
        self._drop()
        return (f"after its answer to the last request (seq {self.seq}) the adapter wrote "
                f"what no request asked for: {text!r}; it is restarted for the next scenario\n"
                f"{evidence}")

    def exchange(self) -> str:
        """The last of the exchange with the running adapter, for a failure's report."""
        return "" if self.process is None else self._evidence(self.process)

    def held(self, agent: str) -> Held | None:
        return None if self.process is None else held_by(self.process.pid)

    def _stop_killed(self) -> None:
        """Stop (their groups killed, reaped) the adapters killed since the last call."""
        while self.killed:
            self.killed.pop().stop(grace=0)

    @staticmethod
    def _post(process: AdapterProcess, request: dict[str, Any]) -> None:
        """Send `request` to `process`; Unsendable, with nothing sent, if it breaks its
        schema."""
        wrong = problems(f"{request['cmd']}.request", request)
        if wrong:
            raise Unsendable(f"the suite built an invalid request: {wrong}")
        process.send(request)

    def _evidence(self, process: AdapterProcess) -> str:
        transcript = "\n".join(process.transcript)
        return f"transcript:\n{transcript}\nstderr tail:\n{process.stderr_tail()}"

    def _drop(self) -> None:
        if self.process is not None:
            self.process.stop(grace=0.5)
            self.process = None

    def close(self) -> None:
        self._stop_killed()
        if self.process is None:
            return
        with contextlib.suppress(DriverError):  # bounded: an interrupted run must end soon
            self._exchange(self.process, {"seq": self.seq + 1, "cmd": "stop"},
                           min(self.timeout, STOP_TIMEOUT))
        self.process.stop()
        self.process = None
