"""Stop a run early when its first scenarios all break the same way.

A wrapper whose every request hangs is judged one scenario after another, each waiting out
the adapter's timeout: hundreds of scenarios, hours, and no verdict. When `FIRST` scenarios
of a component errored (the implementation broke: a hang, an exit, stray output, a protocol
error) in the same way, more than `RATIO` times as many as passed (creating an agent can
work while every request hangs), the run stops: it says what it saw and what to check, and the
scenarios left are "not run" (a MUST not run is failed in a whole run). Failed assertions
never stop a run: different requirements fail for different reasons, and each is worth
reading.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_tck.kit import verdicts

FIRST = 4
RATIO = 2  # the same break more than twice as often as a pass: the break is the rule
ADVICE = {
    "AdapterHung": "Check that the wrapper closes the CLI's stdin once the prompt is written "
                   "(the fake CLI, like the real ones, reads stdin to its end before it "
                   "answers) and that it enforces the request's own timeout.",
    "AdapterExited": "The adapter's stderr (below) says why it exited; `agent-tck smoke "
                     "--impl ...` starts it and makes one request.",
    "StrayOutput": "Only protocol messages may go to the adapter's stdout: send logs to "
                   "stderr.",
    "BreaksSchema": "docs/adapter-protocol.md gives each command's answer; the adapter's "
                    "does not match it.",
    "Refused": "The implementation answers every request with an error (below).",
    "NotJudged": "The fake CLI never got to what the scenarios are about, for the cause "
                 "above: fix that (the requirement it names judges it), then run again.",
}


class FailFast:
    """pytest plugin, where the reports arrive (the session, or xdist's controller): stops the
    session once `FIRST` scenarios of one component errored the same way, more than `RATIO`
    times as many as passed (see the module's docstring); `reason` says why."""

    def __init__(self) -> None:
        self.causes: dict[str, list[str]] = {}  # component -> causes of its errored scenarios
        self.passed: dict[str, int] = {}  # component -> scenarios of it that passed
        self.ended: set[str] = set()  # the scenarios counted (a scenario reports three phases)
        self.reason = ""
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = dict(report.user_properties).get(verdicts.KEY)
        if not isinstance(data, dict) or data["kind"] is None or self.reason or (
                report.nodeid in self.ended):
            return
        self.ended.add(report.nodeid)
        component = data["component"]
        if data["kind"] == verdicts.PASSED:
            self.passed[component] = self.passed.get(component, 0) + 1
        elif data["kind"] == verdicts.ERRORED and data.get("cause"):
            self.causes.setdefault(component, []).append(data["cause"])
            self._judge(component, data["cause"])

    def _judge(self, component: str, cause: str) -> None:
        count = self.causes[component].count(cause)
        if count < FIRST or count <= RATIO * self.passed.get(component, 0):
            return
        kind = cause.partition(":")[0]
        self.reason = (f"{count} scenarios of the {component} component errored the same way, "
                       f"and only {self.passed.get(component, 0)} of it passed: {cause}. "
                       f"{ADVICE.get(kind, '')}".rstrip())
        self._stop()

    def _stop(self) -> None:
        """The session stops after the scenarios running now; with workers, xdist's
        controller stops them the same way (it checks its `shouldstop` after each event)."""
        assert self.session is not None
        dsession: Any = self.session.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = f"agent-tck: {self.reason}"
        self.session.shouldstop = f"agent-tck: {self.reason}"
