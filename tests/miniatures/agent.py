"""Miniature broken implementations: the reference with exactly one defect each.

Each factory is a driver for `--impl python:tests.miniatures.agent:<Name>`; tests/test_broken.py
runs the suite against each one and checks it fails exactly the requirements its defect breaks.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tck.kit.drivers.inprocess import InProcessDriver
from agent_tck.kit.observe import children
from agent_tck.kit.registry import KNOWN_BACKENDS
from agent_tck.reference.adapter import Adapter
from agent_tck.reference.agent import PROBE_MARK, CodingAgent, NodeEvent, create_agent, judge
from agent_tck.reference.backends import BACKENDS, get_backend
from agent_tck.reference.backends.base import Invocation, RunOptions, load_object
from agent_tck.reference.events import Event
from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.feed import Feed
from agent_tck.reference.status import State, Status
from agent_tck.reference.supervisor import (
    CHUNK,
    MAX_LINE,
    STDERR_TAIL,
    LineSplitter,
    Outcome,
    Supervisor,
    launch_error,
    run_process,
    start_error,
)


class _BrokenAdapter(Adapter):
    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make

    def make_agent(self, settings: dict[str, Any], observed: Any) -> CodingAgent:
        agent: CodingAgent = self.make(settings, [observed.on_state])
        return agent


# The backends a broken agent declares: its defect is in code every backend shares, so one
# backend's runs show it (a third of the scenarios, and of the CPU, of all three); a defect
# that only some backends' runs can show declares those. AGENT_TCK_MINIATURE_BACKENDS=all
# (on demand) declares every backend, as the reference does.
ALL_BACKENDS = os.environ.get("AGENT_TCK_MINIATURE_BACKENDS") == "all"


def _declare(driver: InProcessDriver, backends: tuple[str, ...]) -> None:
    """`driver` declares `backends` only, unless AGENT_TCK_MINIATURE_BACKENDS=all."""
    if not ALL_BACKENDS:
        driver.info = replace(driver.info, backends=backends)


class _Broken(InProcessDriver, ABC):
    backends: tuple[str, ...] = ("claude",)
    # Where in reference/ the defect is: the scenarios that run none of these lines are the
    # reference's (tests/support/reach.py). Empty: everywhere; CI judges it on the scenarios
    # of the requirements it breaks, and every scenario with AGENT_TCK_BROKEN=whole.
    reach: tuple[str, ...] = ()

    def __init__(self) -> None:
        super().__init__(_BrokenAdapter(self.make_agent))
        _declare(self, self.backends)

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        agent = create_agent(listeners=listeners, **settings)
        self.break_agent(agent)
        return agent

    @abstractmethod
    def break_agent(self, agent: CodingAgent) -> None:
        """Give `agent` this implementation's one defect."""


class _Supervised(_Broken):
    """The reference with its CLI run under a supervisor of one defect."""

    supervisor: type[Supervisor] = Supervisor

    def break_agent(self, agent: CodingAgent) -> None:
        agent.run_process = functools.partial(run_process, supervisor=self.supervisor)


class _Answers(_Broken):
    """The reference with one defect in how it words or shapes its answer."""

    def break_agent(self, agent: CodingAgent) -> None:
        run = agent._run

        def changed(message: str, session_id: str | None) -> dict[str, Any]:
            return self.change(run(message, session_id), agent)

        agent._run = changed  # type: ignore[method-assign]

    @abstractmethod
    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        """The answer as this implementation gives it."""


class _NoWait(Supervisor):
    def _finish(self) -> None:
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT)
        assert info is not None
        killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
        self.proc.returncode = -info.si_status if killed else info.si_status


class _MergedStreams(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        chunk = os.read(fd, CHUNK)
        if self.proc.stdout is not None and fd != self.proc.stdout.fileno():
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
        splitter.feed(chunk)
        return bool(chunk)


class NoReap(_Supervised):
    """Never waits for the process it started (the reaper, or the harness where there is no
    reaper): it stays a zombie."""

    backends = ("claude", "codex", "gemini")  # the reports' tests show it once per backend

    supervisor = _NoWait


class _ChildOnly(Supervisor):
    def _signal(self, sig: signal.Signals) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)


class SignalsOnlyTheChild(_Broken):
    """Runs the harness in the agent's own process group and signals only the harness."""

    def break_agent(self, agent: CodingAgent) -> None:
        def run(argv: Any, stdin: bytes, on_line: Any, **kw: Any) -> Any:
            try:
                proc = subprocess.Popen(
                    list(argv),
                    cwd=kw["cwd"],
                    env=kw["env"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            except OSError as exc:  # as the reference says it: its defect is in the signals
                raise start_error(argv[0], exc, kw["cwd"]) from exc
            return _ChildOnly(proc, kw["timeout"], kw["grace"]).run(stdin, on_line)

        agent.run_process = run  # type: ignore[assignment]


class StaysBusyAfterTimeout(_Broken):
    """Forgets to return to READY when a request timed out."""

    reach = (  # a reason that names the timeout: a request that timed out, or an error's text
        "reference/agent.py:judge:Status.TIMEOUT",
        "reference/agent.py:CodingAgent._guarded:internal error of the agent",
    )

    def break_agent(self, agent: CodingAgent) -> None:
        transition = agent._transition
        stuck = []

        def broken(state: State, reason: str) -> None:
            stuck.extend(["timeout"] if Status.TIMEOUT.name.lower() in reason else [])
            if not (stuck and state is State.READY):
                transition(state, reason)

        agent._transition = broken  # type: ignore[method-assign]


class _Backend:
    """Wraps a backend; subclasses change one thing."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.command = inner, inner.name, inner.command
        self.key_variables = inner.key_variables

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        built: Invocation = self.inner.build(prompt, options)
        return built

    def parse_line(self, line: str) -> list[Event]:
        events: list[Event] = self.inner.parse_line(line)
        return events


class _KeepJunk(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        if load_object(line) is None:
            return [Event("text", text=line)]
        return self.inner.parse_line(line)  # type: ignore[no-any-return]


class KeepsMalformedLines(_Broken):
    """Treats a line that is not a JSON event as text instead of skipping it."""

    reach = ("reference/backends/claude.py:ClaudeBackend.parse_line:return []",)  # no object

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _KeepJunk(agent.backend)


class _FirstValue(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        stripped = line.strip()
        try:  # the first JSON value of the line, whatever follows it
            value, end = json.JSONDecoder().raw_decode(stripped)
        except (ValueError, RecursionError):
            return []
        whole = json.dumps(value) if end < len(stripped) else line
        return self.inner.parse_line(whole)  # type: ignore[no-any-return]


class ReadsTheFirstValueOfALine(_Broken):
    """Takes the JSON object a line starts with and ignores what follows it on the line (the
    reference with its check of the line's end turned around, as a mutant had it). It differs
    only on a line with more after its object, which the reference skips as no object."""

    reach = ("reference/backends/claude.py:ClaudeBackend.parse_line:return []",)  # no object

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _FirstValue(agent.backend)


class _ResultsAsCalls(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        return [
            replace(e, tool_id=f"{e.tool_id}/result") if e.kind == "tool_result" else e
            for e in self.inner.parse_line(line)
        ]


class CountsToolResults(_Broken):
    """Counts every tool result as one more tool call."""

    reach = ("reference/agent.py:_Fold._count_tool",)  # a tool's event

    backends = ("claude", "codex")

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _ResultsAsCalls(agent.backend)


class IgnoresWorkingDir(_Broken):
    """Starts the harness in its own directory, whatever working_dir says."""

    backends = ("claude", "codex", "gemini")  # other tests show it once per backend

    def break_agent(self, agent: CodingAgent) -> None:
        agent.config = replace(agent.config, working_dir=None)


class DropsTheModel(_Broken):
    """Takes a model setting and runs the CLI with its default model."""

    reach = (  # a request with a model
        'reference/backends/claude.py:ClaudeBackend.build:"--model"',
        'reference/backends/codex.py:CodexBackend.build:"-m"',
        'reference/backends/gemini.py:GeminiBackend.build:"-m"',
    )

    def break_agent(self, agent: CodingAgent) -> None:
        agent.config = replace(agent.config, model=None)


class _PromptArgument(_Backend):
    def build(self, prompt: str, options: RunOptions) -> Invocation:
        built = self.inner.build(prompt, options)
        argv = [a for a in built.argv if a != "-"]
        return Invocation((*argv, prompt), b"")


class PromptAsArgument(_Broken):
    """Passes the prompt as a plain argument, where a leading dash makes it an option."""

    backends = ("claude", "codex", "gemini")  # other tests show it once per backend

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _PromptArgument(agent.backend)


class _Omits(_Backend):
    """Leaves one word out of its CLI's command line."""

    word = ""

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        built = self.inner.build(prompt, options)
        return replace(built, argv=tuple(a for a in built.argv if a != self.word))


class _NoVerbose(_Omits):
    word = "--verbose"


class _NoExec(_Omits):
    word = "exec"


class OmitsVerbose(_Broken):
    """Runs `claude -p --output-format stream-json` without `--verbose`, which the real CLI
    refuses (exit 1) before it prints anything."""

    backends = ("claude", "codex", "gemini")  # its test checks the others' runs still pass

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _NoVerbose(agent.backend)


class OmitsExec(_Broken):
    """Runs `codex --json ... -` without `exec`: the real CLI's interactive mode, which takes
    no `--json` (exit 2) and, without options it refuses, needs a terminal (exit 1)."""

    backends = ("claude", "codex", "gemini")  # its test checks the others' runs still pass

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _NoExec(agent.backend)


class ParsesStderrToo(_Supervised):
    """Reads stderr's lines as the stream too (as a wrapper that merges the two would)."""

    reach = ("reference/supervisor.py:Supervisor._read:self.stderr_tail =",)  # a read of stderr

    supervisor = _MergedStreams


class _BlockingWrite(Supervisor):
    def _write(self, sel: selectors.BaseSelector, feed: Feed) -> None:
        assert self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), True)
        super()._write(sel, feed)


class _OnePipeIsEnough(Supervisor):
    def _done(self, readers: int) -> bool:
        return super()._done(0 if readers <= 1 else readers)


class StopsWhenOnePipeCloses(_Supervised):
    """Once the CLI has exited, stops reading as soon as one of its pipes is at end of file
    (what is still in the other is lost)."""

    supervisor = _OnePipeIsEnough


class _WaitsForTheExit(Supervisor):
    def _enforce(self, feed: Feed) -> None:
        self.turn_end_at = None  # no word of the turn's end is taken: the exit, or the deadline
        super()._enforce(feed)


class WaitsForTheExitAfterTheTurn(_Supervised):
    """Waits for a CLI whose turn has ended to exit, until the deadline (the reference before
    D-38): a CLI that keeps running after its answer is answered with the timeout."""

    reach = ("reference/supervisor.py:Supervisor._enforce:self.stopped_after_turn = True",)

    supervisor = _WaitsForTheExit


class WritesThePromptBlocking(_Supervised):
    """Writes the prompt in blocking writes (the reference without its one set_blocking, as a
    mutant had it): a CLI that stops reading part way holds the request in a write."""

    supervisor = _BlockingWrite


class _GraceFromTheFirstLine(Supervisor):
    def run(self, stdin: bytes | Feed, on_line: Callable[[str], None]) -> Outcome:
        feed = stdin if isinstance(stdin, Feed) else Feed(stdin)

        def first(line: str) -> None:
            feed.end_turn()
            on_line(line)

        return super().run(feed, first)


class StopsACliThatPausesMidTurn(_Supervised):
    """Gives the CLI its grace period from its first line, not from its turn's end (the
    reference with its `if fold.completed` negated, as a mutant had it)."""

    supervisor = _GraceFromTheFirstLine


class _SecondAfterTurn(Supervisor):
    def _after_turn(self) -> float:
        return max(self.grace, 1.0)


class StopsACliASecondAfterItsTurn(_Supervised):
    """Gives a CLI that has ended its turn one second to exit, not two (D-38)."""

    supervisor = _SecondAfterTurn


class _Creates(_Broken):
    """A broken agent whose one defect is in what it creates."""

    def break_agent(self, agent: CodingAgent) -> None:
        """Nothing more."""


class RunsClaudeForAnyBackend(_Creates):
    """Creates an agent for a backend it does not know, and runs claude for it."""

    reach = (  # a backend refused
        "reference/backends/__init__.py:get_backend:raise ConfigError",
        "reference/agent.py:AgentConfig.__post_init__:must be a string, not",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        if settings.get("backend") not in BACKENDS:
            settings = {**settings, "backend": "claude"}
        return super().make_agent(settings, listeners)


class TakesAnyDeadline(_Creates):
    """Takes a timeout or grace period that is no duration, running with its default instead
    (the reference with its check of them deleted, as a mutant of AgentConfig had it)."""

    reach = ("reference/limits.py:seconds:raise ConfigError",)  # a deadline refused

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        for name in ("timeout", "grace_period"):
            value = settings.get(name)
            if value is not None and not (isinstance(value, int | float) and value > 0):
                settings = {k: v for k, v in settings.items() if k != name}
        return super().make_agent(settings, listeners)


class ReadsDeadlinesAsNumbers(_Creates):
    """Takes a deadline written as text or as true as the number it reads as ("60" is 60
    seconds, true is one): the reference with its check's `or` turned to `and`, which took
    true for a second and answered "60" with a TypeError that named no setting."""

    reach = ("reference/limits.py:seconds:raise ConfigError",)  # a deadline refused

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        for name in ("timeout", "grace_period"):
            if isinstance(settings.get(name), bool | str):
                settings = {**settings, name: float(settings[name])}
        return super().make_agent(settings, listeners)


class CapsItsDeadlines(_Creates):
    """Refuses a timeout over an hour, as no duration (the reference with its upper line of a
    week mutated to 7 / 24 * 3600 seconds: a caller's long task cannot be given its day)."""

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        timeout = settings.get("timeout")
        if isinstance(timeout, int | float) and timeout > 3600:
            raise ConfigError(f"timeout must be a positive number of seconds up to 3600, "
                              f"got {timeout!r}")
        return super().make_agent(settings, listeners)


class StripsOnlyWhatItCan(_Creates):
    """Drops the names in strip_env that cannot be a variable's instead of refusing them (the
    reference with its check of them deleted, as a mutant had it)."""

    reach = ("reference/agent.py:_check_variable:raise ConfigError",)  # a variable name refused

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        names = settings.get("strip_env")
        if isinstance(names, list | tuple):  # what is no list is refused as the reference does
            kept = [n for n in names if isinstance(n, str) and n and "=" not in n]
            settings = {**settings, "strip_env": kept}
        return super().make_agent(settings, listeners)


class ReadsSettingsAsText(_Creates):
    """Reads every setting as text: a model of 5 is "5", a single name to strip is a list of
    one, and an environment value is whatever `str()` makes of it (the reference with its
    checks of their kinds deleted, as mutants had it)."""

    reach = (  # a setting refused
        "reference/agent.py:AgentConfig.__post_init__:raise ConfigError",
        "reference/agent.py:_check_variable:raise ConfigError",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        texts = {k: str(v) for k, v in settings.items()
                 if k in ("model", "command", "working_dir") and v is not None}
        given = settings.get("env")
        env = {k: str(v) for k, v in given.items()} if isinstance(given, dict) else {}
        strip = settings.get("strip_env") or []
        names = strip if isinstance(strip, list | tuple) else [strip]
        return super().make_agent(
            {**settings, **texts, "env": env, "strip_env": [str(n) for n in names]}, listeners)


class BlamesTheCliForItsDirectory(_Creates):
    """Takes a working directory that does not exist and leaves it to the CLI's start, whose
    failure it reports as the operating system gives it: "cannot start claude", not a word of
    the directory (the reference with its checks deleted, as a mutant had it)."""

    reach = (  # a working directory that is not there, at creation or at the CLI's start
        "reference/agent.py:AgentConfig.__post_init__:is not a directory",
        "reference/supervisor.py:start_error",
        "reference/supervisor.py:launch_error",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        wanted = settings.get("working_dir")
        if not isinstance(wanted, str) or os.path.isdir(wanted):
            agent = super().make_agent(settings, listeners)
        else:
            agent = super().make_agent({**settings, "working_dir": None}, listeners)
            object.__setattr__(agent.config, "working_dir", wanted)
        agent.run_process = self._run_process
        return agent

    @staticmethod
    def _run_process(argv: Any, stdin: bytes, on_line: Any, **kw: Any) -> Any:
        if kw["cwd"] is not None and not os.path.isdir(kw["cwd"]):
            raise launch_error(argv[0], errno.ENOENT)
        return run_process(argv, stdin, on_line, **kw)


class DropsWhatItSetsAndStrips(_Creates):
    """Sets env, then strips what strip_env names: a variable named in both reaches the CLI
    with neither value (the reference with its check deleted, as a mutant had it)."""

    reach = (  # a setting refused (the one it drops, both set and stripped, among them)
        "reference/agent.py:AgentConfig.__post_init__:raise ConfigError",
        "reference/agent.py:_check_variable:raise ConfigError",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        env, strip = settings.get("env"), settings.get("strip_env")
        if isinstance(env, dict) and isinstance(strip, list | tuple):  # else refused as before
            settings = {**settings, "env": {k: v for k, v in env.items() if k not in strip}}
        return super().make_agent(settings, listeners)


class SaysEveryRequestCompleted(_Creates):
    """Publishes "request completed" as the reason a request ended, however it ended (the
    reference with its choice of reason turned around, as a mutant had it)."""

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        def reworded(event: NodeEvent) -> None:
            if event.reason.startswith("request ended"):
                event = replace(event, reason="request completed")
            for listener in listeners:
                listener(event)

        return super().make_agent(settings, [reworded])


class WithholdsOneKey(_Broken):
    """Using the CLI's login, withholds only the best-known API-key variable of its backend."""

    reach = (  # keys withheld for the login
        "reference/agent.py:CodingAgent._environment:env.pop(name, None)",
    )

    def break_agent(self, agent: CodingAgent) -> None:
        environment = agent._environment

        def leaky() -> dict[str, str]:
            env = environment()
            if agent.config.credentials == "login":
                env.update({name: os.environ[name] for name in agent.backend.key_variables[1:]
                            if name in os.environ})
            return env

        agent._environment = leaky  # type: ignore[method-assign]


class TakesAnyKeyMode(_Creates):
    """Told to use an API key, never checks that one is set."""

    reach = (  # an API key asked for and not set
        "reference/agent.py:CodingAgent._check_credentials:credentials 'api-key'",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        if settings.get("credentials") == "api-key":
            settings = {**settings, "credentials": None}
        return super().make_agent(settings, listeners)


class LoginOverridesEnv(_Creates):
    """Told to use the CLI's login while its env sets a key, silently drops the key."""

    reach = (  # a key set beside the login, or a setting refused (the key's among them)
        "reference/agent.py:CodingAgent._check_credentials:withholds the",
        "reference/agent.py:AgentConfig.__post_init__:raise ConfigError",
        "reference/agent.py:_check_variable:raise ConfigError",
    )

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        name = settings.get("backend", "claude")
        backend = get_backend(name) if name in BACKENDS else None
        if settings.get("credentials") == "login" and backend is not None:
            env = {k: v for k, v in (settings.get("env") or {}).items()
                   if k not in backend.key_variables}
            settings = {**settings, "env": env}
        return super().make_agent(settings, listeners)


class _Probes(_Creates):
    """A broken agent whose one defect is in how it probes its credentials (decision D-22):
    the probe runs while it is created, so the defect is in its class."""

    agent_class: type[CodingAgent] = CodingAgent

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        return create_agent(listeners=listeners, agent_class=self.agent_class, **settings)


class _ExitCodeProbe(CodingAgent):
    def _probe(self) -> tuple[State, str]:
        judged = self.judge

        def by_exit_code(backend: str, timeout: float, outcome: Any, fold: Any) -> Any:
            return (Status.OK, None) if outcome.returncode == 0 else judged(
                backend, timeout, outcome, fold)

        self.judge = by_exit_code
        try:
            return super()._probe()
        finally:
            self.judge = judged


class ProbesByTheExitCode(_Probes):
    """Takes a probe run that exits 0 for a login that works, whatever its stream said."""

    reach = ("reference/agent.py:CodingAgent._probe",)  # a probe

    agent_class = _ExitCodeProbe


class _KeyedProbe(CodingAgent):
    def _environment(self) -> dict[str, str]:
        env = super()._environment()
        if self.probing:
            env.update({k: v for k, v in self._inherited().items()
                        if k in self.backend.key_variables})
        return env


class ProbesWithTheKeys(_Probes):
    """Probes the login with the API keys still in the CLI's environment."""

    reach = (  # a probe (the only run that is marked probing)
        "reference/agent.py:CodingAgent._probe",
    )

    agent_class = _KeyedProbe


class _WritesAnyPrompt(CodingAgent):
    def process(self, message: str, session_id: str | None = None) -> dict[str, Any]:
        try:
            message.encode("utf-8")
        except UnicodeEncodeError:  # found out only while writing it: an internal error
            return self._guarded(message, session_id)
        return super().process(message, session_id)


class FindsABadPromptLate(_Creates):
    """Does not check that a prompt can be written as UTF-8: it finds out while writing it,
    and answers with an internal error."""

    reach = ("reference/agent.py:_check_message:invalid message",)  # a prompt refused

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        return create_agent(listeners=listeners, agent_class=_WritesAnyPrompt, **settings)


class _ReplacesLoneSurrogates(CodingAgent):
    def process(self, message: str, session_id: str | None = None) -> dict[str, Any]:
        carried = message.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return super().process(carried, session_id)


class ReplacesLoneSurrogates(_Creates):
    """Not broken for AG-H26: carries a lone surrogate to the CLI as U+FFFD, as Node writes
    such a string to a pipe, and answers (decision D-33)."""

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        return create_agent(listeners=listeners, agent_class=_ReplacesLoneSurrogates,
                            **settings)


class _LastWordsFirst(CodingAgent):
    def process(self, message: str, session_id: str | None = None) -> dict[str, Any]:
        response = super().process(message, session_id)
        lines = str(response["error"] or "").splitlines()
        if len(lines) > 1 and response["message"] == lines[0]:
            response["message"] = lines[-1]
        return response


class LeadsWithTheLastWordOfStderr(_Creates):
    """A failed request's message is the last line of its error (the tail of the CLI's
    stderr), as a wrapper that shows `stderr.splitlines()[-1]` does: not what failed."""

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        return create_agent(listeners=listeners, agent_class=_LastWordsFirst, **settings)


class _VagueProbe(CodingAgent):
    def _probe(self) -> tuple[State, str]:
        state, reason = super()._probe()
        return state, re.sub(r" \(probe: .*?\)", "", reason)


class SaysNotWhyTheLoginFailed(_Probes):
    """Says that the CLI's login did not work, but not what the CLI said of it."""

    reach = ("reference/agent.py:CodingAgent._probe",)  # a probe

    agent_class = _VagueProbe


class _UnmarkedProbe(CodingAgent):
    def _environment(self) -> dict[str, str]:
        env = super()._environment()
        env.pop(PROBE_MARK, None)
        return env


class LeavesTheProbeUnmarked(_Probes):
    """Runs its probe like any request: nothing tells the two apart."""

    reach = ("reference/agent.py:CodingAgent._probe",)  # a probe (the only run that is marked)

    agent_class = _UnmarkedProbe


class _RefusingProbe(CodingAgent):
    def _probe(self) -> tuple[State, str]:
        state, reason = super()._probe()
        if state is State.DEGRADED:
            raise ConfigError(reason)
        return state, reason


class RefusedWithoutCredentials(_Probes):
    """Refuses to be created when its probe finds no credentials that work."""

    reach = ("reference/agent.py:CodingAgent._probe",)  # a probe

    agent_class = _RefusingProbe


class LetsAMonitorFailTheRequest(_Broken):
    """Tells its monitors of each state without guarding against one that raises."""

    reach = ("reference/agent.py:_tell:log.exception",)  # a listener that raised

    def break_agent(self, agent: CodingAgent) -> None:
        def publish(state: State, previous: State | None, reason: str) -> None:
            for listener in agent.listeners:
                listener(NodeEvent(state, previous, reason))

        agent._publish = publish  # type: ignore[method-assign]


class LosesTheRequestWhenItFails(_Broken):
    """Lets a failure of its own code escape the request: no DEGRADED, no answer."""

    reach = (  # a failure of the agent's own code
        "reference/agent.py:CodingAgent._guarded:internal error of the agent",
    )

    def break_agent(self, agent: CodingAgent) -> None:
        agent._guarded = agent._run  # type: ignore[method-assign]


class ResumesTheLastSession(_Broken):
    """Resumes the session of its previous answer when a request names none."""

    def break_agent(self, agent: CodingAgent) -> None:
        run, last = agent._run, [None]

        def resuming(message: str, session_id: str | None) -> dict[str, Any]:
            response = run(message, session_id or last[0])
            last[0] = response.get("session_id") or last[0]
            return response

        agent._run = resuming  # type: ignore[method-assign]


class AnswersWithTheAskedSession(_Broken):
    """Answers a resumed request with the session it asked for, not the one the CLI reported."""

    reach = (  # a request that resumes a session
        "reference/backends/claude.py:ClaudeBackend.build:resume_session]",
        "reference/backends/codex.py:CodexBackend.build:resume_session]",
        "reference/backends/gemini.py:GeminiBackend.build:resume_session]",
    )

    def break_agent(self, agent: CodingAgent) -> None:
        run = agent._run

        def asked(message: str, session_id: str | None) -> dict[str, Any]:
            response = run(message, session_id)
            return {**response, "session_id": session_id} if session_id else response

        agent._run = asked  # type: ignore[method-assign]


class _SessionSeen(_Backend):
    """Remembers the last session id the stream named (on a line of `kind` only, if given)."""

    def __init__(self, inner: Any, kind: str | None) -> None:
        super().__init__(inner)
        self.kind = kind
        self.seen: str | None = None

    def parse_line(self, line: str) -> list[Event]:
        events: list[Event] = self.inner.parse_line(line)
        found = (e.session_id for e in events if e.session_id and self.kind in (None, e.kind))
        self.seen = next(found, self.seen)
        return events


class _AnswersWithASessionSeen(_Broken):
    """Answers with the session id `_SessionSeen` remembers; where the stream named none, the
    reference's answer (`keeps_own`) or none."""

    kind: str | None = None
    keeps_own = True

    def break_agent(self, agent: CodingAgent) -> None:
        backend = agent.backend = _SessionSeen(agent.backend, self.kind)
        run = agent._run

        def answer(message: str, session_id: str | None) -> dict[str, Any]:
            backend.seen = None
            response = run(message, session_id)
            own = response["session_id"] if self.keeps_own else None
            return {**response, "session_id": backend.seen or own}

        agent._run = answer  # type: ignore[method-assign]


class AnswersWithTheLastSession(_AnswersWithASessionSeen):
    """Answers with the last session id its CLI's stream named, not the init line's (the
    reference with its session check turned around, as two mutants had it)."""


class TakesTheSessionFromInitOnly(_AnswersWithASessionSeen):
    """Answers with the init line's session id alone: a stream without one answers with none
    (the reference's session check with `or` turned to `and`)."""

    kind, keeps_own = "init", False


class _TrustExitCode(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        return [
            replace(e, kind="done") if e.kind == "error" else e for e in self.inner.parse_line(line)
        ]


class TrustsExitCodeOnly(_Broken):
    """Ignores errors reported in the stream; only the exit code counts."""

    reach = (  # an error the stream reported
        "reference/agent.py:_Fold.add:the harness reported an error",
    )

    backends = ("claude", "codex")

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _TrustExitCode(agent.backend)


class StopsAtBlankLine(_Broken):
    """Takes a blank line for the end of the output and ignores everything after it."""

    reach = (  # a line that is no JSON object (a blank one among them)
        "reference/backends/base.py:load_object:return None",
    )

    def break_agent(self, agent: CodingAgent) -> None:
        def run(argv: Any, stdin: bytes, on_line: Any, **kw: Any) -> Any:
            stopped = False

            def until_blank(line: str) -> None:
                nonlocal stopped
                stopped = stopped or not line.strip()
                if not stopped:
                    on_line(line)

            return run_process(argv, stdin, until_blank, **kw)

        agent.run_process = run  # type: ignore[assignment]


class _NoTail(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        more = super()._read(fd, splitter)
        if not more and self.proc.stdout is not None and fd == self.proc.stdout.fileno():
            splitter.pending, splitter.pending_size = [], 0
        return more


class DropsUnterminatedLastLine(_Supervised):
    """Loses a last line that has no newline."""

    reach = (  # a last line without its newline
        'reference/supervisor.py:LineSplitter.close:self._end_line(b"")',
    )

    supervisor = _NoTail


class _AnyValue(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        try:
            value = json.loads(line.strip())  # stripped as the reference strips it
        except (ValueError, RecursionError):
            return []
        value.get("type")  # what `load_object` guards against: a list has no .get
        return self.inner.parse_line(line)  # type: ignore[no-any-return]


class AssumesObjects(_Broken):
    """Takes every JSON line for an object and crashes on an array, string or number."""

    reach = ("reference/backends/base.py:load_object:return None",)  # a line that is no JSON object

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _AnyValue(agent.backend)


class _DecodeErrorsOnly(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        try:
            json.loads(line.strip())  # stripped as the reference strips it
        except json.JSONDecodeError:
            return []
        return self.inner.parse_line(line)  # type: ignore[no-any-return]


class CatchesOnlyDecodeErrors(_Broken):
    """Catches JSONDecodeError only, so a deeply nested line raises RecursionError."""

    reach = ("reference/backends/base.py:load_object:return None",)  # a line that is no JSON object

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _DecodeErrorsOnly(agent.backend)


class KeepsOnlyRecentLines(_Broken):
    """Bounds memory by keeping only the last 1000 stdout lines, parsed after the exit."""

    def break_agent(self, agent: CodingAgent) -> None:
        def run(argv: Any, stdin: bytes, on_line: Any, **kw: Any) -> Any:
            kept: deque[str] = deque(maxlen=1000)
            outcome = run_process(argv, stdin, kept.append, **kw)
            for line in kept:
                on_line(line)
            return outcome

        agent.run_process = run  # type: ignore[assignment]


class _DecodePerRead(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        assert self.proc.stdout is not None
        if fd != self.proc.stdout.fileno():
            return super()._read(fd, splitter)
        chunk = os.read(fd, 1 << 16)
        splitter.feed(chunk.decode("utf-8", errors="replace").encode())
        return bool(chunk)


class DecodesEachRead(_Supervised):
    """Decodes every read on its own, garbling a UTF-8 character split across two reads."""

    reach = (  # a read that ends inside a line
        "reference/supervisor.py:LineSplitter._add:self.pending.append(piece)",
    )

    supervisor = _DecodePerRead


class _Limited(Supervisor):
    """Reads lines up to `limit` bytes instead of the reference's MAX_LINE."""

    limit = MAX_LINE

    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        splitter.limit = self.limit
        return super()._read(fd, splitter)


class _Unbounded(_Limited):
    limit = sys.maxsize


class NoLineLimit(_Supervised):
    """Reads every stdout line whole, however long: memory grows with the line."""

    reach = (  # a line over the limit
        "reference/supervisor.py:LineSplitter._add:self.skipped += 1",
        "reference/supervisor.py:LineSplitter._end_line:self.skipped += 1",
    )

    supervisor = _Unbounded


class _ResumesInALongLine(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        read = super()._read(fd, splitter)
        splitter.discarding = False
        return read


class ReadsTheEndOfASkippedLine(_Supervised):
    """Gives up on a line past the limit, then reads what is left of it as a line of its own."""

    reach = (  # a line given up on part way
        "reference/supervisor.py:LineSplitter._add:self.discarding = True",
    )

    supervisor = _ResumesInALongLine


class _OneByteShort(_Limited):
    limit = MAX_LINE - 1


class SkipsALineAtTheLimit(_Supervised):
    """Skips a line of exactly 16 MiB, which the limit allows."""

    reach = (  # a line longer than a read (16 MiB are 256 reads)
        'reference/supervisor.py:LineSplitter._end_line:b"".join',
        "reference/supervisor.py:LineSplitter._add:self.skipped += 1",
    )

    supervisor = _OneByteShort


class _CarryingSplitter(LineSplitter):
    """Keeps the size of the pieces a line was put together from, and counts on from it."""

    def _end_line(self, piece: bytes) -> None:
        carried = self.pending_size if self.pending and not self.discarding else 0
        super()._end_line(piece)
        self.pending_size += carried


class _CountsOn(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        splitter.__class__ = _CarryingSplitter
        return super()._read(fd, splitter)


class CountsOnFromTheLastLine(_Supervised):
    """Measures a line from where the last one longer than a read left off: a line of exactly
    16 MiB after another is skipped (a mutant that resets the count to 1 instead of 0 taught
    it: the limit holds for each line, not only the first)."""

    reach = (  # a line longer than a read (16 MiB are 256 reads)
        'reference/supervisor.py:LineSplitter._end_line:b"".join',
    )

    supervisor = _CountsOn


class CompletedTurnIgnoresExitCode(_Broken):
    """Reports success after a completed turn, whatever the CLI's exit code."""

    reach = ("reference/agent.py:judge:after the turn completed",)  # an exit code other than 0

    def break_agent(self, agent: CodingAgent) -> None:
        def turn_first(backend: str, timeout: float, outcome: Any, fold: Any) -> Any:
            if outcome.returncode > 0 and not outcome.timed_out and fold.completed:
                return (Status.OK, None) if fold.error is None else judge(
                    backend, timeout, outcome, fold)
            return judge(backend, timeout, outcome, fold)

        agent.judge = turn_first


class VagueLaunchError(_Answers):
    """Reports a CLI that cannot be started without saying which command or why."""

    reach = (  # a CLI that could not start
        "reference/agent.py:CodingAgent._run:Status.LAUNCH_FAILED",
    )

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response["status"] == Status.LAUNCH_FAILED:
            response["message"] = response["error"] = "[Errno 2] No such file or directory"
        return response


class BlamesTheCliForItsInterpreter(_Answers):
    """Reports a CLI whose interpreter is gone as not found, though its file is there (the
    kernel's ENOENT taken at its word, as the Claude SDK does)."""

    reach = (  # a CLI that could not start
        "reference/agent.py:CodingAgent._run:Status.LAUNCH_FAILED",
    )

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response["status"] == Status.LAUNCH_FAILED and "interpreter" in response["message"]:
            command = response["message"].split("'")[1]
            response["message"] = response["error"] = f"{command} not found"
        return response


class GivesTheSignalsNumber(_Answers):
    """Tells a CLI killed by a signal by the signal's number (as the Claude SDK does)."""

    reach = ("reference/agent.py:judge:Status.SIGNALED",)  # a CLI killed by a signal

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response["status"] == Status.SIGNALED:
            for sig in signal.Signals:
                response["message"] = response["message"].replace(sig.name, str(-sig.value))
            response["error"] = response["message"]
        return response


class TakesSignalOneForAnExit(_Answers):
    """Reads an exit status of -1 as an exit code, not as signal 1 (the reference with its
    `code < 0` moved by one, as a mutant had it)."""

    reach = ("reference/agent.py:judge:Status.SIGNALED",)  # a CLI killed by a signal

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response["status"] == Status.SIGNALED and "SIGHUP" in response["message"]:
            message = f"{agent.backend.name} exited with code -1"
            response.update(status=int(Status.HARNESS_ERROR), message=message, error=message)
        return response


class WarnsOfASkippedLineAlways(_Answers):
    """Says a stdout line was skipped in every answer (the reference with its count of skipped
    lines starting at 1, as a mutant had it)."""

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if not any("skipped" in w for w in response["warnings"]):
            response["warnings"] = [*response["warnings"],
                                    "skipped 1 stdout line(s) longer than 16777216 bytes"]
        return response


class WarnsOfAPartialAnswerAlways(_Answers):
    """Says the turn may not have completed in every answer that succeeded (the reference with
    its check `status is OK and not completed` turned to `or`, as a mutant had it)."""

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response["status"] == Status.OK:
            response["warnings"] = [*response["warnings"], f"{agent.backend.name} exited 0 "
                                    "before the turn completed (no end-of-turn line): the answer "
                                    "may be partial"]
        return response


class MarksEveryRequest(_Broken):
    """Marks its requests' runs as probes from its creation on, unless a probe unmarked them
    (the reference with its probe flag starting True, as a mutant had it)."""

    def break_agent(self, agent: CodingAgent) -> None:
        agent.probing = True


class KeepsNestingVariable(_Broken):
    """Hands the CLI its whole inherited environment, CLAUDECODE included."""

    def break_agent(self, agent: CodingAgent) -> None:
        environment = agent._environment

        def keeping() -> dict[str, str]:
            env = environment()
            if "CLAUDECODE" in os.environ and "CLAUDECODE" not in agent.config.strip_env:
                env["CLAUDECODE"] = os.environ["CLAUDECODE"]
            return env

        agent._environment = keeping  # type: ignore[method-assign]


class IgnoresStripEnv(_Broken):
    """Accepts strip_env and ignores it."""

    reach = (  # a variable to strip
        'reference/agent.py:AgentConfig.__post_init__:_check_variable("strip_env"',
    )

    def break_agent(self, agent: CodingAgent) -> None:
        agent.config = replace(agent.config, strip_env=())


class _RaisesOnBrokenPipe(Supervisor):
    def _write(self, sel: selectors.BaseSelector, feed: Feed) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        feed.wrote(os.write(stdin.fileno(), feed.pending[:CHUNK]))  # EPIPE escapes
        if not feed.pending:
            sel.unregister(stdin)


class CrashesOnBrokenPipe(_Supervised):
    """Lets EPIPE from writing the prompt to a CLI that already exited fail the request."""

    reach = (  # EPIPE while writing the prompt
        "reference/supervisor.py:Supervisor._write:feed.broken()",
    )

    supervisor = _RaisesOnBrokenPipe


class _TagsOnly(Supervisor):
    reaped = False


class FindsStraysByTagOnly(_Supervised):
    """Runs the CLI without the reaper: its group and the run tag in the environment are all
    it has to find descendants, so one that empties its environment and whose parent exits
    outlives the request, and when the agent is killed nothing ends what the CLI started in a
    session of its own."""

    supervisor = _TagsOnly


class _TermsTheGroupOnly(Supervisor):
    reaper_command = (sys.executable, "-I", "-S",
                      str(Path(__file__).with_name("reaper_group_only.py")))


class TermsTheGroupOnly(_Supervised):
    """At the deadline, sends SIGTERM to the CLI's process group only: a process the CLI
    started in a session of its own gets nothing before it is killed."""

    reach = ("reference/reaper.py:supervise:outside_group=cli)",)  # SIGTERM relayed by the reaper

    supervisor = _TermsTheGroupOnly


class _TimerOfSilence(Supervisor):
    def __init__(self, proc: Any, timeout: float, *args: Any) -> None:
        super().__init__(proc, timeout, *args)
        self.timeout = timeout

    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        read = super()._read(fd, splitter)
        if read and not self.timed_out:
            self.deadline = time.monotonic() + self.timeout
        return read


class RestartsItsTimerOnEachLine(_Supervised):
    """Restarts its deadline whenever the CLI prints (a limit on silence, not a deadline): a
    CLI that keeps printing is never stopped."""

    reach = ("reference/supervisor.py:Supervisor._enforce:self.timed_out = True",)

    supervisor = _TimerOfSilence


class _TimerFromTheFirstLine(_TimerOfSilence):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        first = self.output_at == 0.0
        read = Supervisor._read(self, fd, splitter)
        if read and first and not self.timed_out:
            self.deadline = time.monotonic() + self.timeout
        return read


class CountsItsTimeoutFromTheFirstLine(_Supervised):
    """Starts its deadline when the CLI first prints, not when the request starts."""

    reach = ("reference/supervisor.py:Supervisor._enforce:self.timed_out = True",)

    supervisor = _TimerFromTheFirstLine


class _KillsLate(Supervisor):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.grace += 3.0


class _TermsAfterItsOwnWait(Supervisor):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline += 5.0


class TermsAfterItsOwnWait(_Supervised):
    """Not broken for EH-1.1: sends its SIGTERM a fixed 5 real seconds after the deadline, as
    the Python Claude SDK does after closing stdin; how late it stops is AG-H17's and AG-H21's
    to judge."""

    supervisor = _TermsAfterItsOwnWait


LINGER = 4.0  # seconds a turn's end waits before it is read on (a loaded machine's delay)


def _lingering(on_line: Any) -> Any:
    def read_on(line: str) -> None:
        try:
            said = json.loads(line)
        except ValueError:
            said = None
        result = said.get("result") if isinstance(said, dict) else None
        if isinstance(result, dict) and "stopReason" in result:
            time.sleep(LINGER)
        on_line(line)

    return read_on


class LingersAfterEachTurn(_Broken):
    """Not broken: reads an ACP agent's answer to a prompt (its turn's end) LINGER seconds late,
    as a loaded machine can, so the agent lives on after its turn for that long before its
    stdin closes; what the agent does then of its own (a title, a suggestion for the next
    prompt) reaches the model before the next request does."""

    backends = ("claude-acp", "codex-acp")

    def break_agent(self, agent: CodingAgent) -> None:
        def linger(argv: Any, stdin: Any, on_line: Any, **options: Any) -> Any:
            return run_process(argv, stdin, _lingering(on_line), **options)

        agent.run_process = linger


class _LinesUpTo64MiB(_Limited):
    limit = 64 << 20


class ReadsLinesUpTo64MiB(_Supervised):
    """Not broken for AG-H1: reads lines up to 64 MiB whole, a limit of its own choosing
    (decision D-33), and skips longer ones with a warning."""

    supervisor = _LinesUpTo64MiB


class _LastTextSeen(_Backend):
    """Remembers the text of the last text event the stream gave, as `answer`."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.answer: str | None = None

    def parse_line(self, line: str) -> list[Event]:
        events: list[Event] = self.inner.parse_line(line)
        self.answer = next((e.text for e in reversed(events) if e.kind == "text" and e.text),
                           self.answer)
        return events


class _ResultSeen(_LastTextSeen):
    """Remembers the text of the last done event the stream gave, empty or not."""

    def parse_line(self, line: str) -> list[Event]:
        events: list[Event] = self.inner.parse_line(line)
        done = [e for e in events if e.kind == "done"]
        if done:
            self.answer = done[-1].text or ""
        return events


def _answer_with(agent: CodingAgent, backend: _LastTextSeen) -> None:
    """`agent` answers a request that succeeded with what `backend` saw last, if anything."""
    agent.backend = backend
    run = agent._run

    def answer(message: str, session_id: str | None) -> dict[str, Any]:
        backend.answer = None
        response = run(message, session_id)
        if response["status"] == 0 and backend.answer is not None:
            response = {**response, "message": backend.answer}
        return response

    agent._run = answer  # type: ignore[method-assign]


class AnswersCodexWithItsLastMessage(_Broken):
    """Not broken: answers a codex turn with its last agent message, as `codex exec` prints
    it and the Codex SDK answers (decision D-33)."""

    backends = ("codex",)

    def break_agent(self, agent: CodingAgent) -> None:
        _answer_with(agent, _LastTextSeen(agent.backend))


class AnswersClaudeWithItsResult(_Broken):
    """Not broken: answers a claude turn that ended with a result by that result's text, even
    an empty one, as the official Claude SDKs' `ResultMessage.result` does (decision D-34)."""

    def break_agent(self, agent: CodingAgent) -> None:
        _answer_with(agent, _ResultSeen(agent.backend))


class KillsLate(_Supervised):
    """Sends SIGKILL three seconds after the grace period is over."""

    reach = (  # a deadline that passed
        "reference/supervisor.py:Supervisor._enforce:self.timed_out = True",
    )

    backends = ("claude", "codex")

    supervisor = _KillsLate


class _OpenStdinNoKill(Supervisor):
    def run(self, stdin: bytes | Feed, on_line: Any) -> Any:
        assert self.proc.stdin is not None
        held = os.dup(self.proc.stdin.fileno())  # the pipe stays open once the prompt is in
        try:
            return super().run(stdin, on_line)
        finally:
            os.close(held)

    def _signal(self, sig: signal.Signals) -> None:
        if sig != signal.SIGKILL:
            super()._signal(sig)


class LeavesStdinOpen(_Supervised):
    """Two defects at once, as a wrapper written from scratch has them: it leaves the CLI's
    stdin open once the prompt is written, and it never sends SIGKILL. Not one of the CASES:
    the fake CLI, which reads its stdin to the end first, never gets further, so most of the
    scenarios are not judged (tests/test_broken.py)."""

    backends = ("claude", "codex")

    supervisor = _OpenStdinNoKill


class _TermsTwice(Supervisor):
    def _signal(self, sig: signal.Signals) -> None:
        super()._signal(sig)
        if sig == signal.SIGTERM:  # once more, a moment later, straight to the CLI's group
            time.sleep(0.2)
            for cli in children(self.proc.pid) if self.reaped else [self.proc.pid]:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(cli, sig)


class TermsTwice(_Supervised):
    """Sends the CLI a second SIGTERM at the deadline, straight to its process group, as an
    agent that signals the group itself as well as through its reaper would. (Sent to the
    reaper twice, it would be relayed once: the reaper sends the tree one SIGTERM.)"""

    reach = (  # SIGTERM at the deadline
        "reference/supervisor.py:Supervisor._enforce:self._signal(signal.SIGTERM)",
    )

    backends = ("claude", "codex")  # AG-D6.2's harness is codex's

    supervisor = _TermsTwice


class _WaitsForEof(Supervisor):
    reaped = False  # under the reaper the holder dies with the CLI: EOF comes at once

    def _done(self, readers: int) -> bool:
        return self.exited_at is not None and readers == 0

    def _wait_time(self) -> float:
        return max(super()._wait_time(), 0.05)


class WaitsForEof(_Supervised):
    """Runs the CLI without the reaper and, after it exits, waits for stdout to close,
    however long a grandchild holds it."""

    supervisor = _WaitsForEof


class _KeepsAHandle(Supervisor):
    def _loop(self, stdin: Feed, splitter: LineSplitter, pidfd: int) -> None:
        super()._loop(stdin, splitter, os.dup(pidfd))


class LeaksADescriptorPerRequest(_Supervised):
    """Watches for its CLI's exit through a copy of the process's descriptor that it never
    closes: one descriptor more for every request that starts its CLI."""

    supervisor = _KeepsAHandle


class InitialisesItsWorkingDir(_Creates):
    """Not broken: makes its working directory a git repository when it is created, as GENESIS
    does (a `.git` folder, its objects read-only). A directory removed since is still judged."""

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        agent = super().make_agent(settings, listeners)
        objects = Path(settings.get("working_dir") or ".", ".git", "objects")
        if objects.parent.parent.is_dir() and settings.get("working_dir"):
            objects.mkdir(parents=True, exist_ok=True)
            (objects / "e69de29b").write_text("")
            (objects / "e69de29b").chmod(0o444)
        return agent


class LeavesOutNoWarnings(_Answers):
    """Not broken: an answer without warnings has no `warnings` key (the protocol makes the
    list optional). It must pass what it passes with an empty list."""

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if not response.get("warnings"):
            response.pop("warnings", None)
        return response


class RewordsItsMessages(_Answers):
    """Not broken: words launch failures and late exits its own way, with the same facts
    ("Permission denied: 'claude'", "claude: /x/python: bad interpreter: ...", "exit status
    1 ... once its turn had finished"). It must pass."""

    backends = ("claude", "codex", "gemini")  # judged on every backend's words

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response.get("error") is None:
            return response
        text, _, answer = str(response.get("message")).partition("\n")
        backend = agent.config.backend
        if "is not executable" in text:
            text = f"Permission denied: {backend!r}"
        elif "its interpreter" in text:  # as bash words it, naming the interpreter too
            gone = text.split("its interpreter ", 1)[1].split("'")[1]
            text = f"{backend}: {gone}: bad interpreter: No such file or directory"
        elif "was not found on PATH" in text:
            text = f"spawn {backend} ENOENT"
        elif "after the turn completed" in text:
            text = f"exit status 1 from {backend} once its turn had finished"
        response["error"] = text
        response["message"] = f"{text}\n{answer}" if answer else text
        return response


class ForgetsTheTurnCompleted(_Answers):
    """Reports a failing exit after a completed turn without saying the turn had completed."""

    reach = ("reference/agent.py:judge:after the turn completed",)  # an exit code other than 0

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        text = str(response.get("message"))
        exited = str(response.get("error")).startswith(f"{agent.backend.name} exited with code")
        if exited and "after the turn completed" in text:
            response["message"] = response["error"] = text.replace(
                " after the turn completed", " before the turn completed")
        return response


class _SomeBackends(InProcessDriver):
    """Not broken: the reference with some of its backends only. It must be conformant, and
    the suite must never ask it for an agent of another of the kit's backends (a name the
    kit does not know is AG-C1's question: the reference refuses it)."""

    backends: tuple[str, ...] = ()

    def __init__(self) -> None:
        super().__init__()
        self.info = replace(self.info, backends=self.backends)

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        if settings.get("backend") in set(KNOWN_BACKENDS) - set(self.backends):
            raise AssertionError(f"the suite asked an implementation of {self.backends} "
                                 f"for a {settings.get('backend')!r} agent")
        return super().agent_create(settings)


class CodexOnly(_SomeBackends):
    backends = ("codex",)


class ClaudeOnly(_SomeBackends):
    backends = ("claude",)


class GeminiOnly(_SomeBackends):
    backends = ("gemini",)


class ClaudeAndCodex(_SomeBackends):
    """What every implementation declared before the kit knew a third backend."""

    backends = ("claude", "codex")


class _TimeoutInfo(InProcessDriver):
    """The reference, but `agent.info` says the timeout is null in some cases."""

    def __init__(self) -> None:
        super().__init__()
        self.untimed: set[str] = set()
        _declare(self, ("claude",))  # what it says of its timeout is the same for every backend

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        agent, states = super().agent_create(settings)
        if self.null_for(settings):
            self.untimed.add(agent)
        return agent, states

    def agent_info(self, agent: str) -> dict[str, Any]:
        info = super().agent_info(agent)
        return {**info, "timeout": None} if agent in self.untimed else info

    def null_for(self, settings: dict[str, Any]) -> bool:
        return True


class HasNoDefaultTimeout(_TimeoutInfo):
    """Has no timeout unless one is set, as the official SDKs (agent.info says null): it
    fails the seed's default of 300 s (EH-1.2, a MUST), saying why; everything else passes."""

    def null_for(self, settings: dict[str, Any]) -> bool:
        return "timeout" not in settings


class ForgetsItsTimeout(_TimeoutInfo):
    """Says it has no timeout even when created with one."""


class RequiresSessionId(_Answers):
    """Fails a turn whose stream never named a session, as if resuming were everything."""

    backends = ("claude", "codex", "gemini")

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        if response.get("status") == 0 and not response.get("session_id"):
            response.update(status=1, error="the CLI named no session")
        return response


KNOWN_TYPES = {
    "claude": {"system", "assistant", "user", "result", "rate_limit_event", "stream_event"},
    "codex": {"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started",
              "item.updated", "item.completed", "error"},
    "gemini": {"init", "message", "tool_use", "tool_result", "result"},
}


class _StrictShapes(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        events: list[Event] = self.inner.parse_line(line)
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            return events
        kind = value.get("type") if isinstance(value, dict) else None
        if isinstance(kind, str) and kind not in KNOWN_TYPES[self.inner.name]:
            return [Event("error", text=f"unknown event type {kind!r}", raw=value)]
        return events


class _EveryMessage(_Backend):
    def parse_line(self, line: str) -> list[Event]:
        value = load_object(line)
        if value is not None and value.get("type") == "message" and value.get("role") == "user":
            return [Event("text", text=str(value.get("content")), raw=value)]
        return super().parse_line(line)


class AnswersWithTheEchoedPrompt(_Broken):
    """Reads every Gemini message as the answer, the user's prompt the CLI echoes too."""

    backends = ("gemini",)

    def break_agent(self, agent: CodingAgent) -> None:
        if agent.backend.name == "gemini":
            agent.backend = _EveryMessage(agent.backend)


class StopsAtUnknownShapes(_Broken):
    """Ends the request with an error on the first line of an event type it does not know."""

    def break_agent(self, agent: CodingAgent) -> None:
        agent.backend = _StrictShapes(agent.backend)


class HidesAnUnfinishedTurn(_Answers):
    """Answers a stream that stopped before the turn's end as a plain success."""

    reach = (  # the warning of an unfinished turn
        "reference/agent.py:CodingAgent._run:before the turn completed",
    )

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        response["warnings"] = [w for w in response.get("warnings", [])
                                if "before the turn completed" not in w]
        return response


class _AllStderr(Supervisor):
    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        assert self.proc.stdout is not None
        if fd == self.proc.stdout.fileno():
            return super()._read(fd, splitter)
        chunk = os.read(fd, CHUNK)
        self.__dict__.setdefault("chunks", []).append(chunk)
        return bool(chunk)

    def _finish(self) -> None:
        self.stderr_tail = b"".join(self.__dict__.get("chunks", []))
        super()._finish()


class KeepsAllStderr(_Supervised):
    """Keeps all of stderr and puts it in the error."""

    reach = ("reference/supervisor.py:Supervisor._read:self.stderr_tail =",)  # a read of stderr

    supervisor = _AllStderr


FIRST_LINE_WAIT = 5.0


class _WaitsForFirstLine(Supervisor):
    def __init__(self, proc: Any, timeout: float, grace: float, run_id: str = "") -> None:
        super().__init__(proc, timeout, grace, run_id)
        self.real_deadline = self.deadline
        self.deadline += max(0.0, FIRST_LINE_WAIT - timeout)

    def _read(self, fd: int, splitter: LineSplitter) -> bool:
        assert self.proc.stdout is not None
        if fd == self.proc.stdout.fileno() and not self.timed_out:
            self.deadline = self.real_deadline
        return super()._read(fd, splitter)


class WaitsForTheFirstLine(_Supervised):
    """Waits a fixed 5 s for the CLI's first line, whatever the request's timeout."""

    supervisor = _WaitsForFirstLine


class DropsTheAnswerOnExit(_Answers):
    """After a completed turn and a failing exit, answers with the failure alone."""

    def change(self, response: dict[str, Any], agent: CodingAgent) -> dict[str, Any]:
        response["message"] = str(response.get("message")).split("\n")[0]
        return response


class ProbesTheCliAtCreation(_Broken):
    """Runs the CLI once when created (a login check), waiting for it like any request."""

    def break_agent(self, agent: CodingAgent) -> None:
        agent._run("probe", None)


class TrustsSessionIds(_Broken):
    """Puts any session id it is given into the CLI's argv after `--resume`."""

    reach = ("reference/agent.py:CodingAgent.check_session:invalid session id",)  # refused

    def break_agent(self, agent: CodingAgent) -> None:
        agent.check_session = lambda session_id: None  # type: ignore[method-assign]


class ResumesAnAlias(_Broken):
    """Refuses a session id shaped like an option, and hands on one that gemini reads as an
    alias of another session ("latest", an index)."""

    backends = ("gemini",)
    reach = ("reference/agent.py:CodingAgent.check_session:an alias",)  # an alias refused

    def break_agent(self, agent: CodingAgent) -> None:
        def options_only(session_id: str | None) -> str | None:
            refused = CodingAgent.check_session(session_id)
            return refused if refused is None or "an alias" not in refused else None

        agent.check_session = options_only  # type: ignore[method-assign]


class DeclaresNothing(InProcessDriver):
    """Declares no component: nothing can be judged, so it is not conformant."""

    def __init__(self) -> None:
        super().__init__()
        self.info = replace(self.info, components=())


class ReportsNoEvents(InProcessDriver):
    """The reference as a wrapper that keeps none of the events it parsed (one built on an
    SDK): `start` says `reports_events: false`, and no answer carries `events`."""

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        response = super().call(cmd, **args)
        if cmd == "start":
            response["implementation"]["reports_events"] = False
        response.pop("events", None)
        return self.answer(response) if cmd == "agent.request" else response

    def answer(self, response: dict[str, Any]) -> dict[str, Any]:
        return response


class ReportsNoEventsNorTheText(ReportsNoEvents):
    """Reports no events, and answers every request with an empty message."""

    def answer(self, response: dict[str, Any]) -> dict[str, Any]:
        response["response"]["message"] = ""
        return response


class DeclaresBackendsOnly(InProcessDriver):
    """The reference, declaring the backends component alone: all its requirements are
    SHOULDs, so no MUST can be judged."""

    def __init__(self) -> None:
        super().__init__()
        self.info = replace(self.info, components=("backends",))
