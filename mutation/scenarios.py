"""Which scenarios execute which lines of `reference/`: one in-process conformance run of a
component under coverage, its context switched to each scenario as it runs.

A mutant on a line that only some scenarios execute is judged by those scenarios alone; the
others run the same code they ran unmutated, so their verdicts cannot change. Lines that run
while the suite is collected (imports, module constants, default arguments) belong to no
scenario: their mutants get the whole component.

Processes a scenario starts are measured too: the reaper (started per request, so its context
is exact; `mutation.coverreaper` traces it, and saves what it ran before it ends by a signal,
and what its forked child ran before it execs the CLI) and served
DDS agents (which take the context of the scenario that started them; one kept for a later
scenario is credited to the first). Their lines go to `spawned`, which the planner treats as an
approximation.

`python -m mutation.scenarios COMPONENT OUT.json [RUN OPTIONS]` writes `{"passed": bool,
"files": {...}, "spawned": {...}}`, each `{"reference/agent.py": {"120": ["test_x", ...]}}`;
the run must be conformant unmutated, or a killed mutant would mean nothing. RUN OPTIONS are
`agent-tck run`'s (`--time-scale 0.02 -k ...`), for a map of the runs a test nests
(tests/support/reach.py)."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import coverage
import pytest

from mutation import listed

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
AT_COLLECTION = ""  # the context of lines run outside any scenario
COVER_REAPER = Path(__file__).with_name("coverreaper.py")


SCENARIO = "AGENT_TCK_SCENARIO"  # the context of the processes a scenario starts
SPAWNED_RC = """\
[run]
source = {source}
parallel = true
data_file = {data}
context = ${{AGENT_TCK_SCENARIO}}
patch =
    _exit
"""


class Contexts:
    """pytest plugin: the coverage context is the scenario's test function while it runs, in
    this process and in those it starts."""

    def __init__(self, cov: coverage.Coverage, reapers: Path) -> None:
        self.cov, self.reapers = cov, reapers

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        from agent_tck.reference import reaper, supervisor

        name = getattr(item, "originalname", item.name)
        self.cov.switch_context(name)
        os.environ[SCENARIO] = name
        # The reaper gets the CLI's environment (often a configured one) and runs isolated:
        # traced with the context on its command line instead (mutation.coverreaper).
        supervisor.REAPER = (  # type: ignore[assignment]  # a longer command line
            sys.executable, "-I", "-S", str(COVER_REAPER), str(self.reapers), name,
            reaper.__file__)
        yield
        self.cov.switch_context(AT_COLLECTION)
        os.environ[SCENARIO] = AT_COLLECTION


def measure(component: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    cov = coverage.Coverage(data_file=None, config_file=False, source=[str(REFERENCE)])
    cov.start()
    from agent_tck.kit import cli, run, verdicts  # after start: imports are measured too

    _import_reference()  # before any scenario, so that import-time lines belong to none

    args = cli.build_parser().parse_args(["run", "--component", component, "--strict",
                                          *options])
    collector = verdicts.Collector()
    with tempfile.TemporaryDirectory(prefix="agent-tck-map-") as tmp:
        rcfile = Path(tmp) / "spawned.rc"
        data, reapers = Path(tmp) / "data", Path(tmp) / "reapers"
        data.mkdir()
        reapers.mkdir()
        rcfile.write_text(SPAWNED_RC.format(source=REFERENCE, data=data / "spawned"))
        os.environ["COVERAGE_PROCESS_START"] = str(rcfile)  # served agents
        with run.hermetic(), run.private_basetemp() as basetemp:
            code = pytest.main([*run.pytest_args(args), *basetemp],
                               plugins=[collector, Contexts(cov, reapers)])
        cov.stop()
        del os.environ["COVERAGE_PROCESS_START"]
        spawned = coverage.Coverage(config_file=str(rcfile))
        spawned.combine([str(data)], keep=True)
        found = {"passed": code == pytest.ExitCode.OK, "files": by_line(cov.get_data()),
                 "spawned": with_reapers(by_line(spawned.get_data()), reapers)}
    return found


def by_line(data: coverage.CoverageData) -> dict[str, dict[str, list[str]]]:
    files: dict[str, dict[str, list[str]]] = {}
    for measured in data.measured_files():
        where = str(listed(Path(measured), ROOT))
        contexts = data.contexts_by_lineno(measured)
        files[where] = {str(line): sorted(set(names)) for line, names in contexts.items()}
    return files


def merged(maps: list[dict[str, Any]]) -> dict[str, Any]:
    """One map of the runs of `maps` (the shards of one component's scenarios): passed where
    each passed, and each line's scenarios those of every map. A line run once per process (a
    cache filled at first use) is credited to the first scenario of each shard, not only to
    the run's first: more scenarios, never fewer."""
    found: dict[str, Any] = {"passed": all(m["passed"] for m in maps)}
    for kind in ("files", "spawned"):
        lines: dict[str, dict[str, set[str]]] = {}
        for m in maps:
            for where, by in m[kind].items():
                for line, names in by.items():
                    lines.setdefault(where, {}).setdefault(line, set()).update(names)
        found[kind] = {where: {line: sorted(names) for line, names in by.items()}
                       for where, by in lines.items()}
    return found


def with_reapers(files: dict[str, dict[str, list[str]]], reapers: Path, root: Path = ROOT
                 ) -> dict[str, dict[str, list[str]]]:
    """`files` and the lines the traced reapers saved in `reapers` (mutation.coverreaper), by
    their files' paths under `root`; `files` itself is left as it was."""
    found = {where: {line: set(names) for line, names in by.items()}
             for where, by in files.items()}
    for saved in sorted(reapers.glob("reaper.*.json")):
        record = json.loads(saved.read_text())
        where = str(listed(Path(record["file"]), root))
        for line in record["lines"]:
            found.setdefault(where, {}).setdefault(str(line), set()).add(record["context"])
    return {where: {line: sorted(names) for line, names in by.items()}
            for where, by in found.items()}


def _import_reference() -> None:
    import agent_tck.reference as package

    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not module.name.endswith("__main__"):  # importing one would run it
            importlib.import_module(module.name)


def main(argv: list[str]) -> int:
    component, out, *options = argv
    found = measure(component, tuple(options))
    Path(out).write_text(json.dumps(found, sort_keys=True))
    return 0 if found["passed"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
