"""What judges a mutant: for `reference/`, the components of its file, and within them the
scenarios that execute the mutated lines (from `mutation.scenarios`' maps); for the kit's
judging code, and for what of `reference/` no scenario can reach (docs/mutation.md), the project's
tests that execute them (`mutation.kit`'s map); for the stdio loop of the reference's adapter,
the conformance run through it."""

from __future__ import annotations

import ast
import functools
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_item import MutationSpec
from coverage.parser import PythonParser

from mutation.kit import OLD_KERNEL, OUT_OF_REACH, UNRUN_ONLY, tests_of
from mutation.scenarios import AT_COLLECTION, ROOT

# Judged in-process (their scenarios are measured); real-cli is left out: its scenarios need a
# network namespace and minutes, and what they check of the reference the fake harness checks.
COMPONENTS = ("agent", "backends", "responses", "runner", "pipeline", "transport")
# Served DDS agents may outlive the scenario that started them: which scenarios run a line of
# theirs is an approximation (see mutation.scenarios).
SERVED = "reference/dds/"
TESTS = "tests"  # the map of the kit's judging code: a "component" of its own in reports
# The in-process driver hands requests to the reference's adapter in-process; its stdio loop
# (`serve`, `main`) runs only where the suite is given the adapter as the implementation: a
# mutant there is judged by every scenario of the components it serves, through it (the adapter
# is one process for the whole run, so which scenario runs which of its lines is not measured).
ADAPTER = "reference/adapter.py"
THROUGH_ADAPTER = ("--component", "agent", "--component", "backends", "--component", "responses",
                   "--component", "runner", "--impl",
                   f"{shlex.quote(sys.executable)} -m agent_tck.reference.adapter")


@dataclass(frozen=True)
class Plan:
    """The `mutation.judge` arguments to try in turn: a survivor of the first (a selection that
    may miss a scenario) is judged again by the second (whole components). None at all when no
    scenario executes the mutated lines. A kit mutant's are `--tests` and the tests' ids."""

    tries: tuple[tuple[str, ...], ...]


Lines = dict[str, dict[str, list[str]]]  # file -> line -> scenario names ("" for none)


class Planner:
    def __init__(self, maps: dict[str, dict[str, Lines]], root: Path = ROOT) -> None:
        self.maps = maps  # component -> "files" (this process) | "spawned" (its children)
        self.root = root
        self.parsers: dict[str, PythonParser] = {}

    @classmethod
    def load(cls, folder: Path) -> Planner:
        """The maps a session has: a session of kit files alone has only the tests'."""
        return cls({c: json.loads((folder / f"{c}.json").read_text())
                    for c in (*COMPONENTS, TESTS) if (folder / f"{c}.json").exists()})

    def by_line(self, component: str, where: str) -> dict[int, set[str]]:
        """Line -> the scenarios of `component` that run it, in the test process or in one
        a scenario started."""
        found: dict[int, set[str]] = {}
        for kind in ("files", "spawned"):
            for line, names in self.maps.get(component, {}).get(kind, {}).get(where, {}).items():
                found.setdefault(int(line), set()).update(names)
        return found

    def covers(self, where: str) -> bool:
        """Whether a map of the session has `where` (a session of other files does not)."""
        return any(where in found.get(kind, {}) for found in self.maps.values()
                   for kind in ("files", "spawned"))

    def components(self, where: str) -> tuple[str, ...]:
        """The components whose scenarios run some line of `where`."""
        return tuple(c for c in self.maps
                     if any(names != {AT_COLLECTION} for names in self.by_line(c, where).values()))

    def plan(self, mutation: MutationSpec) -> Plan:
        where = str(mutation.module_path)
        lines = self.statements(where, mutation.start_pos[0], mutation.end_pos[0])
        if where.startswith("kit/"):
            return self._tests(where, lines)
        found = self._scenarios(where, lines)
        if where == ADAPTER and not found.tries and lines <= self.stdio_loop:
            found = Plan((THROUGH_ADAPTER,))
        if where not in OUT_OF_REACH:
            return found
        if where in UNRUN_ONLY and found.tries:
            again = OLD_KERNEL.get(where)
            return Plan((*found.tries, again)) if again else found
        # What no scenario can reach by design (docs/mutation.md): after the scenarios that
        # run the line, if any (a parser a served agent builds too), the project's tests, which
        # cost seconds, before a whole component's run: those that run the line, then every
        # test of the file, as a line may run in a process a test starts (the reaper, a served
        # agent, a command line), which the tests' map does not measure.
        whole = ("--tests", *tests_of([where]))
        tests = tuple(dict.fromkeys((*self._tests(where, lines).tries, whole)))
        return Plan(found.tries[:1] + tests + found.tries[1:])

    @functools.cached_property
    def stdio_loop(self) -> set[int]:
        """The lines of the adapter's stdio loop: `serve`, `main` and the `__main__` block."""
        tree = ast.parse((self.root / ADAPTER).read_text())
        spans = [node for node in tree.body
                 if (isinstance(node, ast.FunctionDef) and node.name in ("serve", "main"))
                 or (isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))]
        return {n for node in spans for n in range(node.lineno, (node.end_lineno or 0) + 1)}

    def _scenarios(self, where: str, lines: set[int]) -> Plan:
        maps = {c: self.by_line(c, where) for c in COMPONENTS}
        components = tuple(c for c in self.components(where) if c in maps)
        if where in OUT_OF_REACH and not components:
            return Plan(())  # no scenario runs the file (imports aside)
        if any(AT_COLLECTION in found.get(line, ()) for found in maps.values() for line in lines):
            # A module constant, a default, a decorator: first the scenarios that run the file
            # at all, then everything, in every component that imports it (a file of constants
            # alone, as reference/status.py, runs no line in any scenario).
            importing = tuple(c for c, found in maps.items() if found)
            names = {n for c in importing for at in maps[c].values() for n in at}
            names -= {AT_COLLECTION}
            whole = _args(importing, ())
            return Plan((_args(importing, sorted(names)), whole) if names else (whole,))
        ran = {n for c in components for line in lines for n in maps[c].get(line, ())}
        if not ran:
            return Plan(())
        first = _args(components, sorted(ran))
        return Plan((first, _args(components, ())) if where.startswith(SERVED) else (first,))

    def _tests(self, where: str, lines: set[int]) -> Plan:
        """The tests that run the mutated lines: a test by its id, a module whole where its
        fixtures run them (mutation.kit); all the file's tests for a line run at import."""
        found = self.by_line(TESTS, where)
        names = {n for line in lines for n in found.get(line, ())}
        if AT_COLLECTION in names:
            return Plan((("--tests", *tests_of([where])),))
        modules = {name for name in names if "::" not in name}
        tests = {name for name in names if name.split("::")[0] not in modules}
        return Plan((("--tests", *sorted(modules | tests)),) if names else ())

    def statements(self, where: str, first: int, last: int) -> set[int]:
        """The lines coverage knows the mutated lines by: a statement's first line (coverage
        records a statement over several lines, as a signature, by its first)."""
        if where not in self.parsers:
            path = self.root / where
            parser = PythonParser(text=path.read_text() if path.is_file() else "")
            parser.parse_source()
            self.parsers[where] = parser
        return {self.parsers[where].first_line(line) for line in range(first, last + 1)}


def _args(components: tuple[str, ...] | list[str], names: tuple[str, ...] | list[str]
          ) -> tuple[str, ...]:
    args = [arg for c in components for arg in ("--component", c)]
    if names:
        args += ["-k", " or ".join(names)]
    return tuple(args)

