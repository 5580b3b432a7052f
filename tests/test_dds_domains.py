"""Two runs on one machine never share a DDS domain: a driver claims its pair by a lock held
until it is closed (kit/drivers/domains.py). Each test claims in a lock folder of its own, so
neither this session's runs nor other tests take part."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_tck.kit.drivers import domains
from agent_tck.kit.errors import DriverError, UsageError
from tests.support.dds import domain

HOLDS = ("import sys; from pathlib import Path; from agent_tck.kit.drivers import domains; "
         "domains.LOCKS = Path(sys.argv[1]); "
         "print(*[domains.claim(int(d), chosen=True) for d in sys.argv[2:]], flush=True); "
         "sys.stdin.read()")


@pytest.fixture(autouse=True)
def locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A lock folder of the test's own, and nothing claimed yet in this process."""
    folder = tmp_path / "locks"
    monkeypatch.setattr(domains, "LOCKS", folder)
    for name in ("_held", "_claims", "_moved"):
        monkeypatch.setattr(domains, name, {})
    yield folder
    for fd in domains._held.values():
        os.close(fd)


@contextmanager
def held_elsewhere(folder: Path, *firsts: int) -> Iterator[int]:
    """Another process that holds the pairs from each of `firsts` until the block ends; its
    pid."""
    other = subprocess.Popen([sys.executable, "-c", HOLDS, str(folder), *map(str, firsts)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().split() == \
            [str(f) for f in firsts]
        yield other.pid
    finally:
        other.communicate(timeout=30)  # its stdin closed: it ends, and its locks with it


def test_a_pair_another_run_holds_gives_way_to_the_next_free_pair(locks: Path) -> None:
    with held_elsewhere(locks, 150, 153):
        assert domains.claim(150) == 156  # the pairs from 152 and 154 each take a held one
        assert domains.claim(150) == 156  # the same pair for the run's every driver
        assert sorted(domains._held) == [156, 157]
        domains.release(156)
        assert sorted(domains._held) == [156, 157]  # one driver still holds it
        domains.release(156)
        assert domains._held == {} and domains._moved == {}
    assert domains.claim(150) == 150  # the other run ended, and its locks with it


def test_the_search_goes_round_from_the_lowest_pair_and_reaches_the_highest(
        locks: Path) -> None:
    with held_elsewhere(locks, 229):
        assert domains.claim(229) == 231  # 231 and 232
    domains.release(231)
    with held_elsewhere(locks, 231, 101):
        assert domains.claim(231) == 103  # round, keeping to odd first domains


def test_a_domain_the_user_named_that_another_run_holds_is_an_error_naming_it(
        locks: Path) -> None:
    with held_elsewhere(locks, 160) as pid, pytest.raises(UsageError) as refused:
        domains.claim(161, chosen=True)
    assert str(refused.value) == (
        f"--impl dds: DDS domain 161 or 162 is taken: {locks / '161.lock'} is held by another "
        f"run (pid {pid}); name another with dds:domain=N, or leave domain out")
    assert domains._held == {}  # 162, taken on the way, went back


def test_with_every_pair_held_the_driver_says_so(locks: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domains, "LOWEST", 150)
    monkeypatch.setattr(domains, "HIGHEST", 153)
    with held_elsewhere(locks, 150, 152), pytest.raises(DriverError) as refused:
        domains.claim(150)
    assert str(refused.value) == ("no pair of DDS domains from 150 to 153 is free on this "
                                  f"machine: other runs hold them all ({locks})")


def test_a_lock_file_that_is_a_link_is_passed_over_and_never_written(locks: Path,
                                                                     tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    locks.mkdir()
    (locks / "171.lock").symlink_to(victim)
    assert domains.claim(170) == 172
    with pytest.raises(UsageError, match=r"171\.lock is a symbolic link, not a lock file"):
        domains.claim(171, chosen=True)
    assert victim.read_text() == "keep me"


def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file another user's, which this user may read and not write (faked: root may
    write any)."""
    opened = os.open

    def another_users(path: str, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_RDWR:
            raise PermissionError(13, "Permission denied", path)
        return opened(path, flags, mode)

    monkeypatch.setattr(os, "open", another_users)


def test_a_named_pipe_at_a_lock_path_the_run_may_only_read_is_passed_over(
        locks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened read-only, a FIFO would wait for a writer that never comes."""
    locks.mkdir()
    os.mkfifo(locks / "190.lock")
    (locks / "191.lock").write_text("")
    read_only(monkeypatch)
    with pytest.raises(UsageError, match=r"190\.lock is not a regular file"):
        domains.claim(190, chosen=True)


def test_a_lock_file_the_run_may_only_read_still_locks(
        locks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locks.mkdir()
    (locks / "180.lock").write_text("")
    (locks / "181.lock").write_text("")
    read_only(monkeypatch)
    assert domains.claim(180, chosen=True) == 180
    other = subprocess.run([sys.executable, "-c", HOLDS, str(locks), "180"], input="",
                           capture_output=True, text=True, timeout=60, check=False)
    assert other.returncode == 1, other.stdout
    assert "180.lock is held by another run (its pid not yet written)" in other.stderr


def test_a_lock_folder_that_is_not_one_is_an_error_naming_it(locks: Path) -> None:
    locks.write_text("")
    with pytest.raises(DriverError) as refused:
        domains.claim(150)
    assert str(refused.value) == f"cannot claim DDS domains: {locks} is not a folder"


def test_the_driver_serves_on_the_pair_it_claimed_and_lets_it_go_when_closed(
        locks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cyclonedds")
    from agent_tck.kit.drivers import dds

    taken = domain(6)  # in the test's own lock folder only; the driver moves to offset 8
    monkeypatch.setattr(dds, "default_domain", lambda: taken)
    with held_elsewhere(locks, taken):
        driver = dds.DdsDriver()
        try:
            assert (driver.domain, driver.wire.domain) == (domain(8), domain(8))
            with pytest.raises(DriverError, match="parses no line"):  # no backends component
                driver.parse_line("claude", "{}")
        finally:
            driver.close()
        assert domains._held == {}
        with pytest.raises(UsageError, match=f"DDS domain {taken} or {taken + 1} is taken"):
            dds.DdsDriver(f"domain={taken}")
        with pytest.raises(UsageError, match="fork must be on or off"):
            dds.DdsDriver("fork=maybe")
        assert domains._held == {}  # refused before it joined a domain: nothing claimed


def test_a_slot_of_the_tests_that_another_run_holds_gives_way_to_the_next_free_one(
        locks: Path) -> None:
    """The DDS tests' own slots (tests/support/dds.py): a process whose slot another run of
    the tests holds a domain of (a second CI job's worker of the same number) takes the next
    slot whose domains are all free, and keeps none of the one it left."""
    from tests.support import dds

    held = dds._base(3) + 4  # the third pair of slot 3
    with held_elsewhere(locks, held):
        assert dds._claim_a_slot(3) == dds._base(4)
        assert sorted(domains._held) == list(range(dds._base(4), dds._base(4) + dds.PER_SLOT))
    with held_elsewhere(locks, dds._base(15)), held_elsewhere(locks, dds._base(0)):
        assert dds._claim_a_slot(15) == dds._base(1)  # round from the first slot
