"""A line as each scenario ends: a user sees verdicts from the first scenario on, while the
table of requirement verdicts comes at the end of the run.

    [12/235] passed          RP-1.1  The wrapper answers one request [claude]

The count is of the scenarios selected (known once they are collected: in the session, or in
xdist's controller from its workers' collection); the verdict is the scenario's, as the
collector folded its phases; the title is the Gherkin scenario's, else pytest's name."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TextIO

import pytest

from agent_tck.kit import verdicts
from agent_tck.kit.text import printable

WIDTH = max(len(v) for v in (verdicts.PASSED, verdicts.FAILED, verdicts.ERRORED, verdicts.NA,
                             verdicts.SKIPPED, verdicts.NOT_RUN))
TITLE = 80  # characters of a title: with its backend or example (which can be a whole JSON
PARAM = 40  # line) a line stays readable, and the runs of one scenario stay apart


class Progress:
    """pytest plugin: after the collector has read a scenario's last report (its teardown's,
    or pytest-xdist's of a worker that died running it), one line of its verdict on `out`."""

    def __init__(self, collector: verdicts.Collector, out: TextIO) -> None:
        self.collector, self.out, self.done = collector, out, 0

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self) -> Generator[None, Any, Any]:
        """pytest's letter for the test, blanked (its word, for -v, kept)."""
        status = yield
        return (status[0], "", *status[2:]) if status else status

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":
            self._ended(report.nodeid)

    @pytest.hookimpl(trylast=True, optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str) -> None:
        """A scenario whose worker died: it has no teardown, and is errored all the same."""
        self._ended(crashitem)

    def _ended(self, nodeid: str) -> None:
        result = self.collector.results.get(nodeid)
        if result is None:
            return
        self.done += 1
        total = max(len(self.collector.order), len(self.collector.results))
        param = result.name[result.name.find("["):] if result.name.endswith("]") else ""
        name = f"{_cut(result.title, TITLE)} {_cut(param, PARAM)}" if result.title else \
            _cut(result.name, TITLE + PARAM)
        line = f"[{self.done}/{total}] {result.verdict:<{WIDTH}}  {', '.join(result.reqs)}  {name}"
        print(printable(line.rstrip()), file=self.out, flush=True)


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 3] + "..."
