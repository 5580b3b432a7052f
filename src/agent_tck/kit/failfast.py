"""Stop a run early when its first scenarios all break the same way.

A wrapper whose every request hangs is judged one scenario after another, each waiting out
the adapter's timeout: hundreds of scenarios, hours, and no verdict. When `FIRST` scenarios
errored (the implementation broke: a hang, an exit, stray output, a protocol error) in the
same way, more than `RATIO` times as many as passed of the components they belong to
(creating an agent can work while every request hangs), the run stops: it says what it saw
and what to check, and the scenarios left are "not run" (a MUST not run is failed in a whole
run). The same way is the same cause, whichever component's scenarios met it: the agent's
and the real CLIs' scenarios send the same command, so a hang of it is counted once across
both (and a component whose own scenarios trip the rule stops the run as well). Failed
assertions never stop a run:
different requirements fail for different reasons, and each is worth reading.
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
    session once `FIRST` scenarios errored the same way, more than `RATIO` times as many as
    passed of their components (see the module's docstring); `reason` says why."""

    def __init__(self) -> None:
        self.causes: dict[str, list[str]] = {}  # cause -> the component of each scenario of it
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
            self.causes.setdefault(data["cause"], []).append(component)
            self._judge(data["cause"])

    def _judge(self, cause: str) -> None:
        """Stop when the cause's scenarios of all the components it met trip the rule, or
        those of one of them do (one stray error in a healthy component, with its many
        passes, must not shelter another component that breaks every time)."""
        met = self.causes[cause]
        groups = [sorted(set(met)), *([c] for c in sorted(set(met)))]
        for components in groups:
            count = sum(met.count(c) for c in components)
            passed = sum(self.passed.get(c, 0) for c in components)
            if count >= FIRST and count > RATIO * passed:
                break
        else:
            return
        kind = cause.partition(":")[0]
        which = " and ".join(components)
        self.reason = (f"{count} scenarios of the {which} component"
                       f"{'s' if len(components) > 1 else ''} errored the same way, and only "
                       f"{passed} of {'them' if len(components) > 1 else 'it'} passed: {cause}. "
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
