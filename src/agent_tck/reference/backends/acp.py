"""Agents of the Agent Client Protocol (ACP): `gemini --acp`, `claude-agent-acp`, `codex-acp`.

An ACP agent is talked with, not given a prompt: JSON-RPC 2.0 on its stdin and stdout, one
message a line. For one request the wrapper says `initialize`, opens a session
(`session/new`, or `session/load` to resume one when the agent offers it), sends the prompt,
and reads the turn from the agent's `session/update` notifications until the prompt's answer
says why the turn stopped; then it closes stdin, and the agent ends. At the deadline the
turn is cancelled (`session/cancel`) and the agent given the grace period to answer it before
it is signalled (decision D-37).

What this wrapper says to the agent's own requests (its stated policy):
- `session/request_permission`: refused, with the option the agent offers to reject once (or
  always, when that is all it offers; the request answered `cancelled` when it offers
  neither). Nothing is approved without a
  person; each refusal is named in the answer's warnings.
- every other request (`fs/*`, `terminal/*`: the client declares no such capability, and
  methods it does not know): the JSON-RPC error "Method not found", never silence.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from agent_tck.reference.backends.base import (
    Invocation,
    RunOptions,
    load_object,
    text_of,
)
from agent_tck.reference.events import Event
from agent_tck.reference.exceptions import LaunchError
from agent_tck.reference.feed import Feed

PROTOCOL_VERSION = 1
NOT_FOUND, INVALID_PARAMS = -32601, -32602
REJECTING = ("reject_once", "reject_always")  # the options that refuse, the milder first
CLIENT = {"protocolVersion": PROTOCOL_VERSION,
          "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                 "terminal": False},
          "clientInfo": {"name": "agent-tck-reference", "version": "1"}}
# How each stop reason other than end_turn reads in the answer's error.
STOPPED = {"cancelled": "the turn was cancelled", "refusal": "the agent refused to go on",
           "max_tokens": "the turn reached the model's token limit",
           "max_turn_requests": "the turn reached its limit of model requests"}


@dataclass(frozen=True)
class Agent:
    """One ACP agent the reference starts: its command, the options that make it speak ACP, the
    option that picks a model (none: a model is refused), and what lets it act unasked."""

    name: str
    command: str
    options: tuple[str, ...]
    model_option: str | None
    key_variables: tuple[str, ...]
    login_command: str


AGENTS = {agent.name: agent for agent in (
    Agent("gemini-acp", "gemini", ("--acp",), "-m", ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
          "`gemini` and its Login with Google"),
    Agent("claude-acp", "claude-agent-acp", (), None,
          ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), "`claude /login`"),
    Agent("codex-acp", "codex-acp", (), None, ("OPENAI_API_KEY", "CODEX_API_KEY"),
          "`codex login`"),
)}


class AcpBackend:
    """Starts an ACP agent for each request and talks with it (`Conversation`)."""

    def __init__(self, agent: Agent, command: str | None = None) -> None:
        self.agent = agent
        self.name = agent.name
        self.command = command or agent.command
        self.key_variables = agent.key_variables
        self.login_command = agent.login_command

    def build(self, prompt: str, options: RunOptions) -> Invocation:
        argv = [self.command, *self.agent.options]
        if options.model:
            if self.agent.model_option is None:
                raise LaunchError(f"{self.name} takes no model on its command line: "
                                  f"{options.model!r:.80} cannot be used; no CLI was started")
            argv += [self.agent.model_option, options.model]
        argv += list(options.extra_args)
        talk = Conversation(prompt, options.resume_session,
                            os.path.abspath(options.working_dir or os.getcwd()))
        return Invocation(tuple(argv), b"", talk)


    def parse_line(self, line: str) -> list[Event]:
        """The events of one message read alone: the turn's updates (a conversation reads
        the rest)."""
        obj = load_object(line)
        return _update_events(obj) if obj is not None else []


class Conversation:
    """One request's talk with an ACP agent: what it is told (`feed`) as it speaks, and the
    events its messages give (`parse_line`)."""

    def __init__(self, prompt: str, resume: str | None, cwd: str) -> None:
        self.prompt, self.resume, self.cwd = prompt, resume, cwd
        self.feed = Feed(ended=False)
        self.asked: dict[int, str] = {}  # our requests awaiting an answer: id -> method
        self.session: str | None = None
        # The turn runs: updates before it replay a loaded session's history, and those after
        # the prompt's answer come too late to be part of it.
        self.prompted = False
        self.warnings: list[str] = []  # for the answer: each permission refused
        self.next_id = 0
        self._ask("initialize", CLIENT)

    def parse_line(self, line: str) -> list[Event]:
        obj = load_object(line)
        if obj is None:
            return []
        method = obj.get("method")
        if isinstance(method, str):
            if "id" in obj:
                self._serve(obj["id"], method, obj.get("params"))
                return []
            if method == "session/update" and self.prompted:
                return _update_events(obj)
            return []
        rid = obj.get("id")
        asked = self.asked.pop(rid, None) if type(rid) is int else None  # not a JSON true
        if asked is None:
            return []
        result = obj.get("result")
        if not isinstance(result, dict):
            self.feed.end()
            self.prompted = False
            return [Event("error", text=_error_text(asked, obj), raw=obj)]
        return self._answered(asked, result, obj)

    def _answered(self, method: str, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        if method == "initialize":
            return self._open(result, raw)
        if method in ("session/new", "session/load"):
            session = text_of(result.get("sessionId")) if method == "session/new" else self.resume
            if session is None:
                self.feed.end()
                return [Event("error", text=f"session/new answered no sessionId: "
                              f"{json.dumps(result)[:200]}", raw=raw)]
            self.session, self.prompted = session, True
            self._ask("session/prompt", {"sessionId": session,
                                         "prompt": [{"type": "text", "text": self.prompt}]})
            self.feed.at_deadline = _encoded({"method": "session/cancel",
                                              "params": {"sessionId": session}})
            return [Event("init", session_id=session, raw=raw)]
        self.feed.end()  # the prompt's answer: the turn is over, and a later update not its
        self.prompted = False
        stop = result.get("stopReason")
        if stop == "end_turn":
            return [Event("done", raw=raw)]
        why = f"the turn stopped with {stop[:80]}: {STOPPED.get(stop, 'not end_turn')}" \
            if isinstance(stop, str) \
            else f"the prompt's answer has no stopReason: {json.dumps(result)[:200]}"
        return [Event("error", text=why, raw=raw)]

    def _open(self, result: dict[str, Any], raw: dict[str, Any]) -> list[Event]:
        """Open the session the request asks for: a new one, or the one to resume."""
        if self.resume is None:
            self._ask("session/new", {"cwd": self.cwd, "mcpServers": []})
            return []
        capabilities = result.get("agentCapabilities")
        if not (isinstance(capabilities, dict) and capabilities.get("loadSession") is True):
            self.feed.end()
            return [Event("error", text="the agent cannot resume a session: its initialize "
                          "answer does not offer loadSession", raw=raw)]
        self._ask("session/load", {"sessionId": self.resume, "cwd": self.cwd, "mcpServers": []})
        return []

    def _serve(self, rid: Any, method: str, params: Any) -> None:
        """Answer a request of the agent's own (the module's policy)."""
        if method == "session/request_permission":
            if not isinstance(params, dict):
                self._send({"id": rid, "error": {"code": INVALID_PARAMS,
                                                 "message": "Invalid params"}})
                return
            options = params.get("options")
            offered = [o for o in options if isinstance(o, dict)] \
                if isinstance(options, list) else []
            reject = next((o.get("optionId") for kind in REJECTING for o in offered
                           if o.get("kind") == kind), None)
            call = params.get("toolCall")
            title = text_of(call.get("title")) if isinstance(call, dict) else None
            self.warnings.append(f"the agent asked leave to run {title or 'a tool call'!r:.200}: "
                                 "refused (this wrapper approves nothing unasked)")
            outcome = {"outcome": "selected", "optionId": reject} if isinstance(reject, str) \
                else {"outcome": "cancelled"}
            self._send({"id": rid, "result": {"outcome": outcome}})
            return
        self._send({"id": rid, "error": {"code": NOT_FOUND, "message": "Method not found",
                                         "data": {"method": method}}})

    def _ask(self, method: str, params: dict[str, Any]) -> None:
        rid, self.next_id = self.next_id, self.next_id + 1
        self.asked[rid] = method
        self._send({"id": rid, "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> None:
        self.feed.send(_encoded(message))


def _encoded(message: dict[str, Any]) -> bytes:
    """A JSON-RPC 2.0 message as one line."""
    return (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode("utf-8")


def _error_text(method: str, answer: dict[str, Any]) -> str:
    """What an answer with no result object says: its error's message, or what came."""
    error = answer.get("error")
    if error is None:
        return f"the agent answered {method} with no result object: {json.dumps(answer)[:200]}"
    message = text_of(error.get("message")) if isinstance(error, dict) else None
    return f"the agent answered {method} with an error: {message or json.dumps(error)[:200]}"


def _update_events(obj: dict[str, Any]) -> list[Event]:
    """The events of a `session/update`: message chunks, tool calls and their ends."""
    params = obj.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if obj.get("method") != "session/update" or not isinstance(update, dict):
        return []
    kind = update.get("sessionUpdate")
    tool_id = text_of(update.get("toolCallId"))
    if kind == "agent_message_chunk":
        content = update.get("content")
        text = text_of(content.get("text")) if isinstance(content, dict) and \
            content.get("type") == "text" else None
        return [Event("text", text=text, raw=obj)] if text is not None else []
    if kind == "tool_call":
        return [Event("tool_start", tool_name=text_of(update.get("title")),
                      tool_input=update.get("rawInput"), tool_id=tool_id, raw=obj)]
    if kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
        output = update.get("rawOutput", update.get("content"))
        return [Event("tool_result", tool_output=output, tool_id=tool_id, raw=obj)]
    return []
