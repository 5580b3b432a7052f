"""Warm judges: a process per worker and set of components that starts Python and pytest and
collects the suite once, then forks a child for each mutant, which runs only that mutant's
scenarios (`mutation.judge`'s run, the same plugins and record).

A cold judge spends much of its time before its first scenario: starting Python, importing
pytest and the kit, collecting the features. No module of the reference is imported by then (the
in-process driver imports it when a scenario first asks for an agent), so a child forked after
collection imports the copy's `reference/` as it is on disk, the mutant applied, and so does
every process its scenarios start. The server checks this before it serves: were a module of the
reference loaded, it says so and ends, and the worker judges cold.

`python -m mutation.warm TAG=VALUE FOLDER --component C [...]`, in a worker's copy, speaks
JSON lines: once collected it writes `{"ready": N}` (N scenarios) or `{"error": WHY}`; then for
each request `{"keyword": EXPR, "first": [NODEID, ...]}` (EXPR null: every scenario; `first`, the
scenarios to run first: `mutation.judge.order`) it forks a child, writes `{"pid": PID}`
(the child leads a process group of its own, which the worker kills at its deadline), and once
the child has ended `{"result": RECORD}` or `{"died": HOW}`. The server's own stdin and stdout
carry this alone: fds 0 and 1 point at /dev/null, so nothing a scenario starts writes into it.

A child is as separate from the one before as a cold judge: its pytest folder is its own (in
FOLDER, removed once it has ended), and it ends its whole process group as it ends, so nothing
a mutant left running (a stuck fake harness) writes into the next run's records. It sets the
worker's tag (TAG=VALUE) in its environment, so what its scenarios start outside its group is
found by it (`mutation.workers`); the server has none, so the worker's sweep spares it. The
server ends when its stdin closes."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from mutation.judge import Judging, order

REFERENCE = "agent_tck.reference"
# Seconds: how soon a read sees that an interrupted session closed the server under it. A
# descriptor closed while a select() waits on it leaves that select() to its deadline (the
# kernel drops it from the set, and no end of file comes): under load the reading thread can
# get there after the server's end and before the close.
POLL = 1.0


class Forks:
    """pytest plugin of the server: once collected, a child per request; the children run the
    tests, the server none."""

    def __init__(self, judging: Judging, tag: tuple[str, str], folder: Path,
                 requests: IO[str], replies: IO[str]) -> None:
        self.judging, self.tag = judging, tag
        self.requests, self.replies = requests, replies
        self.folders = folder  # each child's pytest folder is in it, removed when it has ended
        self.folder = folder  # the current child's, once one is forked
        self.result: int | None = None  # in a child: where its record goes

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        loaded = sorted(m for m in sys.modules if m.startswith(REFERENCE))
        if loaded:
            self._reply({"error": f"the reference is loaded once collected: {loaded[:3]}"})
            return True
        self._reply({"ready": len(session.items)})
        gc.freeze()  # the children share what collection built, uncopied
        for number, line in enumerate(self.requests):
            request = json.loads(line)
            keyword, first = request["keyword"], request.get("first", [])
            self.folder = self.folders / f"judge-{number}"
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                self.requests.close()  # the worker sees the server's end, not a child's
                self.replies.close()
                os.setpgid(0, 0)  # a group of its own, set in both: killable once named
                os.environ[self.tag[0]] = self.tag[1]
                self.result = write
                self._select(session, keyword, first)
                return None  # the child goes on to run its scenarios
            os.close(write)
            with contextlib.suppress(ProcessLookupError):  # a child that ended already
                os.setpgid(pid, pid)
            self._reply({"pid": pid})
            with os.fdopen(read) as found:
                record = found.read()
            _, status = os.waitpid(pid, 0)  # killed by itself, with its group, at its end
            _reap_orphans()
            shutil.rmtree(self.folder, ignore_errors=True)
            self._reply({"result": json.loads(record)} if record else
                        {"died": f"wait status {status}"})
        return True  # no more requests: the server runs nothing

    def _select(self, session: pytest.Session, keyword: str | None, first: list[str]) -> None:
        """The scenarios `-k keyword` selects, as pytest's own option selects them, `first`
        first."""
        from _pytest.mark import deselect_by_keyword  # pytest's -k, which has no public API

        if keyword:
            session.config.option.keyword = keyword
            deselect_by_keyword(session.items, session.config)
        order(session.items, self.judging.reqs, first)
        session.testscollected = len(session.items)
        # A folder of its own, as each cold judge has: a fake harness an earlier mutant left
        # running would note itself in the stray log of this run, which then errs (pytest has
        # no public way to give a session another basetemp).
        factory = session.config._tmp_path_factory  # type: ignore[attr-defined]
        factory._given_basetemp, factory._basetemp = self.folder, None
        kept = {item.nodeid for item in session.items}
        results = self.judging.collector.results
        self.judging.collector.results = {k: v for k, v in results.items() if k in kept}

    def _reply(self, message: dict[str, Any]) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()


def _reap_orphans() -> None:
    """Processes a child's scenarios left, which became this server's in its namespace (it
    is the first process there), once they have ended: no zombie piles up."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def serve(argv: list[str]) -> int:
    tag_name, _, tag_value = argv[0].partition("=")
    folders = Path(argv[1])  # the children's; not in TMPDIR, which the worker empties after
    # every judge, the server's own folder among them
    requests = os.fdopen(os.dup(0), "r")
    replies = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    judging = Judging(argv[2:])
    forks = Forks(judging, (tag_name, tag_value), folders, requests, replies)
    folders.mkdir(parents=True, exist_ok=True)
    try:
        code = judging.run_suite(["--basetemp", str(folders / "server")], forks)
        if forks.result is not None:
            with os.fdopen(forks.result, "w") as out:
                out.write(json.dumps(judging.record(code)))
    finally:
        if forks.result is not None:  # a child: never back into the server's loop, and
            # whatever its scenarios left running (a mutant's stuck harness) ends with it
            os.killpg(0, signal.SIGKILL)
        shutil.rmtree(folders, ignore_errors=True)
    return 0


class Server:
    """The worker's side: a warm judge of `components` in `copy`, started with `env` less the
    worker's tag, which its children set."""

    def __init__(self, copy: Path, env: dict[str, str], tag: str,
                 components: tuple[str, ...], sandbox: tuple[str, ...] = ()) -> None:
        args = [arg for c in components for arg in ("--component", c)]
        own = {k: v for k, v in env.items() if k != tag}
        # In a namespace of its own (mutation.workers.sandbox) a child's pid is the
        # namespace's, no pid out here: a child is then ended with the whole server.
        self.sandboxed = bool(sandbox)
        self.proc = subprocess.Popen(
            [*sandbox, sys.executable, "-m", "mutation.warm", f"{tag}={env[tag]}",
             str(copy / "warm" / "-".join(components)), *args], cwd=copy,
            env=own, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.buffer = b""
        self.child: int | None = None  # the running child's pid (its process group's)
        ready = self._read(120.0)
        self.usable = ready is not None and "ready" in ready
        if not self.usable:  # it refused, or did not start in time: it goes now
            self.close()

    def judge(self, keyword: str | None, timeout: float, first: list[str]
              ) -> dict[str, Any] | None:
        """The record of a child that ran `keyword`'s scenarios, `first` first; {"code":
        "timeout"} when it was killed at `timeout`; None when the server itself failed (judge
        cold instead)."""
        assert self.proc.stdin is not None
        request = {"keyword": keyword, "first": first}
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            self.close()
            return None
        started = self._read(30.0)
        if started is None or "pid" not in started:
            self.close()
            return None
        self.child = int(started["pid"])
        reply = self._read(timeout)
        if reply is None and self.sandboxed:  # the deadline: the namespace goes whole
            self.close()
            return {"code": "timeout", "failed": []}
        if reply is None:  # the deadline: the child's group goes, the server says so
            self.kill_child()
            reply = self._read(30.0)
            if reply is None:
                self.close()
                return None
            return {"code": "timeout", "failed": []}
        if "result" in reply:
            found: dict[str, Any] = reply["result"]
            return found
        return {"code": 2, "failed": [], "died": reply.get("died")}  # the run broke

    def kill_child(self) -> None:
        """The last child's process group: what it left running if it did not end the group
        itself (it died before its end). Its id is not reused while the group has members.
        (A sandboxed server's child is ended by closing the server.)"""
        child, self.child = self.child, None
        if child is not None and not self.sandboxed:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child, signal.SIGKILL)

    def close(self) -> None:
        """The server ends: told by the end of its stdin (it removes its children's folder),
        killed if it has not within seconds."""
        self.kill_child()
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        # Only now: a judge reading in another thread (an interrupted session) has had the
        # server's end, or sees the close within POLL.
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.usable = False

    def _read(self, timeout: float) -> dict[str, Any] | None:
        """The server's next message, or None at `timeout` or its end."""
        assert self.proc.stdout is not None
        if self.proc.stdout.closed:  # closed by an interrupted session meanwhile
            return None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.stdout.closed:
                    return None
                if not selector.select(min(left, POLL)) or self.proc.stdout.closed:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
