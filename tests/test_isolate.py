"""`agent-tck run --isolate`: an adapter in user, mount and PID namespaces of its own.

What the judged implementation must not reach is tried from inside, by an adapter that tries:
the kit's processes (to signal them), the kit's installation (to write to it), and a process
that outlives it. The conformance scenarios whose evidence is pids (a CLI's tree, its signals,
its reaping) run isolated and pass, through the switchboard's translation of the pids a
harness notes in its namespace.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agent_tck.doubles.harness import switchboard
from agent_tck.kit import run
from agent_tck.kit.cli import main
from agent_tck.kit.drivers import make_driver
from agent_tck.kit.drivers.stdio import AdapterProcess, adapter_environment, kept_from_adapters
from agent_tck.kit.errors import UsageError


def _namespaces_refused() -> str | None:
    """Why this machine gives no user and PID namespaces, or None when it does."""
    if shutil.which("unshare") is None:
        return "no unshare (util-linux) here"
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork",
                           "true"], capture_output=True, text=True, check=False)
    return None if done.returncode == 0 else f"no user namespaces here: {done.stderr.strip()}"


pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(bool(_namespaces_refused()), reason=str(_namespaces_refused()))]

# An adapter that does what a hostile one would, one line per request, and says what came of it.
PROBE = """
import ctypes, json, os, subprocess, sys
for line in sys.stdin:
    ask = json.loads(line)
    said = {"pid": os.getpid()}
    try:
        os.kill(ask["kill"], 0)
        said["kill"] = "sent"
    except OSError as exc:
        said["kill"] = exc.strerror
    try:
        with open(ask["write"], "x"):
            said["write"] = "written"
    except OSError as exc:
        said["write"] = exc.strerror
    # The read-only mount made writable again, by the mount(2) call itself.
    libc = ctypes.CDLL(None, use_errno=True)
    done = libc.mount(None, ask["dir"].encode(), None, 32 | 4096, None)  # MS_REMOUNT|MS_BIND
    said["remount"] = "remounted" if done == 0 else os.strerror(ctypes.get_errno())
    # A process in a session of its own whose parent exits: nothing the adapter ends reaches it.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "300"])
        os._exit(0)
    os.wait()
    print(json.dumps(said), flush=True)
"""


def isolated_probe(tmp_path: Path) -> AdapterProcess:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    return AdapterProcess([sys.executable, str(script)], str(tmp_path), isolate=True)


def in_namespace(namespace: int) -> list[int]:
    """The pids of the processes whose PID namespace is `namespace` (an inode)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{name}/ns/pid").st_ino == namespace:
                found.append(int(name))
        except OSError:
            continue  # gone
    return found


def test_an_isolated_adapter_reaches_no_process_of_the_kit_nor_its_installation(
        tmp_path: Path) -> None:
    kit_dir = kept_from_adapters(str(tmp_path))[0]
    target = kit_dir / f"written-by-an-adapter-{uuid.uuid4().hex}"
    process = isolated_probe(tmp_path)
    try:
        process.send({"kill": os.getpid(), "write": str(target), "dir": str(kit_dir)})
        said = json.loads(process.receive(60))
        namespace = os.stat(f"/proc/{process.pid}/ns/pid").st_ino
    finally:
        process.stop(grace=0)
        target.unlink(missing_ok=True)
    assert said["kill"] == "No such process", said  # the kit's own pid names nothing there
    assert said["write"] == "Read-only file system", said
    assert said["remount"] == "Operation not permitted", said  # locked where the adapter is
    assert said["pid"] != process.pid, "the adapter is not in a PID namespace of its own"
    assert namespace != os.stat("/proc/self/ns/pid").st_ino
    assert in_namespace(namespace) == [], "a process of the adapter's namespace outlived it"


def test_the_driver_is_given_the_adapter_pid_as_the_kit_sees_it(tmp_path: Path) -> None:
    process = isolated_probe(tmp_path)
    try:
        with open(f"/proc/{process.pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")[:-1]
    finally:
        process.stop(grace=0)
    assert argv == [os.fsencode(sys.executable), os.fsencode(tmp_path / "probe.py")]


def test_a_machine_that_refuses_the_namespaces_refuses_isolate_by_name(tmp_path: Path) -> None:
    """A step the kernel refuses (here: a read-only mount of a path that does not exist)
    stops the run before any scenario, saying what was refused."""
    missing = tmp_path / "missing"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agent_tck.kit.drivers.stdio.kept_from_adapters", lambda _: [missing])
        with pytest.raises(UsageError, match=rf"--isolate: .*refuses.*{missing}: No such file"):
            AdapterProcess([sys.executable, "-c", "pass"], str(tmp_path), isolate=True)


@pytest.mark.parametrize("impl", ["reference", "python:tests.miniatures.agent:Clean", "dds"])
def test_isolate_needs_an_adapter_command(impl: str) -> None:
    with pytest.raises(UsageError, match=f"--isolate needs an adapter command.*{impl!r}"):
        make_driver(impl, isolate=True)


def test_the_scenarios_of_a_cli_tree_pass_isolated(tmp_path: Path) -> None:
    """AG-D6: the CLI's tree, its signals and its reaping, judged by pids the harnesses
    noted in the adapter's namespace: each is translated to the kit's, or they would fail."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", "--isolate", "--impl", f"{sys.executable} -m agent_tck.reference.adapter",
                 "--component", "agent", "--req", "AG-D6*", "--json", str(tmp_path / "r.json")],
                out, err)
    report = json.loads((tmp_path / "r.json").read_text())
    verdicts = {r["id"]: r["verdict"] for r in report["requirements"]
                if r["id"].startswith("AG-D6")}
    assert code == 0, out.getvalue() + err.getvalue()
    assert set(verdicts.values()) == {"passed"}, verdicts


NOTER = """
import os, subprocess, sys
sleeper = subprocess.Popen(["sleep", "60"])
print(os.getpid(), sleeper.pid, flush=True)
sys.stdin.readline()
"""


def _outer_of(inner: int, marker: str) -> int:
    """The pid, here, of the process whose command line holds `marker` and whose pid in its
    own namespace is `inner`."""
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and switchboard._nspids(int(name))[-1:] == [inner]:
            return int(name)
    raise LookupError(f"no process {inner} with {marker!r}")


def test_pids_a_harness_notes_in_its_namespace_are_translated_after_it_ended(
        tmp_path: Path) -> None:
    """A harness notes its grandchild and ends before the entry is read: the grandchild's pid
    is still translated, by the namespace the harness had, to this process's pid of it."""
    marker = f"noter-{uuid.uuid4().hex}"
    script = tmp_path / f"{marker}.py"
    script.write_text(NOTER)
    argv = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "sh",
            "-c", f'"{sys.executable}" "{script}"; sleep 60']
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as init:
        try:
            assert init.stdout is not None and init.stdin is not None
            noter_inner, sleeper_inner = map(int, init.stdout.readline().split())
            noter = _outer_of(noter_inner, marker)
            link = switchboard.Link(sock=None, pid=noter,  # type: ignore[arg-type]
                                    inner=noter_inner, namespace=switchboard._namespace(noter))
            assert link.namespace is not None and sleeper_inner != noter_inner
            init.stdin.write("done\n")
            init.stdin.flush()
            deadline = time.monotonic() + 10
            while Path(f"/proc/{noter}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not Path(f"/proc/{noter}").exists(), "the noter did not end"
            entry = {"what": "grandchild", "pid": sleeper_inner}
            switchboard._translate(entry, link)
            assert entry["pid"] != 0, "the sleeper was not found"
            assert Path(f"/proc/{entry['pid']}/cmdline").read_bytes().split(b"\0")[0].endswith(
                b"sleep")
            assert switchboard._nspids(entry["pid"])[-1] == sleeper_inner
        finally:
            init.kill()


def test_an_isolated_run_keeps_its_workers_from_importing_from_the_working_directory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers of an isolated run import nothing the adapter could write in the working
    directory they share with it (PYTHONSAFEPATH); the adapter gets the variable as it was."""
    for users in (None, "x"):
        if users is None:
            monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
        else:
            monkeypatch.setenv("PYTHONSAFEPATH", users)
        with run.hermetic(isolate=True):
            worker = subprocess.run([sys.executable, "-c", "import sys; print('' in sys.path)"],
                                    capture_output=True, text=True, check=True)
            adapter = adapter_environment()
        assert worker.stdout.strip() == "False"
        assert adapter.get("PYTHONSAFEPATH") == users
        assert os.environ.get("PYTHONSAFEPATH") == users
        assert run.SAFE_PATH_WAS not in adapter and run.SAFE_PATH_WAS not in os.environ
