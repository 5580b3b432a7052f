"""A sandbox for one real CLI: a scripted model in a loopback-only network namespace.

The model server (doubles/models/server.py) is started inside a fresh network namespace and
holds it. The sandbox's `bin/` has its CLI (`claude`, `codex` or `gemini`, or the agent of the
Agent Client Protocol that runs one: `claude-agent-acp`, `codex-acp`) that enters that
namespace, checks it has loopback alone (else refuses, exit 97), and execs the pinned real
CLI with a temporary HOME and TMPDIR, configured to talk to the model on 127.0.0.1 (so the
CLI's pid is the one its caller started). Put `bin/` first on an agent's PATH and the agent
drives the real CLI, offline.

Every process the CLI starts inherits AGENT_TCK_SANDBOX=<token>; `processes()` finds them in
/proc, and `close()` kills any still alive (by pid), then the model server. The CLI's
temporary folder is locked by the process that made it while it lives; a run killed before
`close()` leaves it behind, and the next sandbox this user makes there removes it (`sweep`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import selectors
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.realcli import clis, isolation
from agent_tck.kit.drivers.base import end_with_parent
from agent_tck.kit.errors import TckError
from agent_tck.kit.observe import carrying
from agent_tck.kit.paths import PACKAGE

MARK = "AGENT_TCK_SANDBOX"  # in the environment of every process the sandboxed CLI starts
REFUSED = 97  # the wrapper's exit code when the namespace is not loopback alone
TMP_PREFIX = "agent-tck-cli-"  # a CLI's temporary folder, in the system's
OWNER = ".owner"  # in it: locked (flock) by the process whose sandbox it is, while it lives
FAKE_KEY = "sk-agent-tck-scripted-model"
START_TIMEOUT = 30.0
# Inherited variables the wrapper drops (an ERE over `env` output, names only).
SCRUBBED = (f"^({'|'.join(p for b in PROFILES.values() for p in b.env_prefixes)})_[A-Za-z0-9_]*"
            "|^[A-Za-z_]*_[Pp][Rr][Oo][Xx][Yy]"
            "|^XDG_[A-Z_]*_HOME")


def unavailable(backend: str) -> str | None:
    """Why the real `backend` CLI cannot run here ("not run: ..."), or None when it can."""
    problem = isolation.problem()
    return clis.not_installed(backend) or (f"not run: {problem}" if problem else None)


class SandboxError(TckError):
    """The sandbox could not be made; the message says which step failed and why."""


class Sandbox:
    """`backend` is a CLI's (`claude`), or the agent of the Agent Client Protocol that runs
    it (`claude-acp`): that agent has the CLI's configuration, and its own command in `bin/`."""

    def __init__(self, root: Path, backend: str, script: dict[str, Any], cli: Path) -> None:
        if backend not in clis.INSTALLS:
            raise SandboxError(f"no real CLI for backend {backend!r}; "
                               f"known: {sorted(clis.INSTALLS)}")
        problem = isolation.problem()
        if problem:
            raise SandboxError(problem)
        self.backend, self.cli, self.token = backend, cli.resolve(), uuid.uuid4().hex
        self.profile = PROFILES[backend.removesuffix("-acp")]
        self.agent = self.profile.acp_agent if backend.endswith("-acp") else None
        self.command = clis.INSTALLS[backend][1]
        self.root = root
        self.home, self.work, self.bin = root / "home", root / "work", root / "bin"
        for d in (self.home, self.work, self.bin):
            d.mkdir(parents=True, exist_ok=True)
        self.script_path = root / "model-script.json"
        self.record_path = root / "model-requests.jsonl"
        self.log_path = root / "model-server.log"
        self.script_path.write_text(json.dumps(script, indent=2), encoding="utf-8")
        self.record_path.touch()
        self.server: subprocess.Popen[bytes] | None = None
        # The CLI's temporary folder, removed by close(): in the system's own, not under
        # `root`, which can be long. Claude puts a socket there, and where its path would be
        # over 103 bytes (a socket's path is short) it uses /tmp/cc-socks-UID instead.
        # Made last before the `try`, whose failure close()s it away.
        self.tmp, self.owner = owned_folder()
        try:
            self.port = self._start_server()
            self._check_isolated()
            self._configure_home()
            self._write_wrapper()
        except BaseException:
            self.close()
            raise

    # --- what scenarios read ----------------------------------------------------------------

    def path(self) -> str:
        """A PATH whose `claude` (or `claude-agent-acp`, ...) is the sandboxed real CLI."""
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', os.defpath)}"

    def requests(self) -> list[dict[str, Any]]:
        """Every request the model server received, in order."""
        lines = self.record_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def processes(self) -> list[int]:
        """Live processes started through this sandbox's wrapper (the CLI and its tools)."""
        return carrying(MARK, self.token)

    def close(self) -> None:
        self._kill_marked()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.owner >= 0:
            os.close(self.owner)
            self.owner = -1
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        if self.server is not None and self.server.stdout is not None:
            self.server.stdout.close()

    def _kill_marked(self, within: float = 10.0) -> None:
        """SIGKILL every marked process until none is listed: one may fork while the others
        are killed."""
        deadline = time.monotonic() + within
        while (pids := self.processes()) and time.monotonic() < deadline:
            for pid in pids:
                _kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- how it is made -----------------------------------------------------------------------

    def _start_server(self) -> int:
        argv = [*isolation.unshare_argv(), "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                sys.executable, "-m", "agent_tck.doubles.models.server", "--api",
                self.profile.model_api,
                "--script", str(self.script_path), "--record", str(self.record_path)]
        with self.log_path.open("wb") as log:
            # A session of its own, and SIGTERM when the suite's process dies: a run killed
            # from outside (a CI job cancelled, a flake hunt stopped) leaves no server behind.
            self.server = subprocess.Popen(argv, cwd=PACKAGE, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.PIPE, stderr=log,
                                           start_new_session=True, preexec_fn=end_with_parent)
        assert self.server.stdout is not None
        line = _read_line(self.server.stdout, START_TIMEOUT)
        if not line.strip().isdigit():
            self.server.kill()
            self.server.wait()
            raise SandboxError(f"the model server did not start ({shlex.join(argv)}):\n"
                               f"{line}{self.log_path.read_text(errors='replace')[-2000:]}")
        return int(line)

    def _check_isolated(self) -> None:
        assert self.server is not None
        argv = [*isolation.nsenter_argv(self.server.pid), "ip", "-o", "link", "show"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        if done.returncode != 0 or not isolation.only_loopback(done.stdout):
            raise SandboxError(f"the model server's namespace is not loopback alone "
                               f"({shlex.join(argv)} exited {done.returncode}): "
                               f"{(done.stdout + done.stderr).strip()}")

    def _configure_home(self) -> None:
        configure: Callable[[Path, str], None] = self.profile.configure_home
        if self.agent is not None and self.agent.configure_home is not None:
            configure = self.agent.configure_home
        configure(self.home, f"http://127.0.0.1:{self.port}")

    def _environment(self) -> dict[str, str]:
        # A temporary folder of its own too: the CLIs keep files there (Claude a folder per
        # working directory and a socket per process, Gemini a report per failed model call)
        # that the shared /tmp, or the user's runtime folder, would keep after the run.
        common = {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
                  "TMPDIR": str(self.tmp), "XDG_RUNTIME_DIR": str(self.tmp),
                  "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                  MARK: self.token}
        url = f"http://127.0.0.1:{self.port}"
        return {**common, **self.profile.environment(self.home, url, FAKE_KEY),
                **(self.agent.environment if self.agent else {})}

    def _write_wrapper(self) -> None:
        assert self.server is not None
        refuse = (f'echo "agent-tck sandbox: refusing to run {self.backend}: this network '
                  f'namespace is not loopback alone" >&2; exit {REFUSED}')
        inner = "; ".join([
            f'[ "$(ip -o link show | cut -d: -f2 | tr -d " ")" = lo ] || {{ {refuse}; }}',
            # What would send the CLI elsewhere (proxies, another config directory, other
            # credentials or endpoints) is not inherited; the sandbox sets its own below.
            f'for v in $(env | grep -Eo "{SCRUBBED}"); do unset "$v"; done',
            'exec "$@"',
        ])
        argv = [*isolation.nsenter_argv(self.server.pid), "--", "/bin/sh", "-c", inner,
                "agent-tck-sandbox", "env",
                *(f"{k}={v}" for k, v in self._environment().items()), str(self.cli)]
        wrapper = self.bin / self.command
        wrapper.write_text(
            "#!/bin/sh\n"
            f"# agent-tck: the real {self.command}, in the sandbox's loopback-only network "
            "namespace.\n"
            f'exec {shlex.join(argv)} "$@"\n',
            encoding="utf-8",
        )
        wrapper.chmod(0o755)


def owned_folder() -> tuple[Path, int]:
    """A new temporary folder for a CLI, and the descriptor that holds its lock (closed by its
    sandbox's `close()`, or by the kernel when its process dies). The lock is taken before
    the folder's `OWNER` file has its name, so `sweep` never finds a new folder unlocked. On a
    file system without locks the folder gets no `OWNER`: only `close()` removes it."""
    sweep()
    folder = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
    claim = folder / f"{OWNER}.new"
    descriptor = os.open(claim, os.O_CREAT | os.O_WRONLY, 0o600)
    with contextlib.suppress(OSError):
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        claim.rename(folder / OWNER)
    return folder, descriptor


def sweep(where: Path | None = None) -> list[Path]:
    """Remove the CLI folders of sandboxes whose process ended without closing them (a run
    killed from outside): folders of this user, not links, whose `OWNER` is a file no process
    holds locked. A folder being made (no `OWNER` yet) or in use is left alone. Returns the
    folders removed."""
    removed = []
    for folder in sorted(Path(where or tempfile.gettempdir()).glob(f"{TMP_PREFIX}*")):
        if _abandoned(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _abandoned(folder: Path) -> bool:
    """Whether `folder` is a sandbox's CLI folder whose lock nobody holds. Its lock is taken
    and let go at once: a sandbox made meanwhile has a folder of its own."""
    try:
        found = folder.lstat()
        descriptor = os.open(folder / OWNER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not (stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
                and stat.S_ISREG(os.fstat(descriptor).st_mode)):
            return False
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(descriptor)


def _read_line(stream: Any, timeout: float) -> str:
    """One line from a pipe, or what came before `timeout` seconds passed or it closed."""
    fd, data, end = stream.fileno(), b"", time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in data and (left := end - time.monotonic()) > 0:
            if not sel.select(left):
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    return data.decode(errors="replace")


def _kill(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
