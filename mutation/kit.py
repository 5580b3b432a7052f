"""The kit's judging code, judged by the project's tests: which tests execute which of its
lines (the tests of `JUDGING_TESTS` run once, unmutated, under coverage, its context switched
to each test), and the judge of one mutant.

The kit's judging code (`JUDGING`: verdicts, baseline matching, exit codes, the reports) is not
judged by the conformance run, which only uses it: a defect there that turns a failure into a
pass must fail the project's own tests. A mutant of it is judged by the tests that execute its
lines; a line run while the tests are collected (an import, a module constant) gets all of
them. Runs nested in a test (`tests.support.nested.unmeasured` pauses coverage for their cost)
are measured here: which test executes a line is what counts. So is what of `reference/` no
conformance scenario can reach (`OUT_OF_REACH`, docs/mutation.md), by its own tests.

`python -m mutation.kit map OUT.json [FILE ...]` (the kit's judging code by default) writes
`{"passed": bool, "files": {"kit/verdicts.py": {"120": ["tests/test_reports.py::test_x", ...]}},
"skipped": [...]}`; the tests must pass unmutated, none of them skipped.

`python -m mutation.kit judge ID ...`, in a worker's copy with the mutant applied, runs those
tests, stops at the first failure, and prints the session's record as mutation.judge does:
`{"code": 1, "failed": [[ID, "TEST", "failed"]], "by": ID}` (0 survived, 1 a test failed, 2
the run broke; `by` the test that failed first). As mutation.judge does with scenarios, it
runs first the tests that caught the file's last mutants (`AGENT_TCK_MUTATION_FIRST`), then
the shortest first by the times tests/durations.json records. A test skipped under the
mutant is caught too (`[ID, "TEST", "skipped"]`): a skip is no pass, and a mutant of the
suite's own plugin can skip the project's tests wholesale (every test given an empty set of
backends to run for). It imports nothing of the kit before pytest
does (pytest must rewrite the asserts of the modules the tests import)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import coverage
import pytest

from mutation import FIRST
from mutation.scenarios import AT_COLLECTION, ROOT, by_line

JUDGING = ("kit/verdicts.py", "kit/reports.py", "kit/run.py", "kit/plugin.py",
           "kit/html_report.py", "kit/messages.py")
# The tests that judge them: each runs in seconds (the nested runs of tests/test_broken.py
# would judge them too, far more slowly).
JUDGING_TESTS = ("tests/test_verdicts.py", "tests/test_reports.py", "tests/test_junit.py",
                 "tests/test_html_report.py", "tests/test_messages.py", "tests/test_cli_run.py",
                 "tests/test_hermetic.py", "tests/test_registry.py", "tests/test_badge.py")
# What of reference/ no conformance scenario can reach by design (docs/mutation.md), and the
# project's tests that judge it instead: a mutant there on a line no scenario runs is judged by
# those of these tests that run its lines. The reference's stdio adapter is judged by the
# conformance run through it (mutation.plan.THROUGH_ADAPTER), not here.
OUT_OF_REACH = {
    # its search by run tag is the fallback for kernels without child subreapers, which this
    # Linux never takes (its tagging of the CLI's environment runs in every agent scenario)
    "reference/strays.py": ("tests/test_supervisor.py", "tests/test_fallback.py"),
    # the DDS client library and its `ask` command: the kit asks through a client of its own
    "reference/dds/client.py": ("tests/test_dds_cli.py", "tests/test_dds_inprocess.py"),
    # ... and what of the bus only the client library reaches (a wait with no time left: a
    # served agent always waits a tick); the rest of it runs in every transport scenario
    "reference/dds/bus.py": ("tests/test_dds_inprocess.py",),
    "reference/dds/cli.py": ("tests/test_dds_cli.py",),
    # a served agent's answer to a failure that escapes `CodingAgent.process` (`_work`): the
    # agent answers what fails inside it itself (D-24), so only a bug of its own code outside
    # that reaches it, which no scenario can cause; the rest of the file runs in every
    # transport scenario and is judged by the scenarios alone (UNRUN_ONLY)
    "reference/dds/service.py": ("tests/test_dds_inprocess.py",),
    # a served agent's checks of the DDS configuration it is given (one that reaches the
    # network, or asks for DDS Security): the kit gives every served agent a loopback file
    # of its own; and the domain range's bounds, 0 and 232 (a scenario on a fixed domain id
    # would share it with every other run on the machine)
    "reference/dds/config.py": ("tests/test_dds_exposure.py", "tests/test_dds_service.py"),
    # the options that make a CLI act without asking (`find_bypass`), which a served agent
    # refuses on a configuration that reaches the network: the same check as above
    "reference/dds/bypass.py": ("tests/test_dds_exposure.py",),
    # the validator's command line: the protocol hands the pipeline's steps documents, not argv
    "reference/pipeline/cli.py": ("tests/test_pipeline_cli.py",),
    "reference/pipeline/__main__.py": ("tests/test_pipeline_cli.py",),
    # ... and what of the contract's inference only a file name tells (a file under
    # rspec_metadata/ is metadata): the protocol's `contract.validate` hands a document with no
    # name, so only the command line, which names each file, reaches it (the inference from
    # the document's own keys runs in the PL-3.6 scenarios and is judged by them first)
    "reference/pipeline/schemas.py": ("tests/test_pipeline_schemas.py",),
    # the scripted agents the reference's adapter builds from the kit's descriptions: their
    # refusal of a `removes` that leads out of the base directory keeps a wrong description
    # from deleting the user's files, and the kit never sends one
    "reference/pipeline/scripted.py": ("tests/test_pipeline_orchestrator.py",),
    # what the reference's stdio adapter answers after the last scenario (`stop`, which the
    # last scenario's teardown runs, and the exit code at the end of input) and to a line
    # that is no request: the kit's drivers stop the adapter whatever it answers, and never
    # write such a line
    "reference/adapter.py": ("tests/test_adapter_unit.py",),
    # the agent's recovery when its own code is interrupted in a request (KeyboardInterrupt
    # from a Python caller): no driver can interrupt the reference's own code
    "reference/agent.py": ("tests/test_agent_unit.py",),
    # what the supervisor does for a CLI given nothing on stdin (every backend's prompt goes
    # there), for a reaper that will not end, and for a line over the limit whose last piece
    # ends it: the scenarios' CLIs are the fake harness and the real ones, under the real reaper;
    # and, as the reaper's below, its fallback where the kernel refuses pidfds (an old kernel,
    # which tests/test_fallback.py makes)
    "reference/supervisor.py": ("tests/test_supervisor.py", "tests/test_fallback.py"),
    # the core-file limit the reaper sets before it ends by its CLI's signal: the drivers run
    # the implementation with the machine's limit (0 here), where no core is ever written; and
    # its search by run tag where the kernel refuses child subreapers
    "reference/reaper.py": ("tests/test_reaper.py", "tests/test_fallback.py"),
}
# Files of which only some lines are out of reach: a mutant on a line some scenario runs is
# judged by the scenarios alone (the file's tests would hide what the conformance run misses);
# the lines none runs are judged by the tests above.
UNRUN_ONLY = frozenset({"reference/agent.py", "reference/supervisor.py",
                        "reference/dds/service.py"})
# ... but a line a scenario runs may hold a path only an old kernel takes (the supervisor's
# wait for an exit without a pidfd: `pidfd is None and ...`), which runs here and is never
# taken. Its survivors of the scenarios are judged again by the conformance run on an old
# kernel (tests/test_fallback.py), a run of the scenarios in the other configuration the
# reference supports, not the file's own tests.
OLD_KERNEL = {"reference/supervisor.py": ("--tests", "tests/test_fallback.py")}


def tests_of(files: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The project's tests that judge `files`: those of the kit's judging code, and those of
    each file out of the conformance run's reach."""
    chosen = [*(JUDGING_TESTS if any(f.startswith("kit/") for f in files) else ()),
              *(t for f in files for t in OUT_OF_REACH.get(f, ()))]
    return tuple(dict.fromkeys(chosen))


# How the judge runs them: in one process, stopping at the first failure, with nothing that
# reorders them or adds to their cost.
PYTEST_ARGS = ("-q", "-x", "-n", "0", "--no-cov", "-p", "no:cacheprovider", "-p", "no:randomly")


class TestContexts:
    """pytest plugin: the coverage context is the running test's node id while it runs, and
    its module's path while its fixtures are set up and torn down: a fixture a module's tests
    share runs in the first one's setup, yet every test of the module may judge its lines."""

    def __init__(self, cov: coverage.Coverage) -> None:
        self.cov = cov

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.cov.switch_context(item.nodeid.split("::")[0])
        yield
        self.cov.switch_context(AT_COLLECTION)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        self.cov.switch_context(item.nodeid)
        yield
        self.cov.switch_context(item.nodeid.split("::")[0])


def measure(files: tuple[str, ...] = JUDGING) -> dict[str, object]:
    cov = coverage.Coverage(data_file=None, config_file=False,
                            include=[f"*/{f}" for f in files])
    coverage.Coverage.current = staticmethod(lambda: None)  # type: ignore[method-assign]
    cov.start()  # (nested runs no longer find it to pause)
    outcomes = Outcomes()
    code = pytest.main([*PYTEST_ARGS, *tests_of(files)], plugins=[TestContexts(cov), outcomes])
    cov.stop()
    return {"passed": code == pytest.ExitCode.OK and not outcomes.skipped,
            "files": by_line(cov.get_data()), "skipped": outcomes.skipped}


class Outcomes:
    """pytest plugin: the ids of the tests that failed and of those skipped (in setup, call or
    teardown), each once."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.skipped: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        kind = self.failed if report.failed else self.skipped if report.skipped else None
        if kind is not None and report.nodeid not in kind:
            kind.append(report.nodeid)


TEST_DURATIONS = ROOT / "tests" / "durations.json"  # the times `python -m tests` deals by


class InOrder:
    """pytest plugin: the tests named in `first` first, in its order, then the shortest
    expected first (by TEST_DURATIONS, read as `agent-tck run -n N` reads its own)."""

    def __init__(self, first: Sequence[str]) -> None:
        self.rank = {nodeid: i for i, nodeid in enumerate(first)}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        from agent_tck.kit import schedule  # collected by now: pytest has rewritten the kit

        def key(item: pytest.Item) -> tuple[int, float]:
            expected = schedule.expected(item.nodeid, TEST_DURATIONS)
            return self.rank.get(item.nodeid, len(self.rank)), expected

        items.sort(key=key)


def judge(ids: list[str], first: Sequence[str] = ()) -> dict[str, object]:
    tests = Outcomes()
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([*PYTEST_ARGS, *ids], plugins=[tests, InOrder(first)])
    failed = [[nodeid, "TEST", "failed"] for nodeid in tests.failed] + [
        [nodeid, "TEST", "skipped"] for nodeid in tests.skipped if nodeid not in tests.failed]
    broke = not failed and code != pytest.ExitCode.OK  # a collection error, an import error
    return {"code": 1 if failed else 2 if broke else 0, "failed": failed,
            "by": failed[0][0] if failed else None, "pytest": int(code)}


def main(argv: list[str]) -> int:
    if argv[:1] == ["map"] and len(argv) >= 2:
        found = measure(tuple(argv[2:]) or JUDGING)
        Path(argv[1]).write_text(json.dumps(found, sort_keys=True))
        return 0 if found["passed"] else 1
    if argv[:1] == ["judge"]:
        found = judge(argv[1:], json.loads(os.environ.get(FIRST, "[]")))
        print(json.dumps(found))
        return int(str(found["code"]))
    print("usage: python -m mutation.kit map OUT.json [FILE ...] | judge ID ...",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
