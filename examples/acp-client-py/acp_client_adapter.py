#!/usr/bin/env python3
"""An agent-tck adapter for a wrapper written with the Agent Client Protocol's official Python
SDK (`agent-client-protocol`, imported as `acp`), as a user would write one. It declares the
`agent` component for the backends `gemini-acp`, `claude-acp` and `codex-acp`: each request
starts the agent (`gemini --acp`, `claude-agent-acp`, `codex-acp`, found on the PATH the suite
hands it) with the SDK's `spawn_agent_process`, says `initialize`, opens a
session (`session/new`, or `session/load` with the request's session id), sends the prompt and
answers with the turn's message chunks, which the SDK hands to its `Client`'s `session_update`.

What it decides itself, as any wrapper must: a permission request is refused (the option of
kind reject_once, or `cancelled`), requests it does not handle are answered "Method not found"
(the SDK's own `RequestError`; see `Wrapper` for why it has to say so), and at the request's
`timeout` the turn is cancelled (`session/cancel`) and the SDK's context left: it closes the
agent's stdin, and an agent that has not ended a grace period later gets SIGTERM, then SIGKILL
after another (the SDK's `shutdown_timeout`). Everything else is the SDK's; it passes every
ACP requirement, so it has no baseline of known failures.

Install: pip install -e '.[acp-example]' (pyproject.toml pins the SDK)
Run:
    agent-tck run --impl "python examples/acp-client-py/acp_client_adapter.py" --component agent
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import time
from importlib.metadata import version
from typing import Any

import acp
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    CreateElicitationResponse,
    CreateTerminalResponse,
    DeniedOutcome,
    ElicitationMode,
    EnvVariable,
    KillTerminalResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallStart,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

SDK_VERSION = version("agent-client-protocol")
CODES = {"READY": 2, "BUSY": 3}
# The agent each backend starts: its command and the options that make it speak ACP.
AGENTS = {"gemini-acp": ["gemini", "--acp"], "claude-acp": ["claude-agent-acp"],
          "codex-acp": ["codex-acp"]}


def _state(name: str, previous: str | None, reason: str) -> dict[str, Any]:
    return {"state": name, "state_code": CODES[name], "previous": previous, "reason": reason}


class Wrapper(acp.Client):
    """The client's side of one conversation: the agent's requests, and the turn's updates.

    It subclasses `acp.Client`, as the SDK's own examples do, so every method the protocol
    lets an agent call exists here: the ones it does not serve are inherited stubs that return
    None, and the SDK would answer `fs/read_text_file` with a `null` result rather than an
    error. So each one it does not serve says "Method not found" itself.
    """

    def __init__(self) -> None:
        self.prompted = False  # the prompt was sent: updates from now on are the turn's
        self.answered = False  # the prompt's answer, or its error, came: the turn is over
        self.texts: list[str] = []
        self.tools: set[str] = set()
        self.warnings: list[str] = []

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        refuse = next((o for o in options if o.kind == "reject_once"), None)
        self.warnings.append(f"refused leave to run {tool_call.title or 'a tool'}")
        if refuse is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=refuse.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        # Only the turn's updates: a loaded session's replay of its history comes before,
        # and what comes after the prompt's answer (or its error) is not the turn's.
        if not self.prompted or self.answered:
            return
        if isinstance(update, AgentMessageChunk) and isinstance(update.content, TextContentBlock):
            self.texts.append(update.content.text)
        elif isinstance(update, ToolCallStart):
            self.tools.add(update.tool_call_id)

    # What it does not serve (it offers no file system and no terminal in `initialize`).
    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse | None:
        raise acp.RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        raise acp.RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None,
                              **kwargs: Any) -> CreateTerminalResponse:
        raise acp.RequestError.method_not_found("terminal/create")

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **kwargs: Any) -> TerminalOutputResponse:
        raise acp.RequestError.method_not_found("terminal/output")

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> ReleaseTerminalResponse | None:
        raise acp.RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> WaitForTerminalExitResponse:
        raise acp.RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> KillTerminalResponse | None:
        raise acp.RequestError.method_not_found("terminal/kill")

    async def create_elicitation(self, message: str, mode: ElicitationMode,
                                 **kwargs: Any) -> CreateElicitationResponse:
        raise acp.RequestError.method_not_found("elicitation/create")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(f"_{method}")

    # Notifications it does not act on, and the SDK's hook once connected.
    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: acp.Agent) -> None:
        return None


class Agent:
    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.busy = False

    async def ask(self, message: str, session_id: str | None) -> dict[str, Any]:
        settings = self.settings
        env = {**os.environ, **(settings.get("env") or {})}
        for name in settings.get("strip_env") or []:  # withheld from the agent
            env.pop(name, None)
        backend = settings.get("backend") or "gemini-acp"
        name, *options = AGENTS[backend]
        response: dict[str, Any] = {"message": "", "status": 0, "backend": backend,
                                    "tool_calls": 0, "session_id": None, "error": None,
                                    "warnings": []}
        cli = shutil.which(name, path=env.get("PATH") or "")
        if cli is None:
            return {**response, "status": 4, "message": f"{name}: not found on PATH",
                    "error": f"{name}: not found on PATH"}
        cwd = os.path.abspath(settings.get("working_dir") or os.getcwd())
        timeout = 300 if settings.get("timeout") is None else settings["timeout"]
        grace = 5 if settings.get("grace_period") is None else settings["grace_period"]
        wrapper = Wrapper()
        said = ""
        timed_out = False
        killer: asyncio.TimerHandle | None = None  # SIGKILL, a grace period after a SIGTERM
        stderr = bytearray()

        # The SDK's spawn helper. Its environment is a trimmed one (HOME, PATH and four more)
        # that `env` is laid over, so the wrapper hands it the whole environment. Leaving its
        # context closes the agent's stdin, waits `shutdown_timeout` for the agent to end,
        # then sends SIGTERM, then SIGKILL after as long again: the grace period here.
        stack = contextlib.AsyncExitStack()
        try:
            conn, process = await stack.enter_async_context(acp.spawn_agent_process(
                wrapper, cli, *options, env=env, cwd=cwd,
                transport_kwargs={"shutdown_timeout": grace}))
        except OSError as error:
            return {**response, "status": 4, "message": f"cannot start {name}: {error}",
                    "error": f"cannot start {name}: {error}"}

        async def drain() -> None:  # the SDK pipes the agent's stderr and never reads it
            assert process.stderr is not None
            while chunk := await process.stderr.read(65536):
                stderr.extend(chunk)
                del stderr[:-4096]

        async def converse() -> PromptResponse:
            nonlocal said
            init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            if session_id:
                offered = init.agent_capabilities
                if not (offered and offered.load_session):  # the protocol's MUST: ask first
                    raise RuntimeError(f"{name} cannot resume the session {session_id}: "
                                       "it does not offer loadSession")
                await conn.load_session(cwd=cwd, session_id=session_id, mcp_servers=[])
                response["session_id"] = session_id
            else:
                response["session_id"] = (
                    await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
            wrapper.prompted = True
            try:
                return await conn.prompt(session_id=response["session_id"],
                                         prompt=[acp.text_block(message)])
            finally:
                wrapper.answered = True
                said = "".join(wrapper.texts)  # the turn: what came before the prompt's answer

        reader = asyncio.create_task(drain())
        turn = asyncio.create_task(converse())
        try:
            done, _ = await asyncio.wait({turn}, timeout=timeout)
            if not done:
                timed_out = True
                if wrapper.prompted:
                    # Cancel the turn; leaving the context then gives the agent a grace
                    # period to end before any signal. A cancel that cannot even be written
                    # in that time (an agent that reads nothing) is not waited on.
                    try:
                        await asyncio.wait_for(conn.cancel(session_id=response["session_id"]),
                                               grace)
                    except (TimeoutError, ConnectionError):
                        process.terminate()
                else:  # nothing to cancel yet: ended as any CLI is
                    process.terminate()
                    killer = asyncio.get_running_loop().call_later(grace, _kill, process)
                turn.cancel()
            try:
                answer = await turn
                if answer.stop_reason != "end_turn":
                    response["status"] = 1
                    response["error"] = f"the turn stopped: {answer.stop_reason}"
            except asyncio.CancelledError:
                pass  # timed out: said below
            except Exception as error:  # the agent's error answer, or the connection lost
                text = str(error) or type(error).__name__
                tail = stderr.decode("utf-8", "replace")
                response["status"] = 1
                response["error"] = f"{text}\nstderr: {tail}" if tail else text
            if timed_out:
                response["status"] = 3
                response["error"] = (f"{name} timed out after {timeout:g} s"
                                     + (": its turn was cancelled" if wrapper.prompted else ""))
        finally:
            leaving = time.monotonic()
            try:
                await stack.aclose()
            except Exception as error:  # the SDK's close raises again a write that failed
                wrapper.warnings.append(f"closing the connection to {name}: "
                                        f"{type(error).__name__} {error}".rstrip())
            if killer is not None:
                killer.cancel()
            await asyncio.wait({reader}, timeout=0.1)  # its stderr's end, or a process of
            reader.cancel()  # the agent's that still holds it open
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await reader
        # The agent's stdin is closed and the agent waited for.
        code = process.returncode
        if code is not None and code < 0 and not timed_out and response["status"] == 0:
            signame = _signal_name(-code)
            if time.monotonic() - leaving >= grace:  # the SDK's shutdown sent it
                wrapper.warnings.append(f"{name} did not end when its stdin closed: ended by "
                                        f"{signame} after {grace:g} s")
            else:
                response["status"] = 2
                response["error"] = f"{name} was killed by {signame}"
        response["tool_calls"] = len(wrapper.tools)
        response["warnings"] = wrapper.warnings
        response["message"] = (response["error"] or "").split("\n")[0] or said
        return response


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Adapter:
    def __init__(self) -> None:
        self.agents: dict[str, Agent] = {}

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        cmd = request.get("cmd")
        if cmd == "start":
            return {"version": 1, "implementation": {
                "name": "acp-client-py", "language": "python", "version": SDK_VERSION,
                "components": ["agent"], "backends": list(AGENTS), "reports_events": False}}
        if cmd == "stop":
            return {"stopped": True}
        if cmd == "agent.create":
            settings = request["settings"]
            backend = settings.get("backend") or "gemini-acp"
            if backend not in AGENTS:
                raise ValueError(f'unknown backend "{backend}": this adapter serves '
                                 f'{", ".join(AGENTS)}')
            agent_id = str(len(self.agents) + 1)
            self.agents[agent_id] = Agent(settings)
            return {"agent": agent_id, "states": [_state("READY", None, "agent created")]}
        agent = self.agents.get(request.get("agent"))  # type: ignore[arg-type]
        if agent is None:
            raise KeyError(f"no agent {request.get('agent')!r}")
        if cmd == "agent.info":
            timeout = agent.settings.get("timeout")
            return {"state": "BUSY" if agent.busy else "READY",
                    "timeout": 300 if timeout is None else timeout}
        if cmd == "agent.request":
            agent.busy = True
            try:
                response = await agent.ask(request["message"], request.get("session_id"))
            finally:
                agent.busy = False
            ended = ("request completed" if response["status"] == 0 else
                     f"request ended with status {response['status']}: {response['error']}")
            return {"response": response,
                    "states": [_state("BUSY", "READY", "request received"),
                               _state("READY", "BUSY", ended)]}
        raise ValueError(f'unknown command "{cmd}"')


async def main() -> None:
    adapter = Adapter()
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = await adapter.handle(request)
        except Exception as error:
            answer = {"error": {"message": f"{type(error).__name__}: {error}"}}
        print(json.dumps({"seq": request.get("seq"), **answer}), flush=True)
        if request.get("cmd") == "stop":
            break


if __name__ == "__main__":
    asyncio.run(main())
