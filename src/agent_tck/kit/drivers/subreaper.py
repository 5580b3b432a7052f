"""The adapter's keeper: a small process between the stdio driver and the adapter, so that
nothing the implementation starts outlives its adapter's stop, however it hides.

A process the adapter starts can leave its process group and session (setsid) and lose its
parent (fork, and let the parent exit): a signal to the adapter's group no longer reaches it.
The kernel still keeps it in one place: an orphan is handed to its nearest ancestor that is a
*child subreaper* (PR_SET_CHILD_SUBREAPER, Linux 3.4). This process is that ancestor: it
starts the adapter as its child, in a session of its own, and every process below stays in
its tree for good.

    python -I -S subreaper.py [--isolate [--read-only PATH]...] CONTROL_FD ARGV...

CONTROL_FD is its end of a socket pair with the driver (kit/drivers/stdio.py). It writes there
`pid N` once ARGV was exec'd (or `error ERRNO` when it could not be), and `exit CODE` when the
adapter ended (CODE as subprocess gives it: negative for a signal). The adapter is left a
zombie until the end, so its pid and its process group's id are nobody else's while the driver
signals them. When the driver closes its end (the adapter is stopped, or the driver died),
every process of the tree is killed and reaped, and this process exits. SIGTERM (the kernel's,
when the driver's thread dies: PR_SET_PDEATHSIG) gives the tree SIGTERM first and GRACE
seconds to end. Orphans that end are reaped as they end, as init would.

With `--isolate` (`agent-tck run --isolate`, docs/security.md) the adapter runs in user, mount
and PID namespaces of its own. This process enters them and forks; the child is the PID
namespace's first process (its init: when it ends, the kernel kills every process of the
namespace) and keeps the tree as above, after mounting a /proc that shows the namespace alone
(no process of the kit is there to signal, trace or read) and making each `--read-only` PATH
read-only, with every mount under it. The adapter then runs in one more user and
mount namespace, where those mounts are locked: it cannot make them writable again. The
process the driver started stands in for the keeper: it passes SIGTERM on and ends as the
keeper ends. `pid N` gives the adapter's pid as the driver sees it. A kernel that refuses a
step is told as `refused WHY`, and nothing runs. What it cannot do but runs without (a kernel
that refuses it child subreapers) it tells as `note WHAT`, before `pid N`.

Stdlib only, and little of it: it starts with every adapter. It is not the reference's reaper
(reference/reaper.py, which the kit must not import): that one keeps a CLI's tree for a
request; this one keeps an implementation's for its adapter's life.

What remains possible: a process that has another program start a process for it (a daemon it
talks to, `systemd-run`, `at`), or that changes user (a setuid program), is not in this tree,
or not this user's to kill.
"""

# try-except-pass, not contextlib.suppress: contextlib's imports would be most of its start.
# ruff: noqa: SIM105
from __future__ import annotations

import ctypes
import errno
import os
import select
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from typing import NoReturn
else:
    signal = __import__("_signal")

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
GRACE = 2.0  # seconds the tree has to end on SIGTERM when the driver died


def _subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _children(proc: int | None = None) -> dict[int, list[int]]:
    """Parent pid -> the pids of its children, for every process this user can see (in the
    /proc open as the directory fd `proc`, when given)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc" if proc is None else proc):
        if name.isdigit():
            try:
                fd = os.open(f"{name}/stat" if proc is not None else f"/proc/{name}/stat",
                             os.O_RDONLY, dir_fd=proc)
                try:
                    ppid = int(os.read(fd, 4096).rsplit(b")", 1)[1].split()[1])
                finally:
                    os.close(fd)
            except (OSError, IndexError, ValueError):
                continue  # gone
            children.setdefault(ppid, []).append(int(name))
    return children


# --- --isolate: namespaces (Linux; <linux/sched.h>, <linux/mount.h>) ---------------------------

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x20000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = (
    1024, 2048, 4096, 16384, 1 << 18, 1 << 21)
# statvfs's flag -> mount's, for the flags a remount in a user namespace must keep.
KEPT = {2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: MS_NOATIME, 2048: MS_NODIRATIME,
        4096: MS_RELATIME}


def _call(what: str, result: int) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    _call("unshare", _libc().unshare(flags))


def _mount(source: str | None, target: str, kind: str | None, flags: int) -> None:
    def c(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _call(f"mount {target}", _libc().mount(c(source), c(target), c(kind), flags, None))


def _map_self(uid: int, gid: int) -> None:
    """In a user namespace just entered: this user and group are themselves in it."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        try:
            fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
        except OSError as exc:
            raise OSError(exc.errno, f"writing /proc/self/{name}: {exc.strerror}") from None


def _mounts_below(path: str) -> list[str]:
    """The mount points at `path` and under it (/proc/self/mountinfo), outermost first."""
    with open("/proc/self/mountinfo", "rb") as info:
        points = [_unescaped(line.split()[4]) for line in info]
    return sorted({p for p in points if p == path or p.startswith(path.rstrip("/") + "/")},
                  key=len)


def _unescaped(field: bytes) -> str:
    """A path of mountinfo, whose space, tab, newline and backslash are octal escapes."""
    first, *rest = field.split(b"\\")
    return os.fsdecode(first + b"".join(bytes([int(p[:3], 8)]) + p[3:] for p in rest))


def _read_only(path: str) -> None:
    """`path`, and every mount under it, mounted read-only over itself, each keeping the flags
    its mount has (a remount in a user namespace must not drop them)."""
    try:
        os.stat(path)
    except OSError as exc:
        raise OSError(exc.errno, f"{path}: {exc.strerror}") from None
    _mount(path, path, None, MS_BIND | MS_REC)
    for point in _mounts_below(path):
        flags = os.statvfs(point).f_flag
        kept = sum(mount for bit, mount in KEPT.items() if flags & bit)
        _mount(None, point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept)


def isolate(control: int, read_only: list[str]) -> int:
    """Enter new user, mount and PID namespaces, make `read_only` so and fork. This process
    stands in for its child and never returns; the child, the PID namespace's init, gets a
    /proc of its own and returns a directory fd of the /proc it saw before (whose pids are
    the driver's). SIGTERM stays blocked in the child until its handler is set (`main`): to
    a namespace's init, a signal without a handler is lost."""
    uid, gid = os.getuid(), os.getgid()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    _unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID)
    _map_self(uid, gid)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here shows outside
    for path in read_only:
        _read_only(path)
    before = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
    child = os.fork()
    if child:
        _stand_in(child, control)
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    # Nothing of this process is the adapter's to read: not the /proc of the driver's
    # namespace it holds (`before`), nor its memory (ptrace, /proc/1/fd).
    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _unshare(CLONE_NEWUSER | CLONE_NEWNS)  # the adapter's: the mounts above locked there
    _map_self(uid, gid)
    return before


def _stand_in(child: int, control: int) -> NoReturn:
    """The process the driver started, while its child keeps the tree: SIGTERM (the driver's
    death) is passed on to it, and this process ends as it ends."""
    os.close(control)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGTERM))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def outer_pid(before: int, inner: int) -> int:
    """The pid, as /proc open at `before` shows it, of this process's child `inner`."""
    me = int(os.readlink("self", dir_fd=before))
    for pid in _children(before).get(me, []):
        fd = os.open(f"{pid}/status", os.O_RDONLY, dir_fd=before)
        try:
            status = os.read(fd, 1 << 14).decode()
        finally:
            os.close(fd)
        nspids = next(line.split()[1:] for line in status.splitlines()
                      if line.startswith("NSpid:"))
        if int(nspids[-1]) == inner:
            return pid
    raise OSError(f"the adapter (pid {inner} in its namespace) is not below pid {me}")


def descendants() -> list[int]:
    """Every process below this one, parents before their children."""
    children = _children()
    found, todo = [], list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def signal_tree(sig: int) -> None:
    """`sig` to every descendant, each pinned by a pidfd and then seen still below this
    process (a pid taken meanwhile by another process is never signalled). Without pidfds
    (an older kernel, a seccomp policy), each is looked for once more just before its
    `os.kill`, which narrows that window without closing it."""
    pinned: dict[int, int | None] = {}
    for pid in descendants():
        try:
            pinned[pid] = _pin(pid)
        except OSError:
            continue  # gone
    try:
        below = set(descendants())
        for pid, fd in pinned.items():
            try:
                if pid in below and fd is not None:
                    signal.pidfd_send_signal(fd, sig)
                elif pid in below and pid in descendants():  # seen again, just before
                    os.kill(pid, sig)
            except OSError:
                pass  # gone since
    finally:
        for fd in pinned.values():
            if fd is not None:
                os.close(fd)


def _pin(pid: int) -> int | None:
    """A pidfd of `pid`; None where there are none (no such call, or a policy refuses it)."""
    try:
        return os.pidfd_open(pid)
    except AttributeError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EPERM):
            return None
        raise


def kill_all() -> None:
    """SIGKILL every descendant, again while any is left (one may fork between a scan and its
    signal), and reap them all: when this returns the tree is empty."""
    while True:
        signal_tree(signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                return


class Keeper:
    """The adapter's pid, the driver's socket, and what is told on it."""

    def __init__(self, control: int, adapter: int) -> None:
        self.control, self.adapter = control, adapter
        self.told_exit = False

    def tell(self, line: str) -> None:
        try:
            os.write(self.control, f"{line}\n".encode())
        except OSError:
            pass  # the driver is gone: the end comes with its socket's end of file

    def reap(self) -> None:
        """Reap every child that ended but the adapter, which is told and left a zombie."""
        for pid in _children().get(os.getpid(), []):
            try:
                if pid != self.adapter:
                    os.waitpid(pid, os.WNOHANG)
                elif not self.told_exit:
                    self._told(os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT))
            except ChildProcessError:
                pass

    def _told(self, info: os.waitid_result | None) -> None:
        if info is not None and info.si_pid:
            killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            self.tell(f"exit {-info.si_status if killed else info.si_status}")
            self.told_exit = True

    def left(self) -> list[int]:
        """The descendants still there, the adapter's zombie aside."""
        return [p for p in descendants() if p != self.adapter or not self.told_exit]

    def _heard(self) -> bool:
        """Whether the driver's socket is still open. A driver that ends with a line of ours
        unread (an `exit` told as it died) resets the socket: that is its end too."""
        try:
            return bool(os.read(self.control, 64))
        except OSError:
            return False

    def keep(self, wakeup: int) -> None:
        """Reap as children end until the driver's socket ends (or SIGTERM, and the tree has
        ended or its grace is over), then empty the tree."""
        until: float | None = None
        try:
            while until is None or time.monotonic() < until:
                left = None if until is None else max(0.0, until - time.monotonic())
                ready, _, _ = select.select([self.control, wakeup], [], [], left)
                if wakeup in ready and signal.SIGTERM in os.read(wakeup, 64) and until is None:
                    signal_tree(signal.SIGTERM)
                    until = time.monotonic() + GRACE
                self.reap()
                if self.control in ready and not self._heard():
                    break
                if until is not None and not self.left():
                    break
        finally:  # whatever ended the watch, the tree ends with it
            kill_all()


def start(control: int, argv: list[str]) -> int:
    """Fork and exec the adapter in a session of its own; its pid. A failed exec's errno is
    told to the driver, and this process ends."""
    report, told = os.pipe()  # both close on exec: the child's end tells only of a failure
    pid = os.fork()
    if pid == 0:
        os.close(report)
        os.close(control)
        os.setsid()
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(told, str(exc.errno or 0).encode())
        os._exit(127)
    os.close(told)
    failed = os.read(report, 64)
    os.close(report)
    if failed:
        os.waitpid(pid, 0)
        os.write(control, b"error " + failed + b"\n")
        os._exit(0)
    return pid


def _options(args: list[str]) -> tuple[list[str] | None, list[str]]:
    """`--isolate` and its `--read-only PATH`s (None: not isolated), and the rest of `args`."""
    if args[:1] != ["--isolate"]:
        return None, args
    read_only, args = [], args[1:]
    while args[:1] == ["--read-only"] and len(args) > 1:
        read_only.append(args[1])
        args = args[2:]
    return read_only, args


def _refusal(exc: OSError) -> str:
    """What a failed step of `--isolate` says: the step, and where user namespaces are turned
    off, the setting that does it."""
    said = str(exc.strerror or exc) if exc.filename is None else str(exc)
    try:
        with open("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") as setting:
            if setting.read().strip() == "1":
                said += " (kernel.apparmor_restrict_unprivileged_userns is 1)"
    except OSError:
        pass
    return said


def main(args: list[str]) -> None:
    read_only, args = _options(args)
    if len(args) < 2 or not args[0].isdigit():
        sys.stderr.write("usage: subreaper.py [--isolate [--read-only PATH]...] CONTROL_FD "
                         "ARGV...\n")
        os._exit(2)
    control = int(args[0])
    before = None
    if read_only is not None:
        try:
            before = isolate(control, read_only)
        except OSError as exc:
            os.write(control, f"refused {_refusal(exc)}\n".encode())
            os._exit(0)
    if not _subreaper():  # told to the kit: the adapter's stderr is the adapter's alone
        os.write(control, b"note the kernel refused PR_SET_CHILD_SUBREAPER: an orphan of the "
                          b"adapter goes to init, out of this keeper's reach\n")
    wakeup, woken = os.pipe()
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)  # the wakeup fd is what tells of it
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # blocked by `isolate`
    keeper = Keeper(control, start(control, args[1:]))
    shown = keeper.adapter
    if before is not None:
        shown = outer_pid(before, keeper.adapter)
        os.close(before)
    keeper.tell(f"pid {shown}")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the pipes are the adapter's alone: their ends tell of the adapter
        os.dup2(null, fd)
    os.close(null)
    keeper.reap()  # a SIGCHLD that came before its handler was set
    keeper.keep(wakeup)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
