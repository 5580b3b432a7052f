"""An install of the pinned CLIs checked against clis/package-lock.json before any of it runs.

npm keeps no digest of an installed tree: the lockfile's `integrity` is the sha512 of each
package's tarball, which is gone once it is unpacked. What npm does keep is its record of what
it unpacked, `node_modules/.package-lock.json` (each package's version, tarball and
integrity). So a tree is taken as the lockfile's when, for every package of the lockfile:
npm's record lists it with the same version, `resolved` and `integrity`; its `package.json`
names the same package and version; each command it declares is npm's link in
`node_modules/.bin` to the declared file; and no package is installed that the lockfile does
not list. That finds another build installed and its version edited to the pin, a package
swapped for another, a command replaced or pointed elsewhere, a package planted. It cannot find
a file changed in place inside a package, nor a tree whose record was rewritten to match: only
`npm ci`, which unpacks each tarball again after checking its sha512, gives that
(docs/real-clis.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LOCKFILE = "package-lock.json"
RECORD = "node_modules/.package-lock.json"  # npm's own record of what it installed
MAX_BYTES = 16 << 20  # a lockfile or package.json larger than this is not read


def problems(where: Path) -> list[str]:
    """How the tree in `where/node_modules` differs from `where/package-lock.json`, each
    naming its package; none without a lockfile (there is nothing to check against)."""
    if not (where / LOCKFILE).exists():
        return []
    locked = _packages(where / LOCKFILE)
    if locked is None:
        return [f"{LOCKFILE} cannot be read"]
    record = _packages(where / RECORD)
    found = [] if record is not None else [
        f"{RECORD}, npm's record of what it installed, cannot be read"]
    for path, entry in locked.items():
        found += _package_problems(where, path, entry, record)
    extra = (_installed(where) | set(record or {})) - set(locked)
    return found + [f"{path}: installed, but not in {LOCKFILE}" for path in sorted(extra)]


def _package_problems(where: Path, path: str, entry: dict[str, Any],
                      record: dict[str, Any] | None) -> list[str]:
    """What differs for the package the lockfile has at `path` (`node_modules/<name>`); an
    optional one (another platform's build) may be missing."""
    name = entry.get("name") or path.rpartition("node_modules/")[2]
    manifest = _json(where / path / "package.json")
    if manifest is None:
        return [] if entry.get("optional") else [f"{name}: {path} is not installed"]
    found = []
    if manifest.get("name") != name:
        found.append(f"{name}: {path}/package.json is the package {manifest.get('name')!r}")
    if manifest.get("version") != entry.get("version"):
        found.append(f"{name}: {path}/package.json says version {manifest.get('version')}; "
                     f"{LOCKFILE} pins {entry.get('version')}")
    if record is not None:
        found += _record_problems(name, path, entry, record.get(path))
    return found + _link_problems(where, name, path, entry.get("bin") or {})


def _record_problems(name: str, path: str, entry: dict[str, Any], recorded: Any) -> list[str]:
    """npm's record must say it unpacked the lockfile's tarball for `path`."""
    if not isinstance(recorded, dict):
        return [f"{name}: {RECORD} does not list {path}"]
    return [f"{name}: its {key} is {recorded.get(key)!r} where {LOCKFILE} has "
            f"{entry.get(key)!r}" for key in ("version", "resolved", "integrity")
            if recorded.get(key) != entry.get(key)]


def _link_problems(where: Path, name: str, path: str, commands: dict[str, str]) -> list[str]:
    """Each command must be npm's symbolic link to the file the package declares."""
    found = []
    for command, target in sorted(commands.items()):
        link = where / "node_modules" / ".bin" / command
        declared = where / path / target
        if not (link.is_symlink() and os.path.realpath(link) == os.path.realpath(declared)):
            found.append(f"{name}: node_modules/.bin/{command} is not npm's link to "
                         f"{path}/{target}")
    return found


def _installed(where: Path) -> set[str]:
    """The package folders in node_modules (`name` and `@scope/name`), as lockfile paths."""
    top = where / "node_modules"
    folders = [p for p in (top.iterdir() if top.is_dir() else []) if not p.name.startswith(".")]
    folders = [q for p in folders for q in (p.iterdir() if p.name.startswith("@") else [p])]
    return {f"node_modules/{p.relative_to(top)}" for p in folders
            if (p / "package.json").is_file()}


def _packages(path: Path) -> dict[str, Any] | None:
    """The `packages` of a lockfile, without its root entry; None when it cannot be read."""
    lock = _json(path)
    packages = lock.get("packages") if lock is not None else None
    if not isinstance(packages, dict):
        return None
    return {key: value for key, value in packages.items() if key and isinstance(value, dict)}


def _json(path: Path) -> dict[str, Any] | None:
    """The JSON object in a regular file of at most MAX_BYTES, or None (a named pipe would
    keep the check waiting for a writer)."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
        value = json.loads(data) if len(data) <= MAX_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
