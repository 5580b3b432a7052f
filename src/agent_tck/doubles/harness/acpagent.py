"""The fake harness as an ACP agent: the Agent Client Protocol's side of `doubles.harness.fake`.

Started as an ACP agent (the `acp` of its start, from its profile's ACP agent: `gemini --acp`,
or `claude-agent-acp`, which is one without an option), the fake speaks JSON-RPC 2.0 on stdin
and stdout, one message a line, as the protocol's SDKs do, and answers what that agent answers
(`acp` carries it):
- `read_stdin` serves the client's requests (`initialize`, `authenticate`, `session/new`,
  `session/load`, `session/set_mode`, `session/set_model`) until a `session/prompt` to a
  session it opened or loaded comes, whose text blocks are the prompt (recorded as stdin,
  "via": "acp"). A prompt to another session, or a session id that is no string, gets
  -32602; a method it does not know, -32601 (never silence). The notifications it
  `announce`s come before its answer to session/new; each session it opens then gets the
  update that lists its `commands` (where the agent sends them then). stdin closed before a
  prompt ends the agent (exit 0, noted as {"what": "stdin_end"}), as the real agents end. The
  capabilities a script's `acp_withholds` names are left out of its answer to `initialize`
  (it answers session/load all the same: what a client asks of an agent that did not offer
  it is the client's fault).
- The script's `line`s are the turn's `session/update` notifications; "{session}" in their
  strings is the prompt's session id. The agent's `opening` updates come first.
- `reply` answers the prompt: {"result": {"stopReason": ...}} or {"error": {...}}, to the
  prompt's id unless the step names another (`id`: a reply that answers nothing). A stop
  reason comes after the agent's `closing` updates, with what it says beside one (`stopped`),
  but for `cancelled`, which comes bare, as gemini answers a cancel.
- `ask` sends a request of the agent's own ({"method", "params"}: a permission request, a file
  read) and waits for its answer, serving the client meanwhile.
- `until_cancel` waits up to its (scaled) seconds for the prompt's `session/cancel`; it
  returns at once for a cancel that came earlier in the turn.
- A second prompt while a turn runs cancels the first (answered `cancelled`, as gemini does)
  and the turn goes on as the second's; one that comes after the turn's reply is the next
  turn's.
- Its script played, the agent plays it again for the next prompt, and so on until stdin
  closes: it ends then (or by the script's `exit` or `die`).
Every message the client sends is noted as {"what": "acp_in", "message", "pid", "t"}; an answer
to the agent's own request as {"what": "acp_answer", "method", "answer", "pid", "t"}. A line
that is no JSON object, or longer than MAX_LINE, is noted as {"what": "stdin_junk"} and
skipped. Like the fake, this module imports the standard library only.
"""

from __future__ import annotations

import select
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    class Harness(Protocol):
        pid: int

        def write(self, data: bytes) -> None: ...
        def note(self, **entry: Any) -> None: ...

SESSIONS = "5e5510a0-0000-4000-8000-{:012d}"  # the ids of the sessions it opens: 0, 1, ...
EMPTY_ANSWERS = ("authenticate",)
SESSION_SETTINGS = ("session/set_mode", "session/set_model")  # answered {} for its sessions
NOT_FOUND, INVALID_PARAMS = -32601, -32602
# What a loaded session's replay says (before the answer to session/load): its earlier turn.
REPLAYED = (("user_message_chunk", "(the earlier prompt)"),
            ("agent_message_chunk", "(the earlier answer)"))
MAX_LINE = 8 << 20  # the longest line read whole; a longer one is skipped, as junk


def offering(acp: dict[str, Any], withheld: list[str]) -> dict[str, Any]:
    """What the agent answers (`acp`) with the capabilities `withheld` left out of its answer
    to `initialize` (a script's `acp_withholds`)."""
    if not withheld:
        return acp
    initialized = acp["initialize"]
    offered = {name: value for name, value in initialized.get("agentCapabilities", {}).items()
               if name not in withheld}
    return {**acp, "initialize": {**initialized, "agentCapabilities": offered}}


class Peer:
    """The agent's side of a JSON-RPC connection on the harness's stdin and stdout: `acp` is
    what its CLI answers (see `doubles.backends.gemini.acp`), JSON goes through the harness's
    own `dumps` and `loads`, and stdin is read by `read`."""

    def __init__(self, harness: Harness, acp: dict[str, Any], dumps: Callable[[Any], str],
                 loads: Callable[[bytes], Any], read: Callable[[int], bytes]) -> None:
        self.harness, self.acp = harness, acp
        self.dumps, self.loads, self.read = dumps, loads, read
        self.buffer = b""
        self.skipping = False  # in a line longer than MAX_LINE, until its end
        self.closed = False
        self.sessions: list[str] = []  # opened or loaded, in order
        self.session = ""  # the prompt's
        self.prompt_id: Any = None
        self.cancelled = False  # the prompt's session/cancel came
        self.early: dict[str, Any] | None = None  # a prompt that came after its turn's reply
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        self.harness.write((self.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())

    def receive(self, deadline: float | None) -> dict[str, Any] | None:
        """The client's next message, noted; None once stdin closed or `deadline` (monotonic)
        passed."""
        while True:
            while b"\n" not in self.buffer:
                if len(self.buffer) > MAX_LINE:
                    self.harness.note(what="stdin_junk", data=f"{len(self.buffer)} bytes and on")
                    self.buffer, self.skipping = b"", True
                wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                if self.closed or not select.select([0], [], [], wait)[0]:
                    return None
                chunk = self.read(0)
                self.closed = not chunk
                self.buffer += chunk or b"\n"
            raw, self.buffer = self.buffer.split(b"\n", 1)
            if self.skipping:
                self.skipping = False
                continue
            try:
                message = self.loads(raw) if raw.strip() else None
            except ValueError:
                message = None
            if isinstance(message, dict):
                self.harness.note(what="acp_in", message=message, pid=self.harness.pid,
                                  t=time.monotonic())
                return message
            if raw.strip():
                self.harness.note(what="stdin_junk", data=raw.decode("utf-8", "replace"))

    def serve(self, until: Callable[[dict[str, Any]], bool],
              deadline: float | None = None) -> dict[str, Any] | None:
        """Serve the client until a message `until` picks (returned unanswered); None once
        stdin closed or `deadline` passed."""
        while (message := self.receive(deadline)) is not None:
            if until(message):
                return message
            method, params = message.get("method"), message.get("params")
            params = params if isinstance(params, dict) else {}
            if method == "session/cancel" and params.get("sessionId") == self.session:
                self.cancelled = True
            elif (method == "session/prompt" and "id" in message
                  and params.get("sessionId") in self.sessions):
                if self.prompt_id is not None:  # the turn goes on as the new prompt's
                    self.send({"id": self.prompt_id, "result": {"stopReason": "cancelled"}})
                    self.take(message)
                else:  # the turn was answered: the next one is this prompt's
                    self.early = message
            elif isinstance(method, str) and "id" in message:
                self.answer(message["id"], method, params)
        return None

    def answer(self, rid: Any, method: str, params: dict[str, Any]) -> None:
        session = params.get("sessionId")
        if method == "initialize":
            self.send({"id": rid, "result": self.acp["initialize"]})
        elif method == "session/new":
            self.open(rid, SESSIONS.format(len(self.sessions)), True)
        elif method == "session/load" and isinstance(session, str):
            self.open(rid, session, False)
        elif method in EMPTY_ANSWERS or (method in SESSION_SETTINGS and session in self.sessions):
            self.send({"id": rid, "result": {}})
        elif method in ("session/load", "session/prompt", *SESSION_SETTINGS):
            self.send({"id": rid, "error": {"code": INVALID_PARAMS,
                                            "message": f"Session not found: {session}"}})
        else:
            self.send({"id": rid, "error": {"code": NOT_FOUND, "message": "Method not found",
                                            "data": {"method": method}}})

    def open(self, rid: Any, session: str, new: bool) -> None:
        """Answer session/new or session/load, then send its first update. A loaded session's
        conversation is replayed first, as the protocol asks of an agent that loads one."""
        self.sessions.append(session)
        opened = self.acp["opened"]
        for notification in self.acp.get("announce", []):
            self.send(notification)
        for kind, text in () if new else REPLAYED:
            self.send({"method": "session/update", "params": {"sessionId": session, "update": {
                "sessionUpdate": kind, "content": {"type": "text", "text": text}}}})
        self.send({"id": rid, "result": {"sessionId": session, **opened} if new else opened})
        if self.acp["commands"] is not None:
            self.send({"method": "session/update",
                       "params": {"sessionId": session, "update": self.acp["commands"]}})

    def prompt(self) -> str | None:
        """Serve the client until a prompt to one of its sessions comes: the prompt's text;
        None when stdin closed first."""
        message, self.early = self.early, None
        while message is not None or (message := self.serve(
                lambda m: m.get("method") == "session/prompt" and "id" in m)) is not None:
            params = message.get("params")
            session = params.get("sessionId") if isinstance(params, dict) else None
            if session in self.sessions:
                return self.take(message)
            self.answer(message["id"], "session/prompt", {"sessionId": session})
            message = None
        return None

    def take(self, message: dict[str, Any]) -> str:
        """Make `message` (a prompt) the pending one: its text."""
        params = message["params"]
        self.prompt_id, self.session, self.cancelled = message["id"], params["sessionId"], False
        blocks = params.get("prompt")
        text = "".join(b["text"] for b in blocks if isinstance(b, dict)
                       and b.get("type") == "text" and isinstance(b.get("text"), str)
                       ) if isinstance(blocks, list) else ""
        self.harness.note(what="stdin", data=text, via="acp", pid=self.harness.pid,
                          t=time.monotonic())
        self.updates("opening")
        return text

    def updates(self, which: str) -> None:
        """Send the agent's own updates `which` (`opening`, `closing`) for the prompt's
        session."""
        for message in self.acp.get(which, []):
            params = {**message["params"], "sessionId": self.session}
            self.send({**message, "params": params})

    def reply(self, arg: dict[str, Any]) -> None:
        answer: dict[str, Any] = {k: arg[k] for k in ("result", "error") if k in arg}
        if "result" in answer and answer["result"].get("stopReason") != "cancelled":
            self.updates("closing")
            answer["result"] = {**answer["result"], **self.acp.get("stopped", {})}
        self.send({"id": arg.get("id", self.prompt_id), **answer})
        if "id" not in arg:
            self.prompt_id = None

    def ask(self, arg: dict[str, Any]) -> None:
        rid, self.next_id = self.next_id, self.next_id + 1
        self.send({"id": rid, "method": arg["method"], "params": arg["params"]})
        answer = self.serve(lambda m: "method" not in m and m.get("id") == rid)
        self.harness.note(what="acp_answer", method=arg["method"], answer=answer,
                          pid=self.harness.pid, t=time.monotonic())

    def until_cancel(self, seconds: float) -> None:
        if not self.cancelled:
            self.serve(lambda m: m.get("method") == "session/cancel"
                       and isinstance(m.get("params"), dict)
                       and m["params"].get("sessionId") == self.session,
                       time.monotonic() + seconds)


__all__ = ["MAX_LINE", "REPLAYED", "SESSIONS", "Peer"]
