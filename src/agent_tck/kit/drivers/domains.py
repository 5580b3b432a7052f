"""DDS domains claimed on this machine, so that two runs never share one.

The kit's DDS runs on loopback: every participant on this machine with the same domain id
meets every other, and a served agent of one run would take the requests of another run's
scenarios, so that two runs side by side fail requirements that each passes alone. A run's
domain ids come from its pytest-xdist worker number or its pid, which another run can have
too (two runs' `gw0`, a PID namespace's pid 2).

So a driver claims a pair of domains, the one it serves on and the one above it (the
transport scenarios' own), by a lock on a file for each in `LOCKS`, held until the last of
its process's drivers on that pair is closed. A lock of a process that ended, however it
ended, is gone with it. A default pair that another process holds gives way to the next free
one; a domain the user named (`dds:domain=N`) is that one or an error naming who holds it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path

from agent_tck.kit.errors import DriverError, UsageError

LOCKS = Path("/tmp/agent-tck-dds-domains")  # not $TMPDIR: one place for every run's claims
HIGHEST = 232  # the highest domain id (Cyclone DDS's port mapping)
LOWEST = 100  # where a default pair may move: well above the CLIs' own default, 0
_held: dict[int, int] = {}  # domain -> the descriptor whose lock this process holds
_claims: dict[int, int] = {}  # a pair's first domain -> how many drivers hold the pair
_moved: dict[int, int] = {}  # a default first domain -> the claimed one it gave way to


def claim(preferred: int, *, chosen: bool = False) -> int:
    """The first domain of a pair that this process now holds, until as many `release`s:
    `preferred` and the one above it, or, unless the user `chosen` them, the next free pair
    up (then round from `LOWEST`) that no other process holds."""
    if not chosen and preferred in _moved:
        return _take(_moved[preferred])
    starts = [preferred] if chosen else [
        *range(preferred, HIGHEST, 2), *range(LOWEST + (preferred - LOWEST) % 2, preferred, 2)]
    holder: str | None = None
    _prepare()
    for first in starts:
        new = [domain for domain in _pair(first) if domain not in _held]
        holder = next((why for domain in new if (why := _hold(domain)) is not None), None)
        if holder is None:
            if not chosen:
                _moved[preferred] = first
            return _take(first)
        for domain in new:  # half a pair is no use: what this try took goes back
            _let_go(domain)
    if chosen:
        raise UsageError(f"--impl dds: DDS domain {preferred} or {_pair(preferred)[1]} is "
                         f"taken: {holder}; name another with dds:domain=N, or leave "
                         "domain out")
    raise DriverError(f"no pair of DDS domains from {LOWEST} to {HIGHEST} is free on this "
                      f"machine: other runs hold them all ({LOCKS})")


def release(first: int) -> None:
    """One driver is done with the pair `first` starts; the last one lets its locks go."""
    _claims[first] -= 1
    if _claims[first]:
        return
    del _claims[first]
    for preferred in [p for p, moved in _moved.items() if moved == first]:
        del _moved[preferred]
    still = {domain for other in _claims for domain in _pair(other)}
    for domain in set(_pair(first)) - still:
        _let_go(domain)


def _pair(first: int) -> tuple[int, int]:
    return first, (first + 1) % (HIGHEST + 1)


def _take(first: int) -> int:
    _claims[first] = _claims.get(first, 0) + 1
    return first


def _hold(domain: int) -> str | None:
    """Take `domain`'s lock: None when this process now holds it; else who or what keeps it
    from being taken."""
    path = LOCKS / f"{domain}.lock"
    fd = _open(path)
    if isinstance(fd, str):
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        return f"{path} is held by another run ({holder or 'its pid not yet written'})"
    with contextlib.suppress(OSError):  # written where it may be: a pid says who holds it
        said = f"pid {os.getpid()}".encode()
        os.pwrite(fd, said, 0)
        os.ftruncate(fd, len(said))
    _held[domain] = fd
    return None


def _prepare() -> None:
    """`LOCKS`, made if need be, where every user's runs claim, each in files of its own
    making."""
    with contextlib.suppress(FileExistsError):
        LOCKS.mkdir(mode=0o777, parents=True)
        LOCKS.chmod(0o1777)
    if LOCKS.is_symlink() or not LOCKS.is_dir():
        raise DriverError(f"cannot claim DDS domains: {LOCKS} is not a folder")


def _open(path: Path) -> int | str:
    """A descriptor of the lock file at `path`, made if need be (readable by every user's run,
    writable by all where they may), or why it is not one to use. Never blocks: a named pipe
    there is opened without waiting for a writer, then passed over."""
    create = os.O_RDWR | os.O_CREAT | os.O_EXCL
    # another user's file is locked read-only; one made by another run between the tries to
    # open it and to make it is opened after all
    for flags in (os.O_RDWR, os.O_RDONLY, create, os.O_RDWR, os.O_RDONLY):
        try:
            fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
        except (FileNotFoundError, FileExistsError):
            continue
        except PermissionError:
            if flags & os.O_CREAT:
                raise DriverError(f"cannot claim DDS domains: {LOCKS} is not writable") \
                    from None
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{path} is a symbolic link, not a lock file"
            raise DriverError(f"cannot claim DDS domain by {path}: {exc}") from None
        if flags & os.O_CREAT:
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o666)  # the umask would keep other users' runs from writing
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return f"{path} is not a regular file"
        return fd
    return f"{path} cannot be opened"


def _let_go(domain: int) -> None:
    fd = _held.pop(domain, None)
    if fd is not None:
        os.close(fd)  # the lock goes with the last descriptor of its open file
