"""Files the user names on the command line: a baseline, JSON reports, a manifest, seed
documents. A named pipe would block the read for ever and `/dev/zero` never end; each reader
refuses anything but a regular file, unread, and reads at most its bound (docs/security.md):
exit 2 with one line naming the file, at once."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tck.kit import plainyaml, reports
from agent_tck.kit.cli import main
from agent_tck.kit.errors import UsageError
from agent_tck.kit.files import read_bounded
from agent_tck.kit.gherkin import MAX_SOURCE_BYTES

# A regression waits on a pipe no one writes to: the bound fails it instead of the suite.
pytestmark = pytest.mark.timeout(30)

# Each reader: the words its error names the file with, its bound, and its command line.
READERS: dict[str, tuple[str, int, Callable[[str, Path], list[str]]]] = {
    "run --baseline": ("baseline", plainyaml.MAX_BYTES,
                       lambda p, out: ["run", "--component", "runner", "--baseline", p]),
    "report": ("report", reports.MAX_REPORT_BYTES, lambda p, out: ["report", p]),
    "gherkin --manifest": ("manifest", plainyaml.MAX_BYTES,
                           lambda p, out: ["gherkin", "--manifest", p, "--out", str(out)]),
    "gherkin SRC": ("source", MAX_SOURCE_BYTES,
                    lambda p, out: ["gherkin", p, "--id-prefix", "X", "--out", str(out)]),
}


def refused(reader: str, path: Path, tmp_path: Path) -> str:
    """What `reader` says of `path`: it must exit 2 with one line."""
    _, _, argv = READERS[reader]
    out, err = io.StringIO(), io.StringIO()
    code = main(argv(str(path), tmp_path / "out"), out, err)
    assert (code, out.getvalue()) == (2, ""), err.getvalue()
    assert err.getvalue().count("\n") == 1, err.getvalue()
    return err.getvalue()


@pytest.mark.parametrize("reader", READERS)
def test_a_named_pipe_is_refused_unread(reader: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    what = READERS[reader][0]
    assert refused(reader, fifo, tmp_path) == (
        f"agent-tck: error: {what} {fifo}: is a named pipe (FIFO), not a file\n")


@pytest.mark.parametrize("reader", READERS)
def test_a_device_is_refused_unread(reader: str, tmp_path: Path) -> None:
    what = READERS[reader][0]
    assert refused(reader, Path("/dev/zero"), tmp_path) == (
        f"agent-tck: error: {what} /dev/zero: is a character device, not a file\n")


@pytest.mark.parametrize("reader", READERS)
def test_a_directory_is_refused(reader: str, tmp_path: Path) -> None:
    what = READERS[reader][0]
    assert refused(reader, tmp_path, tmp_path) == (
        f"agent-tck: error: {what} {tmp_path}: is a directory, not a file\n")


@pytest.mark.parametrize("reader", READERS)
def test_a_file_over_the_bound_is_refused_unread(reader: str, tmp_path: Path) -> None:
    """A sparse file: one byte over the bound, which costs no disk and would take a second
    to read."""
    what, bound, _ = READERS[reader]
    big = tmp_path / "big"
    with big.open("wb") as sparse:
        sparse.truncate(bound + 1)
    assert refused(reader, big, tmp_path) == (
        f"agent-tck: error: {what} {big}: {bound + 1} bytes, over the limit of {bound}\n")


def test_a_file_is_read_up_to_its_bound_and_no_further(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"12345")
    assert read_bounded(path, 5, "thing") == b"12345"
    with pytest.raises(UsageError) as caught:
        read_bounded(path, 4, "thing")
    assert str(caught.value) == f"thing {path}: 5 bytes, over the limit of 4"


def test_a_file_that_holds_more_than_its_size_says_is_read_to_its_bound_only() -> None:
    """What the file holds, not what it said it held when opened (one that grows while it is
    read; /proc's files say 0 bytes and hold more)."""
    status = Path("/proc/self/status")
    with pytest.raises(UsageError) as caught:
        read_bounded(status, 10, "thing")
    assert str(caught.value) == f"thing {status}: over the limit of 10 bytes"


def test_a_missing_file_says_why_it_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        read_bounded(tmp_path / "nope", 10, "thing")
    assert str(caught.value) == f"thing {tmp_path / 'nope'}: cannot read: No such file or directory"
