"""The coding agent: one request in, one CLI run, one structured response out.

`CodingAgent.process` runs the backend's CLI under the supervisor, feeds every stdout line
to the backend's `parse_line`, folds the events into a response, and publishes each state
change as a node event. Whatever happens, the agent is READY afterwards (decision D-7), or
DEGRADED again when a probe of its credentials found none that works and nothing has succeeded
since (decision D-22).
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_tck.reference.backends import Backend, RunOptions, get_backend
from agent_tck.reference.backends.claude import NESTING_VARIABLES
from agent_tck.reference.events import Event
from agent_tck.reference.exceptions import ConfigError, LaunchError
from agent_tck.reference.feed import Feed
from agent_tck.reference.limits import seconds
from agent_tck.reference.status import State, Status
from agent_tck.reference.supervisor import (
    AFTER_TURN,
    MAX_LINE,
    Outcome,
    RunProcess,
    resolve,
    run_process,
)

log = logging.getLogger(__name__)

# A session id as the CLIs print them (UUIDs, codex thread names): never an option.
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")
DEFAULT_TIMEOUT = 300.0
DEFAULT_GRACE = 5.0
# How the CLI authenticates (decisions D-21, D-22): "login", its own login (every API-key
# variable of the backend withheld); "api-key", a key it must be given; "probe", found out when
# the agent is created, by one short run of the CLI on its login (the login when that run's
# stream completes a turn, else a key when one is set, else the agent is DEGRADED).
CREDENTIALS = ("login", "api-key", "probe")
PROBE_PROMPT = "Reply with the single word OK."
PROBE_MARK = "CODING_AGENT_PROBE"  # "1" in a probe run's environment, in no request's
_SIGNALS = frozenset(int(s) for s in signal.Signals)
# Text events are joined this many at a time, so a long stream costs the text's characters
# rather than a string object per text line (about 60 bytes of overhead each).
JOIN_TEXTS = 1024
# The accumulated text an answer keeps (characters); more is dropped with a warning, so memory
# stays bounded whatever the CLI prints. A done text still replaces it whole.
MAX_TEXT = 64 * 1024 * 1024


@dataclass(frozen=True)
class NodeEvent:
    """A published state change."""

    state: State
    previous: State | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state.name,
            "state_code": int(self.state),
            "previous": self.previous.name if self.previous is not None else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class AgentConfig:
    """How an agent runs its CLI. Validated on creation; bad values raise ConfigError."""

    backend: str = "claude"
    working_dir: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    grace_period: float = DEFAULT_GRACE
    command: str | None = None
    model: str | None = None
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    strip_env: tuple[str, ...] = ()
    credentials: str | None = None  # CREDENTIALS, or None: the environment as it is

    def __post_init__(self) -> None:
        for name in ("timeout", "grace_period"):
            seconds(name, getattr(self, name))
        for name in ("backend", "working_dir", "command", "model"):
            value = getattr(self, name)
            if not (isinstance(value, str) or (value is None and name != "backend")):
                raise ConfigError(f"{name} must be a string, not {value!r:.80}")
        if self.working_dir is not None and not os.path.isdir(self.working_dir):
            raise ConfigError(f"working_dir {self.working_dir!r} is not a directory")
        env = self.env if self.env is not None else {}
        if not isinstance(env, Mapping):
            raise ConfigError(f"env must map variable names to values, not {env!r:.80}")
        for name, value in env.items():
            _check_variable("env", name)
            if not isinstance(value, str) or "\0" in value:
                raise ConfigError(f"env: the value of {name!r} must be a string without NUL, "
                                  f"not {value!r:.80}")
        if isinstance(self.strip_env, str) or not isinstance(self.strip_env, (list, tuple)):
            raise ConfigError(f"strip_env must be a list of names, not {self.strip_env!r:.80}")
        for name in self.strip_env:
            _check_variable("strip_env", name)
        both = sorted(set(env) & set(self.strip_env))
        if both:
            raise ConfigError(f"env sets and strip_env removes the same variable(s): "
                              f"{', '.join(both)}; name each in one of them")
        for arg in self.extra_args:
            if not isinstance(arg, str) or "\0" in arg:
                raise ConfigError(f"extra_args: {arg!r:.80} must be a string without NUL")
        if self.credentials is not None and self.credentials not in CREDENTIALS:
            raise ConfigError(f"credentials must be one of {', '.join(CREDENTIALS)}, not "
                              f"{self.credentials!r:.80}")


def _check_message(message: object) -> str | None:
    """Why `message` cannot be a prompt (not text, or not encodable as UTF-8), or None."""
    if not isinstance(message, str):
        return f"invalid message {message!r:.80}: a prompt is a string; no CLI was started"
    try:
        message.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"invalid message: {exc.reason} at character {exc.start} (a lone surrogate?); "
                "no CLI was started")
    return None


def _check_variable(where: str, name: object) -> None:
    """An environment variable name: a non-empty string without '=' or NUL."""
    if not isinstance(name, str) or not name or "=" in name or "\0" in name:
        raise ConfigError(f"{where}: {name!r:.80} is not an environment variable name "
                          "(a non-empty string without '=' or NUL)")


@dataclass
class _Fold:
    """The response being assembled from the event stream."""

    backend: str
    texts: list[str] = field(default_factory=list)  # joined, JOIN_TEXTS pieces each
    recent: list[str] = field(default_factory=list)  # not joined yet
    final: str | None = None
    session_id: str | None = None
    error: str | None = None
    tool_ids: set[str] = field(default_factory=set)
    anonymous_tools: int = 0
    completed: bool = False  # the stream said the turn completed (a done event)
    warnings: list[str] = field(default_factory=list)
    kept: int = 0  # characters of text kept so far

    def add(self, event: Event) -> None:
        if event.session_id and (event.kind == "init" or self.session_id is None):
            self.session_id = event.session_id
        if event.kind == "text" and event.text:
            self._add_text(event.text)
        elif event.kind == "done":
            self.completed = True
            self.final = event.text or self.final  # a done text overrides the accumulation
        elif event.kind == "error":
            self.error = event.text or "the harness reported an error"
        elif event.kind in ("tool_start", "tool_result"):
            self._count_tool(event)

    def _add_text(self, text: str) -> None:
        room = MAX_TEXT - self.kept
        if len(text) > room:
            if room >= 0:
                self.warnings.append(f"text beyond {MAX_TEXT} characters was dropped: the "
                                     "answer's message is cut there")
            text, self.kept = text[:max(room, 0)], MAX_TEXT + 1
            if not text:
                return
        else:
            self.kept += len(text)
        self.recent.append(text)
        if len(self.recent) >= JOIN_TEXTS:
            self.texts.append("".join(self.recent))
            self.recent.clear()

    def _count_tool(self, event: Event) -> None:
        # D-3: each invocation once, whether seen as start+result or as result only.
        if event.tool_id is not None:
            self.tool_ids.add(event.tool_id)
        elif event.kind == "tool_start":
            self.anonymous_tools += 1

    def response(self, status: Status, error: str | None) -> dict[str, Any]:
        message = self.final if self.final is not None else "".join([*self.texts, *self.recent])
        if error and self.completed and self.error is None and message:
            # The turn completed, then the CLI failed: the answer is not lost with the exit.
            message = f"{error.splitlines()[0]}\nThe turn's answer: {message}"
        elif error:
            message = error.splitlines()[0]
        return {
            "message": message,
            "status": int(status),
            "backend": self.backend,
            "tool_calls": len(self.tool_ids) + self.anonymous_tools,
            "session_id": self.session_id,
            "error": error,
            "warnings": list(self.warnings),
        }


class CodingAgent:
    """Runs one CLI per request; publishes state changes to its listeners."""

    def __init__(
        self,
        config: AgentConfig | None = None,
        *,
        listeners: list[Callable[[NodeEvent], None]] | None = None,
    ) -> None:
        self.config = config or AgentConfig()
        self.backend: Backend = get_backend(self.config.backend, self.config.command)
        self.credentials = self.config.credentials  # the mode in use: a probe settles it
        self.probing = False  # a probe run is under way (its environment is marked)
        self._check_credentials()
        self.listeners = list(listeners or [])
        self.stream_listeners: list[Callable[[Event], None]] = []
        self._lock = threading.Lock()
        self.run_process: RunProcess = run_process
        self.judge = judge
        self.resting, self.created = State.READY, "agent created"
        if self.credentials == "probe":
            self.resting, self.created = self._probe()
        self.state = self.resting
        self._publish(self.state, None, self.created)

    @property
    def timeout(self) -> float:
        return float(self.config.timeout)

    def process(self, message: str, session_id: str | None = None) -> dict[str, Any]:
        """Answer one request. A request that arrives while BUSY is answered at once."""
        refused = _check_message(message) or self.check_session(session_id)
        if refused is not None:
            return _fold(self).response(Status.LAUNCH_FAILED, refused)
        if not self._lock.acquire(blocking=False):
            return _fold(self).response(Status.BUSY, "agent is busy with another request")
        try:
            self._transition(State.BUSY, "request received")
            response = self._guarded(message, session_id)
            if response["status"] == Status.OK:
                self.resting = State.READY  # what a probe found wanting works now
            self._transition(self.resting, _reason(response))
            return response
        finally:
            if self.state is State.BUSY:
                self._transition(self.resting, "recovered after an unexpected error")
            self._lock.release()

    def _guarded(self, message: str, session_id: str | None) -> dict[str, Any]:
        """The request's answer. A failure of the agent's own code (not of its CLI, which is
        stopped by then) is published as DEGRADED and answered with status 1 naming it; the
        agent then recovers like after any request (decision D-24)."""
        try:
            return self._run(message, session_id)
        except Exception as exc:
            what = f"internal error of the agent: {type(exc).__name__}: {exc}"
            log.exception("%s", what)
            self._transition(State.DEGRADED, what[:500])
            return _fold(self).response(Status.HARNESS_ERROR, what)

    @staticmethod
    def check_session(session_id: str | None) -> str | None:
        """Why `session_id` cannot go into the CLI's argv, or None. A session id is data: one
        shaped like an option ("--dangerously-skip-permissions") or carrying spaces or control
        characters would change the command the CLI runs, and one a CLI takes as an alias
        ("latest", a number) would resume another conversation than the one it names."""
        if session_id is None:
            return None
        if not (isinstance(session_id, str) and SESSION_ID.fullmatch(session_id)):
            return (f"invalid session id {session_id!r:.80}: expected letters, digits and "
                    "'._:-', not starting with '-'; no CLI was started")
        if session_id == "latest" or session_id.isdigit():
            return (f"invalid session id {session_id!r:.80}: a CLI reads it as an alias of "
                    "another session (gemini: the latest one, or one by its index); no CLI was "
                    "started")
        return None

    def _run(self, message: str, session_id: str | None) -> dict[str, Any]:
        fold = _fold(self)
        options = RunOptions(self.config.model, session_id, self.config.extra_args,
                             working_dir=self.config.working_dir)
        env = self._environment()
        parse = self.backend.parse_line
        feed = Feed()

        def on_line(line: str) -> None:
            for event in parse(line):
                _tell(self.stream_listeners, event)
                fold.add(event)
            if fold.completed:  # the CLI has a grace period to end (D-38)
                feed.end_turn()

        try:
            invocation = self.backend.build(message, options)
            talk = invocation.conversation
            feed = talk.feed if talk is not None else Feed(invocation.stdin)
            if talk is not None:
                parse = talk.parse_line
            argv = (resolve(invocation.argv[0], env), *invocation.argv[1:])
            outcome = self.run_process(
                argv,
                feed,
                on_line,
                cwd=self.config.working_dir,
                env=env,
                timeout=self.config.timeout,
                grace=self.config.grace_period,
            )
        except LaunchError as exc:
            return fold.response(Status.LAUNCH_FAILED, str(exc))
        if talk is not None:
            fold.warnings += talk.warnings
        if outcome.skipped_lines:
            fold.warnings.append(
                f"skipped {outcome.skipped_lines} stdout line(s) longer than {MAX_LINE} bytes"
            )
        if outcome.stopped_after_turn:
            waited = max(self.config.grace_period, AFTER_TURN)
            fold.warnings.append(f"{self.backend.name} had not ended {waited:g} s after its turn "
                                 "did: it was stopped, and the turn's answer kept")
        status, error = self.judge(self.backend.name, self.config.timeout, outcome, fold)
        if status is Status.OK and not fold.completed:
            fold.warnings.append(f"{self.backend.name} exited 0 before the turn completed "
                                 "(no end-of-turn line): the answer may be partial")
        return fold.response(status, error)

    def _environment(self) -> dict[str, str]:
        env = self._inherited()
        withheld = self.backend.key_variables if self.credentials == "login" else ()
        for name in withheld:
            env.pop(name, None)
        if self.probing:
            env[PROBE_MARK] = "1"
        return env

    def _inherited(self) -> dict[str, str]:
        """The CLI's environment before any key is withheld."""
        env = dict(os.environ)
        env.update(self.config.env or {})
        for name in (*NESTING_VARIABLES, *self.config.strip_env):
            env.pop(name, None)
        return env

    def _probe(self) -> tuple[State, str]:
        """Find out which credentials work (decision D-22): one run of the CLI on its own login,
        every key withheld and the run marked, judged as a request is (a completed turn
        without an error; an exit code alone proves nothing). The login when it works, else
        the first key set (billed per token: said in the reason and logged), else DEGRADED,
        saying how to log in or which variable to set."""
        name, keys = self.backend.name, self.backend.key_variables
        self.credentials, self.probing = "login", True
        try:
            response = self._run(PROBE_PROMPT, None)
        finally:
            self.probing = False
        if response["status"] == Status.OK:
            return State.READY, f"agent created; credentials: the {name} CLI's own login works"
        said = str(response["message"]).partition("\n")[0][:200]  # the error's first line
        why = f"the {name} CLI's login did not work (probe: {said})"
        given = [key for key in keys if self._inherited().get(key)]
        if given:
            self.credentials = "api-key"
            reason = (f"agent created; credentials: API key {given[0]}, billed per token: {why}; "
                      f"log in with {self.backend.login_command} to use the subscription")
            log.warning("%s", reason)
            return State.READY, reason
        return State.DEGRADED, (f"no credentials work: {why} and none of {', '.join(keys)} is "
                                f"set; log in with {self.backend.login_command} or set one")

    def _check_credentials(self) -> None:
        """A credentials mode the environment contradicts is refused (decision D-21)."""
        keys, mode = self.backend.key_variables, self.config.credentials
        if mode == "login":
            given = [name for name in keys if name in (self.config.env or {})]
            if given:
                raise ConfigError(f"credentials 'login' withholds the {self.backend.name} CLI's "
                                  f"API keys, but env sets {', '.join(given)}")
        elif mode == "api-key" and not any(self._environment().get(name) for name in keys):
            raise ConfigError(f"credentials 'api-key': none of {', '.join(keys)} is set for the "
                              f"{self.backend.name} CLI (inherited or in env)")

    def _transition(self, state: State, reason: str) -> None:
        previous, self.state = self.state, state
        self._publish(state, previous, reason)

    def _publish(self, state: State, previous: State | None, reason: str) -> None:
        _tell(self.listeners, NodeEvent(state, previous, reason))


def _tell(listeners: list[Callable[[Any], None]], item: NodeEvent | Event) -> None:
    """Hand `item` to every listener. One that raises is logged and the rest still hear it:
    a monitor that fails never changes an answer (decision D-23)."""
    for listener in listeners:
        try:
            listener(item)
        except Exception:
            log.exception("a listener of the agent failed on %r; the request goes on", item)


def _fold(agent: CodingAgent) -> _Fold:
    return _Fold(agent.backend.name)


def judge(
    backend: str, timeout: float, outcome: Outcome, fold: _Fold
) -> tuple[Status, str | None]:
    """Status and error text from how the process ended and what it said (D-4).

    A failure reported in the stream fails the request even after exit 0; a non-zero exit
    fails it even after a completed turn (seed 001), and the message says the turn had
    completed (hostile.feature, "exit code").
    """
    tail = outcome.stderr_tail.strip()
    detail = f"\nstderr: {tail}" if tail else ""
    code = outcome.returncode
    if outcome.timed_out:
        return Status.TIMEOUT, f"{backend} timed out after {timeout:g} s and was terminated{detail}"
    if outcome.stopped_after_turn:  # its exit is the stop's, not a failure of its own (D-38)
        code = 0
    if code < 0:
        name = signal.Signals(-code).name if -code in _SIGNALS else f"#{-code}"
        return Status.SIGNALED, f"{backend} was killed by signal {name}{detail}"
    if fold.error is not None:
        return Status.HARNESS_ERROR, f"{backend} reported an error: {fold.error}{detail}"
    if code != 0:
        after = " after the turn completed" if fold.completed else ""
        return Status.HARNESS_ERROR, f"{backend} exited with code {code}{after}{detail}"
    return Status.OK, None


def _reason(response: dict[str, Any]) -> str:
    status = Status(response["status"])
    return "request completed" if status is Status.OK else f"request ended: {status.name.lower()}"


def create_agent(
    listeners: list[Callable[[NodeEvent], None]] | None = None,
    *,
    agent_class: type[CodingAgent] = CodingAgent,
    **settings: Any,
) -> CodingAgent:
    """An agent (of `agent_class`, CodingAgent or a subclass of it) from keyword settings (those
    of AgentConfig); unknown ones are an error."""
    known = set(AgentConfig.__dataclass_fields__)
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ConfigError(f"unknown agent setting(s): {', '.join(unknown)}")
    if "extra_args" in settings:
        if not isinstance(settings["extra_args"], list | tuple):
            raise ConfigError(f"extra_args must be a list, not {settings['extra_args']!r:.80}")
        settings["extra_args"] = tuple(settings["extra_args"])
    return agent_class(AgentConfig(**settings), listeners=listeners)
