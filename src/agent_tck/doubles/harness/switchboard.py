"""Where the fake harnesses report what they saw: a socket only a harness gets answered on.

One switchboard per process (the first rig starts it): a UNIX socket in the abstract
namespace (no file to find, replace or delete) and a thread that answers it. A harness
connects, says hello and waits; the switchboard asks the kernel who connected (SO_PEERCRED,
and a pidfd of that process, SO_PEERPIDFD where the kernel has it) and /proc what that process
is, and answers only the fake harness as its rig's shim starts it: this Python, with the
shim's command line, whose words name the rig (`script.reporting_command`). The harness then
gets its script, and what it writes on that connection is its record, which the switchboard
keeps in this process's memory: no file holds it. Any other process is refused and nothing it
sends is read. A harness of a rig that was closed (a straggler) is noted in that rig's stray
log and told so.

This proves who wrote an entry against anything an implementation can do with what it is
given (its PATH, working directory, environment, and the shims, which name the socket): not
against a process of the same user that attacks the kit on purpose (one that ptraces a harness
or runs its own code in one). docs/security.md states the trust model.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import selectors
import socket
import struct
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.doubles.harness.script import HARNESS_NAMES, reporting_command
from agent_tck.kit.observe import pidfd, started_at

SO_PEERPIDFD = 77  # Linux 6.5; Python names it from 3.13. Older kernels: pidfd_open(pid)
MAX_HELLO = 4096  # bytes: a hello is a few dozen
MAX_LINE = 1 << 28  # bytes of one entry (a harness notes what stdin said)
MAX_WAITING = 256  # connections that have not said hello; more are closed at once
ANSWER_TIMEOUT = 5.0  # seconds to hand a harness its answer (a script may be long)


@dataclass(eq=False)
class Log:
    """One rig's record, and what the switchboard knows of the rig: its token, its stray log,
    the answer its harnesses get, whether it is closed, its harnesses' connections."""

    token: str
    strays: Path | None
    answer: bytes = b'{"refused": "the rig has no script yet"}\n'
    entries: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False
    links: list[Link] = field(default_factory=list)


@dataclass(eq=False)
class Link:
    """One connection: before its hello, `log` is None; after, the rig it reports to and the
    process that opened it (`pid`, and `since`, its start time)."""

    sock: socket.socket
    log: Log | None = None
    pid: int = 0
    since: int | None = None
    inner: int = 0  # its pid as it sees it: another in a PID namespace of its own (--isolate)
    namespace: tuple[int, int] | None = None  # that PID namespace, when it is not this one's
    buffer: bytearray = field(default_factory=bytearray)
    greeted: bool = False  # its hello was answered
    ended: bool = False


class Switchboard:
    """The socket and the thread that answers it; `open` a log per rig."""

    def __init__(self) -> None:
        self.address = f"@agent-tck-harness-{uuid.uuid4().hex}"
        self.prefix = reporting_command(self.address, "")[:-1]  # the words before the token
        self.me = os.stat(sys.executable)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind("\0" + self.address[1:])
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.logs: dict[str, Log] = {}
        self.waiting = 0
        self.lock = threading.Lock()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        threading.Thread(target=self._serve, name="agent-tck harness switchboard",
                         daemon=True).start()

    def open(self, token: str, strays: Path | None) -> Log:
        with self.lock:
            log = self.logs[token] = Log(token, strays)
        return log

    def play(self, log: Log, script: dict[str, Any]) -> None:
        """From now on, a harness of `log`'s rig plays `script`."""
        answer = (json.dumps({"script": script}) + "\n").encode()
        with self.lock:
            log.answer = answer

    def entries(self, log: Log) -> list[dict[str, Any]]:
        """Every entry `log`'s harnesses wrote so far: what they have sent is read first."""
        with self.lock:
            for link in log.links:
                self._drain(link)
            return list(log.entries)

    def close(self, log: Log) -> None:
        """Its scenario is over: a harness of this rig that starts from now on is a straggler;
        its record is dropped (the connections are closed by the thread as they end)."""
        with self.lock:
            log.closed = True
            log.entries = []
            log.links = []

    # --- the thread -------------------------------------------------------------------------

    def _serve(self) -> None:
        while True:
            for key, _ in self.selector.select():
                try:
                    if key.data is None:
                        self._accept()
                    else:
                        self._ready(key.data)
                except Exception:  # a hostile peer must never stop the thread
                    if key.data is not None:
                        self._drop(key.data)
                    else:  # no fd to accept with (EMFILE): a pause, not a busy loop
                        time.sleep(0.01)

    def _accept(self) -> None:
        with contextlib.suppress(BlockingIOError):
            sock, _ = self.listener.accept()
            if self.waiting >= MAX_WAITING:
                sock.close()
                return
            sock.setblocking(False)
            self.waiting += 1
            self.selector.register(sock, selectors.EVENT_READ, Link(sock))

    def _ready(self, link: Link) -> None:
        if not link.greeted:
            self._hello(link)
            return
        with self.lock:
            self._drain(link)
        if link.ended:
            self._drop(link)

    def _hello(self, link: Link) -> None:
        """Read `link`'s hello; once it is whole, answer it (outside the lock: a script may
        take a moment to send) and keep the link if it joined a rig."""
        try:
            chunk = link.sock.recv(MAX_HELLO)
        except (BlockingIOError, InterruptedError):
            return
        link.buffer += chunk
        if chunk and b"\n" not in link.buffer and len(link.buffer) < MAX_HELLO:
            return  # the rest of the hello is still coming
        link.greeted = True
        self.waiting -= 1
        answer = self._introduce(link, bytes(link.buffer).partition(b"\n")[0])
        link.buffer.clear()
        link.sock.settimeout(ANSWER_TIMEOUT)
        link.sock.sendall(answer)
        link.sock.setblocking(False)
        if link.log is None:
            self._drop(link)

    def _drop(self, link: Link) -> None:
        if not link.greeted:
            link.greeted = True
            self.waiting -= 1
        with self.lock:
            link.ended = True
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(link.sock)
        link.sock.close()

    def _introduce(self, link: Link, hello: bytes) -> bytes:
        """The answer to `hello` on `link`: a harness of an open rig is given its script (or
        an ok for a grandchild's connection) and its link joins the rig's log."""
        try:
            kind = json.loads(hello).get("hello")
        except (ValueError, AttributeError):
            kind = None
        if kind not in ("start", "delegate"):
            return _say(refused="a hello says start or delegate")
        pid, since, words = self._peer(link.sock)
        if words is None:
            return _say(refused=f"process {pid} is not the fake harness as its shim starts it")
        token, name, argv = words[0], words[1], words[2:]
        with self.lock:
            log = self.logs.get(token)
            if log is None:
                return _say(refused=f"no rig {token!r} in this process")
            if log.closed:
                if kind == "start":
                    _stray(log, pid, name, argv)
                return _say(closed=True)
            link.log, link.pid, link.since, link.inner = log, pid, since, _inner(pid)
            link.namespace = _namespace(pid)
            log.links.append(link)
            return log.answer if kind == "start" else _say(ok=True)

    def _peer(self, sock: socket.socket) -> tuple[int, int | None, list[str] | None]:
        """The pid of the process that connected `sock`, its start time, and the words of its
        command line after the rig's prefix; None for the words when it is not a harness."""
        pid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                  struct.calcsize("3i")))[0]
        try:
            pidfd = _pidfd(sock, pid)
        except OSError:
            return pid, None, None  # gone
        try:
            since, words = started_at(pid), self._words(pid)
            # what was read may be another process's that took the pid: without a pidfd,
            # one whose start time differs from the one read first
            if since is None or (_ended(pidfd) if pidfd is not None
                                 else started_at(pid) != since):
                return pid, None, None
            return pid, since, words
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def _words(self, pid: int) -> list[str] | None:
        """The words after the prefix of `pid`'s command line, if it runs this Python with a
        harness's command line: TOKEN NAME ARGS..."""
        try:
            exe = os.stat(f"/proc/{pid}/exe")
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                words = [os.fsdecode(w) for w in cmdline.read().split(b"\0")[:-1]]
        except OSError:
            return None
        if (exe.st_dev, exe.st_ino) != (self.me.st_dev, self.me.st_ino):
            return None
        after = words[len(self.prefix):]
        if words[:len(self.prefix)] != self.prefix or len(after) < 2:
            return None
        return after if after[1] in HARNESS_NAMES else None

    def _drain(self, link: Link) -> None:
        """Read what `link` has sent, its whole lines into its log (the lock is held). An entry
        cut short by its writer's end is dropped."""
        while not link.ended:
            try:  # never waits: the fd is non-blocking, even while `_hello` has a timeout on it
                chunk = os.read(link.sock.fileno(), 1 << 16)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                chunk = b""
            if not chunk:
                link.ended = True
                return
            link.buffer += chunk
            if b"\n" in chunk:
                self._lines(link)
            if len(link.buffer) > MAX_LINE:
                link.ended = True

    def _lines(self, link: Link) -> None:
        *lines, rest = bytes(link.buffer).split(b"\n")
        link.buffer = bytearray(rest)
        assert link.log is not None
        if link.log.closed:
            return
        for line in lines:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict):
                    if link.namespace is not None:
                        _translate(entry, link)
                    if entry.get("what") == "start" and entry.get("pid") == link.pid:
                        entry["since"] = link.since
                    link.log.entries.append(entry)


PIDS = ("pid", "ppid", "pgid")  # the fields of an entry that hold a pid


def _nspids(pid: int) -> list[int]:
    """`pid`'s pids, from this process's PID namespace down to its own (NSpid); [] when it
    has ended."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"NSpid:"):
                    return [int(n) for n in line.split()[1:]]
    except (OSError, ValueError):
        return []
    return [pid]  # a kernel without NSpid (before 4.1) has no namespace to translate from


def _inner(pid: int) -> int:
    return (_nspids(pid) or [pid])[-1]


def _pid_namespace(pid: int | str) -> tuple[int, int] | None:
    """The identity of `pid`'s PID namespace; None when it has ended."""
    try:
        found = os.stat(f"/proc/{pid}/ns/pid")
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _namespace(pid: int) -> tuple[int, int] | None:
    """`pid`'s PID namespace, when it is another than this process's (--isolate): kept from
    its hello on, so that the pids it notes are translated even once it has ended."""
    theirs = _pid_namespace(pid)
    return theirs if theirs is not None and theirs != _pid_namespace("self") else None


def _translate(entry: dict[str, Any], link: Link) -> None:
    """The pids a harness in a PID namespace of its own noted (--isolate), as this process
    sees them: its own from its link, the others found in /proc (0 for one that has ended:
    no process, never signalled)."""
    for key in PIDS:
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            entry[key] = link.pid if value == link.inner else _outer(value, link.namespace)


def _outer(inner: int, namespace: tuple[int, int] | None) -> int:
    """This process's pid for the process whose pid is `inner` in PID namespace `namespace`."""
    for name in filter(str.isdigit, os.listdir("/proc")):
        pids = _nspids(int(name))
        if len(pids) > 1 and pids[-1] == inner and _pid_namespace(name) == namespace:
            return int(name)
    return 0


def _say(**answer: Any) -> bytes:
    return (json.dumps(answer) + "\n").encode()


def _pidfd(sock: socket.socket, pid: int) -> int | None:
    """A pidfd of the process that connected `sock` (SO_PEERPIDFD: that process, even if its
    pid was taken since), or of `pid` on a kernel without it; None where there are no pidfds;
    OSError when it is gone."""
    with contextlib.suppress(OSError):
        return int(struct.unpack("i", sock.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD, 4))[0])
    return pidfd(pid)


def _ended(pidfd: int) -> bool:
    """Whether the process of `pidfd` has ended (its pidfd reads ready)."""
    return bool(select.select([pidfd], [], [], 0)[0])


def _stray(log: Log, pid: int, name: str, argv: list[str]) -> None:
    """Note a harness started after its rig was closed in the rig's stray log."""
    if log.strays is None:
        return
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = None
    entry = {"rig": log.token, "name": name, "argv": argv, "cwd": cwd, "pid": pid}
    with contextlib.suppress(OSError), log.strays.open("a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


_BOARD: Switchboard | None = None
_BOARD_LOCK = threading.Lock()


def switchboard() -> Switchboard:
    """This process's switchboard, started by the first rig that asks."""
    global _BOARD
    with _BOARD_LOCK:
        if _BOARD is None:
            _BOARD = Switchboard()
        return _BOARD


def _forget() -> None:
    """In a child forked from a process with a switchboard: its thread is not here, so a rig
    made in the child starts one of its own (the parent's goes on answering its rigs)."""
    global _BOARD, _BOARD_LOCK
    _BOARD, _BOARD_LOCK = None, threading.Lock()


os.register_at_fork(after_in_child=_forget)
