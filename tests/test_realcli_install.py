"""`agent-tck install-clis` checks what it finds installed against clis/package-lock.json
before it runs any of it, and reinstalls what differs; no npm registry is reached: a fake npm
lays the tree out as `npm ci` would from the lockfile."""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tck.doubles.realcli import clis, isolation
from agent_tck.doubles.realcli.report import install_clis
from agent_tck.kit.errors import UsageError

PINS = {"@anthropic-ai/claude-code": "2.1.330", "@openai/codex": "0.169.0",
        "@google/gemini-cli": "0.61.0", "@agentclientprotocol/claude-agent-acp": "0.101.0",
        "@agentclientprotocol/codex-acp": "2.6.0"}


def entry(version: str, slug: str, **more: object) -> dict[str, object]:
    """A lockfile entry as npm writes it (`more`: `name` for an aliased package, `bin`, ...)."""
    return {"version": version, "resolved": f"https://registry.npmjs.org/{slug}/-/{version}.tgz",
            "integrity": f"sha512-{slug}-{version}==", **more}


LOCK = {"name": "agent-tck-real-clis", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "agent-tck-real-clis", "dependencies": PINS},
    "node_modules/@anthropic-ai/claude-code": entry(
        "2.1.330", "claude-code", bin={"claude": "bin/claude.exe"}, hasInstallScript=True),
    "node_modules/@openai/codex": entry("0.169.0", "codex", bin={"codex": "bin/codex.js"}),
    "node_modules/@openai/codex-linux-x64": entry(  # installed under another name (npm:)
        "0.169.0-linux-x64", "codex", name="@openai/codex", optional=True),
    "node_modules/@openai/codex-win32-x64": entry(  # for another platform: not installed
        "0.169.0-win32-x64", "codex", name="@openai/codex", optional=True),
    "node_modules/@google/gemini-cli": entry(
        "0.61.0", "gemini-cli", bin={"gemini": "bundle/gemini.js"}),
    "node_modules/@agentclientprotocol/claude-agent-acp": entry(
        "0.101.0", "claude-agent-acp", bin={"claude-agent-acp": "dist/index.js"}),
    "node_modules/@agentclientprotocol/codex-acp": entry(
        "2.6.0", "codex-acp", bin={"codex-acp": "dist/index.js"}),
    "node_modules/node-pty": entry("1.0.0", "node-pty"),
}}

# Lays out node_modules from package-lock.json as `npm ci` does (every package of this
# platform, npm's own record in node_modules/.package-lock.json, the links in .bin), after
# removing what was there; records its arguments.
FAKE_NPM = """\
import json, os, shutil, sys
from pathlib import Path
with open("npm-args", "a") as f:
    print(*sys.argv[1:], file=f)
shutil.rmtree("node_modules", ignore_errors=True)
lock = json.loads(Path("package-lock.json").read_text())
installed = {}
for path, e in lock["packages"].items():
    if not path or "win32" in path:
        continue
    installed[path] = e
    folder = Path(path)
    folder.mkdir(parents=True)
    name = e.get("name") or path.rpartition("node_modules/")[2]
    (folder / "package.json").write_text(json.dumps({"name": name, "version": e["version"]}))
    for command, target in e.get("bin", {}).items():
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        (folder / target).write_text("#!/bin/sh\\necho " + e["version"] + "\\n")
        (folder / target).chmod(0o755)
        Path("node_modules/.bin").mkdir(exist_ok=True)
        os.symlink(os.path.relpath(folder / target, "node_modules/.bin"),
                   "node_modules/.bin/" + command)
record = {"name": lock["name"], "lockfileVersion": 3, "requires": True, "packages": installed}
Path("node_modules/.package-lock.json").write_text(json.dumps(record))
"""


@pytest.fixture
def npm(tmp_path: Path) -> Path:
    script = tmp_path / "npm"
    script.write_text(f"#!{sys.executable}\n{FAKE_NPM}")
    script.chmod(0o755)
    return script


@pytest.fixture
def where(tmp_path: Path, npm: Path) -> Path:
    """The pinned CLIs installed as `npm ci` installs them."""
    folder = tmp_path / "clis"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"dependencies": PINS}))
    (folder / "package-lock.json").write_text(json.dumps(LOCK))
    clis.install(folder, npm=str(npm))
    assert len(npm_runs(folder)) == 1
    return folder


def npm_runs(where: Path) -> list[str]:
    return (where / "npm-args").read_text().splitlines()


def test_a_faithful_install_is_run_as_it_is(where: Path, npm: Path) -> None:
    out = io.StringIO()
    installed = clis.install(where, npm=str(npm), out=out)
    assert all(p.ready for p in installed) and out.getvalue() == ""
    assert len(npm_runs(where)) == 1, "npm ran again for an install that is as locked"


def edit_json(path: Path, **changes: object) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def other_tarball(where: Path) -> None:
    """Another build of codex, installed by npm, its package.json then edited to the pin."""
    record = where / "node_modules" / ".package-lock.json"
    data = json.loads(record.read_text())
    data["packages"]["node_modules/@openai/codex"]["integrity"] = "sha512-forged=="
    record.write_text(json.dumps(data))


def replaced_binary(where: Path) -> None:
    link = where / "node_modules" / ".bin" / "codex"
    link.unlink()
    link.write_text("#!/bin/sh\necho 0.169.0\n")
    link.chmod(0o755)


def redirected_binary(where: Path) -> None:
    elsewhere = where.parent / "claude"
    elsewhere.write_text("#!/bin/sh\necho 2.1.330\n")
    elsewhere.chmod(0o755)
    link = where / "node_modules" / ".bin" / "claude"
    link.unlink()
    link.symlink_to(elsewhere)


def planted_package(where: Path) -> None:
    (where / "node_modules" / "evil").mkdir()
    (where / "node_modules" / "evil" / "package.json").write_text('{"name": "evil"}')


@pytest.mark.parametrize(("tamper", "named"), [
    (other_tarball, "@openai/codex: its integrity is 'sha512-forged==' where package-lock.json "
                    "has 'sha512-codex-0.169.0=='"),
    (lambda where: edit_json(where / "node_modules/@openai/codex-linux-x64/package.json",
                             version="0.170.0-linux-x64"),
     "@openai/codex: node_modules/@openai/codex-linux-x64/package.json says version "
     "0.170.0-linux-x64; package-lock.json pins 0.169.0-linux-x64"),
    (lambda where: edit_json(where / "node_modules/@google/gemini-cli/package.json",
                             name="gemini-cli-fork"),
     "@google/gemini-cli: node_modules/@google/gemini-cli/package.json is the package "
     "'gemini-cli-fork'"),
    (replaced_binary, "@openai/codex: node_modules/.bin/codex is not npm's link to "
                      "node_modules/@openai/codex/bin/codex.js"),
    (redirected_binary, "@anthropic-ai/claude-code: node_modules/.bin/claude is not npm's link "
                        "to node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
    (lambda where: (where / "node_modules" / ".package-lock.json").unlink(),
     "node_modules/.package-lock.json, npm's record of what it installed, cannot be read"),
    (lambda where: shutil.rmtree(where / "node_modules" / "node-pty"),
     "node-pty: node_modules/node-pty is not installed"),
    (planted_package, "node_modules/evil: installed, but not in package-lock.json"),
])
def test_an_install_that_differs_from_the_lockfile_is_named_and_reinstalled(
        where: Path, npm: Path, tamper: Callable[[Path], object], named: str) -> None:
    tamper(where)
    assert all(p.ready for p in clis.pins(where)), "the pinned versions still look installed"
    out = io.StringIO()
    installed = clis.install(where, npm=str(npm), out=out)
    assert f"{named}; reinstalling with `npm ci`" in out.getvalue().splitlines()
    assert len(npm_runs(where)) == 2 and npm_runs(where)[1].startswith("ci ")
    assert all(p.ready for p in installed)
    assert clis.install(where, npm=str(npm), out=out) == installed
    assert len(npm_runs(where)) == 2, "the reinstalled tree was not taken as it is"


def test_an_install_still_differing_after_npm_ci_is_refused_before_anything_runs(
        where: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An npm that leaves the tree as it was: no CLI's `--version` is run."""
    other_tarball(where)
    lazy = tmp_path / "lazy-npm"
    lazy.write_text("#!/bin/sh\nexit 0\n")
    lazy.chmod(0o755)
    marker = tmp_path / "ran"
    (where / "node_modules/@openai/codex/bin/codex.js").write_text(f"#!/bin/sh\ntouch {marker}\n")
    real = clis.install
    monkeypatch.setattr(clis, "install", lambda folder, out=None: real(folder, str(lazy), out))
    monkeypatch.setattr(isolation, "problem", lambda: None)
    monkeypatch.setattr(isolation, "unshare_argv", lambda: [])  # these CLIs are shell scripts
    with pytest.raises(UsageError, match=(
            r"still differs from package-lock\.json after `.*lazy-npm ci .*`: @openai/codex: "
            r"its integrity is 'sha512-forged=='")):
        install_clis(where, io.StringIO())
    assert not marker.exists()


def test_the_report_says_what_it_reinstalls_before_the_versions(
        where: Path, npm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other_tarball(where)
    real = clis.install
    monkeypatch.setattr(clis, "install", lambda folder, out=None: real(folder, str(npm), out))
    monkeypatch.setattr(isolation, "problem", lambda: "none here")
    out = io.StringIO()
    assert install_clis(where, out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == ("@openai/codex: its integrity is 'sha512-forged==' where "
                        "package-lock.json has 'sha512-codex-0.169.0=='; reinstalling with "
                        "`npm ci`")
    assert [line.split()[0] for line in lines[1:]] == [
        "claude", "claude-acp", "codex", "codex-acp", "gemini"]


def test_the_real_install_here_is_as_its_lockfile_says() -> None:
    """The pinned CLIs installed in this checkout (when they are) pass the check: it is made
    for what npm really writes. Nothing of them is run."""
    from agent_tck.doubles.realcli import integrity

    where = clis.clis_dir()
    if not (where / "node_modules" / ".package-lock.json").exists():
        pytest.skip(f"not run: no CLIs installed in {where}")
    assert integrity.problems(where) == []
