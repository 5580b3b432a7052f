"""One mutant's verdicts: `python -m mutation.judge --component C [...] [-k EXPR]`, run in a
worker's copy of the repository with the mutant applied. It runs the conformance suite as
`agent-tck run --strict` does (the same pytest arguments, plugins and verdicts) on those
components and scenarios, and prints one JSON line for the session's record:
`{"code": 1, "failed": [["AG-D6", "MUST", "failed"], ...], "stopped": true}`. Its exit code:
0 the mutant survived, 1 a requirement failed, 2 the run itself broke.

A mutant of the kit's judging code is judged by the project's tests instead: mutation.kit.

The scenarios of MUST requirements run first, and the run stops at the first scenario that
fails: a MUST's, and the mutant is caught by the seeds; a SHOULD's, and every MUST scenario has
passed, so only SHOULDs can fail. The rest would only cost time. `failed` is then what failed
until there, and `by` the scenario that failed first.

Within each level the scenarios that caught the last mutants of the same file run first (the
worker names them: `AGENT_TCK_MUTATION_FIRST`, a JSON list of node ids), then
the rest, shortest first by the times `kit/durations.json` records: a mutant is caught by the
first scenario that fails, and one that caught the mutant before on the next line is the likeliest
to catch this one. The order decides no verdict, only how soon the run stops.

A scenario that outlasts `HANG` seconds has hung, and fails as pytest-timeout fails it: a
mutant whose request never ends (a read loop that never sees the end of the pipe) fails the
first scenario that makes a request after a minute, not the two minutes `agent-tck run` gives
an implementation. (The limit is the run's, as `agent-tck run` sets its own: a `timeout` mark
on each scenario would put the word "timeout" among every scenario's keywords, and `-k timeout`
would then select them all.)"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Sequence

import pytest

from agent_tck.kit import cli, registry, run, schedule, verdicts
from mutation import FIRST

FAILING = (verdicts.FAILED, verdicts.ERRORED)
# In-process the reference declares every component and backend and answers for every
# requirement: one it no longer answers for (every scenario of it not applicable, as when a
# mutant drops a component from what the adapter declares) is one it fails, though
# `agent-tck run` would not call that a failure of an implementation that never declared it.
# Through an adapter some requirements are not applicable unmutated (AG-L1, AG-L2: the stdio
# driver cannot hand it a failing monitor), so there only failures count.
UNANSWERED = (*FAILING, verdicts.NA)
# Far longer than any scenario a judge runs takes, most of them well under a second
HANG = 60.0


def order(items: list[pytest.Item], reqs: dict[str, registry.Requirement],
          first: Sequence[str] = ()) -> None:
    """`items` in the order a judge runs them: the scenarios of MUST requirements first; within
    each level those named in `first`, in its order, then the shortest expected first."""
    rank = {nodeid: i for i, nodeid in enumerate(first)}

    def key(item: pytest.Item) -> tuple[bool, int, float]:
        must = any(reqs[r].level == "MUST" for m in item.iter_markers("req")
                   for r in m.args[:1] if r in reqs)
        return not must, rank.get(item.nodeid, len(rank)), schedule.expected(item.nodeid)

    items.sort(key=key)


class StopAtFirstFailure:
    """pytest plugin: the scenarios in `order`, and the session stops at the first scenario
    that fails (`by`)."""

    def __init__(self, collector: verdicts.Collector, reqs: dict[str, registry.Requirement],
                 first: Sequence[str] = ()) -> None:
        self.collector, self.reqs, self.first = collector, reqs, first
        self.session: pytest.Session | None = None
        self.stopped = False
        self.by: str | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """A mutant the seeds catch is caught before the SHOULD scenarios run."""
        order(items, self.reqs, self.first)

    @pytest.hookimpl(trylast=True)  # after the collector has taken the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        result = self.collector.results.get(report.nodeid)
        if result is None or result.verdict not in FAILING:
            return
        self.stopped = True
        self.by = report.nodeid
        if self.session is not None:  # as -x does: after this scenario's teardown
            self.session.shouldstop = f"{report.nodeid} failed"


class Judging:
    """One judge's run: the suite's arguments for `argv` (those of `agent-tck run --strict`),
    its plugins, and the record its outcome makes."""

    def __init__(self, argv: list[str], first: Sequence[str] = ()) -> None:
        self.args = cli.build_parser().parse_args(["run", "--strict", *argv])
        self.reqs = registry.load()
        self.collector = verdicts.Collector()
        self.stop = StopAtFirstFailure(self.collector, self.reqs, first)
        self.plugins: list[object] = [self.collector, self.stop]

    def run_suite(self, basetemp: list[str]) -> int | pytest.ExitCode:
        """The suite's run as `agent-tck run` starts it, quiet, with the judge's plugins."""
        with run.hermetic(), contextlib.redirect_stdout(io.StringIO()):
            return pytest.main([*run.pytest_args(self.args), *basetemp, "-o",
                                f"timeout={HANG:g}"], plugins=self.plugins)

    def record(self, code: int | pytest.ExitCode) -> dict[str, object]:
        components = self.args.component
        folded = verdicts.fold({k: v for k, v in self.reqs.items() if v.component in components},
                               self.collector.results.values(), selected=True)
        failing = UNANSWERED if self.args.impl == "reference" else FAILING
        failed = [[v.req.id, v.req.level, v.verdict] for v in folded if v.verdict in failing]
        broke = not failed and code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        # (stopped at a failure, pytest says INTERRUPTED: `failed` is not empty then)
        return {"code": 1 if failed else 2 if broke else 0, "failed": failed,
                "stopped": self.stop.stopped, "by": self.stop.by, "pytest": int(code)}


def judge(argv: list[str]) -> dict[str, object]:
    judging = Judging(argv, json.loads(os.environ.get(FIRST, "[]")))
    with run.private_basetemp() as basetemp:
        return judging.record(judging.run_suite(basetemp))


def main(argv: list[str]) -> int:
    found = judge(argv)
    print(json.dumps(found))
    return int(str(found["code"]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
