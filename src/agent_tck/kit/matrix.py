"""`agent-tck matrix LIST --out DIR [--previous DIR]`: implementations judged side by side.

LIST is a YAML list, an entry per implementation:

    - name: codex-sdk                      # its files' name: letters, digits, '.', '_', '-'
      impl: node adapter.mjs               # what `agent-tck run --impl` takes
      components: [agent]                  # optional: the components judged (default: all)
      baseline: baseline.yaml              # optional: its known failures, each with the
                                           # implementation's behaviour behind it
      setup: npm ci --prefix codex-sdk     # optional: what installs its pinned packages,
                                           # run before it is judged: a command line, or a
                                           # list of them run in turn

Paths and command lines are taken from LIST's folder. An entry's `setup` runs there before
its judgement (no shell); a command that cannot start or exits non-zero ends it, and is that
entry's error, as a run that ends in an error is. With a setup that installs another version
into a folder of its own, one implementation is judged at several versions side by side
(docs/ci.md). Each implementation is judged by
`agent-tck run` in a process of its own, as a user runs it, which writes into DIR its
NAME.json, NAME.html, NAME.md and NAME.badge.json (a shields.io endpoint). Then DIR gets
index.html and index.md, the matrix of every report (`agent-tck report`), and bugs.md, the
hall of bugs: every requirement an implementation fails, with what its baseline says the
implementation does there (else the first line of the evidence) and the public failures the
requirement guards against. With `--previous DIR`, changes.md says what changed since the
report of the same name there, regressions first.

Exit code: 1 when an implementation regressed against `--previous` or its setup or run ended
in an error (its exit code 2 or more); else 0. A list that cannot be read is a usage error, naming
the file and the entry.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from agent_tck.kit import diff, html_report, plainyaml, registry, reports
from agent_tck.kit.errors import UsageError
from agent_tck.kit.files import write_atomically
from agent_tck.kit.text import printable

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
KEYS = {"name", "impl", "components", "baseline", "setup"}
MAX_SAID = 400  # characters of what an implementation does, in the hall of bugs
SETUP_TIMEOUT = 1800.0  # seconds one setup command may take (an install stuck on its registry)


@dataclass(frozen=True)
class Entry:
    name: str
    impl: str
    components: tuple[str, ...] = ()
    baseline: Path | None = None
    setup: tuple[tuple[str, ...], ...] = ()  # command lines, each split into its words


def load(path: Path) -> list[Entry]:
    """The implementations LIST names; UsageError naming the file and the entry."""
    try:
        entries = plainyaml.load(path, "implementation list")
    except plainyaml.PlainYamlError as exc:
        raise UsageError(str(exc)) from None
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: expected a list of implementations ({{name, impl}} each)")
    found: list[Entry] = []
    for index, entry in enumerate(entries):
        where = f"{path}: entry {index}"
        if not isinstance(entry, dict) or not {"name", "impl"} <= set(entry):
            raise UsageError(f"{where}: needs 'name' and 'impl'")
        if unknown := sorted(str(k) for k in set(entry) - KEYS):
            raise UsageError(f"{where}: unknown key {unknown[0]!r:.80} (it may have 'name', "
                             "'impl', 'components', 'baseline' and 'setup')")
        name, impl = entry["name"], entry["impl"]
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise UsageError(f"{where}: name {name!r:.80} is not a file name (letters, digits, "
                             "'.', '_', '-')")
        if name in {e.name for e in found}:
            raise UsageError(f"{where}: the name {name!r} is given twice")
        if not isinstance(impl, str) or not impl.strip():
            raise UsageError(f"{where}: impl {impl!r:.80} is not a command line")
        components = entry.get("components", [])
        if not isinstance(components, list) or not all(isinstance(c, str) for c in components):
            raise UsageError(f"{where}: components {components!r:.80} is not a list of names")
        baseline = entry.get("baseline")
        if baseline is not None and not isinstance(baseline, str):
            raise UsageError(f"{where}: baseline {baseline!r:.80} is not a path")
        found.append(Entry(name, impl, tuple(components),
                           path.parent / baseline if baseline else None,
                           _setup(entry["setup"], where) if "setup" in entry else ()))
    if len(found) > reports.MAX_REPORTS:
        raise UsageError(f"{path}: {len(found)} implementations; a matrix holds at most "
                         f"{reports.MAX_REPORTS}")
    return found


def _setup(given: object, where: str) -> tuple[tuple[str, ...], ...]:
    """An entry's setup: one command line or a non-empty list of them, each split in words."""
    lines = given if isinstance(given, list) and given else [given]
    commands = []
    for line in lines:
        try:
            words = tuple(shlex.split(line)) if isinstance(line, str) else ()
        except ValueError:
            words = ()
        if not words:
            raise UsageError(f"{where}: setup {line!r:.80} is not a command line")
        commands.append(words)
    return tuple(commands)


def set_up(entry: Entry, cwd: Path) -> None:
    """Run the entry's setup commands in `cwd`, in turn; _RunError at the first that cannot
    start or fails."""
    for command in entry.setup:
        said = shlex.join(command)
        try:
            done = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  errors="replace", check=False, timeout=SETUP_TIMEOUT)
        except OSError as exc:
            raise _RunError(f"{entry.name}: its setup {said!r} could not start: "
                            f"{printable(str(exc))}") from None
        except subprocess.TimeoutExpired:
            raise _RunError(f"{entry.name}: its setup {said!r} did not end within "
                            f"{SETUP_TIMEOUT:g} s; it was killed") from None
        if done.returncode != 0:
            tail = printable(done.stderr.strip()[-MAX_SAID:])
            raise _RunError(f"{entry.name}: its setup {said!r} ended in an error "
                            f"(exit {done.returncode}): {tail}")


def judge(entry: Entry, out_dir: Path, cwd: Path, workers: str) -> int:
    """`agent-tck run` of one implementation, its reports into `out_dir`; its exit code."""
    files = {"--json": "json", "--html": "html", "--markdown": "md", "--badge": "badge.json"}
    command = [sys.executable, "-m", "agent_tck.kit.cli", "run", "--impl", entry.impl,
               "-n", workers, "--no-progress"]
    command += [w for c in entry.components for w in ("--component", c)]
    command += [w for flag, ext in files.items()
                for w in (flag, str(out_dir / f"{entry.name}.{ext}"))]
    if entry.baseline is not None:
        command += ["--baseline", str(entry.baseline)]
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, errors="replace", check=False)
    if done.returncode >= 2:
        tail = printable(done.stderr.strip()[-MAX_SAID:])
        raise _RunError(f"{entry.name}: its run ended in an error (exit {done.returncode}): "
                        f"{tail}")
    return done.returncode


class _RunError(Exception):
    """An implementation's setup or run that ended in an error: no report to put in the
    matrix."""


def hall_of_bugs(entries: list[Entry], judged: list[reports.Judged], out_dir: Path) -> str:
    """Every failed or errored requirement of every implementation: what its baseline says
    the implementation does there, or else what its first failed scenario showed; and the
    public failures the requirement guards against."""
    reqs = registry.load()
    lines = ["# Hall of bugs", "",
             "What agent-tck finds in each implementation: every requirement it fails, what it "
             "does there, and the public failures the requirement guards against.", ""]
    for entry, report in zip(entries, judged, strict=True):
        known = reports.load_baseline(entry.baseline, reqs) if entry.baseline else {}
        shown = _first_failures(out_dir / f"{entry.name}.json")
        failing = [rid for rid, (_, _, verdict) in report.reqs.items() if verdict in reports.BAD]
        lines += [f"## {entry.name}: {report.word}", ""]
        if not failing:
            lines += ["Nothing failed.", ""]
        for rid in failing:
            level, text, verdict = report.reqs[rid]
            lines.append(f"- **{rid}** ({level}, {verdict}): {text}")
            said = known.get(rid) or shown.get(rid) or f"its scenarios were {verdict}"
            lines.append(f"  - what it does: {printable(' '.join(said.split()))[:MAX_SAID]}")
            hazards = reqs[rid].hazards if rid in reqs else ()
            lines += [f"  - guards against: [{h.what}]({h.url})" for h in hazards[:3]]
        lines.append("")
    return "\n".join(lines)


def _first_failures(path: Path) -> dict[str, str]:
    """Requirement ID -> what its first failed or errored scenario showed, with where."""
    shown: dict[str, str] = {}
    for scenario in json.loads(path.read_text(encoding="utf-8"))["scenarios"]:
        if scenario["verdict"] not in reports.BAD:
            continue
        what = (scenario.get("message") or scenario.get("error") or "").strip()
        first = what.splitlines()[0] if what else "(no message)"
        for rid in scenario["reqs"]:
            shown.setdefault(rid, f"{first} (scenario: {scenario['title']}, {scenario['where']})")
    return shown


def matrix(list_path: Path, out_dir: Path, previous: Path | None, workers: str,
           out: TextIO) -> int:
    list_path, out_dir = list_path.resolve(), out_dir.resolve()  # the runs start elsewhere
    if previous is not None and not previous.is_dir():
        raise UsageError(f"--previous {previous}: not a folder of an earlier matrix")
    if previous is not None and previous.resolve() == out_dir:
        raise UsageError(f"--previous {previous} is --out: a matrix is compared with an "
                         "earlier one, not with itself")
    entries = load(list_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    kept: list[Entry] = []
    for entry in entries:
        for old in out_dir.glob(f"{entry.name}.*"):  # an earlier matrix's, never published
            if old.suffix in (".json", ".html", ".md"):  # as this one's
                old.unlink()
        try:
            set_up(entry, list_path.parent)
            code = judge(entry, out_dir, list_path.parent, workers)
        except _RunError as exc:
            print(exc, file=out, flush=True)
            continue
        kept.append(entry)
        print(f"{entry.name}: exit {code}", file=out, flush=True)
    judged = [_as_listed(e, j) for e, j in zip(
        kept, reports.load_reports([out_dir / f"{e.name}.json" for e in kept]), strict=True)]
    write_atomically(out_dir / "index.md", reports.matrix_markdown(judged))
    write_atomically(out_dir / "index.html", html_report.render_matrix(judged))
    write_atomically(out_dir / "bugs.md", hall_of_bugs(kept, judged, out_dir))
    regressed = _changes(kept, out_dir, previous) if previous is not None else False
    print(f"{len(judged)} of {len(entries)} implementations judged into {out_dir}"
          f"{'; one regressed (changes.md)' if regressed else ''}", file=out)
    return 1 if len(kept) < len(entries) or regressed else 0


def _as_listed(entry: Entry, judged: reports.Judged) -> reports.Judged:
    """A report as the matrix shows it: under the list's name for it (two implementations
    may call themselves the same), its report the file beside the index."""
    return replace(judged, name=f"{entry.name}: {judged.name}", source=f"{entry.name}.json")


def _changes(entries: list[Entry], out_dir: Path, previous: Path) -> bool:
    """changes.md: per implementation, what changed since `previous`; whether one regressed."""
    lines, regressed = ["# Changes since the previous matrix", ""], False
    for entry in entries:
        before, now = previous / f"{entry.name}.json", out_dir / f"{entry.name}.json"
        lines.append(f"## {entry.name}")
        if not before.is_file():
            lines += ["", "New: no report of it in the previous matrix.", ""]
            continue
        old, new = reports.load_report(before), reports.load_report(now)
        found = diff.changes(old, new)
        regressed = regressed or any(c.kind == diff.REGRESSION for c in found)
        lines += ["", "```", *diff.lines(found, old, new), "```", ""]
    for gone in sorted(set(_names(previous)) - {e.name for e in entries}):
        lines += [f"## {gone}", "", "No report of it in this matrix (its setup or run ended "
                  "in an error, or the list no longer names it).", ""]
    write_atomically(out_dir / "changes.md", "\n".join(lines))
    return regressed


def _names(folder: Path) -> list[str]:
    """The implementations an earlier matrix judged: its NAME.json reports."""
    return [p.stem for p in folder.glob("*.json") if not p.name.endswith(".badge.json")]
