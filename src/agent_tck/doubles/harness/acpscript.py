"""Scripts for the fake harness as an ACP agent (`doubles.harness.acpagent`): a turn told in
the protocol's messages, each checked against the protocol's official schema before a
harness plays it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tck.doubles.backends.acp import lines
from agent_tck.doubles.backends.acp.lines import Message
from agent_tck.doubles.backends.acp.schema import SCHEMA, Conversation
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.errors import SuiteError

# The prompt a reply answers, as the harness sees it: a reply's own check needs its request.
_PROMPT = {"jsonrpc": "2.0", "id": "prompt", "method": "session/prompt",
           "params": {"sessionId": lines.SESSION_PLACEHOLDER, "prompt": []}}


@dataclass
class AcpScript(Script):
    """A turn of an ACP agent, played by the agent that runs `backend`'s CLI (`gemini --acp`,
    `claude-agent-acp`): its profile's ACP agent says what it answers and how it shapes a
    turn's messages."""

    backend: str = "gemini"
    withheld: list[str] = field(default_factory=list)  # capabilities its initialize leaves out

    def __post_init__(self) -> None:
        super().__post_init__()
        agent = self.profile.acp_agent
        if agent is None:
            raise SuiteError(f"error of the suite: {self.backend} runs as no ACP agent")
        self.acp: dict[str, Any] = agent.fake
        self.shapes = agent.shapes()
        self.command = agent.command
        if not self.read_stdin:
            raise SuiteError("error of the suite: an ACP agent's turn begins with its prompt: "
                             "its script reads stdin")

    def init(self, session_id: str | None = None) -> AcpScript:
        """Nothing: an ACP agent's session opens with its answer to `session/new`, before the
        turn, and the fake agent names it (`doubles.harness.acpagent.SESSIONS`)."""
        if session_id is not None:
            raise SuiteError(f"error of the suite: an ACP turn cannot name its session "
                             f"{session_id!r}: the agent's answer to session/new does")
        return self

    def withholds(self, *capabilities: str) -> AcpScript:
        """The agent's answer to `initialize` leaves `capabilities` (`loadSession`) out of its
        agentCapabilities: it does not offer them."""
        self.withheld += capabilities
        return self

    def updates(self, messages: list[Message]) -> AcpScript:
        for message in messages:
            self.line(message)
        return self

    def text(self, text: str) -> AcpScript:
        self.texts.append(text)
        return self.updates(self.shapes.message_chunk(text))

    def thought(self, text: str) -> AcpScript:
        return self.updates(self.shapes.thought_chunk(text))

    def tool(self, tool_id: str, *, result: bool, command: str = "ls") -> AcpScript:
        """A tool call that runs the shell command `command` reported begun or, with
        `result`, completed, in as many updates as the agent reports it in."""
        return self.updates(self.shapes.tool_call_done(tool_id, command) if result
                            else self.shapes.tool_call(tool_id, command))

    def plan(self, *steps: str) -> AcpScript:
        self.line(lines.plan(*steps))
        return self

    def permission(self, tool_id: str, command: str = "ls") -> AcpScript:
        """The agent asks leave to run the shell command `command` (the call `tool_id`) with
        its own options, and waits for the answer; an agent that reports a call before it
        asks (claude-agent-acp) first reports it begun."""
        if self.shapes.reports_before_asking:
            self.updates(self.shapes.tool_call(tool_id, command)[:1])
        return self.ask(self.shapes.permission_request(tool_id, self.acp["permission"], command))

    def done(self, text: str | None = None) -> AcpScript:
        """The turn ends well (`text`, when given, its last message chunk first)."""
        if text is not None:
            self.text(text)
        return self.stop("end_turn")

    def stop(self, reason: str) -> AcpScript:
        self.add("reply", {"result": {"stopReason": reason}})
        return self

    def error(self, code: int, message: str) -> AcpScript:
        """The prompt is answered with a JSON-RPC error instead of a stop reason."""
        self.add("reply", {"error": {"code": code, "message": message}})
        return self

    def ask(self, request: tuple[str, dict[str, Any]]) -> AcpScript:
        """A request of the agent's own (`lines.permission_request`, ...), answered before
        the turn goes on."""
        method, params = request
        self.add("ask", {"method": method, "params": params})
        return self

    def until_cancel(self, seconds: float) -> AcpScript:
        self.add("until_cancel", seconds)
        return self

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), **({"acp_withholds": self.withheld} if self.withheld else {})}

    def completes(self) -> bool:
        ended = {"result": {"stopReason": "end_turn"}} in (s.get("reply") for s in self.steps)
        failing = any(s.get("exit", 0) != 0 or "die" in s for s in self.steps)
        return ended and not failing

    def schema(self) -> str:
        return f"schemas/acp/{SCHEMA.name}"

    def off_schema(self) -> list[str]:
        """What in its messages breaks the protocol's schema: each line it prints as a
        message the agent sends, each request of its own, each reply as the answer to a
        prompt (its id aside: a wrong one is a fault a script may play)."""
        problems = []
        for step in self.steps:
            ((op, arg),) = step.items()
            conversation = Conversation()
            printed = {"line": [arg], "line_stdin": [arg],
                       "login_fails": arg["lines"] if op == "login_fails" else []}.get(op, [])
            for line in printed:
                problems += conversation.check(line, "agent")
            if op == "ask":
                problems += conversation.check({"jsonrpc": "2.0", "id": 0, **arg}, "agent")
            elif op == "reply":
                conversation.check(_PROMPT, "client")
                answer = {k: v for k, v in arg.items() if k != "id"}
                problems += conversation.check({"jsonrpc": "2.0", "id": "prompt", **answer},
                                               "agent")
        return problems

    def unfaithful(self) -> list[str]:
        """An order the agent never sends its messages in: a permission asked for a tool call
        it already reported, where it asks first (gemini), or for one it has not reported,
        where it reports first (claude-agent-acp)."""
        first = self.shapes.reports_before_asking
        reported: set[str] = set()
        wrong = []
        for step in self.steps:
            update = step.get("line", {}).get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "tool_call":
                reported.add(update.get("toolCallId"))
            asked = step.get("ask", {})
            call = asked.get("params", {}).get("toolCall", {}).get("toolCallId")
            if asked.get("method") == "session/request_permission" and (call in reported) != first:
                wrong.append(f"permission asked for {call} {'before' if first else 'after'} "
                             f"its tool_call: {self.command} "
                             f"{'reports the call first' if first else 'asks first'}")
        return wrong
