"""The reaper: a small process between the agent and its CLI, so no descendant outlives a
request (decision D-6), however it hides.

A descendant can leave the CLI's process group (its own session), clear its environment (the
run tag of reference/strays.py is gone) and hop pids (fork, and let the parent exit). The
kernel still keeps it in one place: an orphan is handed to its nearest ancestor that is a
*child subreaper* (PR_SET_CHILD_SUBREAPER, Linux 3.4). The reaper is that ancestor: it starts
the CLI as its child, and every process the CLI starts stays in its tree for good.

    python -I -S reaper.py REPORT_FD PARENT_PID ARGV...

The supervisor (reference/supervisor.py) talks to it by signals:
- SIGTERM (at the deadline): forwarded to the CLI's process group (the CLI leads a group of
  its own, as it would without the reaper) and to every descendant outside that group;
- SIGUSR1 (the grace period is over, or the request is finished): SIGKILL to every descendant;
- the CLI's exit: every descendant left is killed and reaped, then the reaper exits as the
  CLI did (its exit code, or the signal that killed it), so the supervisor reads the CLI's own
  outcome. After a SIGTERM, the descendants it reached are given until they are gone, or until
  SIGUSR1, to stop on their own, even when the CLI ends first.
If the supervisor's thread dies (SIGTERM from the kernel, PR_SET_PDEATHSIG), every
descendant gets SIGTERM, and SIGKILL after ORPHAN_GRACE seconds. The tree is sent SIGTERM once
whatever the order: a later SIGTERM only starts that grace. The reaper asks the kernel
for that signal itself, first thing, and ends at once if PARENT_PID (the supervisor's process)
is no longer its parent: the supervisor starts it without code between fork and exec, so
Python can vfork instead of copying the agent's whole process (a `preexec_fn` forks it, and
the copy of a large agent's memory costs several times the reaper's own start).

`REPORT_FD` tells the supervisor whether the CLI started: it is closed by a successful exec,
or carries the errno of a failed one. Stdlib only, and as little of it as will do: a reaper
starts with every request, and contextlib (with collections and functools) and signal's enums
would add half again to its start. It takes signal's C half, `_signal`, which has the same
functions and numbers.

Where the kernel refuses the reaper a child subreaper (a seccomp policy, a kernel before 3.4), a
process whose parent exits leaves this tree: the reaper then counts as its descendants, beside
its tree, every process that carries the request's run tag (reference/strays.py), as the
supervisor does without a reaper. What hides from both (its environment cleared, its parent
gone) is out of its reach there.

What remains possible: a descendant that makes another program start a process for it (a
daemon it talks to, `systemd-run`, `at`), or that changes user (a setuid program), is not in
this tree, or not this user's to kill.
"""

# try-except-pass, not contextlib.suppress: contextlib's imports are most of what it would save.
# ruff: noqa: SIM105
from __future__ import annotations

import ctypes
import errno
import os
import resource
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Iterator
    from typing import Any
else:
    signal = __import__("_signal")

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ORPHAN_GRACE = 5.0
WATCHED = {signal.SIGCHLD, signal.SIGTERM, signal.SIGUSR1}
# Without a child subreaper: reference/strays.py (imported then, and only then) and the run id
# the supervisor tagged this request's environment with. None under a subreaper.
_strays: Any = None
_run_id = ""


def _prctl(option: int, value: int) -> bool:
    try:
        return bool(ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def works() -> bool:
    """This kernel offers what the reaper needs (Linux: child subreapers, /proc)."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self/task")


def parents() -> dict[int, int]:
    """pid -> parent pid of every process this user can see."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in filter(str.isdigit, names):
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # gone
        found[int(name)] = int(fields[1])
    return found


def descendants(root: int) -> list[int]:
    """Every process below `root`, parents before their children; without a subreaper, and
    the run tag's processes outside that tree after them."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents().items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    if _strays is not None:
        found += [pid for pid in _strays.tagged(_run_id) if pid != root and pid not in found]
    return found


def _still_ours(pid: int, ours: set[int]) -> bool:
    """`pid` (pinned) is ours yet: its parent is, or, without a subreaper, it carries the tag."""
    return parents().get(pid) in ours or (_strays is not None and pid in _strays.tagged(_run_id))


def signal_tree(sig: int, outside_group: int | None = None) -> None:
    """Send `sig` to our descendants (only those outside process group `outside_group` when
    given). Each is pinned (`_pin`) and checked still ours before the signal, so a pid reused
    meanwhile is not signalled."""
    me = os.getpid()
    tree = descendants(me)
    ours = {me, *tree}
    for pid in tree:
        try:
            if outside_group is not None and os.getpgid(pid) == outside_group:
                continue
            fd = _pin(pid)
        except OSError:
            continue  # gone
        try:
            if not _still_ours(pid, ours):
                continue
            if fd is not None:
                signal.pidfd_send_signal(fd, sig)
            else:
                os.kill(pid, sig)
        except OSError:
            pass  # gone since
        finally:
            if fd is not None:
                os.close(fd)


def _pin(pid: int) -> int | None:
    """A pidfd of `pid`; None where there are none (no such call, or a policy refuses it):
    then the check and the signal are a moment apart (reference/strays.py's `pinned`)."""
    try:
        return os.pidfd_open(pid)
    except AttributeError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EPERM):
            return None
        raise


def reap() -> Iterator[tuple[int, int]]:
    """(pid, wait status) of every child that has ended, without blocking."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        yield pid, status


def kill_all() -> None:
    """SIGKILL every descendant, again while any is left (one may fork between a scan and
    its signal), and reap them all: when this returns the tree is empty."""
    while True:
        signal_tree(signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        for _ in reap():
            pass


def exit_as(status: int) -> None:
    """End this process as the CLI ended: its exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def start(report: int, argv: list[str]) -> int:
    """Fork and exec the CLI; its pid. A failed exec's errno goes to `report`."""
    os.set_inheritable(report, False)  # closed by the child's exec
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, WATCHED)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the reaper only dies so when killed
        try:
            os.execv(argv[0], argv)
        except OSError as exc:
            os.write(report, str(exc.errno or 0).encode())
        os._exit(127)
    try:
        os.setpgid(pid, pid)  # also here: the group exists before any signal is relayed
    except OSError:
        pass  # the child has already exec'd, as leader of its group
    os.close(report)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the pipes are the CLI's alone: their ends tell of the CLI
        os.dup2(null, fd)
    os.close(null)
    return pid


def supervise(cli: int, parent: int) -> None:
    """Relay the supervisor's signals until the CLI has ended, then empty the tree and end.

    After a SIGTERM (the deadline) the descendants it reached get the grace period to stop on
    their own even when the CLI ends first: the tree is emptied once they are gone, or at
    SIGUSR1 (the grace is over), not at the CLI's end."""
    orphaned_at: float | None = None
    terminating = False
    ended: int | None = None  # the CLI's wait status, once it has ended
    while True:
        if orphaned_at is None:
            info = signal.sigwaitinfo(WATCHED)
            sig = info.si_signo
        else:
            got = signal.sigtimedwait(WATCHED, ORPHAN_GRACE)
            sig = got.si_signo if got is not None else signal.SIGUSR1
        if sig == signal.SIGTERM:
            # The tree gets one SIGTERM (AG-D6.2), however many come here: the deadline's and
            # then the supervisor's death, or two deaths of one multithreaded agent (the kernel
            # signals a child when the thread that started it dies, and again when the last
            # of its process does).
            told, terminating = terminating, True
            if os.getppid() != parent:  # the supervisor is gone: nobody else will signal
                orphaned_at = 0.0
                if not told:
                    signal_tree(signal.SIGTERM)
            elif not told:
                try:
                    os.killpg(cli, signal.SIGTERM)
                except OSError:
                    pass  # the group is gone
                signal_tree(signal.SIGTERM, outside_group=cli)
        elif sig == signal.SIGUSR1:
            signal_tree(signal.SIGKILL)
            terminating = False  # all were just killed: none is left to wait for
        for pid, status in reap():
            if pid == cli:
                ended = status
        if ended is not None and not (terminating and descendants(os.getpid())):
            kill_all()
            exit_as(ended)


def _find_by_tag() -> None:
    """Count the processes of this request's run tag among the descendants (no subreaper)."""
    global _strays, _run_id
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I put no folder there
    strays = __import__("strays")  # beside this file
    _run_id = os.environ.get(strays.RUN_TAG, "")
    _strays = strays if _run_id else None


def main(args: list[str]) -> None:
    if len(args) < 3 or not (args[0].isdigit() and args[1].isdigit()):
        sys.stderr.write("usage: reaper.py REPORT_FD PARENT_PID ARGV...\n")
        os._exit(2)
    parent = int(args[1])
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    # Armed before REPORT_FD is closed (by the CLI's exec): the supervisor's thread waits on
    # that pipe, so it cannot end unnoticed between its fork and this line.
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the supervisor died before the line above: run nothing
        sys.stderr.write(f"reaper: not starting: PARENT_PID {parent} is not my parent "
                         f"({os.getppid()}); the reaper must be exec'd by the supervisor\n")
        os._exit(1)
    if not _prctl(PR_SET_CHILD_SUBREAPER, 1):
        _find_by_tag()
    supervise(start(int(args[0]), args[2:]), parent)


if __name__ == "__main__":
    main(sys.argv[1:])
