"""The one interface the steps talk to. Each method maps onto one adapter-protocol command."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tck.kit.observe import Held

PR_SET_PDEATHSIG = 1

# The environment every implementation runs with, on top of the suite's own: as if it were
# started from inside a Claude Code session (CLAUDECODE) with API keys set. The hostile
# scenarios check what of it reaches the CLI (docs/adapter-protocol.md, "Environment").
INHERITED_ENV = {
    "CLAUDECODE": "1",
    "ANTHROPIC_API_KEY": "sk-ant-agent-tck-inherited",
    "ANTHROPIC_AUTH_TOKEN": "agent-tck-inherited-token",
    "OPENAI_API_KEY": "sk-agent-tck-inherited",
    "CODEX_API_KEY": "sk-codex-agent-tck-inherited",
    "GEMINI_API_KEY": "agent-tck-inherited-gemini-key",
    "GOOGLE_API_KEY": "agent-tck-inherited-google-key",
    # Neither a key nor a nesting variable: what every agent hands on unchanged.
    "AGENT_TCK_INHERITED": "kept",
}


def _find_prctl() -> Any:
    """libc's prctl, looked up once in the parent: a child between fork and exec should
    not import or dlopen anything (other threads may hold the locks that needs)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()
_PARENT = os.getpid()  # the process that forks: set again in it before each fork


def _forking() -> None:
    global _PARENT
    _PARENT = os.getpid()


# A process forked from the suite after this import (a test runner that forks per test, the
# in-process driver's fork for AG-D6.6) starts adapters and served agents of its own: their
# parent is that process, not the one that imported this.
os.register_at_fork(before=_forking)


def end_with_parent() -> None:
    """In a child before exec: SIGTERM it when the suite dies, so a killed test run leaves no
    adapter or served agent behind (Linux; elsewhere `close` is the only stop). A parent
    that died before the call is caught by checking who the parent is afterwards: the
    process that forked this child (`_PARENT`, set in it just before the fork)."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != _PARENT:
        os.kill(os.getpid(), signal.SIGTERM)


def until(done: Callable[[], bool], within: float) -> bool:
    """Look at `done()` every 10 ms for at most `within` seconds; whether it came true."""
    deadline = time.monotonic() + within
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


@dataclass(frozen=True)
class ImplInfo:
    """What an implementation says about itself in `start`."""

    name: str
    language: str
    version: str
    components: tuple[str, ...]
    backends: tuple[str, ...]
    # It answers each request with the normalized events it parsed from the CLI's stream
    # (decision D-2): the seed's steps about its internal parser are judged by them.
    reports_events: bool = True

    def to_dict(self) -> dict[str, Any]:
        """As plain data (lists, not tuples): the same after a trip through a pipe."""
        return {**vars(self), "components": list(self.components),
                "backends": list(self.backends)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImplInfo:
        return cls(**{**data, "components": tuple(data["components"]),
                      "backends": tuple(data["backends"])})


@dataclass
class RequestResult:
    """What the suite observes of one request: the response, the node events published
    while it ran, and the normalized stream events the agent parsed (None: it does not
    report them, `ImplInfo.reports_events`)."""

    response: dict[str, Any]
    states: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] | None = field(default_factory=list)


class Driver(Protocol):
    info: ImplInfo
    cwd: str  # the implementation's own working directory
    # Whether an agent's `env` setting reaches the implementation apart from the environment
    # it inherits (over DDS it is a served agent's own environment: the two are one).
    env_apart: bool
    # Whether the implementation runs in namespaces of its own (`--isolate`), where it cannot
    # enter the kit's: a real CLI's sandbox is one of those.
    isolate: bool

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]: ...

    def agent_create(self, settings: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """A new agent's id and the node events published while it was created."""
        ...

    def agent_request(
        self, agent: str, message: str, session_id: str | None = None
    ) -> RequestResult:
        """One request; with `session_id`, resuming that session of the CLI."""
        ...

    def agent_request_concurrently(self, agent: str, messages: list[str]) -> list[RequestResult]:
        """Send every message at once; results in the order of `messages`."""
        ...

    def agent_info(self, agent: str) -> dict[str, Any]:
        """The agent's `state` (name) and `timeout` (seconds)."""
        ...

    def agent_request_killed(self, agent: str, message: str, started: Callable[[], bool],
                             within: float) -> None:
        """Send `message`; once `started()` is true (looked at for at most `within` seconds),
        SIGKILL the process the agent runs in, as an out-of-memory killer would, and nothing
        else (in-process, a fork of the suite's process that asks the agent). DriverError if
        `started()` never was."""
        ...

    def held(self, agent: str) -> Held | None:
        """What the process `agent` runs in holds (descriptors, unreaped children); None
        where the system does not say (Linux's /proc does)."""
        ...

    def unasked(self) -> str | None:
        """What the implementation said since its last answer that no request asked for (a
        second answer, one that came late), or None; looked at, without waiting, as each
        scenario ends, so that it is charged to that scenario and not to the next one."""
        ...

    def close(self) -> None: ...

    # --- components `responses` and `runner` (issue 4) -----------------------------------
    # One method per protocol command; the answers are those of schemas/adapter/<cmd>.

    def responses_parse(self, payload: Any) -> dict[str, Any]:
        """`responses.parse`: `{"messages": [...]}`, or `{"rejected": {"message", "path"}}`
        when the implementation rejects the payload with its documented error."""
        ...

    def signal_parse(self, output: str) -> dict[str, Any]:
        """`signal.parse`: `{"signal": "COMPLETE" | "BLOCKED" | "NONE", "reason": str}`."""
        ...

    def runner_run(self, prompt: str, options: dict[str, Any],
                   env: dict[str, str]) -> dict[str, Any]:
        """`runner.run`: one Claude runner run with `env` (its PATH finds the fake harness)
        and options `{trust, model, timeout}`: `{"output", "exit_code", "signal", "reason",
        "timed_out", "killed_by"}`, or `{"launch_failed": {"message"}}`."""
        ...

    def loop_run(self, session: dict[str, Any], script: list[dict[str, Any]],
                 settings: dict[str, Any]) -> dict[str, Any]:
        """`loop.run`: the agent loop on `session` ({description, context, progress, balls})
        with a runner scripted by `script`, settings {max_iterations, trust, timeout}:
        `{"outcome", "iterations", "failure": {"message", "reason"} | None, "calls": [{"prompt",
        "trust", "timeout", "model"}]}`."""
    # --- component `pipeline` (issue 5) ---------------------------------------------------

    def contract_validate(self, document: str, contract: str | None) -> dict[str, Any]:
        """Validate YAML text against `contract` (inferred when None): `valid`, the `contract`
        used, and `errors`, each `{line, column, path, message}`."""
        ...

    def pipeline_run(self, base_dir: str, source_file: str, agents: list[dict[str, Any]],
                     start_at: str | None = None) -> dict[str, Any]:
        """Run scripted agents (`{name, response, writes, version, removes, crash_mid_write,
        crashes}`)
        on `source_file` under `base_dir`: `outcome` (completed, cached, stopped, error,
        refused), `failed_agent`, `message`, `reason`, and `calls`, the agents' starts and
        ends as observed: `[["start", name], ["end", name], ...]`."""
        ...
