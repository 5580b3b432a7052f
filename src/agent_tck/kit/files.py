"""Files whole, both ways. Written through a temporary file in the same folder and a rename,
so a reader (a person, a harness reading its script, a CI job) never sees a partial file. Read,
when the user names them (a baseline, a report, a manifest, a seed document), as regular files
only and up to a bound: a named pipe would block the kit for ever, `/dev/zero` would fill its
memory, and a log the size of the disk would take minutes to be refused."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from agent_tck.kit.errors import UsageError
from agent_tck.kit.text import well_formed

# What a path is when it is not a regular file, for the error that names it.
KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISSOCK, "a socket"))


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path`, making its folder; the file gets the usual
    mode (0666 less the umask); on any failure the temporary file is removed. A lone
    surrogate in text (which UTF-8 cannot encode) is written as U+FFFD: a report is never
    lost to one character of someone else's evidence."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(well_formed(data).encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; anything else is a
    UsageError naming the `what` and the path. Read one byte past the bound, so a file that
    holds more than its size said (one that grows, or one of /proc) is refused without
    reading the rest."""
    name = f"{what} {path}"
    try:
        data = _read_regular(path, limit, name)
    except OSError as exc:
        raise UsageError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise UsageError(f"{name}: over the limit of {limit} bytes")
    return data


def _read_regular(path: Path, limit: int, name: str) -> bytes:
    """Up to `limit` + 1 bytes of `path`. Opened without blocking (a named pipe with no writer
    would hold the open itself), and judged by what the opened file is, not by what the path
    was a moment before."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _check(os.fstat(fd), limit, name)
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read(limit + 1)
    finally:
        os.close(fd)


def _check(info: os.stat_result, limit: int, name: str) -> None:
    """Refuse, naming the file (`name`), what is not a regular file of at most `limit`
    bytes."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((kind for test, kind in KINDS if test(info.st_mode)), "a special file")
        raise UsageError(f"{name}: is {kind}, not a file")
    if info.st_size > limit:
        raise UsageError(f"{name}: {info.st_size} bytes, over the limit of {limit}")
