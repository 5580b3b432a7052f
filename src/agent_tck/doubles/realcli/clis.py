"""The pinned real CLIs: installed from the npm registry into a project-local directory.

`clis/package.json` pins the versions and `clis/package-lock.json` the exact packages;
`agent-tck install-clis` installs them into `clis/node_modules` (git-ignored), with npm's
download cache in `clis/.npm-cache`, so a second install downloads nothing. Nothing is
installed globally.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.realcli import integrity
from agent_tck.kit.errors import UsageError
from agent_tck.kit.paths import PACKAGE
from agent_tck.kit.text import printable

DEFAULT_DIR = PACKAGE / "clis"


def _installs() -> dict[str, tuple[str, str]]:
    """What runs each real backend: its npm package and the command that package installs (a
    CLI's ACP agent, `<cli>-acp`, as its profile says)."""
    found = {}
    for name, profile in PROFILES.items():
        found[name] = (profile.package, name)
        if (agent := profile.acp_agent) is not None:
            found[f"{name}-acp"] = (agent.package or profile.package, agent.command)
    return found


INSTALLS = _installs()


def clis_dir() -> Path:
    """Where the pinned CLIs live: $AGENT_TCK_CLIS, or `clis/` in the repository."""
    return Path(os.environ.get("AGENT_TCK_CLIS") or DEFAULT_DIR)


@dataclass(frozen=True)
class Pinned:
    backend: str
    package: str
    pinned: str
    installed: str | None
    binary: Path

    @property
    def ready(self) -> bool:
        return self.installed == self.pinned and os.access(self.binary, os.X_OK)


def pins(where: Path | None = None) -> list[Pinned]:
    """Each CLI's pinned version, installed version (None if absent) and binary."""
    where = where or clis_dir()
    manifest = where / "package.json"
    try:
        wanted = json.loads(manifest.read_text(encoding="utf-8"))["dependencies"]
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"{manifest}: cannot read the pinned CLI versions: {exc}") from exc
    found = []
    for backend, (package, command) in INSTALLS.items():
        if package not in wanted:
            raise UsageError(f"{manifest}: no pinned version for {package!r}")
        installed = where / "node_modules" / package / "package.json"
        try:
            version = json.loads(installed.read_text(encoding="utf-8"))["version"]
        except (OSError, ValueError, KeyError):
            version = None
        binary = where / "node_modules" / ".bin" / command
        found.append(Pinned(backend, package, wanted[package], version, binary))
    return found


def binary(backend: str) -> Path | None:
    """The pinned CLI for `backend` if it is installed at its pinned version."""
    return next((p.binary for p in pins() if p.backend == backend and p.ready), None)


def not_installed(backend: str) -> str | None:
    """None when the pinned CLI is installed; else a reason saying how to install it."""
    try:
        pinned = next(p for p in pins() if p.backend == backend)
    except UsageError as exc:
        return f"not run: {exc}"
    if pinned.ready:
        return None
    have = f"version {pinned.installed} is installed" if pinned.installed else "it is missing"
    return (f"not run: the real {pinned.binary.name} CLI ({pinned.package} {pinned.pinned}) is not "
            f"installed in {clis_dir()}: {have}; run `agent-tck install-clis`")


def install(where: Path | None = None, npm: str = "npm",
            out: TextIO | None = None) -> list[Pinned]:
    """Install the pinned CLIs unless they already are, as package-lock.json says (what
    differs is named on `out` and installed again); the result, per CLI. Nothing installed
    is run before it passed that check."""
    where = where or clis_dir()
    current = pins(where)
    if all(p.ready for p in current):
        differs = integrity.problems(where)
        if not differs:
            return current
        for problem in differs:  # its text comes from files in the tree: escaped
            print(printable(f"{problem}; reinstalling with `npm ci`"), file=out or sys.stdout)
    return _installed(where, _npm(where, npm))


def _installed(where: Path, argv: list[str]) -> list[Pinned]:
    """What `argv` (npm) installed, refused unless each pin is there as the lockfile says."""
    after = pins(where)
    for p in after:
        if not p.ready:
            raise UsageError(f"{p.package} {p.pinned} did not install in {where} "
                             f"(found {p.installed}, binary {p.binary})")
    if differs := integrity.problems(where):
        raise UsageError(f"{where}: the install still differs from package-lock.json after "
                         f"`{' '.join(argv)}`: {'; '.join(differs)}")
    return after


def _npm(where: Path, npm: str) -> list[str]:
    """Run `npm ci` (or `npm install` without a lockfile) in `where`; its command line."""
    if shutil.which(npm) is None:
        raise UsageError(f"{npm!r} is not on PATH: install Node.js 20 or newer with npm")
    lock = (where / "package-lock.json").exists()
    argv = [npm, "ci" if lock else "install", "--no-audit", "--no-fund", "--loglevel=error",
            "--cache", str(where / ".npm-cache")]
    done = subprocess.run(argv, cwd=where, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UsageError(f"`{' '.join(argv)}` in {where} exited {done.returncode}:\n"
                         f"{done.stderr.strip()[-2000:]}")
    return argv
