"""A scripted model server on 127.0.0.1: the Anthropic Messages API, the OpenAI Responses API
or the Gemini API.

Each API request plays the script's next turn (doubles/models/script.py) and is recorded, one
JSON line per request, in the record file: its path, its body, which turn answered and any
problem (a tool the request did not offer, a script exhausted, an unknown path).

    python -m agent_tck.doubles.models.server --api anthropic|openai --script FILE --record FILE

prints the port it listens on, on a line of its own, then serves until SIGTERM or SIGINT.
The real CLIs reach it only from inside a network namespace (doubles/realcli/sandbox.py).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_tck.doubles.models import anthropic, gemini, openai
from agent_tck.doubles.models.script import Turn, load, offered_tools

APIS: dict[str, ModuleType] = {"anthropic": anthropic, "openai": openai, "gemini": gemini}


class Model:
    """The script's state: which turn answers next; every request is recorded."""

    def __init__(self, api: str, turns: list[Turn], record: Path) -> None:
        self.module = APIS[api]
        self.path = self.module.REQUEST_PATH  # a path it answers (tests, docs)
        self.turns = turns
        self.record_path = record
        self.next = 0
        self.count = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def take(self) -> tuple[int, int | None]:
        """The request's number and the index of the turn that answers it."""
        with self.lock:
            self.count += 1
            if self.next >= len(self.turns):
                return self.count, None
            index = self.next
            if not self.turns[index].repeat:
                self.next += 1
            return self.count, index

    def record(self, entry: dict[str, Any]) -> None:
        with self.lock, self.record_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def _in_script(body: dict[str, Any]) -> None:
    """An API whose every request plays a turn of the script."""
    return None


def make_handler(model: Model) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # a streamed body ends when the connection closes

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            model.record({"method": "GET", "path": self.path, "problem": "unknown path"})
            self._send_json(404, model.module.error_body(404, f"no GET {self.path} here"))

        def do_POST(self) -> None:
            """Record the request and how it will be answered, then answer it (so a stalled
            answer is on record while it stalls)."""
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"undecodable": raw.decode("utf-8", "replace")}
            path = self.path.split("?", 1)[0]
            entry: dict[str, Any] = {"method": "POST", "path": path, "body": body}
            if not isinstance(body, dict):
                entry["problem"] = "the request body is not a JSON object"
                model.record(entry)
                self._send_json(400, model.module.error_body(400, entry["problem"]))
            elif model.module is anthropic and path == "/v1/messages/count_tokens":
                model.record(entry)
                self._send_json(200, {"input_tokens": 12})
            elif not model.module.serves(path):
                entry["problem"] = "unknown path"
                model.record(entry)
                self._send_json(404, model.module.error_body(404, f"no POST {path} here"))
            elif (side := getattr(model.module, "aside", _in_script)(body)) is not None:
                entry["aside"] = True  # answered beside the script: no turn is played
                model.record(entry)
                self._play(side, body, None, 0)
            else:
                self._answer(body, entry)

        def _answer(self, body: dict[str, Any], entry: dict[str, Any]) -> None:
            n, index = model.take()
            entry.update(n=n, turn=None if index is None else index + 1)
            turn = None if index is None else model.turns[index]
            tool = None
            if turn is None:
                entry["problem"] = "script exhausted"
            elif turn.kind == "tool":
                offered = getattr(model.module, "offered_tools", offered_tools)(body)
                tool = next((t for t in turn.tool_names() if t in offered), None)
                if tool is None:
                    entry["problem"] = f"none of {turn.tool_names()} offered; offered: {offered}"
            if turn is not None:
                entry.update(answer=turn.kind, tool=tool)
            model.record(entry)
            if "problem" in entry or turn is None:
                status = 500 if turn is None else 400
                self._send_json(status, model.module.error_body(status, entry["problem"]))
            elif turn.kind == "fail":
                self._send_json(turn.value, model.module.error_body(turn.value, turn.message))
            elif turn.kind == "stall":
                self._start_stream()
                self._wait(float(turn.value))
            else:
                self._play(turn, body, tool, n)

        def _play(self, turn: Turn, body: dict[str, Any], tool: str | None, n: int) -> None:
            """A `say` or `tool` turn, streamed or whole as the request asks."""
            if model.module is anthropic and not body.get("stream"):
                self._send_json(200, anthropic.message(turn, body, tool, n))
            elif model.module is gemini and ":generateContent" in self.path:
                self._send_json(200, gemini.whole(turn, body, tool, n))
            else:
                self._start_stream()
                for name, data in model.module.events(turn, body, tool, n):
                    self._wait(turn.delay)
                    event = f"event: {name}\n" if name else ""
                    self.wfile.write(f"{event}data: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.flush()

        def _wait(self, seconds: float) -> None:
            model.stopping.wait(seconds)

        def _send_json(self, status: int, value: dict[str, Any]) -> None:
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def serve(model: Model, ready: Callable[[int], None]) -> None:
    """Serve on 127.0.0.1 (any free port, told to `ready`) until model.stopping is set."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(model))
    server.daemon_threads = True
    ready(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        model.stopping.wait()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_tck.doubles.models.server",
                                     description=__doc__)
    parser.add_argument("--api", choices=sorted(APIS), required=True)
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--record", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        turns = load(args.script)
    except ValueError as exc:
        print(f"model server: {exc}", file=sys.stderr)
        return 2
    model = Model(args.api, turns, args.record)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: model.stopping.set())

    def ready(port: int) -> None:
        print(port, flush=True)

    serve(model, ready)
    return 0


if __name__ == "__main__":
    sys.exit(main())
