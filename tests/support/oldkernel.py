"""Run a command as on a kernel without pidfds or child subreapers: Linux before 5.3 (pidfds)
and 3.4 (subreapers), or a container whose seccomp policy refuses them. A seccomp filter,
which every process the command starts inherits (the kit, the implementation, the fake CLIs,
the reference's reaper), fails `pidfd_open` and `pidfd_send_signal` with ENOSYS as such a
kernel does, the SO_PEERPIDFD socket option (Linux 6.5) with ENOPROTOOPT, and
prctl(PR_SET_CHILD_SUBREAPER) with EINVAL.

    python -m tests.support.oldkernel COMMAND [ARGS...]

For a test in one process: `refusing` (an os.pidfd_open that fails so) and `sleeper` (a child
to signal).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator

PR_SET_CHILD_SUBREAPER = 36
SO_PEERPIDFD = 77


def refuse() -> None:
    """Load the filter into this process (and so every process it starts)."""
    import pyseccomp as seccomp  # Linux alone, with libseccomp

    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for call in ("pidfd_open", "pidfd_send_signal"):
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), call)
    rules.add_rule(seccomp.ERRNO(errno.EINVAL), "prctl",
                   seccomp.Arg(0, seccomp.EQ, PR_SET_CHILD_SUBREAPER))
    rules.add_rule(seccomp.ERRNO(errno.ENOPROTOOPT), "getsockopt",
                   seccomp.Arg(1, seccomp.EQ, socket.SOL_SOCKET),
                   seccomp.Arg(2, seccomp.EQ, SO_PEERPIDFD))
    rules.load()


def refusing(number: int) -> Callable[[int], int]:
    """An os.pidfd_open that fails with `number` (ENOSYS: a kernel before 5.3; EPERM: a
    container's seccomp policy, as Docker's default is for calls it does not know)."""
    def pidfd_open(pid: int) -> int:
        raise OSError(number, os.strerror(number))

    return pidfd_open


@contextlib.contextmanager
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A child that sleeps until it is signalled, killed and reaped after the block."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    refuse()
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
