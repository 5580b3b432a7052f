"""Miniature broken ACP wrappers: the reference driving `gemini --acp` (or, where a defect says
so, the other ACP agents too) with exactly one defect each, in how it talks with the agent
(tests/test_broken_acp.py runs the suite against each)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from agent_tck.reference.agent import CodingAgent
from agent_tck.reference.backends.acp import AcpBackend, Conversation
from agent_tck.reference.backends.base import Invocation, RunOptions, load_object
from agent_tck.reference.events import Event
from agent_tck.reference.feed import Feed
from agent_tck.reference.supervisor import Supervisor
from tests.miniatures.agent import _Broken, _NoWait, _Supervised


class _Talks(Conversation):
    """The reference's conversation; each defect overrides one part of it."""


class _Acp(_Broken):
    """The reference, declaring the ACP agent alone, whose conversation is `talk`."""

    backends = ("gemini-acp",)
    talk: type[Conversation] = _Talks

    def break_agent(self, agent: CodingAgent) -> None:
        assert isinstance(agent.backend, AcpBackend)
        agent.backend = _Backend(agent.backend, self.talk)


class _Backend(AcpBackend):
    def __init__(self, inner: AcpBackend, talk: type[Conversation]) -> None:
        super().__init__(inner.agent, inner.command)
        self.talk = talk

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        built = super().build(prompt, options)
        assert isinstance(built.conversation, Conversation)
        c = built.conversation
        return Invocation(built.argv, built.stdin, self.talk(c.prompt, c.resume, c.cwd))


class _OwnDirectory(Conversation):
    def __init__(self, prompt: str, resume: str | None, cwd: str) -> None:
        super().__init__(prompt, resume, os.getcwd())


class OpensItsSessionInItsOwnDirectory(_Acp):
    """Opens the session where the wrapper runs, not in the agent's working directory."""

    talk = _OwnDirectory


class _Thoughts(Conversation):
    def parse_line(self, line: str) -> list[Event]:
        events = super().parse_line(line)
        update = (load_object(line) or {}).get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_thought_chunk" and self.prompted:
            events.append(Event("text", text=update["content"]["text"]))
        return events


class AnswersWithItsThoughts(_Acp):
    """Takes the agent's thoughts for its answer too."""

    talk = _Thoughts


class _AnyStop(Conversation):
    def parse_line(self, line: str) -> list[Event]:
        return [Event("done", raw=e.raw) if e.kind == "error" and "stopReason" in line else e
                for e in super().parse_line(line)]


class TakesAnyStopForSuccess(_Acp):
    """Takes a turn that stopped for any reason as one that ended well."""

    talk = _AnyStop


class _Approves(Conversation):
    def _serve(self, rid: Any, method: str, params: Any) -> None:
        if method == "session/request_permission":
            first = params["options"][0]["optionId"]  # gemini's "proceed_always"
            self._send({"id": rid, "result": {"outcome": {"outcome": "selected",
                                                          "optionId": first}}})
        else:
            super()._serve(rid, method, params)


class ApprovesEveryToolCall(_Acp):
    """Answers a permission request with the first option the agent offers: allow always."""

    talk = _Approves


class _Cancels(Conversation):
    def _serve(self, rid: Any, method: str, params: Any) -> None:
        if method == "session/request_permission":
            self._send({"id": rid, "result": {"outcome": {"outcome": "cancelled"}}})
            self.warnings.append(f"refused leave to run {params['toolCall']['title']}")
        else:
            super()._serve(rid, method, params)


class RefusesByCancelling(_Acp):
    """Refuses every permission request by answering `cancelled`, though the agent offers an
    option to refuse it."""

    talk = _Cancels


class _LastReject(Conversation):
    def _serve(self, rid: Any, method: str, params: Any) -> None:
        if method == "session/request_permission":
            last = [o for o in params["options"] if o["kind"].startswith("reject_")][-1]
            self._send({"id": rid, "result": {"outcome": {"outcome": "selected",
                                                          "optionId": last["optionId"]}}})
            self.warnings.append(f"refused leave to run {params['toolCall']['title']}")
        else:
            super()._serve(rid, method, params)


class RefusesWithTheLastRejectOption(_Acp):
    """Refuses with the last option of a reject kind the agent offers: Codex's `cancel`, which
    stops its turn, where it offers `decline` first."""

    backends = ("codex-acp",)
    talk = _LastReject


class _Unsaid(Conversation):
    def _serve(self, rid: Any, method: str, params: Any) -> None:
        super()._serve(rid, method, params)
        self.warnings.clear()


class RefusesToolCallsUnsaid(_Acp):
    """Refuses permission requests as the reference does, and says nothing of it in the
    response's warnings."""

    talk = _Unsaid


class _AnyError(Conversation):
    def _send(self, message: dict[str, Any]) -> None:
        error = message.get("error")
        if isinstance(error, dict) and error.get("code") == -32601:
            message = {**message, "error": {**error, "code": -32603}}  # "Internal error"
        super()._send(message)


class AnswersAnInternalError(_Acp):
    """Answers a request it does not serve with the JSON-RPC error -32603 (Internal error),
    where the method was not found."""

    talk = _AnyError


class _Silent(Conversation):
    def _serve(self, rid: Any, method: str, params: Any) -> None:
        if method == "session/request_permission":
            super()._serve(rid, method, params)


class LeavesRequestsItDoesNotServeUnanswered(_Acp):
    """Answers permission requests, and nothing else the agent asks."""

    talk = _Silent


class _OffersEverything(Conversation):
    def _ask(self, method: str, params: dict[str, Any]) -> None:
        if method == "initialize":
            params = {**params, "clientCapabilities": {
                "fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}}
        super()._ask(method, params)


class OffersWhatItDoesNotServe(_Acp):
    """Offers the agent a file system and a terminal, and refuses each request for them."""

    talk = _OffersEverything


class _NewSession(Conversation):
    def __init__(self, prompt: str, resume: str | None, cwd: str) -> None:
        super().__init__(prompt, None, cwd)


class StartsANewSessionToResume(_Acp):
    """Asked to resume a session, opens a new one."""

    talk = _NewSession


class _LoadsAnyway(Conversation):
    def _open(self, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        return super()._open({**result, "agentCapabilities": {"loadSession": True}}, raw)


class LoadsSessionsAnAgentCannotLoad(_Acp):
    """Asked to resume a session, loads it whatever the agent's initialize answer offered."""

    talk = _LoadsAnyway


class _NewWhenItCannotLoad(Conversation):
    def _open(self, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        capabilities = result.get("agentCapabilities")
        if not (isinstance(capabilities, dict) and capabilities.get("loadSession") is True):
            self.resume = None
        return super()._open(result, raw)


class OpensANewSessionWhenItCannotLoad(_Acp):
    """Asked to resume a session an agent cannot load, answers from a new session."""

    talk = _NewWhenItCannotLoad


class _Late(Conversation):
    def _answered(self, method: str, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        events = super()._answered(method, result, raw)
        if method == "session/prompt":
            self.prompted = True  # still reading the turn
        return events


class KeepsLateUpdates(_Acp):
    """Takes what the agent says after the prompt's answer as part of the turn."""

    talk = _Late


class _AnyId(Conversation):
    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line) or {}
        if "method" not in obj and obj.get("id") not in self.asked and self.session:
            obj = {**obj, "id": max(self.asked, default=-1)}  # the prompt's, as it assumes
            line = json.dumps(obj)
        return super().parse_line(line)


class TakesAnyAnswerForThePrompts(_Acp):
    """Takes the first answer that comes once the prompt is sent as the prompt's, whatever
    its id."""

    talk = _AnyId


class _NextMessage(Conversation):
    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line) or {}
        if "id" not in obj and obj.get("method") != "session/update" and self.asked:
            # the message after its request is that request's answer, as it assumes
            line = json.dumps({"id": max(self.asked), "result": obj.get("params") or {}})
        return super().parse_line(line)


class TakesTheNextMessageForTheAnswer(_Acp):
    """Takes the first message after its request that is no update for the request's answer,
    whatever it is: `gemini --acp` sends nothing else before an answer, `claude-agent-acp` and
    `codex-acp` say how they are authenticated before they answer `session/new`."""

    backends = ("claude-acp", "codex-acp", "gemini-acp")
    talk = _NextMessage


class TakesTheNextMessageForTheAnswerOfGemini(TakesTheNextMessageForTheAnswer):
    """The same, declaring `gemini-acp` alone: the defect goes unseen."""

    backends = ("gemini-acp",)


class _Replay(Conversation):
    def _open(self, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        self.prompted = True  # from the start: a loaded session's replay too
        return super()._open(result, raw)


class CountsTheReplayedConversation(_Acp):
    """Takes what an agent replays of a loaded session for part of the answer."""

    talk = _Replay


class _OpenFeed(Feed):
    def end(self) -> None:
        """Never: stdin stays open."""


class _KeepsStdinOpen(Conversation):
    def __init__(self, prompt: str, resume: str | None, cwd: str) -> None:
        super().__init__(prompt, resume, cwd)
        self.feed = _OpenFeed(self.feed.data, ended=False)


class NeverClosesTheAgentsStdin(_Acp):
    """Leaves the agent's stdin open once the prompt is answered: the agent, waiting for the
    next prompt, never ends, and each request runs to its deadline (three seconds, where the
    scenario sets none)."""

    talk = _KeepsStdinOpen

    def make_agent(self, settings: dict[str, Any], listeners: list[Any]) -> CodingAgent:
        return super().make_agent({"timeout": 3, **settings}, listeners)


class LeavesTheAgentAZombie(_Supervised):
    """Never waits for the agent it started (nor for the reaper): it stays a zombie."""

    backends = ("gemini-acp",)
    supervisor = _NoWait


class _Uncancelled(Conversation):
    def parse_line(self, line: str) -> list[Event]:
        events = super().parse_line(line)
        self.feed.at_deadline = b""
        return events


class NeverCancelsTheTurn(_Acp):
    """Ends an agent at the deadline with signals alone, its turn never cancelled."""

    talk = _Uncancelled


class _TermsAsItCancels(Supervisor):
    def _enforce(self, feed: Feed) -> None:
        if not self.timed_out and time.monotonic() >= self.deadline and feed.deadline():
            feed.at_deadline = b""  # said once: the deadline's SIGTERM follows it at once
        super()._enforce(feed)


class SignalsAsItCancels(_Supervised):
    """Cancels the turn at the deadline and sends SIGTERM with it, giving the agent no time to
    stop on its own."""

    backends = ("gemini-acp",)
    supervisor = _TermsAsItCancels
