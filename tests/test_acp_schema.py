"""ACP messages against the protocol's official schema (doubles/backends/acp/schema.py): the
copy is the pinned SDK's, the method table is the SDK's, and a conversation is checked message
by message, each against its own method's definitions."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from agent_tck.doubles.backends.acp import schema
from agent_tck.doubles.backends.acp.schema import METHODS, Conversation
from agent_tck.doubles.realcli.clis import clis_dir


def _installed_sdk() -> Any:
    where = clis_dir() / "node_modules" / schema.PACKAGE
    if not (where / "package.json").is_file():
        pytest.skip(f"{schema.PACKAGE} is not installed in {clis_dir()} (agent-tck install-clis)")
    return where


def test_the_schema_is_the_one_the_pinned_sdk_publishes() -> None:
    where = _installed_sdk()
    pinned = json.loads((clis_dir() / "package.json").read_text())["dependencies"][schema.PACKAGE]
    assert json.loads((where / "package.json").read_text())["version"] == pinned
    assert schema.installed(clis_dir()).read_bytes() == schema.SCHEMA.read_bytes(), (
        "schemas/acp/schema.json differs from the pinned SDK's: "
        "python -m agent_tck.doubles.backends.acp.schema")


def test_the_method_table_is_the_sdks() -> None:
    """AGENT_METHODS are the agent's to handle (the client sends them), CLIENT_METHODS the
    client's; PROTOCOL_METHODS either side's."""
    source = (_installed_sdk() / "dist" / "v1" / "schema" / "index.js").read_text()
    tables = {name: set(re.findall(r'"([^"]+)"', body)) for name, body in
              re.findall(r"export const (\w+_METHODS) = \{([^}]*)\}", source)}
    senders = {"AGENT_METHODS": "client", "CLIENT_METHODS": "agent", "PROTOCOL_METHODS": None}
    assert {name: senders[table] for table, names in tables.items() for name in names} == {
        name: method.sender for name, method in METHODS.items()}
    assert re.search(r"PROTOCOL_VERSION = (\d+)", source)[1] == str(  # type: ignore[index]
        schema.PROTOCOL_VERSION)


def _titles(union: dict[str, Any]) -> set[str]:
    """The titled alternatives of a (nested) anyOf."""
    return {title for choice in union.get("anyOf", [])
            for title in ([choice["title"]] if "title" in choice else _titles(choice))}


@pytest.mark.parametrize(("union", "sender", "answered"), [
    ("ClientRequest", "client", True), ("AgentRequest", "agent", True),
    ("ClientNotification", "client", False), ("AgentNotification", "agent", False)])
def test_the_table_names_every_message_the_schema_defines(union: str, sender: str,
                                                          answered: bool) -> None:
    defs = schema.schema()["$defs"]
    defined = _titles(defs[union]["properties"]["params"]) - {"ExtMethodRequest",
                                                             "ExtNotification"}
    named = {m.params for m in METHODS.values()
             if m.sender == sender and (m.result is not None) is answered}
    assert named == defined
    assert all(m.params in defs and (m.result is None or m.result in defs)
               for m in METHODS.values())


SESSION = "sess_1"


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": SESSION, "update": update}}


HAPPY: list[tuple[str, dict[str, Any]]] = [
    ("client", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}}),
    ("agent", {"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": []}}),
    ("client", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                "params": {"cwd": "/work", "mcpServers": []}}),
    ("agent", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": SESSION}}),
    ("client", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
        "sessionId": SESSION, "prompt": [{"type": "text", "text": "Hello"}]}}),
    ("agent", _update({"sessionUpdate": "agent_thought_chunk",
                       "content": {"type": "text", "text": "thinking"}})),
    ("agent", _update({"sessionUpdate": "tool_call", "toolCallId": "call_1",
                       "title": "Run the tests", "kind": "execute", "status": "pending"})),
    ("agent", {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {
        "sessionId": SESSION, "toolCall": {"toolCallId": "call_1"},
        "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]}}),
    ("client", {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}),
    ("agent", _update({"sessionUpdate": "tool_call_update", "toolCallId": "call_1",
                       "status": "failed"})),
    ("agent", _update({"sessionUpdate": "agent_message_chunk",
                       "content": {"type": "text", "text": "Hello!"}})),
    ("agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ("client", {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}}),
    ("client", {"jsonrpc": "2.0", "id": 3, "method": "_zed/ping", "params": {}}),
    ("agent", {"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}),
    ("agent", {"jsonrpc": "2.0", "method": "_zed/note", "params": {"any": "shape"}}),
]


def test_a_whole_turn_conforms() -> None:
    conversation = Conversation()
    assert [conversation.check(message, sender) for sender, message in HAPPY] == [
        []] * len(HAPPY)
    assert conversation.pending == {"client": {}, "agent": {}}


def _after(count: int) -> Conversation:
    """A conversation of HAPPY's first `count` messages."""
    conversation = Conversation()
    for sender, message in HAPPY[:count]:
        assert conversation.check(message, sender) == []
    return conversation


@pytest.mark.parametrize(("count", "sender", "message", "problem"), [
    (2, "client", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                   "params": {"cwd": "/work"}},
     'session/new params: missing "mcpServers" (required)'),
    (4, "agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "done"}},
     "a response to id 2, which no unanswered request of the client's has"),
    (5, "agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "done"}},
     "the result of session/prompt['stopReason']: 'done' is not valid"),
    (5, "agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"},
                  "error": {"code": -32603, "message": "x"}},
     "the response to session/prompt: it must carry a result or an error, not both"),
    (5, "agent", {"jsonrpc": "2.0", "id": 2, "error": {"code": "bad", "message": "x"}},
     "the error answering session/prompt['code']"),
    (5, "agent", {"jsonrpc": "2.0", "id": 7, "method": "session/update",
                  "params": _update({"sessionUpdate": "plan", "entries": []})["params"]},
     "session/update: a notification, sent with an id"),
    (5, "client", {"jsonrpc": "2.0", "method": "session/update",
                   "params": _update({"sessionUpdate": "plan", "entries": []})["params"]},
     "session/update: sent by the client, though only the agent sends it"),
    (5, "client", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
        "sessionId": SESSION, "prompt": []}},
     "session/prompt: id 2 is already that of an unanswered session/prompt"),
    (5, "client", {"jsonrpc": "2.0", "method": "session/prompt", "params": {
        "sessionId": SESSION, "prompt": []}}, "session/prompt: a request, sent without an id"),
    (5, "agent", {"jsonrpc": "2.0", "method": "session/updates", "params": {}},
     "'session/updates': no method of the protocol"),
    (0, "client", {"id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
     "message: its jsonrpc is None, not '2.0'"),
    (0, "client", {"jsonrpc": "2.0", "id": [0], "method": "initialize",
                   "params": {"protocolVersion": 1}}, "message id"),
    (0, "client", ["not", "an", "object"], "not a JSON object"),
])
def test_a_message_off_its_methods_definition_is_named(
        count: int, sender: schema.Side, message: Any, problem: str) -> None:
    problems = _after(count).check(message, sender)
    assert len(problems) >= 1 and problems[0].startswith(problem), problems


def test_the_copy_command_copies_the_installed_schema(tmp_path: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    source = schema.installed(tmp_path)
    source.parent.mkdir(parents=True)
    source.write_text('{"$defs": {}}')
    target = tmp_path / "copy.json"
    monkeypatch.setattr(schema, "SCHEMA", target)
    assert schema.main([str(tmp_path)]) == 0
    assert target.read_text() == '{"$defs": {}}'
    assert schema.main([str(tmp_path / "elsewhere")]) == 2
