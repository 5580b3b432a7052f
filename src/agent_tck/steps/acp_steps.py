"""Steps of an ACP wrapper's scenarios (features/agent/acp.feature): the fake harness plays an
agent of the Agent Client Protocol (`doubles.harness.acpagent`), and these steps read what the
implementation told it (its record's `acp_in` and `acp_answer` entries)."""

from __future__ import annotations

import os
from typing import Any

from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends.acp import lines
from agent_tck.doubles.backends.acp.schema import PROTOCOL_VERSION, Conversation
from agent_tck.doubles.harness.acpagent import SESSIONS
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.kit.errors import SuiteError
from agent_tck.kit.verdicts import not_applicable
from agent_tck.steps.world import AgentWorld

CANCEL_WAIT = 100_000.0  # seconds (scaled) an agent works before it ends or a cancel comes


def _script(world: AgentWorld) -> AcpScript:
    script = world.new_script()
    if not isinstance(script, AcpScript):
        raise SuiteError(f"error of the suite: {world.backend} is no ACP agent")
    return script


def _told(world: AgentWorld) -> list[dict[str, Any]]:
    """Every message the implementation sent the agent, in order."""
    return [e["message"] for e in world.rig.record() if e["what"] == "acp_in"]


def _answers(world: AgentWorld, method: str) -> list[Any]:
    """The implementation's answers to the agent's requests of `method` (None: no answer
    came before the agent ended)."""
    return [e["answer"] for e in world.rig.record()
            if e["what"] == "acp_answer" and e["method"] == method]


def _methods(told: list[dict[str, Any]]) -> list[str]:
    """The methods of the requests among `told`, in order (notifications and answers left
    out)."""
    return [m["method"] for m in told if "method" in m and "id" in m]


# --- GIVEN: the agent's turn ------------------------------------------------------------


@given(parsers.parse('the ACP agent thinks, then says "{first}" and "{second}" and ends its '
                     'turn'))
def agent_says(world: AgentWorld, first: str, second: str) -> None:
    _script(world).thought("Reading the question.").text(first).text(second).stop("end_turn")
    world.final_text = first + second


@given(parsers.parse('the ACP agent reports the tool call "{tool_id}" begun, then completed'))
@given(parsers.parse('the ACP agent then reports the tool call "{tool_id}" begun, then '
                     'completed'))
def agent_runs_tool(world: AgentWorld, tool_id: str) -> None:
    _script(world).tool(tool_id, result=False).tool(tool_id, result=True)


@given("the ACP agent asks leave to run a tool call")
def agent_asks_permission(world: AgentWorld) -> None:
    _script(world).permission("call_1")


@given(parsers.parse('the ACP agent asks leave to run "{command}"'))
def agent_asks_permission_for(world: AgentWorld, command: str) -> None:
    _script(world).permission("call_1", command)


@given(parsers.parse('the ACP agent asks to read the file "{path}"'))
def agent_asks_to_read(world: AgentWorld, path: str) -> None:
    _script(world).ask(("fs/read_text_file", {"sessionId": lines.SESSION_PLACEHOLDER,
                                              "path": path}))


@given("the ACP agent does not offer to load sessions")
def agent_cannot_load(world: AgentWorld) -> None:
    _script(world).withholds("loadSession")


@given(parsers.parse('the ACP agent asks to write the file "{path}"'))
def agent_asks_to_write(world: AgentWorld, path: str) -> None:
    _script(world).ask(("fs/write_text_file", {"sessionId": lines.SESSION_PLACEHOLDER,
                                               "path": path, "content": "# notes\n"}))


@given(parsers.parse('the ACP agent asks to run "{command}" in a terminal'))
def agent_asks_for_a_terminal(world: AgentWorld, command: str) -> None:
    _script(world).ask(("terminal/create", {"sessionId": lines.SESSION_PLACEHOLDER,
                                            "command": command}))


@given(parsers.parse('the ACP agent says "{text}" and ends its turn'))
def agent_says_one(world: AgentWorld, text: str) -> None:
    _script(world).done(text)
    world.final_text = text


@given(parsers.parse('the ACP agent says "{text}", then its turn stops with "{reason}"'))
def agent_stops(world: AgentWorld, text: str, reason: str) -> None:
    _script(world).text(text).stop(reason)


@given(parsers.parse('the ACP agent says "{text}", then answers the prompt with the error '
                     '{code:d} "{message}"'))
def agent_fails_prompt(world: AgentWorld, text: str, code: int, message: str) -> None:
    _script(world).text(text).error(code, message)


@given(parsers.parse('the ACP agent then says "{text}"'))
def agent_says_late(world: AgentWorld, text: str) -> None:
    """A message chunk after the prompt's answer (the script's last step was its reply)."""
    script = _script(world)
    script.updates(script.shapes.message_chunk(text))


@given(parsers.parse('the ACP agent first answers the id {rid:d} with the stop reason '
                     '"{reason}"'))
def agent_answers_another_id(world: AgentWorld, rid: int, reason: str) -> None:
    _script(world).add("reply", {"id": rid, "result": {"stopReason": reason}})


@given("the ACP agent works until its turn is cancelled, then stops it")
def agent_stops_when_cancelled(world: AgentWorld) -> None:
    """It waits for the cancel for far longer than any deadline, then answers `cancelled`."""
    _script(world).until_cancel(CANCEL_WAIT).stop("cancelled")


@given("the ACP agent works on when its turn is cancelled")
def agent_ignores_cancel(world: AgentWorld) -> None:
    """It reads the cancel, then neither answers it nor reads on."""
    _script(world).until_cancel(CANCEL_WAIT).add("sleep", CANCEL_WAIT)


# --- WHEN ---------------------------------------------------------------------------------


@when(parsers.parse('the agent answers "{message}" resuming the ACP session "{session}"'))
def agent_answers_resuming_acp(world: AgentWorld, message: str, session: str) -> None:
    if not getattr(world.driver, "resumes_sessions", True):
        not_applicable("this driver resumes by conversation, not session_id")
    world.use_script()
    world.result = world.driver.agent_request(world.ensure_agent(), message, session)


# --- THEN ---------------------------------------------------------------------------------


@then("the implementation initialized the agent, then opened a session in the agent's working "
      "directory, then sent the prompt to that session")
def handshake_then_prompt(world: AgentWorld) -> None:
    told = _told(world)
    assert _methods(told)[:3] == ["initialize", "session/new", "session/prompt"], (
        f"the requests, in order: {_methods(told)}")
    first, opened, prompt = (next(m for m in told if m.get("method") == name)
                             for name in ("initialize", "session/new", "session/prompt"))
    assert told[0] is first, f"the first message is not initialize: {told[0]}"
    assert first["params"].get("protocolVersion") == PROTOCOL_VERSION, first["params"]
    where, cwd = world.settings["working_dir"], opened["params"].get("cwd")
    assert isinstance(cwd, str) and os.path.isabs(cwd) and os.path.samefile(cwd, where), (
        f"session/new's cwd is {cwd!r}, the agent's working directory {where!r}")
    assert prompt["params"].get("sessionId") == SESSIONS.format(0), prompt["params"]


@then("every message the implementation sent the agent is valid ACP")
def all_valid(world: AgentWorld) -> None:
    conversation = Conversation()
    problems = [p for message in _told(world) for p in conversation.check(message, "client")]
    assert problems == [], problems


@then("the response's session_id is the session the ACP agent opened")
def session_opened(world: AgentWorld) -> None:
    assert world.response["session_id"] == SESSIONS.format(0)


@then(parsers.parse('the implementation loaded the session "{session}" and sent the prompt to '
                    'it'))
def loaded_then_prompt(world: AgentWorld, session: str) -> None:
    told = _told(world)
    assert _methods(told)[:3] == ["initialize", "session/load", "session/prompt"], (
        f"the requests, in order: {_methods(told)}")
    loaded, prompt = (next(m for m in told if m.get("method") == name)
                      for name in ("session/load", "session/prompt"))
    assert loaded["params"].get("sessionId") == session, loaded["params"]
    assert prompt["params"].get("sessionId") == session, prompt["params"]


@then(parsers.parse("the implementation sent the agent no {what}"))
def never_asked(world: AgentWorld, what: str) -> None:
    """`what`: "session/load" or "prompt" (session/prompt)."""
    method = {"prompt": "session/prompt"}.get(what, what)
    told = _methods(_told(world))
    assert "initialize" in told, f"the implementation never initialized the agent: {told}"
    assert method not in told, f"the implementation sent the agent {method}: {told}"


def _chosen(world: AgentWorld) -> tuple[dict[str, Any], str | None, dict[str, str]]:
    """How the implementation answered the agent's permission request: its outcome, the kind
    of the option it selected (None: it selected none), and the options offered, by id."""
    kinds = {o["optionId"]: o["kind"] for o in _script(world).acp["permission"]}
    [answer] = _answers(world, "session/request_permission") or [None]
    assert isinstance(answer, dict) and isinstance(answer.get("result"), dict), (
        f"the permission request was answered {answer!r}")
    outcome = answer["result"].get("outcome")
    assert isinstance(outcome, dict), f"the answer has no outcome: {answer}"
    chosen = kinds.get(outcome.get("optionId")) if outcome.get("outcome") == "selected" else None
    return outcome, chosen, kinds


@then("the permission request was answered without approving the tool call")
def permission_refused(world: AgentWorld) -> None:
    outcome, chosen, kinds = _chosen(world)
    assert outcome.get("outcome") == "cancelled" or (chosen or "").startswith("reject"), (
        f"the answer approves the call: {outcome} (the options: {kinds})")


@then("the permission request was answered with an option of a reject kind the agent offered")
def permission_rejected(world: AgentWorld) -> None:
    outcome, chosen, kinds = _chosen(world)
    assert (chosen or "").startswith("reject_"), (
        f"the answer is {outcome}, where the agent offered to refuse: "
        f"{[k for k in kinds.values() if k.startswith('reject_')]}")


@then(parsers.parse('the permission request was answered with the first option of kind '
                    '"{kind}" the agent offered'))
def permission_first_of_kind(world: AgentWorld, kind: str) -> None:
    outcome, _, kinds = _chosen(world)
    offered = [option for option, its in kinds.items() if its == kind]
    assert offered, f"the agent offered no option of kind {kind}: {kinds}"
    assert outcome == {"outcome": "selected", "optionId": offered[0]}, (
        f"the answer is {outcome}, where the agent offered {offered} of kind {kind}, in that "
        "order")


@then("the response's warnings name the tool call the agent asked leave to run")
def refusal_warned(world: AgentWorld) -> None:
    [asked] = [s["ask"] for s in _script(world).steps
               if s.get("ask", {}).get("method") == "session/request_permission"]
    title = asked["params"]["toolCall"]["title"]
    warnings = world.response.get("warnings")
    assert isinstance(warnings, list) and any(title in str(w) for w in warnings), (
        f"no warning names the refused tool call {title!r}: the warnings are {warnings!r}")


@then(parsers.parse('the request "{method}" was answered with a JSON-RPC error'))
def answered_with_error(world: AgentWorld, method: str) -> None:
    _error_answer(world, method)


@then(parsers.parse('the request "{method}" was answered with the JSON-RPC error {code:d}'))
def answered_with_code(world: AgentWorld, method: str, code: int) -> None:
    error = _error_answer(world, method)
    assert error["code"] == code, f"{method} was answered the error {error}, not {code}"


def _error_answer(world: AgentWorld, method: str) -> dict[str, Any]:
    """The error the implementation answered the agent's request of `method` with."""
    [answer] = _answers(world, method) or [None]
    assert isinstance(answer, dict), f"{method} got no answer before the agent ended"
    error = answer.get("error")
    assert "result" not in answer and isinstance(error, dict) and \
        isinstance(error.get("code"), int), f"{method} was answered {answer}"
    return error


@then(parsers.parse('the implementation did not offer the agent "{capability}" when it '
                    'initialized it'))
def not_offered(world: AgentWorld, capability: str) -> None:
    """The capability (a path into initialize's clientCapabilities, `fs.readTextFile`) is
    absent or false: the protocol takes an omitted capability as unsupported."""
    first = next((m for m in _told(world) if m.get("method") == "initialize"), None)
    assert first is not None, "the implementation never initialized the agent"
    offered: Any = first.get("params", {}).get("clientCapabilities", {})
    for name in capability.split("."):
        offered = offered.get(name) if isinstance(offered, dict) else None
    assert offered in (None, False), (
        f"the implementation offered {capability} = {offered!r} and then refused it")


@then("the implementation cancelled the turn before it sent any signal")
def cancelled_before_signal(world: AgentWorld) -> None:
    """A `session/cancel` of the prompt's session reached the agent, and before any signal
    it noted."""
    pid = world.rig.last_start()["pid"]
    signalled = [e["t"] for e in world.rig.record() if e["what"] == "signal" and e["pid"] == pid]
    told = [e for e in world.rig.record() if e["what"] == "acp_in"]
    prompt = next((e["message"] for e in told if e["message"].get("method") == "session/prompt"),
                  None)
    assert prompt is not None, "the implementation never sent the prompt"
    session = prompt["params"]["sessionId"]
    cancels = [e["t"] for e in told if e["message"].get("method") == "session/cancel"
               and e["message"].get("params", {}).get("sessionId") == session]
    assert cancels, (f"the agent was never sent session/cancel for its session {session!r} "
                     f"(signals it caught: {world.rig.signals(pid) or 'none'})")
    assert not signalled or cancels[0] < signalled[0], (
        f"the agent caught {world.rig.signals(pid)} {cancels[0] - signalled[0]:.3f} s before "
        "its turn was cancelled")


@then("the harness received no signal")
def received_no_signal(world: AgentWorld) -> None:
    signals = world.rig.signals(world.rig.last_start()["pid"])
    assert signals == [], f"the harness, which ended on its own, was sent {signals}"
