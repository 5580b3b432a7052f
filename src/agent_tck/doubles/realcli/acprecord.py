"""Recording the real ACP agents' conversations anew (fixtures/transcripts/acp/).

    python -m agent_tck.doubles.realcli.acprecord [NAME ...]

Each entry of `fixtures/transcripts/acp/index.yaml` is one conversation of a pinned agent of
the Agent Client Protocol (`gemini --acp`, `claude-agent-acp`, `codex-acp`) in the sandbox,
against a scripted model, with a client that says what the reference says: `initialize`,
`session/new`, the prompt (ids 0, 1 and 2), a permission request refused with its
`reject_once` option, any other request of the agent's answered "Method not found"; stdin is
closed once the prompt is answered. `<name>.jsonl` holds every message in the order it was
sent, one a line: `{"from": "client" | "agent", "message": ...}`, the agent's as it printed
them (and what it printed after its answer, until it ended). tests/test_acp_transcripts.py
checks each against the protocol's schema and replays the agent's side to the reference.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.backends.transcripts import TRANSCRIPTS, chosen
from agent_tck.doubles.realcli import clis
from agent_tck.doubles.realcli.sandbox import Sandbox, unavailable
from agent_tck.kit import plainyaml
from agent_tck.kit.files import write_atomically

ACP_TRANSCRIPTS = TRANSCRIPTS / "acp"
TURN_TIMEOUT = 120.0  # seconds a real turn may take before the recording is given up
EXIT_TIMEOUT = 30.0  # seconds the agent may take to end once its stdin is closed
CLIENT = {"protocolVersion": 1,
          "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                 "terminal": False},
          "clientInfo": {"name": "agent-tck-recorder", "version": "1"}}
Said = dict[str, Any]  # {"from": side, "message": message}


@dataclass(frozen=True)
class AcpTranscript:
    name: str
    backend: str  # gemini-acp, claude-acp, codex-acp
    prompt: str
    turns: list[dict[str, Any]]
    expect: dict[str, Any]  # what the reference answers from the agent's side of it

    @property
    def path(self) -> Path:
        return ACP_TRANSCRIPTS / f"{self.name}.jsonl"

    def said(self) -> list[Said]:
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


def index(where: Path = ACP_TRANSCRIPTS) -> list[AcpTranscript]:
    entries = plainyaml.load(where / "index.yaml", "ACP transcript index")
    return [AcpTranscript(**entry) for entry in entries]


class RecordingError(Exception):
    """The conversation could not be recorded; the message says where it stopped."""


class _Talk:
    """The client's side of one conversation with the agent process `proc`: every message
    either side sends, in order."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc, self.buffer = proc, b""
        self.said: list[Said] = []

    def send(self, message: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", **message}
        self.said.append({"from": "client", "message": message})
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and serve the agent until its answer comes; that answer."""
        self.send({"id": rid, "method": method, "params": params})
        end = time.monotonic() + TURN_TIMEOUT
        while (message := self.receive(end)) is not None:
            if "method" in message and "id" in message:
                self.serve(message)
            elif "method" not in message and message.get("id") == rid:
                return message
        raise RecordingError(f"no answer to {method} within {TURN_TIMEOUT:g} s "
                             f"(exit code {self.proc.poll()})")

    def serve(self, request: dict[str, Any]) -> None:
        """Answer the agent's request as the reference does."""
        params = request.get("params") or {}
        if request["method"] == "session/request_permission":
            reject = next((o["optionId"] for o in params.get("options", [])
                           if o.get("kind") == "reject_once"), None)
            outcome = {"outcome": "selected", "optionId": reject} if reject \
                else {"outcome": "cancelled"}
            self.send({"id": request["id"], "result": {"outcome": outcome}})
        else:
            self.send({"id": request["id"], "error": {
                "code": -32601, "message": "Method not found",
                "data": {"method": request["method"]}}})

    def receive(self, end: float) -> dict[str, Any] | None:
        """The agent's next message, noted; None at its stdout's end or at `end`."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        self.said.append({"from": "agent", "message": message})
        return message


def record(entry: AcpTranscript) -> list[Said]:
    """One real conversation of `entry`'s agent; raises RecordingError where it cannot run or
    does not answer."""
    reason = unavailable(entry.backend)
    cli = clis.binary(entry.backend)
    if reason or cli is None:
        raise RecordingError(f"cannot record {entry.name}: {reason}")
    agent = PROFILES[entry.backend.removesuffix("-acp")].acp_agent
    assert agent is not None
    with (tempfile.TemporaryDirectory(prefix=f"agent-tck-record-{entry.backend}-") as root,
          Sandbox(Path(root), entry.backend, {"turns": entry.turns}, cli) as box):
        proc = subprocess.Popen([str(box.bin / agent.command), *agent.options], cwd=box.work,
                                env={**os.environ, "PATH": box.path()}, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        talk = _Talk(proc)
        try:
            talk.ask(0, "initialize", CLIENT)
            opened = talk.ask(1, "session/new", {"cwd": str(box.work), "mcpServers": []})
            session = opened.get("result", {}).get("sessionId")
            if session is not None:
                talk.ask(2, "session/prompt", {"sessionId": session,
                                               "prompt": [{"type": "text", "text": entry.prompt}]})
            assert proc.stdin is not None
            proc.stdin.close()
            end = time.monotonic() + EXIT_TIMEOUT
            while talk.receive(end) is not None:  # what it says after its answer, until it ends
                pass
        finally:
            proc.kill()
            proc.wait()
    return talk.said


def main(argv: list[str]) -> int:
    wanted = chosen(index(), argv, "ACP transcripts")
    if wanted is None:
        return 2
    for entry in wanted:
        try:
            said = record(entry)
        except RecordingError as exc:
            print(f"{entry.name}: {exc}", file=sys.stderr)
            return 1
        write_atomically(entry.path, "".join(json.dumps(s) + "\n" for s in said).encode())
        print(f"{entry.name}: {len(said)} messages")
    print("now: pytest tests/test_acp_transcripts.py")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
