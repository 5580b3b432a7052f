"""Unit tests of the scripted model servers in doubles/models/ (script, anthropic, openai, server).

Each server runs in-process on 127.0.0.1 in a thread; the client is the standard library's
http.client and the SSE streams are parsed here.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tck.doubles.models.script import ScriptError, Turn, load, parse
from agent_tck.doubles.models.server import Model, serve
from agent_tck.kit.paths import ROOT

Json = dict[str, Any]
Event = tuple[str, Json]

PATHS = {"anthropic": "/v1/messages", "openai": "/v1/responses"}
ANTHROPIC_SAY_EVENTS = [
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop",
]
OPENAI_SAY_EVENTS = [
    "response.created", "response.output_item.added", "response.output_text.delta",
    "response.output_item.done", "response.completed",
]
TEXT = 'Hello,\nworld: "quoted" \u00fcnic\u00f8de \u2713'
INPUT: Json = {"command": "echo hi > a.txt", "nested": {"list": [1, 2.5, None, True]}}


# --- the client side ---------------------------------------------------------------------


def parse_sse(text: str) -> list[Event]:
    """The (event, decoded data) pairs of an SSE stream: blocks separated by blank lines."""
    assert text.endswith("\n\n"), f"the stream does not end with a blank line: {text!r}"
    events: list[Event] = []
    for block in text.split("\n\n"):
        if not block:
            continue
        name, data = "", []
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        events.append((name, json.loads("\n".join(data))))
    return events


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    body: bytes
    seconds: float

    def json(self) -> Any:
        assert self.content_type == "application/json", self.content_type
        return json.loads(self.body)

    def events(self) -> list[Event]:
        assert self.status == 200, self.body
        assert self.content_type == "text/event-stream", self.content_type
        events = parse_sse(self.body.decode("utf-8"))
        assert all(data["type"] == name for name, data in events if name), events
        return events


@dataclass(frozen=True)
class Server:
    model: Model
    port: int

    def connect(self, timeout: float = 10.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def send(self, conn: http.client.HTTPConnection, path: str, body: Any) -> None:
        data = json.dumps(body).encode()
        conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})

    def request(self, method: str, path: str, body: Any = None) -> Reply:
        start = time.monotonic()
        with closing(self.connect()) as conn:
            if method == "POST":
                self.send(conn, path, body)
            else:
                conn.request(method, path)
            response = conn.getresponse()
            data = response.read()
            content_type = response.getheader("Content-Type", "")
        return Reply(response.status, content_type, data, time.monotonic() - start)

    def post(self, path: str, body: Any) -> Reply:
        return self.request("POST", path, body)

    def ask(self, body: Json) -> Reply:
        """A request to the API's own path."""
        return self.post(self.model.path, body)

    def records(self) -> list[Json]:
        if not self.model.record_path.exists():
            return []
        lines = self.model.record_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


Start = Callable[[str, list[Json]], Server]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """Starts scripted model servers in threads; all are stopped and joined at teardown."""
    running: list[tuple[Model, threading.Thread]] = []

    def start_server(api: str, turns: list[Json]) -> Server:
        model = Model(api, parse({"turns": turns}), tmp_path / f"record-{len(running)}.jsonl")
        ports: queue.Queue[int] = queue.Queue()
        thread = threading.Thread(target=serve, args=(model, ports.put), daemon=True)
        running.append((model, thread))
        thread.start()
        return Server(model, ports.get(timeout=10))

    try:
        yield start_server
    finally:
        for model, _ in running:
            model.stopping.set()
        for _, thread in running:
            thread.join(timeout=10)
        assert not any(thread.is_alive() for _, thread in running), "a server did not stop"


def tools(api: str, *names: str) -> list[Json]:
    """A request's `tools` offering `names`, in the API's own shape."""
    if api == "anthropic":
        return [{"name": n, "description": n, "input_schema": {"type": "object"}} for n in names]
    return [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in names]


def request(api: str, *offered: str, stream: bool = True) -> Json:
    """A minimal request body for `api` offering the tools `offered`."""
    if api == "anthropic":
        body: Json = {"model": "claude-test", "max_tokens": 100,
                      "messages": [{"role": "user", "content": "hi"}]}
        if stream:
            body["stream"] = True
    else:
        body = {"model": "gpt-test", "input": [{"role": "user", "content": "hi"}],
                "stream": True}
    if offered:
        body["tools"] = tools(api, *offered)
    return body


def error_message(api: str, reply: Reply, status: int) -> str:
    """The message of an error reply, after checking its status and the API's error shape."""
    assert reply.status == status, (reply.status, reply.body)
    body = reply.json()
    if api == "anthropic":
        assert body["type"] == "error", body
        assert isinstance(body["error"]["type"], str), body
    assert isinstance(body.get("error"), dict), body
    assert isinstance(body["error"]["message"], str), body
    message: str = body["error"]["message"]
    return message


def named(events: list[Event], name: str) -> list[Json]:
    return [data for event, data in events if event == name]


def streamed_text(api: str, events: list[Event]) -> str:
    """The text reassembled from a stream's text deltas."""
    if api == "anthropic":
        return "".join(data["delta"]["text"] for data in named(events, "content_block_delta"))
    return "".join(data["delta"] for data in named(events, "response.output_text.delta"))


# --- say ---------------------------------------------------------------------------------


def test_anthropic_say_streams_the_text_in_message_events(start: Start) -> None:
    server = start("anthropic", [{"say": TEXT}])
    events = server.ask(request("anthropic")).events()
    assert [name for name, _ in events] == ANTHROPIC_SAY_EVENTS
    message = events[0][1]["message"]
    assert (message["role"], message["content"], message["model"]) == (
        "assistant", [], "claude-test")
    assert events[1][1]["content_block"]["type"] == "text"
    deltas = [data["delta"] for data in named(events, "content_block_delta")]
    assert {delta["type"] for delta in deltas} == {"text_delta"}
    assert streamed_text("anthropic", events) == TEXT
    assert named(events, "message_delta")[0]["delta"]["stop_reason"] == "end_turn"


def test_openai_say_streams_the_text_and_a_completed_response(start: Start) -> None:
    server = start("openai", [{"say": TEXT}])
    events = server.ask(request("openai")).events()
    assert [name for name, _ in events] == OPENAI_SAY_EVENTS
    assert streamed_text("openai", events) == TEXT
    created = named(events, "response.created")[0]["response"]
    completed = named(events, "response.completed")[0]["response"]
    assert (completed["id"], completed["status"]) == (created["id"], "completed")
    [item] = completed["output"]
    assert (item["type"], item["role"]) == ("message", "assistant")
    assert [(c["type"], c["text"]) for c in item["content"]] == [("output_text", TEXT)]
    assert named(events, "response.output_item.done")[0]["item"] == item
    usage = completed["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0


def test_anthropic_without_stream_answers_one_message_object(start: Start) -> None:
    server = start("anthropic", [{"say": TEXT}, {"tool": "Bash", "input": INPUT}])
    said = server.ask(request("anthropic", stream=False))
    assert said.status == 200
    message = said.json()
    assert (message["type"], message["role"], message["stop_reason"]) == (
        "message", "assistant", "end_turn")
    assert message["content"] == [{"type": "text", "text": TEXT}]
    called = server.ask(request("anthropic", "Bash", stream=False)).json()
    assert called["stop_reason"] == "tool_use"
    [block] = called["content"]
    assert (block["type"], block["name"], block["input"]) == ("tool_use", "Bash", INPUT)


# --- tool --------------------------------------------------------------------------------


def test_anthropic_tool_calls_the_first_scripted_name_the_request_offers(start: Start) -> None:
    server = start("anthropic", [{"tool": ["Edit", "Write", "Bash"], "input": INPUT}])
    events = server.ask(request("anthropic", "Bash", "Write")).events()
    assert [name for name, _ in events] == ANTHROPIC_SAY_EVENTS
    block = events[1][1]["content_block"]
    assert (block["type"], block["name"]) == ("tool_use", "Write")
    assert block["id"]
    deltas = [data["delta"] for data in named(events, "content_block_delta")]
    assert {delta["type"] for delta in deltas} == {"input_json_delta"}
    assert json.loads("".join(delta["partial_json"] for delta in deltas)) == INPUT
    assert named(events, "message_delta")[0]["delta"]["stop_reason"] == "tool_use"
    [record] = server.records()
    assert (record["answer"], record["tool"]) == ("tool", "Write")
    assert "problem" not in record


def test_openai_tool_calls_a_function_with_json_arguments(start: Start) -> None:
    server = start("openai", [{"tool": ["apply_patch", "shell"], "input": INPUT}])
    events = server.ask(request("openai", "shell")).events()
    assert [name for name, _ in events] == [
        "response.created", "response.output_item.added", "response.output_item.done",
        "response.completed",
    ]
    [item] = named(events, "response.completed")[0]["response"]["output"]
    assert (item["type"], item["name"]) == ("function_call", "shell")
    assert isinstance(item["call_id"], str) and item["call_id"]
    assert isinstance(item["arguments"], str)
    assert json.loads(item["arguments"]) == INPUT
    assert named(events, "response.output_item.done")[0]["item"] == item
    assert server.records()[0]["tool"] == "shell"


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_tool_not_offered_is_a_400_naming_the_offered_tools(start: Start, api: str) -> None:
    server = start(api, [{"tool": ["Bash", "shell"], "input": INPUT}])
    message = error_message(api, server.ask(request(api, "Read", "Glob")), 400)
    assert "Read" in message and "Glob" in message
    [record] = server.records()
    assert (record["answer"], record["tool"], record["turn"]) == ("tool", None, 1)
    assert "Read" in record["problem"] and "Bash" in record["problem"]


# --- fail, exhausted ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind"), [(401, "authentication_error"), (529, "overloaded_error")]
)
def test_anthropic_fail_answers_the_status_with_an_error_type(
    start: Start, status: int, kind: str
) -> None:
    server = start("anthropic", [{"fail": status, "message": "nope"}])
    reply = server.ask(request("anthropic"))
    assert error_message("anthropic", reply, status) == "nope"
    assert reply.json()["error"]["type"] == kind


@pytest.mark.parametrize("status", [401, 429, 529])
def test_openai_fail_answers_the_status_with_an_error_object(start: Start, status: int) -> None:
    server = start("openai", [{"fail": status, "message": "nope"}])
    assert error_message("openai", server.ask(request("openai")), status) == "nope"


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_fail_without_repeat_answers_once(start: Start, api: str) -> None:
    server = start(api, [{"fail": 401}, {"say": "back"}])
    assert error_message(api, server.ask(request(api)), 401)
    assert server.ask(request(api)).events()
    assert [(r["turn"], r["answer"]) for r in server.records()] == [(1, "fail"), (2, "say")]


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_fail_with_repeat_answers_every_later_request(start: Start, api: str) -> None:
    server = start(api, [{"fail": 529, "message": "down", "repeat": True}, {"say": "never"}])
    for _ in range(3):
        assert error_message(api, server.ask(request(api)), 529) == "down"
    assert [(r["n"], r["turn"], r["answer"]) for r in server.records()] == [
        (1, 1, "fail"), (2, 1, "fail"), (3, 1, "fail"),
    ]


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_request_after_the_last_turn_is_a_500_script_exhausted(start: Start, api: str) -> None:
    server = start(api, [{"say": "only"}])
    server.ask(request(api)).events()
    assert "script exhausted" in error_message(api, server.ask(request(api)), 500)
    last = server.records()[-1]
    assert (last["n"], last["turn"], last["problem"]) == (2, None, "script exhausted")


# --- stall, delay ------------------------------------------------------------------------


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_stall_sends_headers_then_nothing_and_is_recorded_meanwhile(
    start: Start, api: str
) -> None:
    server = start(api, [{"stall": 30}])  # ended early by the fixture's teardown
    with closing(server.connect(timeout=0.5)) as conn:
        server.send(conn, server.model.path, request(api))
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/event-stream"
        [record] = server.records()
        assert (record["turn"], record["answer"]) == (1, "stall")
        with pytest.raises(TimeoutError):
            response.read(1)


def test_stall_ends_the_response_empty_after_the_stall(start: Start) -> None:
    server = start("anthropic", [{"stall": 0.5}, {"say": "after"}])
    reply = server.ask(request("anthropic"))
    assert (reply.status, reply.body) == (200, b"")
    assert reply.seconds >= 0.4
    assert server.ask(request("anthropic")).events()


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_delay_spaces_the_streamed_events(start: Start, api: str) -> None:
    delay = 0.1
    server = start(api, [{"say": TEXT, "delay": delay}])
    reply = server.ask(request(api))
    events = reply.events()
    assert streamed_text(api, events) == TEXT
    assert reply.seconds >= 0.7 * len(events) * delay


# --- other paths, the record -------------------------------------------------------------


def test_count_tokens_answers_input_tokens_without_playing_a_turn(start: Start) -> None:
    server = start("anthropic", [{"say": "first"}])
    reply = server.post("/v1/messages/count_tokens", request("anthropic"))
    assert reply.status == 200
    counted = reply.json()
    assert set(counted) == {"input_tokens"} and isinstance(counted["input_tokens"], int)
    assert server.ask(request("anthropic")).events()
    assert [(r["path"], r.get("turn")) for r in server.records()] == [
        ("/v1/messages/count_tokens", None), ("/v1/messages", 1),
    ]


def test_a_request_for_json_by_a_schema_without_tools_is_answered_beside_the_script(
        start: Start) -> None:
    """Claude Code run through its SDK asks its model for the session's title, at a moment of
    its own: answered with the schema's required fields, no turn played, on record as an
    aside; a request offering a tool, or asking no schema, plays the script."""
    server = start("anthropic", [{"say": "first"}])
    titled = {**request("anthropic"), "output_config": {"format": {
        "type": "json_schema", "schema": {"type": "object", "required": ["title"],
                                          "properties": {"title": {"type": "string"}}}}}}
    reply = server.ask(titled)
    assert json.loads(streamed_text("anthropic", reply.events())) == {
        "title": "Scripted session"}
    assert streamed_text("anthropic", server.ask(
        {**titled, "tools": tools("anthropic", "Bash")}).events()) == "first"
    assert server.ask(request("anthropic")).status == 500  # the script's one turn is gone
    assert [(r.get("aside"), r.get("turn")) for r in server.records()] == [
        (True, None), (None, 1), (None, None)]


def test_codex_acps_request_for_a_title_is_answered_beside_the_script(start: Start) -> None:
    """After a new session's first turn codex-acp asks its model for the session's title, with
    no tool and JSON by a schema (`text.format`): answered with the schema's required fields,
    no turn played, on record as an aside; one offering a tool, or asking no schema, plays
    the script."""
    server = start("openai", [{"say": "first"}])
    titled = {**request("openai"), "text": {"verbosity": "low", "format": {
        "type": "json_schema", "name": "codex_output_schema", "strict": True,
        "schema": {"type": "object", "required": ["title"],
                   "properties": {"title": {"type": "string"}}}}}}
    assert json.loads(streamed_text("openai", server.ask(titled).events())) == {
        "title": "Scripted session"}
    assert streamed_text("openai", server.ask(
        {**titled, "tools": tools("openai", "exec_command")}).events()) == "first"
    assert server.ask({**request("openai"), "text": {"verbosity": "low"}}).status == 500
    assert [(r.get("aside"), r.get("turn")) for r in server.records()] == [
        (True, None), (None, 1), (None, None)]


def test_claude_codes_request_for_a_suggestion_is_answered_beside_the_script(
        start: Start) -> None:
    """Through its SDK, Claude Code asks its model after a turn what the user will type next,
    with the conversation and its tools: answered with no suggestion, no turn played, whenever
    it comes; the marker anywhere but at the start of the user's last message is a turn."""
    server = start("anthropic", [{"say": "first"}, {"say": "second"}])
    conversation = {**request("anthropic"), "tools": tools("anthropic", "Bash")}
    marker = "[SUGGESTION MODE: Suggest what the user might naturally type next.]"
    for content in (marker + "\n\nReply with ONLY the suggestion.",
                    [{"type": "text", "text": marker}]):
        asked = {**conversation, "messages": [
            {"role": "user", "content": "Remember 7."},
            {"role": "assistant", "content": "first"}, {"role": "user", "content": content}]}
        assert streamed_text("anthropic", server.ask(asked).events()) == ""
    quoted = {**conversation, "messages": [{"role": "user", "content": "Say " + marker}]}
    assert streamed_text("anthropic", server.ask(quoted).events()) == "first"
    assert streamed_text("anthropic", server.ask(conversation).events()) == "second"
    assert [(r.get("aside"), r.get("turn")) for r in server.records()] == [
        (True, None), (True, None), (None, 1), (None, 2)]


@pytest.mark.parametrize(
    ("api", "method", "path"),
    [
        ("anthropic", "GET", "/v1/models"),
        ("anthropic", "POST", "/v1/responses"),
        ("openai", "POST", "/v1/messages"),
        ("openai", "POST", "/v1/chat/completions"),
    ],
)
def test_unknown_path_is_a_404_recorded_as_a_problem(
    start: Start, api: str, method: str, path: str
) -> None:
    server = start(api, [{"say": "unplayed"}])
    message = error_message(api, server.request(method, path, request(api)), 404)
    assert path in message
    [record] = server.records()
    assert (record["method"], record["path"], record["problem"]) == (method, path, "unknown path")
    assert "turn" not in record
    assert server.ask(request(api)).events()  # the turn is still there to play


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_every_request_is_recorded_as_one_json_line(start: Start, api: str) -> None:
    server = start(api, [{"say": "one"}, {"tool": "Bash", "input": INPUT}, {"fail": 401}])
    bodies = [request(api), request(api, "Bash"), request(api, "Read")]
    for body in bodies:
        server.ask(body)
    records = server.records()
    assert [r["body"] for r in records] == bodies
    assert [(r["method"], r["path"]) for r in records] == [("POST", PATHS[api])] * 3
    assert [(r["n"], r["turn"], r["answer"]) for r in records] == [
        (1, 1, "say"), (2, 2, "tool"), (3, 3, "fail"),
    ]
    assert not any("problem" in r for r in records)


def test_undecodable_body_is_recorded_and_answered(start: Start) -> None:
    server = start("openai", [{"say": "still"}])
    with closing(server.connect()) as conn:
        conn.request("POST", "/v1/responses", body=b"{not json")
        response = conn.getresponse()
        assert response.status == 200
        assert response.read().endswith(b"\n\n")
    [record] = server.records()
    assert record["body"] == {"undecodable": "{not json"}


@pytest.mark.parametrize(("api", "path"), [("anthropic", "/v1/messages"),
                                         ("openai", "/v1/responses")])
def test_a_json_body_that_is_not_an_object_gets_a_400_and_keeps_the_turn(
    start: Start, api: str, path: str
) -> None:
    server = start(api, [{"say": "hi"}])
    assert server.post(path, [1, 2]).status == 400
    [record] = server.records()
    assert record["problem"] == "the request body is not a JSON object"
    assert server.post(path, request(api)).status == 200
    assert server.records()[-1]["turn"] == 1


# --- the script --------------------------------------------------------------------------


def test_parse_reads_turns_with_their_options() -> None:
    turns = parse({"turns": [
        {"say": "hi"},
        {"tool": "Bash", "input": {"a": 1}, "delay": 1},
        {"fail": 529, "message": "busy", "repeat": True},
        {"stall": 0.5},
    ]})
    assert turns == [
        Turn("say", "hi"),
        Turn("tool", "Bash", input={"a": 1}, delay=1.0),
        Turn("fail", 529, message="busy", repeat=True),
        Turn("stall", 0.5),
    ]
    assert turns[1].tool_names() == ["Bash"]
    assert Turn("tool", ["Edit", "Write"]).tool_names() == ["Edit", "Write"]


@pytest.mark.parametrize("data", [[], "turns", None, {}, {"turns": {}}, {"turns": "say"}])
def test_parse_rejects_a_script_without_a_turns_list(data: Any) -> None:
    with pytest.raises(ScriptError, match=r'^script: expected an object with a list "turns"'):
        parse(data)


BAD_TURNS: dict[str, Any] = {
    "not an object": ["say hi"],
    "two kinds": {"say": "hi", "tool": "Bash"},
    "no kind": {"delay": 1},
    "unknown key": {"say": "hi", "colour": "red"},
    "fail below 400": {"fail": 399},
    "fail above 599": {"fail": 600},
    "fail a bool": {"fail": True},
    "fail a string": {"fail": "500"},
    "stall negative": {"stall": -1},
    "stall a bool": {"stall": True},
    "say not a string": {"say": 5},
    "tool an empty list": {"tool": []},
    "tool a list with a number": {"tool": ["Bash", 1]},
    "tool input not an object": {"tool": "Bash", "input": "ls"},
    "negative delay": {"say": "hi", "delay": -0.1},
    "delay a bool": {"say": "hi", "delay": True},
}


@pytest.mark.parametrize("bad", BAD_TURNS.values(), ids=BAD_TURNS.keys())
def test_parse_names_the_script_and_the_bad_turn(bad: Any) -> None:
    with pytest.raises(ScriptError, match=r"^script: turn 2: "):
        parse({"turns": [{"say": "fine"}, bad, {"say": "fine"}]})


def test_parse_error_names_the_unknown_key() -> None:
    with pytest.raises(ScriptError, match="colour"):
        parse({"turns": [{"say": "hi", "colour": "red"}]})


@pytest.mark.parametrize("options", [{"repeat": "false"}, {"message": 5},
                                     {"delay": float("nan")}])
def test_parse_rejects_options_of_the_wrong_type(options: dict[str, object]) -> None:
    with pytest.raises(ScriptError, match="turn 1"):
        parse({"turns": [{"fail": 529, **options}]})


def test_parse_rejects_a_stall_that_is_not_a_finite_number() -> None:
    with pytest.raises(ScriptError, match="turn 1"):
        parse({"turns": [{"stall": float("nan")}]})


def test_load_names_the_file_and_the_bad_turn(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"turns": [{"say": "ok"}, {"stall": -2}]}), encoding="utf-8")
    with pytest.raises(ScriptError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: turn 2: ")


def test_load_reads_a_good_file(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"turns": [{"say": "ok"}]}), encoding="utf-8")
    assert load(path) == [Turn("say", "ok")]


@pytest.mark.parametrize("content", [b"{not json", b'{"turns": [}', b"\xff\xfe\x00", None])
def test_load_names_the_path_of_an_unreadable_file(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "model.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ScriptError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: cannot read the model script")


# --- python -m agent_tck.doubles.models.server --------------------------------------------


def run_server(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tck.doubles.models.server", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.parametrize(
    "content", ['{"turns": [{"say": "ok"}, {"fail": 200}]}', "{not json", None]
)
def test_server_with_a_bad_script_exits_2_naming_the_file(
    tmp_path: Path, content: str | None
) -> None:
    script, record = tmp_path / "bad.json", tmp_path / "record.jsonl"
    if content is not None:
        script.write_text(content, encoding="utf-8")
    with run_server("--api", "anthropic", "--script", str(script), "--record", str(record)) as p:
        out, err = p.communicate(timeout=60)
    assert p.returncode == 2, (out, err)
    assert str(script) in err
    assert out == ""
    assert not record.exists()


def test_server_prints_its_port_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    script, record = tmp_path / "model.json", tmp_path / "record.jsonl"
    script.write_text(json.dumps({"turns": [{"fail": 529, "message": "busy"}]}), "utf-8")
    with run_server("--api", "openai", "--script", str(script), "--record", str(record)) as p:
        try:
            assert p.stdout is not None
            port = int(p.stdout.readline())
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            with closing(conn):
                conn.request("POST", "/v1/responses", body=b"{}")
                response = conn.getresponse()
                assert (response.status, json.loads(response.read())["error"]["message"]) == (
                    529, "busy")
            os.kill(p.pid, signal.SIGTERM)
            assert p.wait(timeout=30) == 0
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [json.loads(line)["answer"] for line in record.read_text().splitlines()] == ["fail"]


# --- gemini ------------------------------------------------------------------------------


def gemini_request(*offered: str) -> Json:
    body: Json = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    if offered:
        body["tools"] = [{"functionDeclarations": [{"name": n} for n in offered]}]
    return body


def gemini_parts(events: list[Event]) -> list[Json]:
    return [part for _, data in events for part in data["candidates"][0]["content"]["parts"]]


def test_gemini_say_streams_data_chunks_the_last_one_finishing(start: Start) -> None:
    server = start("gemini", [{"say": TEXT, "think": "hmm"}])
    reply = server.post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                        gemini_request())
    events = reply.events()
    assert [name for name, _ in events] == ["", ""]  # data lines only, no event names
    assert gemini_parts(events) == [{"text": "hmm", "thought": True}, {"text": TEXT}]
    assert events[-1][1]["candidates"][0]["finishReason"] == "STOP"
    assert "finishReason" not in events[0][1]["candidates"][0]
    assert events[-1][1]["usageMetadata"]["totalTokenCount"] == 20


def test_gemini_tool_calls_a_declared_function_or_names_what_was_offered(start: Start) -> None:
    server = start("gemini", [{"tool": ["run_shell_command"], "input": INPUT},
                              {"tool": "run_shell_command", "input": INPUT}])
    [part] = gemini_parts(server.ask(gemini_request("read_file", "run_shell_command")).events())
    assert part == {"functionCall": {"name": "run_shell_command", "args": INPUT}}
    message = error_message("gemini", server.ask(gemini_request("read_file", "glob")), 400)
    assert "read_file" in message and "glob" in message
    assert server.ask(gemini_request()).status == 500  # the script is exhausted


def test_gemini_fail_answers_its_status_name_and_unstreamed_requests_get_json(
        start: Start) -> None:
    server = start("gemini", [{"fail": 401, "message": "bad key"}, {"say": "whole"}])
    reply = server.ask(gemini_request())
    assert error_message("gemini", reply, 401) == "bad key"
    assert reply.json()["error"] == {"code": 401, "message": "bad key",
                                     "status": "UNAUTHENTICATED"}
    whole = server.post("/v1beta/models/any-model:generateContent", gemini_request()).json()
    assert whole["candidates"][0]["content"]["parts"] == [{"text": "whole"}]
    assert server.post("/v1beta/models/m:countTokens", gemini_request()).status == 404
