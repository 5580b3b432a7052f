"""The fork server of served agents: a forked child is what a new `python -m` process would be."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tck.kit.drivers import forkserve
from agent_tck.kit.drivers.base import until
from agent_tck.kit.drivers.dds import DdsDriver
from agent_tck.kit.errors import DriverError, UsageError
from agent_tck.kit.observe import process_state

PROBE = """\
import json, os, signal, sys, time
while os.environ.get("GATE") and not os.path.exists(os.environ["GATE"]):
    time.sleep(0.01)
if sys.argv[1] == "deaf":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if sys.argv[1] in ("sleep", "deaf"):
    time.sleep(60)
if sys.argv[1] == "raise":
    raise RuntimeError("the probe failed")
print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "x": os.environ.get("X"),
                  "ppid": os.getppid(), "stdin": sys.stdin.read(),
                  "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))}), flush=True)
sys.stderr.write("to stderr\\n")
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "forkprobe.py").write_text(PROBE)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


@pytest.fixture
def server(tmp_path: Path, env: dict[str, str]) -> Iterator[forkserve.ForkServer]:
    started = forkserve.ForkServer(["json"], str(tmp_path), env)
    yield started
    started.close()


def probe(server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str], arg: str,
          stderr: Path | None = None) -> forkserve.Forked:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return server.spawn([sys.executable, "-m", "forkprobe", arg], str(work), {**env, "X": arg},
                        tmp_path / "out", stderr)


def test_a_child_runs_its_module_with_its_own_arguments_directory_environment_and_output(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    child = probe(server, tmp_path, env, "3", stderr=tmp_path / "err")
    assert child.wait(30) == 3
    seen = json.loads((tmp_path / "out").read_text())
    assert seen["argv"] == ["3"] and seen["x"] == "3"
    assert seen["cwd"] == str(tmp_path / "work")
    assert seen["ppid"] == server.proc.pid
    assert seen["stdin"] == ""  # /dev/null, not the server's requests
    assert len(seen["fds"]) == 4  # 0, 1, 2 and the listing's own: nothing of the server's
    assert (tmp_path / "err").read_text() == "to stderr\n"


def test_without_a_file_of_its_own_stderr_goes_with_stdout(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    assert probe(server, tmp_path, env, "0").wait(30) == 0
    assert (tmp_path / "out").read_text().endswith("to stderr\n")


def test_an_exception_ends_a_child_as_it_ends_python(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    assert probe(server, tmp_path, env, "raise").wait(30) == 1
    assert "RuntimeError: the probe failed" in (tmp_path / "out").read_text()
    assert probe(server, tmp_path, env, "5").wait(30) == 5  # the server serves on


def test_a_signalled_child_reports_the_signal_as_popen_does(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    child = probe(server, tmp_path, env, "sleep")
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.2)
    assert child.poll() is None
    child.send_signal(signal.SIGTERM)
    assert child.wait(30) == -signal.SIGTERM
    child.kill()  # ended and reaped: nothing is signalled, whoever has its pid now
    assert child.returncode == -signal.SIGTERM


def test_closed_the_server_ends_and_takes_its_children_along(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    child = probe(server, tmp_path, env, "sleep")
    server.close()
    assert server.proc.returncode == 0

    # its parent-death signal ended it (whoever adopted it may not have reaped it yet)
    assert until(lambda: process_state(child.pid) in (None, "Z"), 10.0)


def test_an_environment_that_changes_the_interpreters_start_is_not_forked(
        server: forkserve.ForkServer, env: dict[str, str]) -> None:
    argv = [sys.executable, "-m", "forkprobe"]
    assert server.fits(argv, {**env, "X": "anything"})
    for name in ("PYTHONPATH", "PYTHONHASHSEED", "LANG", "LC_ALL", "LD_PRELOAD",
                 "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "TZ", "HOME", "CYCLONEDDS_HOME"):
        assert not server.fits(argv, {**env, name: "/elsewhere"}), name


@pytest.mark.parametrize("what", ["a long argument", "a long variable", "a large environment",
                                  "a NUL", "a name with ="])
def test_what_exec_would_refuse_is_not_forked(server: forkserve.ForkServer,
                                              env: dict[str, str], what: str) -> None:
    """A new process would fail to start (E2BIG, or Popen's ValueError): so must this one."""
    argv = [sys.executable, "-m", "forkprobe"]
    args, extra = [], {}
    if what == "a long argument":
        args = ["x" * forkserve.MAX_ARG_STRLEN]
    elif what == "a long variable":
        extra = {"X": "x" * forkserve.MAX_ARG_STRLEN}
    elif what == "a large environment":
        extra = {f"X{i}": "x" * 60_000 for i in range(os.sysconf("SC_ARG_MAX") // 60_000 + 1)}
    elif what == "a NUL":
        extra = {"X": "a\0b"}
    else:
        extra = {"X=Y": "1"}
    assert server.fits([*argv, "x" * (forkserve.MAX_ARG_STRLEN - 1)], env)  # just fits
    assert not server.fits([*argv, *args], {**env, **extra})
    with pytest.raises((OSError, ValueError)) as raised:
        subprocess.run([*argv, *args], env={**env, **extra}, check=False)
    assert not isinstance(raised.value, OSError) or raised.value.errno == errno.E2BIG


def test_an_ended_child_keeps_its_pid_until_its_end_is_seen(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    """As Popen's: a zombie until `poll` sees it, so a signal sent by pid reaches no other."""
    child = probe(server, tmp_path, env, "4")
    assert until(lambda: process_state(child.pid) in (None, "Z"), 30.0)
    assert process_state(child.pid) == "Z"
    assert child.wait(30) == 4  # (the server may say so a moment after it is a zombie)
    assert until(lambda: process_state(child.pid) is None, 10.0)


def test_a_server_that_died_ends_its_children_and_forks_no_more(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    """Its children had its death as a signal (SIGTERM); one that ignores it is killed, so
    nothing is left running, and a poll never raises."""
    child = probe(server, tmp_path, env, "sleep")
    deaf = probe(server, tmp_path, env, "deaf")
    assert until(lambda: "SigIgn" in _signals(deaf.pid), 30.0)
    server.proc.kill()
    assert child.wait(30) == -signal.SIGTERM
    assert deaf.wait(30) == -signal.SIGKILL
    assert child.poll() == -signal.SIGTERM
    for pid in (child.pid, deaf.pid):  # gone, or a zombie for its new parent to reap
        assert process_state(pid) in (None, "Z")
    deaf.kill()  # ended: nothing is signalled
    assert not server.fits([sys.executable, "-m", "forkprobe"], env)
    with pytest.raises(DriverError, match="fork server of served agents ended"):
        probe(server, tmp_path, env, "0")


def _signals(pid: int) -> str:
    """Its ignored signals' line of /proc/PID/status, when SIGTERM is among them."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:") and int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
            return line
    return ""


def test_a_closed_server_reports_the_codes_it_had_said(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    """An end that came before the server was closed is that child's code, not the
    parent-death signal of those still running, even when the server reads its stdin's end
    before the SIGCHLD of that child (under load, it said -SIGTERM for both)."""
    gate = tmp_path / "gate"
    ended = probe(server, tmp_path, {**env, "GATE": str(gate)}, "3")
    running = probe(server, tmp_path, env, "sleep")
    os.kill(server.proc.pid, signal.SIGSTOP)  # so that its stdin's end comes first
    try:
        gate.touch()
        assert until(lambda: process_state(ended.pid) == "Z", 30.0)
        assert server.proc.stdin is not None
        server.proc.stdin.close()
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    server.close()
    assert (ended.poll(), running.poll()) == (3, -signal.SIGTERM)


@pytest.mark.parametrize("where", ["cwd", "stdout", "stderr"])
def test_a_directory_or_output_that_cannot_be_opened_raises_as_popen_does(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str], where: str) -> None:
    missing = tmp_path / "missing" / "x"
    paths = {"cwd": str(tmp_path), "stdout": tmp_path / "out", "stderr": tmp_path / "err",
             where: missing}
    with pytest.raises(FileNotFoundError) as raised:
        server.spawn([sys.executable, "-m", "forkprobe", "0"], str(paths["cwd"]), env,
                     Path(paths["stdout"]), Path(paths["stderr"]))
    assert raised.value.filename == str(missing)
    assert probe(server, tmp_path, env, "6").wait(30) == 6  # the server serves on


def test_a_module_finds_modules_in_its_own_directory_as_python_m_does(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.py").write_text("import sys; print(sys.path[0]); sys.exit(9)")
    child = server.spawn([sys.executable, "-m", "mine"], str(work), env, tmp_path / "out", None)
    assert child.wait(30) == 9
    assert (tmp_path / "out").read_text() == f"{work}\n"


def test_a_forked_process_lets_go_of_its_parents_servers(
        server: forkserve.ForkServer, tmp_path: Path, env: dict[str, str]) -> None:
    """A process forked from the suite (a test runner that forks per test): its copies of the
    pipes go to /dev/null (what it writes reaches no server of its parent's), and it starts
    servers of its own."""
    before = dict(forkserve._SHARED)
    mine = forkserve.shared(["json"], str(tmp_path), env)
    try:
        pid = os.fork()
        if pid == 0:
            null = os.stat(os.devnull).st_rdev
            ok = (not forkserve._SHARED and mine in forkserve._FORGOTTEN
                  and all(os.fstat(fd).st_rdev == null and not os.get_inheritable(fd)
                          for fd in mine.fds()))
            os._exit(0 if ok else 1)
        assert os.waitpid(pid, 0)[1] == 0
        assert forkserve._SHARED.get(next(iter(set(forkserve._SHARED) - set(before)))) is mine
        assert probe(mine, tmp_path, env, "2").wait(30) == 2  # the parent's still serves
    finally:
        for key in set(forkserve._SHARED) - set(before):
            forkserve._SHARED.pop(key).close()


def test_one_server_per_process_preload_and_directory(tmp_path: Path, env: dict[str, str],
                                                      ) -> None:
    before = dict(forkserve._SHARED)  # other tests' servers, left alone
    try:
        first = forkserve.shared(["json"], str(tmp_path), env)
        assert forkserve.shared(["json"], str(tmp_path), {**env, "X": "1"}) is first
        assert forkserve.shared(["json"], str(tmp_path / ".."), env) is not first
    finally:
        for key in set(forkserve._SHARED) - set(before):
            forkserve._SHARED.pop(key).close()


@pytest.mark.parametrize(("options", "forked"), [("", True), ("fork=off", False)])
def test_the_driver_starts_a_served_agent_from_its_fork_server(options: str,
                                                               forked: bool) -> None:
    pytest.importorskip("cyclonedds")
    driver = DdsDriver(options)
    try:
        name, _ = driver.agent_create({"backend": "claude"})
        parent = int(Path(f"/proc/{driver.pid(name)}/stat").read_text().rsplit(")", 1)[1]
                     .split()[1])
        servers = {server.proc.pid for server in forkserve._SHARED.values()}
        assert (parent in servers) is forked
        assert (parent == os.getpid()) is not forked
    finally:
        driver.close()


def test_the_fork_option_is_on_or_off() -> None:
    with pytest.raises(UsageError, match="fork must be on or off, got 'maybe'"):
        DdsDriver("fork=maybe")


def test_fork_on_needs_a_command_this_python_runs() -> None:
    with pytest.raises(UsageError, match=r"fork=on needs a serve command run by .*'my-agent'"):
        DdsDriver("serve=my-agent serve;fork=on")
    with pytest.raises(UsageError, match="fork=on needs"):
        DdsDriver(f"serve={sys.executable} -c pass;fork=on")


def test_another_name_for_this_python_in_its_own_folder_is_this_python(tmp_path: Path) -> None:
    """A virtual environment's `python` and `python3` are one interpreter in one environment:
    either can be forked from the other's server, named as given or from the current folder.
    The same interpreter linked from another folder may be another environment (a venv's
    `python` is a link to its base interpreter, whose packages are not the venv's): refused."""
    this = Path(sys.executable)
    siblings = [this.with_name(n) for n in ("python", "python3", f"python3.{sys.version_info[1]}")
                if n != this.name and this.with_name(n).exists()
                and this.with_name(n).resolve() == this.resolve()]  # not another Python
    assert siblings, f"no other name for {this} in its folder"
    for sibling in siblings:
        assert forkserve.forkable([str(sibling), "-m", "agent_tck.reference.dds", "serve"])
        assert forkserve.forkable([os.path.relpath(sibling), "agent.py"])
    elsewhere = tmp_path / this.name
    elsewhere.symlink_to(this.resolve())
    assert not forkserve.forkable([str(elsewhere), "agent.py"])
    assert not forkserve.forkable([str(tmp_path / "absent"), "agent.py"])


def test_without_pidfds_the_driver_does_not_fork_served_agents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel without pidfds cannot keep a forked child in sight once its server is gone
    (tests/test_fallback.py runs a whole run there)."""
    pytest.importorskip("cyclonedds")
    monkeypatch.delattr(os, "pidfd_open")
    forkserve.supported.cache_clear()
    try:
        with pytest.raises(UsageError, match=r"fork=on needs pidfds \(Linux 5.3 or newer\)"):
            DdsDriver("fork=on")
        driver = DdsDriver("")
        try:
            assert driver.forks is False
        finally:
            driver.close()
    finally:
        forkserve.supported.cache_clear()


def test_a_script_runs_as_python_runs_it(server: forkserve.ForkServer, tmp_path: Path,
                                         env: dict[str, str]) -> None:
    script = tmp_path / "bin" / "probe.py"
    script.parent.mkdir()
    script.write_text("import sys; print(sys.argv, sys.path[0]); sys.exit(7)")
    child = server.spawn([sys.executable, str(script), "a"], str(tmp_path), env,
                         tmp_path / "out", None)
    assert child.wait(30) == 7
    assert (tmp_path / "out").read_text() == f"{[str(script), 'a']} {script.parent}\n"


@pytest.mark.parametrize(("options", "forks"), [
    ("", True), ("fork=off", False),
    (f"serve={sys.executable} -m agent_tck.reference.dds serve", True),
    (f"serve={sys.executable} tests/miniatures/dds.py twice serve", False),
    (f"serve={sys.executable} tests/miniatures/dds.py twice serve;fork=on", True),
])
def test_the_references_own_command_is_forked_and_another_when_told(options: str,
                                                                     forks: bool) -> None:
    driver = DdsDriver(options)
    try:
        assert driver.forks is forks
    finally:
        driver.close()


def test_a_safe_path_is_left_as_python_m_leaves_it(tmp_path: Path, env: dict[str, str]) -> None:
    """With PYTHONSAFEPATH, `python -m` puts no directory of its own first on the path: the
    first is PYTHONPATH's, here where the module is."""
    safe = {**env, "PYTHONSAFEPATH": "1"}
    server = forkserve.ForkServer(["json"], str(tmp_path), safe)
    try:
        assert probe(server, tmp_path, safe, "8").wait(30) == 8
    finally:
        server.close()
