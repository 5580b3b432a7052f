"""Steps of the `agent` component. Thin: arrange through the world, act through the driver,
assert on what a user can observe (response, published events, harness record, /proc).

Durations in the spec are multiplied by `--time-scale` where the agent actually waits on them.
Paths in the spec are rooted in the scenario's sandbox, so none is touched on the machine.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends import profile
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import HARNESS_NAMES
from agent_tck.kit.drivers import Driver
from agent_tck.kit.errors import Refused, SuiteError, Unsendable
from agent_tck.kit.observe import unreaped
from agent_tck.kit.paths import FIXTURES
from agent_tck.kit.verdicts import not_applicable, require_backend, step_not_judged
from agent_tck.steps.world import NO_EVENTS, AgentWorld, sized

# The steps of an ACP wrapper's scenarios (features/agent/acp.feature), registered with these.
pytest_plugins = ["agent_tck.steps.acp_steps"]

# The spec's defaults (seed 001) and a margin, not scaled, for starting processes.
DEFAULT_TIMEOUT = 300.0
DEFAULT_GRACE = 5.0
SAFETY_GRACE = 3.0  # real seconds: a grace period that is not a scenario's subject
MIN_DEADLINE = 1.0  # real seconds: the shortest scaled deadline of a request that runs
MIN_GRACE = 0.5  # real seconds: the shortest scaled grace period after that deadline
START_SLACK = 2.0  # real seconds for starting and reaping the CLI, stated in the features
OWN_WAIT = 10.0  # real seconds an implementation may wait, fixed, before its SIGTERM (D-32)
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


@pytest.fixture
def world(driver: Driver, harness_rig: HarnessRig, tmp_path: Path,
          time_scale: float, scenario_backend: str | None) -> AgentWorld:
    world = AgentWorld(driver, tmp_path / "sandbox", time_scale, harness_rig)
    if scenario_backend is not None:
        world.backend, world.pinned = scenario_backend, True
    return world


# --- GIVEN: the agent ---------------------------------------------------------------------


@given(parsers.parse('a CodingGenesisAgent with backend "{backend}".'))
def agent_with_backend(world: AgentWorld, backend: str) -> None:
    if world.pinned:  # the requirement runs this scenario for each of its backends
        return
    require_backend(world.driver, backend)
    world.backend = backend


@given(parsers.parse('the agent is in "{state}" state.'))
def agent_in_state(world: AgentWorld, state: str) -> None:
    assert world.driver.agent_info(world.ensure_agent())["state"] == state
    assert world.created_states[-1]["state"] == state


@given(parsers.parse('a CodingGenesisAgent with working_dir "{path}".'))
def agent_with_working_dir(world: AgentWorld, path: str) -> None:
    sandboxed = world.root / path.lstrip("/")
    sandboxed.mkdir(parents=True)
    world.settings["working_dir"] = str(sandboxed)


@given("a CodingGenesisAgent with working_dir set to None.")
def agent_without_working_dir(world: AgentWorld) -> None:
    world.settings["working_dir"] = None


def agent_with_running_timeout(world: AgentWorld, seconds: float) -> None:
    """A running agent's deadline, scaled, and never under MIN_DEADLINE real seconds: a
    harness started on a loaded machine can outlast a scaled 0.2 s, and one killed before it
    ran records nothing to judge ("the harness was never started"). Its grace period, never
    under MIN_GRACE: a harness that ignores SIGTERM notes the signal in its handler, which a
    loaded machine can run later than a scaled 0.1 s after it arrived."""
    world.settings["timeout"] = max(seconds * world.time_scale, MIN_DEADLINE)
    world.settings["grace_period"] = max(5.0 * world.time_scale, MIN_GRACE)


@given(parsers.parse("a CodingGenesisAgent with timeout {seconds:g} seconds."))
def seed_agent_with_running_timeout(world: AgentWorld, seconds: float) -> None:
    """EH-1.1's subject is the SIGTERM at the deadline, not how long the grace lasts: the
    grace is real seconds, so the harness surely runs its SIGTERM handler (and notes the
    signal) before any SIGKILL. The harness exits on SIGTERM, so a conforming agent answers
    at once all the same."""
    agent_with_running_timeout(world, seconds)
    safety_grace(world, SAFETY_GRACE)


@given("a CodingGenesisAgent created with default parameters.")
def agent_with_defaults(world: AgentWorld) -> None:
    world.ensure_agent()


@given(parsers.parse("a CodingGenesisAgent created with timeout {seconds:g}."))
def agent_created_with_timeout(world: AgentWorld, seconds: float) -> None:
    world.settings["timeout"] = seconds
    world.ensure_agent()


@given('a CodingGenesisAgent in "BUSY" state due to a timed-out request.')
def agent_busy_with_timeout(world: AgentWorld) -> None:
    """The follow-up request ("can accept new requests") runs under the same timeout and must
    answer within it: a harness start on a loaded machine can outlast the scaled 0.2 s, so the
    timeout is at least one real second (the first request still times out: it never ends)."""
    agent_with_running_timeout(world, 10.0)
    world.new_script().init().text("working").add("sleep", 1000)


@given('a CodingGenesisAgent in "BUSY" state due to a crashed subprocess.')
def agent_busy_with_crash(world: AgentWorld) -> None:
    world.new_script().init().text("working").add("err", "Segmentation fault\n").add("exit", 139)


# --- GIVEN: what the harness does ---------------------------------------------------------


@given(parsers.re(r"the subprocess emits (?P<count>\d+) text events: (?P<texts>.*)\.$"))
def emits_n_texts(world: AgentWorld, count: str, texts: str) -> None:
    values = QUOTED.findall(texts)
    assert len(values) == int(count), f"step lists {len(values)} texts, says {count}"
    for text in values:
        world.new_script().text(text)


@given(parsers.re(r'the subprocess emits (a )?text events? "(?P<text>.*)"\.$'))
def emits_text(world: AgentWorld, text: str) -> None:
    world.new_script().text(text)


@given(parsers.parse('the subprocess then emits a done event with text "{text}".'))
def emits_done_with_text(world: AgentWorld, text: str) -> None:
    """The end line carries `text` as Claude Code prints it: repeating the turn's last
    message, which is `text` (decision D-34): the earlier texts are accumulated, the done
    event's text overrides them."""
    world.new_script().done(text)


@given("the subprocess then emits a turn.completed event with no text.")
@given("the subprocess then emits a result event without text.")
def emits_done_without_text(world: AgentWorld) -> None:
    world.new_script().done()


@given(
    parsers.parse(
        "the subprocess emits {starts:d} tool_start events and {results:d} tool_result events."
    )
)
def emits_tools(world: AgentWorld, starts: int, results: int) -> None:
    script = world.new_script()
    for i in range(starts):
        script.tool(f"toolu_{i:02d}", result=False)
    for i in range(results):
        script.tool(f"toolu_{i:02d}", result=True)
    script.done("done")


@given("the subprocess emits only text events and a done event.")
def emits_only_text(world: AgentWorld) -> None:
    world.new_script().text("no tools ").text("needed").done()


@given(parsers.parse('the subprocess emits a system/init event with session_id "{session}".'))
@given(parsers.parse('the subprocess emits a thread.started event with thread_id "{session}".'))
@given(parsers.parse('the subprocess emits an init event with session_id "{session}".'))
def emits_init(world: AgentWorld, session: str) -> None:
    world.new_script().init(session).text("hello").done()


@given(parsers.parse("the subprocess runs for longer than {seconds:g} seconds without completing."))
def runs_too_long(world: AgentWorld, seconds: float) -> None:
    """Three times the stated time, and at least 5 real seconds (longer than the deadline of
    the step above, which is at least one real second), then OWN_WAIT more: an
    implementation's own fixed wait before its SIGTERM is not scaled (D-32)."""
    pause = max(seconds * 3 * world.time_scale, 5.0) + OWN_WAIT
    world.new_script().init().text("thinking...").add("sleep_real", pause)


@given(parsers.parse("the subprocess exits with return code {code:d}."))
def exits_with(world: AgentWorld, code: int) -> None:
    world.new_script().add("exit", code)


@given(parsers.parse('stderr contains "{text}".'))
def stderr_contains(world: AgentWorld, text: str) -> None:
    script = world.new_script()
    script.steps.insert(len(script.steps) - 1, {"err": text + "\n"})


@given("the subprocess is killed by an external signal.")
def killed_externally(world: AgentWorld) -> None:
    world.new_script().init().text("partial").add("die", "SIGKILL")


@given(parsers.parse('the subprocess emits "{junk}" on stdout.'))
def emits_junk(world: AgentWorld, junk: str) -> None:
    world.new_script().add("out", junk + "\n")


@given("the subprocess then emits a valid result event.")
def emits_result(world: AgentWorld) -> None:
    world.final_text = "The result after junk"
    world.new_script().text(world.final_text).done()


@given("the subprocess emits: valid init, invalid line, valid text, invalid line, valid done.")
def emits_mixed(world: AgentWorld) -> None:
    world.final_text = "mixed but fine"
    script = world.new_script().init("019c7199-mixed")
    # A whole text line with more after it is no JSON either: its text must not leak in.
    leaked = json.dumps(script.text_line("LEAKED"), separators=(",", ":"))
    script.add("out", f"{leaked} [SandboxDebug]\n").text(world.final_text)
    script.add("out", "[SandboxDebug] ready\n").done()


@given("the subprocess produced no stdout output.")
def no_stdout(world: AgentWorld) -> None:
    script = world.new_script()
    assert not script.emitted, "the scenario already scripted stdout output"


# --- WHEN ---------------------------------------------------------------------------------


@when(parsers.parse('the agent receives a request with message "{message}".'))
def receives_request(world: AgentWorld, message: str) -> None:
    world.request(message)


@when("the agent processes the request.")
@when("the agent spawns a subprocess.")
@when("the timeout is reached.")
@when("the timeout error is handled.")
@when("the crash error is handled.")
def processes_request(world: AgentWorld) -> None:
    world.request()


@when("checking the timeout value.")
def checking_timeout(world: AgentWorld) -> None:
    world.ensure_agent()


# --- THEN: states -------------------------------------------------------------------------


def _states(world: AgentWorld) -> list[str]:
    assert world.result is not None
    return [e["state"] for e in world.result.states]


@then(parsers.parse('the agent transitions to "{state}" state.'))
def transitions_to(world: AgentWorld, state: str) -> None:
    states = _states(world)
    assert state in states, f"published states {states} do not include {state}"
    if state == "READY":
        assert states[-1] == "READY", f"the last published state is {states[-1:]}"
        assert world.driver.agent_info(world.ensure_agent())["state"] == "READY"
    else:
        assert states[0] == state, f"the first state published for the request is {states[:1]}"


@then(parsers.parse('the agent transitions back to "{state}" state.'))
def transitions_back(world: AgentWorld, state: str) -> None:
    states = _states(world)
    assert states[-1] == state and len(states) >= 2, f"published states: {states}"


@then('the agent transitions to "READY" state, not "DEGRADED".')
def ready_not_degraded(world: AgentWorld) -> None:
    states = _states(world)
    assert "DEGRADED" not in states, f"published states: {states}"
    transitions_to(world, "READY")


@then(parsers.parse('the agent state is "{state}".'))
def agent_state_is(world: AgentWorld, state: str) -> None:
    assert world.driver.agent_info(world.ensure_agent())["state"] == state


@then(parsers.parse('a graph node event is published with state "{state}".'))
def node_event_published(world: AgentWorld, state: str) -> None:
    assert world.result is not None
    last = world.result.states[-1]
    assert last["state"] == state and last["previous"] == "BUSY", f"last event: {last}"
    assert last["reason"], "the node event carries no reason"


@then("the agent can accept new requests.")
def accepts_new_requests(world: AgentWorld) -> None:
    world.script = None
    assert world.request().response["status"] == 0


# --- THEN: the harness process ------------------------------------------------------------


@then(parsers.parse('a subprocess is spawned with the "{command}" command.'))
def spawned_with(world: AgentWorld, command: str) -> None:
    assert command in HARNESS_NAMES
    start = world.rig.last_start()
    assert start["name"] == command, f"the harness was started as {start['name']!r}"
    record = world.rig.record()
    stdin = [e["data"] for e in record if e["what"] == "stdin"]
    prompt_delivered = stdin[-1:] == ["What is 2 + 2?"] or "What is 2 + 2?" in start["argv"]
    assert prompt_delivered, f"the prompt reached neither stdin {stdin} nor argv {start['argv']}"


def reported_events(world: AgentWorld, request: pytest.FixtureRequest
                    ) -> list[dict[str, Any]] | None:
    """The request's normalized events; None, and the running step not judged, from an
    implementation that does not report them (docs/decisions.md, "The seed's internal
    steps")."""
    assert world.result is not None, "no request was made"
    if world.result.events is None:
        step_not_judged(request.node, NO_EVENTS)
    return world.result.events


@then("the subprocess stdout is read line by line.")
def read_line_by_line(world: AgentWorld, request: pytest.FixtureRequest) -> None:
    events = reported_events(world, request)
    if events is None or world.script is None:
        return
    raws = [e["raw"] for e in events]
    emitted = [line for line in world.script.emitted if line in raws]
    assert emitted == world.script.emitted, "some emitted lines produced no event"
    distinct = [r for i, r in enumerate(raws) if i == 0 or raws[i - 1] != r]
    assert distinct == world.script.emitted, "lines were merged, split or reordered"


@then(parsers.parse("each line is passed to {backend_class}.parse_line."))
def each_line_parsed(world: AgentWorld, backend_class: str,
                     request: pytest.FixtureRequest) -> None:
    assert backend_class == f"{world.backend.capitalize()}Backend"
    events = reported_events(world, request)
    if events is None or world.script is None:
        return
    if "backends" in world.driver.info.components:
        expected = [event for line in world.script.emitted
                    for event in world.driver.parse_line(world.backend, json.dumps(line))]
    else:
        expected = [event for line in world.script.emitted
                    for event in _spec_events(world.backend, line)]
    assert events == expected


NORMALIZED = FIXTURES / "normalized-events.json"


def without_ids(line: dict[str, Any]) -> dict[str, Any]:
    """`line` without the ids the fake claude numbers through a process: each line's `uuid`
    and its message's `id`."""
    kept = {key: value for key, value in line.items() if key != "uuid"}
    if isinstance(kept.get("message"), dict):
        kept["message"] = {k: v for k, v in kept["message"].items() if k != "id"}
    return kept


@functools.cache
def _normalized() -> dict[str, list[dict[str, Any]]]:
    known: dict[str, list[dict[str, Any]]] = json.loads(NORMALIZED.read_text(encoding="utf-8"))
    return known


def _spec_events(backend: str, line: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec's normalized events of `line` (decision D-2), for an implementation that does
    not declare the `backends` component (and so is never sent `parse_line`): those the
    fixture of the default turn's lines gives (the reference writes it), each carrying the
    line itself as its `raw`. The fixture's lines are without the ids the fake numbers
    (`without_ids`), which no event of theirs carries (a test holds it)."""
    for known in _normalized().get(backend, []):
        if known["line"] == without_ids(line):
            return [{**event, "raw": line} if "raw" in event else event
                    for event in known["events"]]
    raise SuiteError(f"error of the suite: {NORMALIZED.name} gives no events for the {backend} "
                     f"line {json.dumps(line)[:200]} (`python -m tests.support.normalized` "
                     "writes them)")


@then(parsers.parse('the subprocess cwd is set to "{path}".'))
def cwd_is(world: AgentWorld, path: str) -> None:
    expected = world.root / path.lstrip("/")
    assert Path(world.rig.last_start()["cwd"]) == expected


@then("the subprocess cwd is None, inheriting the agent's working directory.")
def cwd_inherited(world: AgentWorld) -> None:
    assert Path(world.rig.last_start()["cwd"]) == Path(world.driver.cwd)


@then("the subprocess is terminated via SIGTERM.")
def terminated_via_sigterm(world: AgentWorld) -> None:
    start = world.rig.last_start()
    signals = world.rig.signals(start["pid"])
    assert signals[:1] == ["SIGTERM"], (
        f"the harness got no SIGTERM first (signals it caught: {signals or 'none'}; SIGKILL "
        f"cannot be caught); {_timing(world)}")


def _timing(world: AgentWorld) -> str:
    """When the answer came, against the request's deadline: the fact behind a timing failure
    (an implementation's own fixed delays may exceed the scaled durations)."""
    timeout = world.settings.get("timeout", DEFAULT_TIMEOUT)
    if world.elapsed is None:
        return "no request was made"
    late = world.elapsed - timeout
    when = f"{late:.1f} s after" if late >= 0 else f"{-late:.1f} s before"
    return f"the answer came {when} the deadline of {timeout:g} s"


@then("the subprocess is waited on to prevent zombie processes.")
@then("no zombie process remains.")
def no_zombie(world: AgentWorld) -> None:
    start = world.rig.last_start()
    left = unreaped(start["pid"], start["ppid"])
    assert left is None, left


# --- THEN: the response -------------------------------------------------------------------


def _answered(world: AgentWorld) -> dict[str, Any]:
    """The response, which must be a success when the harness played a turn that ended well:
    a value checked on a request that failed for another reason proves nothing."""
    response = world.response
    if world.script is not None and world.script.completes():
        status, error = response.get("status"), response.get("error")
        assert status == 0 and not error, (
            f"the request failed (status {status!r}, error {error!r}) although the harness "
            "completed its turn")
    return response


@then(parsers.parse('the response contains key "{key}" with value {value:d}.'))
def response_int(world: AgentWorld, key: str, value: int) -> None:
    assert _answered(world).get(key) == value, f"{key} = {world.response.get(key)!r}"


@then(parsers.parse('the response contains key "{key}" with value "{value}".'))
def response_str(world: AgentWorld, key: str, value: str) -> None:
    assert _answered(world).get(key) == value, f"{key} = {world.response.get(key)!r}"


@then('the response contains key "message" with the final text.')
@then("the response contains the result text.")
def response_final_text(world: AgentWorld) -> None:
    assert world.final_text is not None
    assert _answered(world).get("message") == world.final_text
    _read_as_printed(world)


@then(parsers.parse('the response message is "{text}".'))
def response_message(world: AgentWorld, text: str) -> None:
    message = _answered(world).get("message")
    said = _whole_messages(world)
    if said and message != text:
        assert "".join(said) == text and message == said[-1], (
            f"the message {message!r} is neither {text!r} (every agent message) nor "
            f"{said[-1]!r} (the last one)")
        return
    assert message == text
    _read_as_printed(world)


def _read_as_printed(world: AgentWorld) -> None:
    """An answer that is the turn's last message (Claude's result repeats it, decision D-34;
    codex's last agent message, D-33) shows nothing of how the lines before it were read:
    where the implementation reports its events, their texts are the ones the CLI printed,
    in order, and no other (a junk line, a line of stderr or one decoded piece by piece,
    read as text, would be among them)."""
    if not _answers_with_the_last_message(world) or world.result is None:
        return
    events, printed = world.result.events, world.script.texts if world.script else []
    if events is not None:
        texts = [str(e.get("text")) for e in events if e.get("kind") == "text"]
        assert "".join(texts) == "".join(printed), (
            f"the answer is the turn's last message, but the text events reported are "
            f"{texts!r:.400}, not the texts the CLI printed, {printed!r:.400}")


def _whole_messages(world: AgentWorld) -> list[str] | None:
    """The messages of a turn of a CLI whose text lines are whole messages (codex's agent
    messages), for its own meaning of the answer: all of them, as the seed reads text events,
    or the last, as `codex exec` prints it and the Codex SDK answers (decision D-33). None
    for a CLI whose text events are pieces of one answer (claude, gemini)."""
    if world.script is None or not world.script.profile.whole_messages:
        return None
    return world.script.texts


@then('the response contains key "status" with a non-zero value.')
@then("the response status is not 0")
def response_failed(world: AgentWorld) -> None:
    status = world.response.get("status")
    assert isinstance(status, int) and status != 0, f"status = {status!r}"
    # The failure must be the scripted one, not one before the CLI ran (e.g. a launch error).
    assert world.rig.starts(), "the request failed without ever starting the CLI"


@then(parsers.parse('the response contains key "message" with text containing "{text}".'))
def response_message_contains(world: AgentWorld, text: str) -> None:
    found = text in str(world.response.get("message"))  # `sized`
    assert found, sized(world.response)


@then("the response contains error information.")
def response_error_information(world: AgentWorld) -> None:
    error = world.response.get("error")
    assert isinstance(error, str) and error, f"error = {error!r}"
    stderr = [s["err"].strip() for s in world.new_script().steps if "err" in s]
    for text in stderr:
        assert text in error, f"the error does not carry the harness's stderr {text!r}"


@then('the response contains key "message" with an empty string or error message.')
def response_empty_or_error(world: AgentWorld) -> None:
    message = world.response.get("message")
    assert isinstance(message, str)
    assert message == "" or world.response.get("error"), f"message = {message!r}"


@then("the response is successful.")
def response_successful(world: AgentWorld) -> None:
    assert world.response.get("status") == 0 and not world.response.get("error")


# --- THEN: parsing ------------------------------------------------------------------------


@then("the malformed line is silently skipped.")
@then(parsers.parse("the {count:d} invalid lines are silently skipped."))
def junk_skipped(world: AgentWorld, count: int = 1) -> None:
    """Silently: no error in the answer. Skipped: no event made of junk, where the
    implementation reports its events; its answer's text is the next steps' to judge."""
    assert world.script is not None and world.result is not None
    junk = [s["out"] for s in world.script.steps if "out" in s]
    assert len(junk) == count
    assert not world.response.get("error"), f"error = {world.response.get('error')!r}"
    made = [e for e in world.result.events or [] if e["raw"] not in world.script.emitted]
    assert made == [], f"events made of what was not a valid line: {made}"


@then("the valid result event is processed normally.")
def result_processed(world: AgentWorld, request: pytest.FixtureRequest) -> None:
    events = reported_events(world, request)
    if events is None or world.script is None:
        return
    kinds = [e["kind"] for e in events]
    assert kinds[-1:] == ["done"], f"events: {kinds}"


@then("the session_id is extracted from the init event.")
def session_from_init(world: AgentWorld) -> None:
    assert world.response.get("session_id") == "019c7199-mixed"


@then("the text is extracted from the text event.")
def text_from_text_event(world: AgentWorld) -> None:
    assert world.response.get("message") == world.final_text


@then(parsers.parse("the timeout is {seconds:g} seconds."))
def timeout_is(world: AgentWorld, seconds: float) -> None:
    assert world.refusal is None, f"the agent was refused: {world.refusal[-300:]}"
    timeout = world.driver.agent_info(world.ensure_agent())["timeout"]
    assert timeout is not None or "timeout" in world.settings, (
        f"the agent has no timeout (agent.info says null), and the seed requires {seconds:g} "
        "seconds by default: a request whose CLI never ends would never end either")
    assert timeout == seconds, f"agent.info says the timeout is {timeout!r}"


# --- Decision scenarios (features/agent/decisions.feature) --------------------------------


@given(parsers.parse('an agent for the "{backend}" backend'))
def agent_for(world: AgentWorld, backend: str) -> None:
    agent_with_backend(world, backend)


@given(parsers.parse('an agent for the "{backend}" backend with a timeout of {seconds:g} seconds'))
def agent_for_with_timeout(world: AgentWorld, backend: str, seconds: float) -> None:
    agent_with_backend(world, backend)
    agent_with_running_timeout(world, seconds)


@given(parsers.parse(
    'an agent for the "{backend}" backend with a safety timeout of {seconds:g} seconds'))
def agent_for_with_safety_timeout(world: AgentWorld, backend: str, seconds: float) -> None:
    """A timeout that is not the scenario's subject: real seconds, never scaled."""
    agent_with_backend(world, backend)
    world.settings["timeout"] = seconds
    world.settings["grace_period"] = 5.0 * world.time_scale


@given(parsers.parse("a safety grace period of {seconds:g} seconds"))
@given(parsers.parse("a grace period of {seconds:g} real seconds"))
def safety_grace(world: AgentWorld, seconds: float) -> None:
    """Real seconds, never scaled: a grace period that is not the scenario's subject (a
    safety one), or one whose bound the scenario checks in real time (AG-D6.2: a SIGKILL a
    grace period late must fall outside the 2 s of slack)."""
    world.settings["grace_period"] = seconds


@given(parsers.parse('an agent for the "{backend}" backend with the model "{model}"'))
def agent_with_model(world: AgentWorld, backend: str, model: str) -> None:
    agent_with_backend(world, backend)
    world.settings["model"] = model


@then(parsers.parse('the harness was started with the model "{model}"'))
def started_with_model(world: AgentWorld, model: str) -> None:
    argv = world.rig.last_start()["argv"]
    named = profile(world.backend).model_of(argv)
    assert named == model, f"the CLI was started without the model {model!r}: argv {argv}"


@then("the harness was started with no model of the agent's choosing")
def started_without_model(world: AgentWorld) -> None:
    argv = world.rig.last_start()["argv"]
    assert profile(world.backend).model_of(argv) is None, f"a model was chosen: argv {argv}"


@given(parsers.parse('an agent for the "{backend}" backend that sets "{name}" to "{value}"'))
def agent_setting_env(world: AgentWorld, backend: str, name: str, value: str) -> None:
    agent_with_backend(world, backend)
    world.env[name] = value


@given(parsers.parse('an agent for the "{backend}" backend that strips "{name}"'))
def agent_stripping_env(world: AgentWorld, backend: str, name: str) -> None:
    agent_with_backend(world, backend)
    agent_strips_too(world, name)


@given(parsers.parse('an agent for the "{backend}" backend whose working directory does not exist'))
def agent_in_missing_directory(world: AgentWorld, backend: str) -> None:
    agent_with_backend(world, backend)
    world.settings["working_dir"] = str(world.root / "never-made")


@given(parsers.parse('an agent for the "{backend}" backend whose working directory is removed '
                      'once it is created'))
def agent_losing_working_dir(world: AgentWorld, backend: str) -> None:
    agent_with_backend(world, backend)
    directory = world.root / "made-then-removed"
    directory.mkdir(parents=True)
    world.settings["working_dir"] = str(directory)
    create_or_refuse(world, "the settings")
    assert world.refusal is None, f"an existing working directory was refused: {world.refusal}"
    shutil.rmtree(directory)  # with what the agent put there: GENESIS makes it a git repository


@given(parsers.parse('the agent strips "{name}" too'))
def agent_strips_too(world: AgentWorld, name: str) -> None:
    world.settings.setdefault("strip_env", []).append(name)


@when(parsers.parse('the agent, once created, answers "{message}"'))
def agent_answers_if_created(world: AgentWorld, message: str) -> None:
    """A refusal at creation is one of the answers the scenario accepts: then nothing is asked."""
    create_or_refuse(world, "the settings")
    if world.refusal is None:
        world.request(message)


@then("the creation was refused, or the request failed, with an error that names the missing "
      "directory")
def refused_naming_directory(world: AgentWorld) -> None:
    missing = str(world.settings["working_dir"])
    if world.refusal is not None:
        said = world.refusal
    else:
        assert world.result is not None, "the agent was created and never asked"
        response = world.result.response
        assert response.get("status") != 0, f"the request succeeded: {response}"
        said = f"{response.get('error')} {response.get('message')}"
    assert missing in said, f"the error does not name {missing}: {said[-300:]!r}"
    besides = said.replace(missing, "").lower()  # the directory's own name says nothing
    assert any(word in besides for word in MISSING), \
        f"the error does not say the directory is missing (in words such as " \
        f"{', '.join(MISSING)}): {said[-300:]!r}"


# What an error says of a directory that is not there, in the words implementations use.
MISSING = ("not a directory", "no such file", "not exist", "not found", "enoent", "errno 2]",
           "missing", "removed", "gone")


@when(parsers.parse('the agent answers "{message}"'))
def agent_answers(world: AgentWorld, message: str) -> None:
    world.request(message)


@when(parsers.parse('the agent is asked "{message}" {count:d} times'))
def agent_asked_times(world: AgentWorld, message: str, count: int) -> None:
    """What the agent holds is looked at after the first request (what it opens once and
    keeps, a log file, a cache, is open by then); the Then looks again after the last."""
    world.request(message)
    world.held_first = world.driver.held(world.ensure_agent())
    for _ in range(count - 1):
        world.request(message)


@then("after the last request the agent holds no more open file descriptors and no more "
      "unreaped children than after the first")
def nothing_more_held(world: AgentWorld) -> None:
    """An agent may close or reap just after it answers (an event loop's transport, a child
    watcher): it is looked at for up to HELD_SETTLE seconds before it is judged."""
    first, last = world.held_first, world.driver.held(world.ensure_agent())
    if first is None or last is None:
        not_applicable("the system does not say what a process holds (Linux's /proc does)")
    deadline = time.monotonic() + HELD_SETTLE
    while not (last.fds <= first.fds and last.zombies <= first.zombies) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
        last = world.driver.held(world.ensure_agent()) or last
    assert last.fds <= first.fds, (
        f"the agent held {first.fds} file descriptors after the first request and {last.fds} "
        f"after the last: {last.fds - first.fds} leaked")
    left = sorted(last.zombies - first.zombies)
    assert not left, f"children the agent never waited for are left zombies: pids {left}"


HELD_SETTLE = 2.0


@when("the agent answers a prompt cut in the middle of an emoji")
def agent_answers_cut_emoji(world: AgentWorld) -> None:
    """"Hello 👋" cut after its first UTF-16 unit: a lone high surrogate, as a JavaScript
    string's slice leaves it. Where the driver's protocol cannot carry it, it does not apply."""
    world.ensure_agent()  # an agent may run its CLI when created: not this request's doing
    world.starts_before = len(world.rig.starts())
    try:
        world.request("Hello \ud83d")
    except Unsendable as exc:
        not_applicable(f"the driver's protocol cannot carry a lone surrogate: {exc}")


def _started_none(world: AgentWorld) -> None:
    assert world.starts_before is not None, "the request was never made"
    started = world.rig.starts()[world.starts_before:]
    assert not started, f"the request started the harness: {started}"


@then("the request was refused with status 4 before any harness started, saying the prompt is "
      "not valid text, or the harness got the prompt's text before the cut and the request "
      "answered with status 0")
def refused_or_carried(world: AgentWorld) -> None:
    """The two correct answers to a prompt holding a lone surrogate (decision D-33)."""
    if world.response.get("status") == 4:
        _started_none(world)
        _says_not_text(world)
        return
    assert world.starts_before is not None, "the request was never made"
    starts = world.rig.starts()[world.starts_before:]
    pids = {s["pid"] for s in starts}
    got = [e["data"] for e in world.rig.record() if e["what"] == "stdin" and e["pid"] in pids]
    got += [a for s in starts for a in s["argv"]]
    assert any(str(g).startswith("Hello ") for g in got), (
        f"the prompt's text before the cut, 'Hello ', reached neither the harness's stdin "
        f"{got[:1]!r} nor its argv (response: {world.response})")
    assert world.response.get("status") == 0, (
        f"the harness got the prompt, and the request did not answer: status "
        f"{world.response.get('status')!r}, error {world.response.get('error')!r}")


# What an error says of a prompt that is not valid text, in the words implementations use.
NOT_TEXT = ("surrogate", "utf-8", "utf8", "unicode", "encod", "not valid text")


def _says_not_text(world: AgentWorld) -> None:
    said = f"{world.response.get('error')} {world.response.get('message')}".lower()
    assert any(word in said for word in NOT_TEXT), (
        f"the error does not say the prompt is not valid text (in words such as "
        f"{', '.join(NOT_TEXT)}): {said[-300:]!r}")


@when(parsers.parse("the agent answers a prompt of {size:d} bytes"))
def agent_answers_long_prompt(world: AgentWorld, size: int) -> None:
    world.request("x" * size)


@when("two requests arrive at the same time")
def two_requests(world: AgentWorld) -> None:
    world.rig.use(world.new_script())
    world.results = world.driver.agent_request_concurrently(world.ensure_agent(), ["one", "two"])


@then(parsers.parse("the response status is {status:d}"))
def status_is(world: AgentWorld, status: int) -> None:
    got = world.response.get("status")  # `sized`
    assert got == status, sized(world.response)


@then(parsers.parse('the response message contains "{text}"'))
def message_contains(world: AgentWorld, text: str, request: pytest.FixtureRequest) -> None:
    message = str(world.response.get("message"))
    if text in message or not _answers_with_the_last_message(world):
        found = text in message  # `sized`
        assert found, sized(world.response)
        return
    texts = _reported_texts(world, request)
    assert texts is None or any(text in t for t in texts), (
        f"{text!r} is neither in the answer, the turn's last message {message!r} (decisions "
        "D-33, D-34), nor in a text event the implementation reported")


@then(parsers.parse('the response message does not contain "{text}"'))
def message_lacks(world: AgentWorld, text: str, request: pytest.FixtureRequest) -> None:
    message = str(world.response.get("message"))
    at = message.find(text)
    assert at < 0, (f"the message ({len(message)} characters) has {text!r} at {at}: "
                    f"...{message[max(0, at - 100):at + len(text) + 100]!r}...")
    if _answers_with_the_last_message(world):
        texts = _reported_texts(world, request) or []
        assert not any(text in t for t in texts), f"a text event it reported has {text!r}"


def _answers_with_the_last_message(world: AgentWorld) -> bool:
    """A turn answered with its last message alone: codex's last agent message (decision
    D-33), or Claude's result, which repeats its last message and overrides the texts before
    it (RP-2.2, decision D-34). What the implementation read of the messages before it shows
    only in the events it reports."""
    if world.script is None:
        return False
    turn = world.script.profile
    said = world.script.texts if turn.whole_messages or turn.done_carries_text else []
    return bool(said) and world.response.get("message") == said[-1]


def _reported_texts(world: AgentWorld, request: pytest.FixtureRequest) -> list[str] | None:
    """The texts of the text events the implementation reported; None, and the running step
    not judged, from one that reports none."""
    events = reported_events(world, request)
    return None if events is None else [str(e.get("text")) for e in events
                                        if e.get("kind") == "text"]


# The facts a launch failure's message must carry, in the words implementations use.
CAUSES = {
    "not found": ("not found", "no such file", "enoent", "errno 2]"),
    "not executable": ("not executable", "permission denied", "eacces", "errno 13]"),
    "interpreter not found": ("interpreter",),
}


@then(parsers.parse('the response message names "{command}" and says "{reason}"'))
def message_names(world: AgentWorld, command: str, reason: str) -> None:
    message = str(world.response.get("message"))
    said = any(word in message.lower() for word in CAUSES[reason])
    assert command in message and said, f"message = {message!r}: it must name {command!r} " \
        f"and say {reason!r} (in words such as {', '.join(CAUSES[reason])})"
    gone = world.gone_interpreter  # named as a whole: not inside a longer word or path
    assert gone is None or re.search(rf"(?<![^\s'\"`(=:]){re.escape(gone)}(?![^\s'\"`),.:;])",
                                     message), \
        f"message = {message!r}: it must name the missing interpreter {gone!r}"


@then(parsers.parse("the response message gives exit code {code:d} and says the turn had "
                    "completed"))
def message_exit_after_completion(world: AgentWorld, code: int) -> None:
    message = str(world.response.get("message"))
    assert re.search(rf"(?<![\d.]){code}(?![\d.])", message) and _says_completed(message), \
        f"message = {message!r}: it must give exit code {code} and say the turn had completed"


@then(parsers.parse("the response error gives exit code {code:d}, not a failure of the agent "
                    "itself"))
def error_gives_exit_code(world: AgentWorld, code: int) -> None:
    """Seed 001: the agent "must report the error" of a CLI that exits non-zero: the error
    says the CLI exited and with which code, in any words ("exited with code 1", "exit
    status 1"); an error of the agent's own code in its place reports a different failure."""
    error = str(world.response.get("error"))
    assert "exit" in error.lower() and re.search(rf"(?<![\d.]){code}(?![\d.])", error), (
        f"error = {error!r}: it must report that the CLI exited with code {code}")


@then("the response does not say the turn had completed")
def message_not_completed(world: AgentWorld) -> None:
    message = str(world.response.get("message"))
    assert not _says_completed(message), (
        f"message = {message!r}: the stream reported the turn's failure, yet the message says "
        "the turn had completed")


def _says_completed(message: str) -> bool:
    """The message's first line (the failure; the turn's answer may follow) says the turn had
    completed ("after the turn completed", "once ... finished"), and does not deny it."""
    said = message.lower().partition("\n")[0]
    return bool(re.search(r"(after|once)\b[^.;]*\b(complet|finish)", said)) and not re.search(
        r"incomplet|unfinish|not (been )?(complet|finish)|before", said)


@then(parsers.parse("the response message is {size:d} bytes long"))
def message_size(world: AgentWorld, size: int) -> None:
    message = str(world.response.get("message"))
    got = len(message.encode())
    assert got == size, f"the message is {got} bytes, not {size}, ending {message[-80:]!r}"


@then(parsers.parse("the response message is the {count:d} numbered texts in order"))
def message_numbered(world: AgentWorld, count: int, request: pytest.FixtureRequest) -> None:
    """Every text, in order; or the last message alone, codex's (decision D-33) or the result
    repeating claude's (D-34), with every text in order among the text events reported."""
    message = str(world.response.get("message"))
    expected = "".join(f"{i}," for i in range(count))
    turn = world.script.profile if world.script is not None else None
    if turn and (turn.whole_messages or turn.done_carries_text) and message == f"{count - 1},":
        texts = _reported_texts(world, request)
        assert texts is None or "".join(texts) == expected, (
            f"the answer is the last message, {message!r}; the text events reported are "
            f"{len(texts or [])}, not the {count} numbered texts in order")
        return
    same = message == expected  # `sized`
    assert same, (f"message of {len(message)} chars starts {message[:80]!r}, not the "
                  f"{len(expected)} expected ({expected[:40]!r}...)")


def _warnings(world: AgentWorld) -> list[str]:
    """The answer's warnings; none where it leaves out the list, which is optional."""
    warnings = world.response.get("warnings", [])
    assert isinstance(warnings, list), f"the response's warnings are no list: {world.response}"
    return [str(w) for w in warnings]


@then("the response has no warnings")
def no_warnings(world: AgentWorld) -> None:
    warnings = _warnings(world)
    assert warnings == [], f"nothing went wrong, yet the response warns: {warnings}"


@then(parsers.parse('the response has no warning containing "{text}"'))
def no_warning_containing(world: AgentWorld, text: str) -> None:
    warnings = _warnings(world)
    assert not any(text in w for w in warnings), f"warnings: {warnings}"


@then(parsers.parse('the response has a warning containing "{text}"'))
def warning_containing(world: AgentWorld, text: str) -> None:
    warnings = _warnings(world)
    assert any(text in w for w in warnings), f"warnings: {warnings}"


@then(parsers.parse('the response message is the {size:d} bytes of text then "{text}", or '
                   '"{alone}" alone with a warning that {count:d} line was skipped'))
def read_whole_or_skipped(world: AgentWorld, size: int, text: str, alone: str, count: int,
                          request: pytest.FixtureRequest) -> None:
    """A line past 16 MiB and below 128 MiB: its limit is the implementation's choice
    (decision D-33). Read whole, its text leads the answer and no warning says a line was
    skipped; skipped, the answer is the rest and a warning counts it."""
    message = str(_answered(world).get("message"))
    if message == alone and _answers_with_the_last_message(world) and not any(
            "skipped" in w for w in _warnings(world)):
        texts = _reported_texts(world, request)
        found = texts is None or "x" * size in texts  # `sized`
        assert found, (
            f"the answer is the turn's last message {alone!r} (decisions D-33, D-34) and no "
            f"warning says a line was skipped, but no text event it reported is the long "
            f"line's {size} bytes: it was neither read whole nor skipped with a warning")
        return
    if message != alone:
        whole = message == "x" * size + text  # `sized`
        assert whole, (
            f"the message is neither the long line's {size} bytes of text then {text!r} (read "
            f"whole) nor {alone!r} (skipped): {len(message)} characters, ending "
            f"{message[-80:]!r}")
        no_warning_containing(world, "skipped")
        return
    warning_counts_skipped(world, count)


@then(parsers.parse("that warning gives {count:d} as the number of lines skipped"))
def warning_counts_skipped(world: AgentWorld, count: int) -> None:
    """The warning that says "skipped" gives `count` as a number of its own (the line limit
    it may also give is another number)."""
    said = [w for w in _warnings(world) if "skipped" in w]
    numbers = [{int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", w)} for w in said]
    assert any(count in found for found in numbers), (
        f"no warning of a skipped line gives {count} as their number: {said}")


@then("the answer came within the timeout plus the grace period")
def within_deadline(world: AgentWorld) -> None:
    assert world.elapsed is not None, "no request was made"
    timeout = world.settings.get("timeout", DEFAULT_TIMEOUT)
    grace = world.settings.get("grace_period", DEFAULT_GRACE)
    bound = timeout + grace + START_SLACK
    assert world.elapsed <= bound, (
        f"the request took {world.elapsed:.2f} s, more than {bound:g} (timeout {timeout:g} + "
        f"grace {grace:g} + {START_SLACK:g} s to start and reap): {_timing(world)}")


@then("the answer came within two grace periods")
def within_two_graces(world: AgentWorld) -> None:
    """A CLI that answers at once and then keeps running (D-38): a grace period to end, and one
    for SIGKILL after the SIGTERM; far under the scenario's timeout."""
    assert world.elapsed is not None, "no request was made"
    grace = world.settings.get("grace_period", DEFAULT_GRACE)
    bound = 2 * grace + START_SLACK
    assert world.elapsed <= bound, (
        f"the request took {world.elapsed:.2f} s, more than {bound:g} (two grace periods of "
        f"{grace:g} s + {START_SLACK:g} s to start and reap) after a CLI that answered at once: "
        f"{_timing(world)}")


@then("the response has:")
def response_has(world: AgentWorld, datatable: list[list[str]]) -> None:
    for key, value in datatable[1:]:
        assert world.response.get(key) == json.loads(value), f"{key} = {world.response.get(key)!r}"
    if any(key == "message" for key, _ in datatable[1:]):
        _read_as_printed(world)


@then(parsers.re(r"the agent is (?P<state>READY|DEGRADED)"))
def agent_is(world: AgentWorld, state: str) -> None:
    info = world.driver.agent_info(world.ensure_agent())
    assert info["state"] == state, f"the agent is {info['state']}, not {state}"


def _inject(world: AgentWorld, fault: str) -> None:
    """Have the driver inject `fault` (its method) into the agent: only an agent in the suite's
    own process can take one (decisions D-23, D-24); elsewhere the scenario does not apply."""
    inject = getattr(world.driver, fault, None)
    if inject is None:
        not_applicable("only an agent in the suite's own process can be handed a fault; "
                       "elsewhere its monitors and code are the implementation's own")
    inject(world.ensure_agent())


@given("a monitor of the agent fails on every state and event it is handed")
def monitor_fails(world: AgentWorld) -> None:
    _inject(world, "fail_monitoring")


@given("the agent's own reading of the stream fails on every line")
def agent_fails_inside(world: AgentWorld) -> None:
    _inject(world, "fail_inside")


@then("the agent's monitors heard it go BUSY, DEGRADED and back to READY, each with a reason")
def heard_degraded(world: AgentWorld) -> None:
    states = world.result.states if world.result else []
    assert [s.get("state") for s in states] == ["BUSY", "DEGRADED", "READY"], (
        f"the states published during the request: {states}")
    unexplained = [s for s in states if not str(s.get("reason") or "").strip()]
    assert not unexplained, f"states published without a reason: {unexplained}"


@then("the agent's other monitors heard it go BUSY and back to READY")
def others_heard(world: AgentWorld) -> None:
    states = [s.get("state") for s in world.result.states] if world.result else []
    assert states[:1] == ["BUSY"] and states[-1:] == ["READY"], (
        f"the states the suite's monitor heard during the request: {states}")


@then("one response has status 5 and names the agent as busy")
def one_busy(world: AgentWorld) -> None:
    busy = [r.response for r in world.results if r.response.get("status") == 5]
    assert len(busy) == 1, [r.response for r in world.results]
    assert "busy" in str(busy[0].get("message")).lower()


@then(parsers.parse('the other response has status 0 and message "{text}"'))
def other_ok(world: AgentWorld, text: str) -> None:
    done = [r.response for r in world.results if r.response.get("status") != 5]
    assert [(r.get("status"), r.get("message")) for r in done] == [(0, text)]


@then("every node event published since the agent was created has a reason")
def events_have_reasons(world: AgentWorld) -> None:
    assert world.result is not None
    events = world.created_states + world.result.states
    assert events and all(isinstance(e.get("reason"), str) and e["reason"] for e in events)


@then("the node event that ended the request gives a reason that names the timeout")
def request_ended_by_timeout(world: AgentWorld) -> None:
    assert world.result is not None, "no request was made"
    ended = [e for e in world.result.states if e.get("previous") == "BUSY"]
    assert ended, f"no node event ended the request (it stayed BUSY): {world.result.states}"
    reason = str(ended[-1].get("reason"))
    assert re.search(r"time[sd]? ?out", reason, re.IGNORECASE), (
        f"the last node event of a request that timed out gives the reason {reason!r}")


@then("every node event names its state with its GENESIS value:")
def events_genesis_values(world: AgentWorld, datatable: list[list[str]]) -> None:
    assert world.result is not None
    values = {state: int(value) for state, value in datatable[1:]}
    events = world.created_states + world.result.states
    seen = {(e["state"], e.get("state_code")) for e in events}
    assert seen <= set(values.items()), f"published (state, value) pairs: {sorted(seen)}"
    assert {"READY", "BUSY"} <= {state for state, _ in seen}, f"published: {sorted(seen)}"


# Words that say a turn did not complete (AG-H15): the fact, in any of its usual wordings.
NOT_COMPLETED = re.compile(
    r"(not|never|n't|without|before)\b.{0,40}\b(complet|finish|end)|no (result|turn\.completed)"
    r"|ended (early|prematurely)|incomplete|cut (off|short)|truncated", re.IGNORECASE)


@then(parsers.parse('the response keeps "{text}" or fails, and says the turn did not complete'))
def keeps_or_fails_incomplete(world: AgentWorld, text: str) -> None:
    response = world.response
    if response.get("status") == 0:
        assert response.get("message") == text, f"message = {response.get('message')!r}"
        said = [str(w) for w in response.get("warnings") or []]
    else:
        said = [str(response.get("error") or response.get("message"))]
    assert any(NOT_COMPLETED.search(s) for s in said), (
        f"status {response.get('status')}, and nothing says the turn did not complete: {said}")


@then("no warning of the response says the turn did not complete")
def no_warning_incomplete(world: AgentWorld) -> None:
    said = [w for w in _warnings(world) if NOT_COMPLETED.search(w)]
    assert not said, f"the turn completed, yet the answer says it did not: {said}"


@then(parsers.parse('the response error contains "{text}"'))
def error_contains(world: AgentWorld, text: str) -> None:
    error = str(world.response.get("error"))
    found = text in error  # `sized`
    assert found, f"the error does not carry {text!r}: {sized(world.response)}"


@then(parsers.parse('the response error contains "{text}" and is at most {size:d} bytes'))
def error_tail(world: AgentWorld, text: str, size: int) -> None:
    error = str(world.response.get("error"))
    found, got = text in error, len(error.encode())  # `sized`
    assert found, f"the error does not carry {text!r}: {error[-200:]!r}"
    assert got <= size, f"the error is {got} bytes, ending {error[-200:]!r}"


@when("the agent is created")
def agent_created(world: AgentWorld) -> None:
    """With the harness ready to answer: an agent asked to probe its credentials runs it."""
    world.rig.use(world.script if world.script is not None else world.default_script())
    started = time.monotonic()
    world.ensure_agent()
    world.elapsed = time.monotonic() - started


@when(parsers.parse('an agent is created for the backend "{backend}"'))
def created_for_backend(world: AgentWorld, backend: str) -> None:
    """Asked of every implementation, whatever backends it declares: the subject is the
    refusal of one it does not know."""
    world.backend = backend
    create_or_refuse(world)


@when(parsers.parse("an agent is created with the {setting} set to {value}"))
def created_with_setting(world: AgentWorld, setting: str, value: str) -> None:
    """`value` is JSON, as the adapter protocol carries it: -1, 0, ["KEY="]. The env given
    joins the scenario's own (its PATH finds the fake harness)."""
    given = json.loads(value)
    if setting == "env" and isinstance(given, dict):
        world.env.update(given)  # joined by the scenario's PATH
    else:
        world.settings[setting] = given
    create_or_refuse(world, f"{setting} {value}")


def create_or_refuse(world: AgentWorld, what: str | None = None) -> None:
    """The agent created, or the implementation's words refusing it in `world.refusal`. With
    `what` (the settings the scenario is about), not applicable when the driver's protocol
    cannot carry them; without it, that is an error of the suite."""
    try:
        world.ensure_agent()
    except Refused as exc:
        world.refusal = exc.answer
    except Unsendable as exc:
        if what is None:
            raise
        not_applicable(f"the driver's protocol cannot carry {what}: {exc}")


@then(parsers.parse('the creation is refused with an error that names "{name}"'))
def creation_refused(world: AgentWorld, name: str) -> None:
    assert world.refusal is not None, (
        f"an agent was created for the backend {world.backend!r} with {world.settings!r} "
        f"(agent {world.agent!r})")
    assert name in world.refusal, f"the error does not name {name!r}: {world.refusal[-300:]!r}"


@then(parsers.parse("it was created within {seconds:g} real seconds"))
def created_within(world: AgentWorld, seconds: float) -> None:
    assert world.elapsed is not None and world.elapsed <= seconds, (
        f"creating the agent took {world.elapsed:.1f} s")


@when(parsers.parse('the agent answers "{message}" resuming the session "{session}"'))
def agent_answers_resuming(world: AgentWorld, message: str, session: str) -> None:
    if not getattr(world.driver, "resumes_sessions", True):
        not_applicable("this driver resumes by conversation, not session_id")
    if world.script is None:
        world.new_script().init().text("resumed").done("resumed")
    world.rig.use(world.new_script())
    world.result = world.driver.agent_request(world.ensure_agent(), message, session)


@given(parsers.parse('the harness reports the session "{session}"'))
def harness_reports_session(world: AgentWorld, session: str) -> None:
    world.new_script().init(session).text("resumed").done("resumed")


@given(parsers.parse('the harness names the session "{first}" in its init line and '
                      '"{later}" in its result line'))
def harness_names_two_sessions(world: AgentWorld, first: str, later: str) -> None:
    script = world.new_script().init(first).text("Hello")
    done = script.done_line("Hello")
    assert "session_id" in done, f"{world.backend}'s result line names no session: {done}"
    script.line({**done, "session_id": later})


@given(parsers.parse('the harness prints no init line and names the session "{session}" on '
                      'its other lines'))
def harness_without_init(world: AgentWorld, session: str) -> None:
    script = world.new_script()
    for line in (script.text_line("Hello"), script.done_line("Hello")):
        assert "session_id" in line, f"{world.backend}'s line names no session: {line}"
        script.line({**line, "session_id": session})


@then(parsers.parse('the harness was started resuming the session "{session}"'))
def started_resuming(world: AgentWorld, session: str) -> None:
    argv = world.rig.last_start()["argv"]
    assert profile(world.backend).resumed_session(argv) == session, f"argv: {argv}"


@then(parsers.parse('no harness was started resuming the session "{session}"'))
def never_resumed(world: AgentWorld, session: str) -> None:
    resumed = [s["argv"] for s in world.rig.starts()
               if profile(world.backend).resumed_session(s["argv"]) == session]
    assert resumed == [], f"started resuming {session!r}: {resumed}"


@then("the harness was started resuming no session")
def started_resuming_nothing(world: AgentWorld) -> None:
    argv = world.rig.last_start()["argv"]
    assert profile(world.backend).resumed_session(argv) is None, f"argv: {argv}"
