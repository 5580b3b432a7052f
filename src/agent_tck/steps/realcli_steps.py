"""Steps of component `real-cli`: an agent drives a real, pinned CLI inside a sandbox.

The world writes the model's script turn by turn; the sandbox (doubles/realcli/sandbox.py) and
the agent are made at the first WHEN. The steps judge from what the real CLI left behind (the
files its tools wrote, the sessions it stored, the requests the model received, the processes
still alive), never from what the agent says about itself alone.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends import profile
from agent_tck.doubles.realcli import clis
from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable
from agent_tck.kit.drivers import Driver, RequestResult
from agent_tck.kit.observe import still_running
from agent_tck.kit.verdicts import not_applicable, require_backend, step_not_judged
from agent_tck.steps.world import NO_EVENTS, World

TIMEOUT_STATUS = 3
LEFTOVER_WAIT = 2.0  # seconds a signalled process may take to be gone from /proc


@dataclass(repr=False)
class RealWorld(World):
    """The real CLI in its sandbox: `root` holds its HOME and working directory."""

    backend: str = "claude"
    timeout: float = 60.0
    turns: list[dict[str, Any]] = field(default_factory=list)
    sandbox: Sandbox | None = None
    agent: str | None = None
    results: list[RequestResult] = field(default_factory=list)
    conversation: str = ""

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def cli(self) -> str:
        """The real CLI the backend runs: an ACP agent's (`claude-acp`) is its CLI's."""
        return self.backend.removesuffix("-acp")

    def conversing(self) -> Callable[[str, str, str], RequestResult] | None:
        """How the driver sends a request of a conversation, where it resumes by
        conversation_id rather than session_id (DDS); None elsewhere."""
        if getattr(self.driver, "resumes_sessions", True):
            return None
        converse: Callable[[str, str, str], RequestResult] | None = getattr(
            self.driver, "agent_converse", None)
        return converse

    def request(self, message: str, session_id: str | None = None) -> RequestResult:
        if self.sandbox is None:
            cli = clis.binary(self.backend)
            assert cli is not None, f"the real {self.backend} CLI is not installed"
            self.sandbox = Sandbox(self.root, self.backend, {"turns": self.turns}, cli)
        if self.agent is None:
            settings = {"backend": self.backend, "working_dir": str(self.sandbox.work),
                        "timeout": self.timeout, "env": {"PATH": self.sandbox.path()}}
            self.agent, _ = self.driver.agent_create(settings)
        converse = self.conversing()
        if converse is not None:  # one conversation per scenario, new to every agent there
            self.conversation = self.conversation or f"real-cli-{uuid.uuid4().hex}"
            result = converse(self.agent, message, self.conversation)
        elif session_id is None:  # drivers written before resuming existed take two arguments
            result = self.driver.agent_request(self.agent, message)
        else:
            result = self.driver.agent_request(self.agent, message, session_id)
        self.results.append(result)
        return result

    @property
    def response(self) -> dict[str, Any]:
        assert self.results, "no request was made"
        return self.results[-1].response

    def requests(self) -> list[dict[str, Any]]:
        assert self.sandbox is not None, "the sandbox was never started"
        return self.sandbox.requests()


@pytest.fixture
def real(driver: Driver, tmp_path: Path, time_scale: float) -> Iterator[RealWorld]:
    world = RealWorld(driver, tmp_path, time_scale)
    try:
        yield world
    finally:
        if world.sandbox is not None:
            world.sandbox.close()


ISOLATED = ("not run: with --isolate the adapter cannot enter the network namespace of the "
            "real CLI's sandbox, which is the kit's (docs/security.md)")


# --- GIVEN ---------------------------------------------------------------------------------


@given(parsers.re(r'an agent driving the real "(?P<backend>[\w-]+)" CLI'
                  r"(, with a timeout of (?P<seconds>[\d.]+) seconds)?$"))
def agent_driving(real: RealWorld, backend: str, seconds: str | None) -> None:
    require_backend(real.driver, backend)
    isolated = ISOLATED if getattr(real.driver, "isolate", False) else None
    reason = unavailable(backend) or isolated
    if reason is not None:
        pytest.skip(reason)
    real.backend = backend
    if seconds is not None:
        real.timeout = float(seconds)


@given(parsers.parse('the model answers "{text}"'))
def model_answers(real: RealWorld, text: str) -> None:
    real.turns.append({"say": text})


@given(parsers.parse('the model writes "{name}" holding "{content}" with a tool, '
                     "then lists the directory with another"))
def model_writes_and_lists(real: RealWorld, name: str, content: str) -> None:
    # A relative path: the file lands where the CLI runs, so a working_dir the agent ignored
    # shows as a missing file.
    for command in (f"printf '%s\\n' '{content}' > {name}", "ls"):
        real.turns.append(profile(real.cli).shell_tool(command))


@given(parsers.parse('the model API answers every request with HTTP {status:d} "{message}"'))
def model_fails(real: RealWorld, status: int, message: str) -> None:
    real.turns.append({"fail": status, "message": message, "repeat": True})


@given(parsers.parse("the model has a tool start a background process, "
                     "then stalls for {seconds:g} seconds"))
def model_stalls(real: RealWorld, seconds: float) -> None:
    command = "nohup sleep 300 > /dev/null 2>&1 & echo started > started.txt"
    real.turns += [profile(real.cli).shell_tool(command), {"stall": seconds}]


# --- WHEN ----------------------------------------------------------------------------------


@when(parsers.parse('the agent is asked "{message}" in the same session'))
def answers_in_session(real: RealWorld, message: str) -> None:
    if not getattr(real.driver, "resumes_sessions", True) and real.conversing() is None:
        not_applicable("this driver resumes by conversation, not session_id")
    session = real.response.get("session_id")
    assert session, f"the first response has no session_id to resume: {real.response}"
    real.request(message, session)


@when(parsers.parse('the agent is asked "{message}"'))
def answers(real: RealWorld, message: str) -> None:
    real.request(message)


# --- THEN ----------------------------------------------------------------------------------


@then(parsers.parse('the response has status {status:d} and the message "{text}"'))
def status_and_message(real: RealWorld, status: int, text: str) -> None:
    got = real.response
    assert (got.get("status"), got.get("message")) == (status, text), (
        f"expected status {status} and message {text!r}; got {got}\n"
        f"model requests: {_summary(real.requests())}"
    )


@then(parsers.parse("the response has status {status:d}"))
def status_is(real: RealWorld, status: int) -> None:
    assert real.response.get("status") == status, real.response


@then(parsers.parse('the response has a non-zero status and its error contains "{text}"'))
def fails_with(real: RealWorld, text: str) -> None:
    got = real.response
    assert got.get("status") not in (0, None), got
    assert text in str(got.get("error")), f"error {got.get('error')!r} lacks {text!r}"


@then(parsers.parse('the model received the prompt "{text}"'))
def model_received(real: RealWorld, text: str) -> None:
    requests = real.requests()
    assert any(text in json.dumps(r.get("body")) for r in requests), (
        f"no request to the model carried {text!r}: {_summary(requests)}"
    )


@then(parsers.parse('the model\'s last request carried the earlier prompt "{text}"'))
def last_request_carried(real: RealWorld, text: str) -> None:
    last = [r for r in real.requests() if r.get("turn")][-1]
    assert text in json.dumps(last.get("body")), (
        f"the model's last request did not carry {text!r}, so the session was not resumed"
    )


@then(parsers.parse('"{name}" in the working directory holds "{content}"'))
def file_holds(real: RealWorld, name: str, content: str) -> None:
    path = real.work / name
    found = sorted(p.name for p in real.work.iterdir())
    assert path.is_file(), f"{path} was not written; the working directory has {found}"
    assert path.read_text(encoding="utf-8").strip() == content


@then(parsers.parse("the response counts {count:d} tool calls"))
def counts_tools(real: RealWorld, count: int) -> None:
    assert real.response.get("tool_calls") == count, real.response


@then("the response's session_id is the one session the real CLI stored")
def session_is_stored(real: RealWorld) -> None:
    stored = profile(real.cli).stored_sessions(real.root / "home")
    assert len(stored) == 1, f"expected one stored session, found {stored}"
    assert real.response.get("session_id") == stored[0]


@then("the response keeps the first response's session_id")
def keeps_session(real: RealWorld) -> None:
    first, last = real.results[0].response, real.response
    assert last.get("session_id") == first.get("session_id"), (first, last)


@then("the tool's background process had started")
def background_started(real: RealWorld) -> None:
    assert (real.work / "started.txt").is_file(), (
        f"the tool never ran (no started.txt) before the response {real.response}; "
        f"model requests: {_summary(real.requests())}")


@then("no process the real CLI started is still running")
def nothing_left(real: RealWorld) -> None:
    assert real.sandbox is not None
    left = still_running(real.sandbox.processes(), within=LEFTOVER_WAIT)
    assert not left, f"still running after the response: {[_cmdline(p) for p in left]}"


@then("the agent published BUSY for the request, then READY")
def published_busy_then_ready(real: RealWorld) -> None:
    assert real.results, "no request was made"
    states = [s.get("state") for s in real.results[-1].states]
    assert states == ["BUSY", "READY"], (
        f"the agent published {states} for the request, not BUSY then READY")


@then(parsers.parse("the request's events show {count:d} tool calls, each with its own id and "
                    'the name the CLI gave its tool, then the answer "{text}"'))
def events_show_tools(real: RealWorld, count: int, text: str,
                      request: pytest.FixtureRequest) -> None:
    assert real.results, "no request was made"
    events = real.results[-1].events
    if events is None:
        step_not_judged(request.node, NO_EVENTS)
        return
    kinds = [e.get("kind") for e in events]
    starts = [i for i, kind in enumerate(kinds) if kind == "tool_start"]
    ids = {events[i].get("tool_id") for i in starts}
    assert len(starts) == len(ids) == count, (
        f"expected {count} tool_start events with distinct tool ids; got {kinds}")
    named = profile(real.cli).shell_tool_reported
    misnamed = [events[i].get("tool_name") for i in starts if events[i].get("tool_name") != named]
    assert not misnamed, f"tool_start events name {misnamed}, not the CLI's {named!r}"
    after = events[starts[-1] + 1:]  # count > 0: the scenario's tools were called
    answered = any(e.get("kind") in ("text", "done") and str(e.get("text", "")).strip() == text
                   for e in after)
    assert answered and any(e.get("kind") == "done" for e in after), (
        f"after the tool calls no event carries the answer {text!r}, or none is done: {kinds}")


@then("the agent is back to READY")
def agent_ready(real: RealWorld) -> None:
    assert real.agent is not None
    assert real.driver.agent_info(real.agent)["state"] == "READY"


def _summary(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the model server was asked, a request a line: which turn answered, a digest of the
    request's body (a CLI that sent one request twice, a retry, shows the same digest), a
    digest of its system prompt and the end of the conversation it carried (a request of the
    CLI's own beside the turns, a summary or a title, shows another system prompt)."""
    keys = ("path", "turn", "answer", "tool", "problem")
    return [{**{k: r[k] for k in keys if k in r}, "body": _digest(r.get("body")),
             **_conversation(r.get("body"))} for r in requests]


SYSTEM_KEYS = ("instructions", "system", "systemInstruction")  # Responses, Messages, Gemini
TURNS_KEYS = ("input", "messages", "contents")
LAST_WORDS = 60  # characters of the conversation's last message
LABELS = ("role", "type", "id", "call_id")  # a message's labels, not what it says


def _conversation(body: object) -> dict[str, str]:
    """The digest of a model request's system prompt and the end of its last message."""
    if not isinstance(body, dict):
        return {}
    found = {}
    system = next((body[k] for k in SYSTEM_KEYS if k in body), None)
    if system is not None:
        found["system"] = _digest(system)
    turns = next((body[k] for k in TURNS_KEYS if k in body), None)
    last = turns[-1] if isinstance(turns, list) and turns else turns
    if last is not None:
        found["last"] = " ".join(_strings(last))[-LAST_WORDS:]
    return found


def _strings(value: object) -> list[str]:
    """The text values inside `value`, in order (its labels left out)."""
    if isinstance(value, str):
        return [value]
    items = [v for k, v in value.items() if k not in LABELS] if isinstance(value, dict) \
        else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def _digest(body: object) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:10]


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return f"{pid} (gone)"
    words = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return f"{pid}: {words}"
