"""ACP messages checked against the protocol's official JSON Schema, method by method.

`schemas/acp/schema.json` is the schema the protocol's SDK publishes
(`@agentclientprotocol/sdk`, its `schema/v1/schema.json`, at the version clis/package.json
pins), copied unchanged: `python -m agent_tck.doubles.backends.acp.schema` copies it again from
the installed package, and tests/test_acp_schema.py keeps the two equal.

The schema types a request's `params` as the union of every request's, and a response's
`result` as the union of every result. Which definition a method takes is the protocol's method
table (`METHODS`: the SDK's AGENT_METHODS, CLIENT_METHODS and PROTOCOL_METHODS), so a message is
checked against its own method's definitions, and a response against those of the request it
answers (`Conversation` remembers which).
"""

from __future__ import annotations

import functools
import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jsonschema

from agent_tck.kit.drivers.schemas import said
from agent_tck.kit.paths import PACKAGE as PACKAGE_DIR
from agent_tck.kit.paths import SCHEMAS

Side = Literal["client", "agent"]
SCHEMA = SCHEMAS / "acp" / "schema.json"
PACKAGE = "@agentclientprotocol/sdk"
IN_PACKAGE = Path("schema", "v1", "schema.json")
PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class Method:
    sender: Side | None  # None: either side ($/cancel_request)
    params: str
    result: str | None  # None: a notification, which is never answered


METHODS: dict[str, Method] = {
    # sent by the client, handled by the agent (the SDK's AGENT_METHODS)
    "initialize": Method("client", "InitializeRequest", "InitializeResponse"),
    "authenticate": Method("client", "AuthenticateRequest", "AuthenticateResponse"),
    "logout": Method("client", "LogoutRequest", "LogoutResponse"),
    "session/new": Method("client", "NewSessionRequest", "NewSessionResponse"),
    "session/load": Method("client", "LoadSessionRequest", "LoadSessionResponse"),
    "session/list": Method("client", "ListSessionsRequest", "ListSessionsResponse"),
    "session/delete": Method("client", "DeleteSessionRequest", "DeleteSessionResponse"),
    "session/resume": Method("client", "ResumeSessionRequest", "ResumeSessionResponse"),
    "session/close": Method("client", "CloseSessionRequest", "CloseSessionResponse"),
    "session/set_mode": Method("client", "SetSessionModeRequest", "SetSessionModeResponse"),
    "session/set_config_option": Method("client", "SetSessionConfigOptionRequest",
                                        "SetSessionConfigOptionResponse"),
    "session/prompt": Method("client", "PromptRequest", "PromptResponse"),
    "session/cancel": Method("client", "CancelNotification", None),
    # sent by the agent, handled by the client (the SDK's CLIENT_METHODS)
    "session/update": Method("agent", "SessionNotification", None),
    "session/request_permission": Method("agent", "RequestPermissionRequest",
                                         "RequestPermissionResponse"),
    "fs/read_text_file": Method("agent", "ReadTextFileRequest", "ReadTextFileResponse"),
    "fs/write_text_file": Method("agent", "WriteTextFileRequest", "WriteTextFileResponse"),
    "terminal/create": Method("agent", "CreateTerminalRequest", "CreateTerminalResponse"),
    "terminal/output": Method("agent", "TerminalOutputRequest", "TerminalOutputResponse"),
    "terminal/wait_for_exit": Method("agent", "WaitForTerminalExitRequest",
                                     "WaitForTerminalExitResponse"),
    "terminal/kill": Method("agent", "KillTerminalRequest", "KillTerminalResponse"),
    "terminal/release": Method("agent", "ReleaseTerminalRequest", "ReleaseTerminalResponse"),
    "elicitation/create": Method("agent", "CreateElicitationRequest",
                                 "CreateElicitationResponse"),
    "elicitation/complete": Method("agent", "CompleteElicitationNotification", None),
    # either side (the SDK's PROTOCOL_METHODS)
    "$/cancel_request": Method(None, "CancelRequestNotification", None),
}


@functools.cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


@functools.cache
def _validator(definition: str) -> jsonschema.protocols.Validator:
    """A validator of the schema's definition `definition` (its references resolved in the
    whole schema)."""
    whole = schema()
    if definition not in whole["$defs"]:
        raise KeyError(f"{SCHEMA} defines no {definition!r}")
    return jsonschema.Draft202012Validator({"$defs": whole["$defs"],
                                            "$ref": f"#/$defs/{definition}"})


def as_defined(value: Any, definition: str, where: str) -> list[str]:
    """What in `value` differs from the schema's `definition`, each naming `where` and the
    path to the value at fault, in JSON's words as the adapter's checks say it; [] when it
    conforms."""
    return [f"{where}{''.join(f'[{p!r}]' for p in error.absolute_path)}: {said(error)}"
            for error in _validator(definition).iter_errors(value)]


def _frame(message: Any) -> Iterator[str]:
    """What is wrong with `message` as a JSON-RPC 2.0 message of the protocol."""
    if not isinstance(message, dict):
        yield f"not a JSON object: {message!r:.200}"
        return
    if message.get("jsonrpc") != "2.0":
        yield f"message: its jsonrpc is {message.get('jsonrpc')!r}, not '2.0'"
    if "id" in message:
        yield from as_defined(message["id"], "RequestId", "message id")
    if not isinstance(message.get("method", ""), str):
        yield f"message: its method is {message['method']!r}, not a string"


@dataclass
class Conversation:
    """One connection's messages, as each side sends them: each is checked against its
    method's definitions, and each response against those of the request it answers (a
    response to no request of the other side's, or a second one, is an error)."""

    pending: dict[Side, dict[Any, str]] = field(
        default_factory=lambda: {"client": {}, "agent": {}})

    def check(self, message: Any, sender: Side) -> list[str]:
        """What is wrong with `message` sent by `sender`; [] when nothing is."""
        problems = list(_frame(message))
        if problems:
            return problems
        if "method" in message:
            return self._request(message, sender)
        return self._response(message, sender)

    def _request(self, message: dict[str, Any], sender: Side) -> list[str]:
        name = message["method"]
        method = METHODS.get(name)
        extension = method is None and name.startswith("_")  # its shapes are its own
        if method is None and not extension:
            return [f"{name!r}: no method of the protocol (an extension's starts with '_')"]
        if method is not None and method.sender not in (None, sender):
            return [f"{name}: sent by the {sender}, though only the {method.sender} sends it"]
        problems = [] if method is None else as_defined(message.get("params"), method.params,
                                                        f"{name} params")
        if method is not None and method.result is None:
            if "id" in message:
                problems.append(f"{name}: a notification, sent with an id")
        elif "id" in message:
            waiting = self.pending[sender]
            if message["id"] in waiting:
                problems.append(f"{name}: id {message['id']!r} is already that of an "
                                f"unanswered {waiting[message['id']]}")
            waiting[message["id"]] = name
        elif not extension:
            problems.append(f"{name}: a request, sent without an id")
        return problems

    def _response(self, message: dict[str, Any], sender: Side) -> list[str]:
        other: Side = "agent" if sender == "client" else "client"
        name = self.pending[other].pop(message.get("id"), None)
        if name is None:
            return [f"a response to id {message.get('id')!r}, which no unanswered request of "
                    f"the {other}'s has"]
        if ("result" in message) == ("error" in message):
            return [f"the response to {name}: it must carry a result or an error, not "
                    f"{'both' if 'result' in message else 'neither'}"]
        if "error" in message:
            return as_defined(message["error"], "Error", f"the error answering {name}")
        result = METHODS[name].result if name in METHODS else None  # None: an extension's
        return [] if result is None else as_defined(message["result"], result,
                                                    f"the result of {name}")


def installed(clis: Path) -> Path:
    """The schema of the SDK installed in `clis` (`agent-tck install-clis` installs it)."""
    return clis / "node_modules" / PACKAGE / IN_PACKAGE


def main(argv: list[str]) -> int:
    """Copy the schema of the SDK installed in CLIS (default: the kit's clis/) to
    schemas/acp/schema.json."""
    source = installed(Path(argv[0]) if argv else PACKAGE_DIR / "clis")
    if len(argv) > 1 or not source.is_file():
        print(f"usage: python -m agent_tck.doubles.backends.acp.schema [CLIS]: no {source} "
              f"(`agent-tck install-clis` installs it)", file=sys.stderr)
        return 2
    shutil.copyfile(source, SCHEMA)
    print(f"copied {source} to {SCHEMA}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
