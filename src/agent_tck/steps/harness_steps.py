"""Steps that script the fake harness and observe its process from the outside."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.doubles.backends import as_printed
from agent_tck.doubles.harness import whereabouts
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import HARNESS_NAMES, Script, read_record
from agent_tck.kit import verdicts
from agent_tck.kit.drivers.base import INHERITED_ENV
from agent_tck.kit.errors import OwnedElsewhere, SuiteError
from agent_tck.kit.observe import still_running, unobservable, unreaped
from agent_tck.kit.verdicts import not_applicable
from agent_tck.steps.agent_steps import START_SLACK, agent_with_running_timeout, creation_refused
from agent_tck.steps.world import AgentWorld, sized


@pytest.fixture(scope="session")
def stray_log(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Where a fake harness started after its scenario ended notes itself, and how many of
    its entries were reported already (one position for the session, so none is skipped)."""
    return {"path": tmp_path_factory.mktemp("strays") / "strays.jsonl", "seen": 0}


RIG = pytest.StashKey[HarnessRig]()  # the scenario's rig, for its report


@pytest.fixture
def harness_rig(request: pytest.FixtureRequest, tmp_path: Path, stray_log: dict[str, Any]
                ) -> Iterator[HarnessRig]:
    """The scenario's own fake harness. Closed when the scenario ends; a straggler (a harness
    of an ended scenario, started since the last check) is an error of the suite. Where the
    suite cannot see processes (no /proc), the scenario is not run, and says why."""
    if (why := unobservable()) is not None:
        pytest.skip(f"not run: judging this scenario {why}")
    rig = HarnessRig(tmp_path / "harness", stray_log["path"])
    request.node.stash[RIG] = rig
    yield rig
    rig.close()
    strays = read_record(stray_log["path"])[stray_log["seen"]:]
    stray_log["seen"] += len(strays)
    if strays:
        raise SuiteError(f"error of the suite: {len(strays)} fake harness(es) started after "
                         f"their scenario ended, so no verdict read them: {strays}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """Before the scenario's report is made (`verdicts.outcome` reads them): where its fake
    CLIs got to, for a failure's message, and why its setup never happened, when it did not,
    unless the cause is the scenario's own requirement's subject (`whereabouts.OWNERS`)."""
    rig = item.stash.get(RIG, None)
    if call.when != "call" or rig is None or (
            call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)):
        return
    record = rig.record()
    # Where the fake was when the implementation broke, not after the driver dropped it
    until = getattr(call.excinfo.value, "at", None) if call.excinfo is not None else None
    if call.excinfo is not None:
        item.stash[verdicts.SEEN] = whereabouts.told(record, until)
    unmet = whereabouts.unmet(record, until)
    reqs = {m.args[0] for m in item.iter_markers("req")}
    elsewhere = call.excinfo.value if call.excinfo is not None else None
    if isinstance(elsewhere, OwnedElsewhere) and elsewhere.owner not in reqs:
        item.stash[verdicts.UNSET] = (f"{elsewhere} (charged to {elsewhere.owner}, whose "
                                      "subject that is)")
        return
    owner = whereabouts.OWNERS.get(unmet[1], "") if unmet is not None else ""
    if unmet is not None and owner not in reqs:
        first, _, rest = unmet[0].partition("\n")
        charged = f" (charged to {owner}, whose subject that is)" if owner else ""
        item.stash[verdicts.UNSET] = f"{first}{charged}\n{rest}"


@given(parsers.parse("the harness prints:"))
def harness_prints(world: AgentWorld, docstring: str) -> None:
    """Each line of the docstring, with the fields it leaves out as the real CLI prints them
    (`lines.complete`): the feature shows what matters, the implementation gets a real line."""
    script = world.new_script()
    for line in docstring.splitlines():
        if line.strip():
            script.line(json.loads(as_printed(world.backend, line)))


@given(parsers.parse('the harness replays the recorded transcript "{name}"'))
def harness_replays(world: AgentWorld, name: str) -> None:
    """Print, line for line, what a real CLI printed in a recorded run (fixtures/transcripts)."""
    from agent_tck.doubles.backends.transcripts import index

    transcript = next((t for t in index() if t.name == name), None)
    assert transcript is not None, f"no recorded transcript {name!r} in fixtures/transcripts"
    script = world.new_script()
    for line in transcript.lines():
        script.emitted.append(json.loads(line))
        script.add("out", line + "\n")


@given("the harness replays the CLI's recorded transcript of a text answer")
def harness_replays_text(world: AgentWorld) -> None:
    """The scenario's backend's `<backend>-text` transcript; not applicable to a CLI with none."""
    from agent_tck.doubles.backends.transcripts import index

    name = f"{world.backend}-text"
    if not any(t.name == name for t in index()):
        not_applicable(f"no recorded transcript of a {world.backend} text answer "
                       "(fixtures/transcripts)")
    harness_replays(world, name)


@then("the response's session_id is the one the recorded CLI reported")
def session_as_recorded(world: AgentWorld) -> None:
    assert world.script is not None
    reported = [line.get("session_id") or line.get("thread_id") for line in world.script.emitted
                if line.get("subtype") == "init" or line.get("type") == "thread.started"]
    assert reported, "the transcript has no init or thread.started line"
    got = world.response.get("session_id")  # `sized`
    assert got == reported[0], sized(world.response)


@given(parsers.parse("the harness then exits with code {code:d}"))
@given(parsers.parse("the harness exits with code {code:d}"))
def harness_exits(world: AgentWorld, code: int) -> None:
    world.new_script().add("exit", code)


@given(parsers.re(r"the harness is killed by (?P<name>SIG[A-Z]+)"))
def harness_killed(world: AgentWorld, name: str) -> None:
    world.new_script().init().add("die", name)


@given(parsers.re(r'the harness writes "(?P<first>[^"]*)" and "(?P<second>[^"]*)" to stderr, '
                  r"then (?:exits with code (?P<code>\d+)|never finishes)$"))
def harness_says_then_fails(world: AgentWorld, first: str, second: str,
                            code: str | None) -> None:
    """Two lines on stderr, then an exit code, or no end: the deadline of "the harness never
    finishes"."""
    script = world.new_script().init().add("err", f"{first}\n{second}\n")
    if code is not None:
        script.add("exit", int(code))
        return
    agent_with_running_timeout(world, 10)
    script.add("sleep", 10_000)


@given("the harness never finishes")
def harness_never_finishes(world: AgentWorld) -> None:
    """A deadline of ten scaled seconds, floored as every running deadline is (MIN_DEADLINE):
    a scaled 0.2 s could end the harness before it started, leaving nothing to judge."""
    agent_with_running_timeout(world, 10)
    world.new_script().init().add("sleep", 10_000)


@given(parsers.parse("the harness reads {size:d} bytes of stdin, then no more, and hangs"))
def harness_stops_reading(world: AgentWorld, size: int) -> None:
    """It hangs for 10 real seconds: far past the scenario's deadline, and then a wrapper
    stuck writing the prompt is freed (the pipe breaks), so the scenario fails in seconds
    instead of waiting out the suite's own timeout."""
    script = world.new_script()
    script.read_stdin = False
    script.add("read_stdin_bytes", size).init().add("sleep_real", 10)


@given("the harness command is missing from PATH")
def harness_missing(world: AgentWorld) -> None:
    empty = world.root / "empty-bin"
    empty.mkdir(parents=True)
    world.path_override = str(empty)


@given(parsers.parse('the harness answers "{text}", then keeps running'))
def harness_answers_then_lingers(world: AgentWorld, text: str) -> None:
    """Its turn ends with `text`, and it sleeps on (an ACP agent reads no more of its stdin)."""
    script = world.new_script()
    if isinstance(script, AcpScript):
        script.done(text)
    else:
        script.init().text(text).done()
    script.add("sleep", 10_000)


@given(parsers.parse('the harness reads stdin until it is closed, then answers "{text}"'))
def harness_reads_stdin(world: AgentWorld, text: str) -> None:
    world.new_script().init().text(text).done()  # every script reads stdin to its end first


@given("the harness starts a grandchild that holds stdout open, then never finishes")
def harness_grandchild_timeout(world: AgentWorld) -> None:
    world.new_script().add("spawn_holder", 500).init().add("sleep", 10_000)


@given(parsers.parse('the harness prints a text event with {after} after it on its line, then '
                      'answers "{text}"'))
def harness_object_and_more(world: AgentWorld, after: str, text: str) -> None:
    """`after` as written in the feature: a JSON string's content, or raw JSON text."""
    script = world.new_script().init()
    extra = json.loads(after) if after.startswith('"') else after
    script.add("out", json.dumps(script.text_line("smuggled ")) + extra + "\n")
    script.text(text).done()


@given(
    parsers.parse(
        'the harness answers "{text}", starts a grandchild that holds stdout open, and exits'
    )
)
def harness_grandchild_exit(world: AgentWorld, text: str) -> None:
    world.new_script().init().text(text).done().add("spawn_holder", 500).add("exit", 0)


@given("the harness starts a process in a session of its own, then never finishes")
def harness_escaped_timeout(world: AgentWorld) -> None:
    world.new_script().add("spawn_escaped", 10_000).init().add("sleep", 10_000)


@given("the harness starts a process in a session of its own that notes a SIGTERM, then "
       "never finishes")
def harness_escaped_noting(world: AgentWorld) -> None:
    world.new_script().add("spawn_escaped_noting", 500).init().add("sleep", 10_000)


@given("the harness starts a process in a session of its own, which starts one in a session "
       "of its own that notes a SIGTERM, then never finishes")
def harness_escaped_noting_below(world: AgentWorld) -> None:
    world.new_script().add("spawn_escaped_noting_below", 500).init().add("sleep", 10_000)


@then("the process in a session of its own was sent SIGTERM")
def escaped_got_sigterm(world: AgentWorld) -> None:
    started = bool(world.rig.grandchildren())
    noted = [e for e in world.rig.record() if e["what"] == "signal" and e.get("by") == "grandchild"]
    assert noted, ("the process the harness started in a session of its own was killed without "
                   "a SIGTERM first (it noted none)" if started else
                   "the harness was stopped before its process in a session of its own was "
                   "ready: the deadline came too early for this scenario")


@given(parsers.parse(
    'the harness answers "{text}", starts a process in a session of its own, and exits'
))
def harness_escaped_exit(world: AgentWorld, text: str) -> None:
    world.new_script().init().text(text).done().add("spawn_escaped", 500).add("exit", 0)


@given("the harness starts a process that hides from it, then never finishes")
def harness_hidden_timeout(world: AgentWorld) -> None:
    world.new_script().add("spawn_hidden", 500).init().add("sleep", 10_000)


@given(parsers.parse(
    'the harness answers "{text}", starts a process that hides from it, and exits'
))
def harness_hidden_exit(world: AgentWorld, text: str) -> None:
    world.new_script().init().text(text).done().add("spawn_hidden", 500).add("exit", 0)


@given(parsers.parse(
    'the harness answers "{text}", starts a process that hides from it under the name '
    '"{name}", and exits'
))
def harness_hidden_named_exit(world: AgentWorld, text: str, name: str) -> None:
    hidden = {"seconds": 500, "name": name}
    world.new_script().init().text(text).done().add("spawn_hidden_as", hidden).add("exit", 0)


@given("the harness ignores SIGTERM, starts a process in a session of its own that ignores it "
       "too, then never finishes")
def harness_ignores_term_escaped_ignoring(world: AgentWorld) -> None:
    world.new_script().add("on_term", "ignore").add("spawn_escaped_ignoring", 10_000).init() \
        .add("sleep", 10_000)


@given(parsers.parse("the harness ignores SIGTERM, starts {count:d} processes in its own "
                     "process group that note each SIGTERM and go on, then never finishes"))
def harness_ignores_term_group(world: AgentWorld, count: int) -> None:
    world.new_script().add("on_term", "ignore").add("spawn_group_noting", count).init() \
        .add("sleep", 10_000)


@given("the harness ignores SIGTERM and never finishes")
def harness_ignores_sigterm(world: AgentWorld) -> None:
    world.new_script().add("on_term", "ignore").init().add("sleep", 10_000)


@given(parsers.parse('the harness writes {size:d} bytes to stderr, then answers "{text}"'))
def harness_stderr_flood(world: AgentWorld, size: int, text: str) -> None:
    world.new_script().add("err_bytes", size).init().text(text).done()


@given(parsers.parse("the harness answers with a text of {size:d} bytes in one line"))
def harness_long_line(world: AgentWorld, size: int) -> None:
    world.new_script().init().text("x" * size).done()


@given(parsers.parse('the harness prints bytes that are not UTF-8, then answers "{text}"'))
def harness_invalid_utf8(world: AgentWorld, text: str) -> None:
    junk = b"\xff\xfe\xfd not UTF-8\n" + b'{"type":"system","subtype":"status","note":"caf\xe9"}\n'
    world.new_script().init().add("raw_b64", base64.b64encode(junk).decode()).text(text).done()


@given(parsers.parse('the harness answers "{text}", then exits {seconds:g} real seconds later'))
def harness_answers_then_exits_later(world: AgentWorld, text: str, seconds: float) -> None:
    """A CLI slow to exit after its turn (a busy machine): real seconds, never scaled."""
    world.new_script().init().text(text).done().add("sleep_real", seconds).add("exit", 0)


@given(parsers.parse('the harness answers "{text}" without reading stdin, then exits'))
def harness_ignores_stdin(world: AgentWorld, text: str) -> None:
    script = world.new_script()
    script.read_stdin = False
    script.init().text(text).done(text).add("exit", 0)


@given(parsers.parse('the harness takes {seconds:g} real seconds to answer "{text}"'))
def harness_slow_real(world: AgentWorld, seconds: float, text: str) -> None:
    """A pause that is not the scenario's subject: real seconds, never scaled."""
    world.new_script().init().add("sleep_real", seconds).text(text).done()


CHATTER_RATE = 5  # lines per timeout: far more often than a timer reset by output could fire
CHATTER_SPAN = 3  # the chatter lasts this many times the longest a correct answer takes
MOSTLY_SILENT = 0.9  # "prints nothing for most of the timeout": this part of it


@given(parsers.re(r"the harness (?P<silent>prints nothing for most of the timeout, then )?"
                  r"keeps printing (?P<what>text events|tool events|stderr lines) long past "
                  r'the deadline, then answers "(?P<text>[^"]*)"$'))
def harness_chatters(world: AgentWorld, what: str, text: str, silent: str | None) -> None:
    """Signs of life well past the deadline: a line CHATTER_RATE times per timeout (real
    seconds, as the running timeout is), for CHATTER_SPAN times the timeout plus the grace
    period plus START_SLACK; then the answer, for a wrapper that let it run. Silent first
    for most of the timeout: a deadline counted from the first line runs on past the
    request's."""
    timeout = world.settings["timeout"]
    longest = timeout + world.settings["grace_period"] + START_SLACK
    script = world.new_script()
    if silent:
        script.add("sleep_real", timeout * MOSTLY_SILENT)
    script.init().add("chatter", {"lines": _chatter(script, what), "every": timeout / CHATTER_RATE,
                                  "for": CHATTER_SPAN * longest, "stderr": what == "stderr lines"})
    script.text(text).done()


def _chatter(script: Script, what: str) -> list[Any]:
    """The lines a CLI at work prints, in the backend's own shapes, to be cycled."""
    if what == "stderr lines":
        return ["working...", "still working..."]
    if what == "tool events":
        return [script.profile.tool(f"call_{n}", result=done) for n in (1, 2)
                for done in (False, True)]
    return [script.text_line(f"working, step {n}") for n in (1, 2, 3)]


@then(parsers.parse('the harness received "{prompt}" as its prompt, not as an option'))
def prompt_not_option(world: AgentWorld, prompt: str) -> None:
    start = world.rig.last_start()
    argv: list[str] = start["argv"]
    options = argv[: argv.index("--")] if "--" in argv else argv
    assert prompt not in options, f"the prompt is among the options: {argv}"
    stdin = [e["data"] for e in world.rig.record() if e["what"] == "stdin"]
    after_dashes = "--" in argv and argv[argv.index("--") + 1 :] == [prompt]
    assert stdin[-1:] == [prompt] or after_dashes, f"prompt not delivered: stdin {stdin}"


@then("the harness read the whole prompt on its stdin")
def read_whole_prompt(world: AgentWorld) -> None:
    """The harness read its stdin to its end, and what it read is the request's prompt."""
    stdin = [e["data"] for e in world.rig.record() if e["what"] == "stdin"]
    assert stdin, "the harness never reached the end of its stdin"
    assert stdin[-1] == world.prompt, (
        f"the harness read {len(stdin[-1])} characters on its stdin, not the prompt's "
        f"{len(world.prompt or '')}")


@then("the harness ran in its own process group")
def own_process_group(world: AgentWorld) -> None:
    start = world.rig.last_start()
    assert start["pgid"] == start["pid"], f"harness pgid {start['pgid']} != pid {start['pid']}"


# How long the suite waits for a killed agent's CLI to start its grandchild, and then for the
# CLI and everything it started to end. Neither is the scenario's subject: an agent that ends
# them does so at once (the reference within milliseconds), so generous bounds cost nothing.
KILL_START = 30.0
KILL_END = 15.0


@when("the agent's process is killed while the harness runs")
def agent_killed(world: AgentWorld) -> None:
    """SIGKILL, as an out-of-memory killer or a container's stop sends it: the agent has no
    chance to clean up, only what it arranged beforehand works."""
    world.use_script()
    agent = world.ensure_agent()  # an agent that runs its CLI when created has done so now
    earlier = len(world.rig.grandchildren())
    assert world.script is not None
    silent = world.script.last_step  # its last step, which never ends, prints nothing

    def started() -> bool:
        # Its process started, and every line written: a harness that wrote after the agent
        # died would meet a closed pipe and end on that, before its SIGTERM could come.
        return len(world.rig.grandchildren()) > earlier and world.rig.began(silent)

    world.driver.agent_request_killed(agent, "Hello", started, KILL_START)


@then("the harness and its grandchild end soon after")
def killed_agent_left_nothing(world: AgentWorld) -> None:
    start = world.rig.last_start()
    pids = [start["pid"], *world.rig.grandchildren()]
    running = still_running(pids, within=KILL_END)
    assert not running, (f"{KILL_END:g} s after the agent was killed, what its CLI "
                         f"(pid {start['pid']}) started is still running (pid: state): {running}")


@then("neither the harness nor its grandchild is left running")
def nothing_left(world: AgentWorld) -> None:
    start = world.rig.last_start()
    left = unreaped(start["pid"], start["ppid"])
    assert left is None, left
    # A killed grandchild is reparented to init, which reaps it: a zombie there is dead.
    grandchildren = world.rig.grandchildren()
    # A harness that starts its grandchild first and then runs on must have started it by the
    # deadline; one that starts it after its answer may be ended first, and rightly.
    first = world.script.steps[:1] if world.script is not None else []
    spawns = any(op.startswith("spawn_") for step in first for op in step)
    assert grandchildren or not spawns, (
        "the harness was stopped before it started its grandchild: nothing here shows that a "
        "grandchild is stopped (the deadline came too early for this scenario)")
    running = still_running(grandchildren)
    assert not running, f"grandchildren still running (pid: state): {running}"


@then("the harness received SIGTERM")
def received_sigterm(harness_rig: HarnessRig) -> None:
    """The first signal the harness caught was SIGTERM (agent and runner scenarios alike)."""
    signals = harness_rig.signals(harness_rig.last_start()["pid"])
    assert signals[:1] == ["SIGTERM"], (
        f"the harness got no SIGTERM first (signals: {signals}); what its harnesses noted:\n"
        + _record_outline(harness_rig))


def _record_outline(rig: HarnessRig) -> str:
    """The record's starts, grandchildren, signals and ends, one a line with their pids and
    times: where a signal went, for a failure that says none came."""
    keys = ("what", "pid", "ppid", "pgid", "signal", "by", "code", "t")
    return "\n".join("  " + ", ".join(f"{k}={e[k]}" for k in keys if k in e)
                     for e in rig.record()
                     if e["what"] in ("start", "grandchild", "signal", "end", "refused"))


@then("the harness received SIGTERM once")
def received_sigterm_once(harness_rig: HarnessRig) -> None:
    """SIGTERM, and no second one before the SIGKILL (which no process can catch)."""
    signals = harness_rig.signals(harness_rig.last_start()["pid"])
    assert signals == ["SIGTERM"], f"the harness caught {signals or 'no signal'}, not one SIGTERM"


@then("each process of its group received SIGTERM once")
def group_received_sigterm_once(harness_rig: HarnessRig) -> None:
    """Each process the harness started in its own group caught one SIGTERM, no more."""
    group = [e["pid"] for e in harness_rig.record() if e["what"] == "grandchild" and e.get("group")]
    assert group, "the harness started no process in its group (the scenario's premise)"
    caught = {pid: harness_rig.signals(pid) for pid in group}
    wrong = {pid: signals for pid, signals in caught.items() if signals != ["SIGTERM"]}
    assert not wrong, f"processes of the CLI's group that did not catch one SIGTERM: {wrong}"


# --- Hostile harnesses (features/agent/hostile.feature) -----------------------------------


def _unterminated(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False)


@given(parsers.parse('the harness prints blank lines between its events, then answers "{text}"'))
def harness_blank_lines(world: AgentWorld, text: str) -> None:
    script = world.new_script().add("out", "\n").init().add("out", "\n\n   \n\t\n\r\n")
    script.text(text).add("out", " \n").done().add("out", "\n")


@given(parsers.parse('the harness prints the answer "{text}" as its last line, without a newline'))
def harness_unterminated_answer(world: AgentWorld, text: str) -> None:
    script = world.new_script().init()
    script.add("out", _unterminated(script.text_line(text)))


@given(parsers.parse('the harness answers "{text}", then prints half a JSON object and exits'))
def harness_half_object(world: AgentWorld, text: str) -> None:
    script = world.new_script().init().text(text).done()
    half = _unterminated(script.text_line("the other half"))
    script.add("out", half[: len(half) // 2])


@given(parsers.parse('the harness prints JSON values that are not objects, then answers "{text}"'))
def harness_non_objects(world: AgentWorld, text: str) -> None:
    script = world.new_script().init()
    inside_array = json.dumps([script.text_line("from inside an array")])
    for value in ("[]", inside_array, '"a string"', "42", "-1.5e3", "null", "true"):
        script.add("out", value + "\n")
    script.text(text).done()


@given(
    parsers.parse(
        'the harness prints a JSON line nested {depth:d} levels deep, then answers "{text}"'
    )
)
def harness_deep_json(world: AgentWorld, depth: int, text: str) -> None:
    world.new_script().init().add("deep", depth).text(text).done()


@given(parsers.parse("the harness prints {count:d} numbered texts in one write, then finishes"))
def harness_burst(world: AgentWorld, count: int) -> None:
    script = world.new_script().init()
    line = _unterminated(script.text_line("@N@,")) + "\n"
    script.add("burst", {"line": line, "count": count}).done_after(f"{count - 1},")


@given(parsers.parse("the harness widens its stdout pipe to {size:d} bytes and closes its "
                     "stderr, prints {count:d} numbered texts in one write, then finishes at "
                     "once"))
def harness_burst_into_wide_pipe(world: AgentWorld, size: int, count: int) -> None:
    _burst_into_wide_pipe(world, size, count, close_stderr=True)


@given(parsers.parse("the harness widens its stdout pipe to {size:d} bytes, prints {count:d} "
                     "numbered texts in one write, then finishes at once"))
def harness_burst_into_wide_pipe_with_stderr(world: AgentWorld, size: int, count: int) -> None:
    _burst_into_wide_pipe(world, size, count, close_stderr=False)


def _burst_into_wide_pipe(world: AgentWorld, size: int, count: int, close_stderr: bool) -> None:
    script = world.new_script().add("pipe_size", size)
    script = (script.add("close_stderr") if close_stderr else script).init()
    line = _unterminated(script.text_line("@N@,")) + "\n"
    script.add("burst", {"line": line, "count": count}).done_after(f"{count - 1},")


@given(
    parsers.parse(
        'the harness writes its answer "{text}" {piece:d} bytes at a time, {seconds:g} s apart'
    )
)
def harness_trickle(world: AgentWorld, text: str, piece: int, seconds: float) -> None:
    """The text line and the line that ends the turn, both trickled: Claude's result repeats
    the text (decision D-34), and an answer taken from it is read through the same reads."""
    script = world.new_script().init()
    done = script.done_line(text)
    data = "".join(_unterminated(line) + "\n" for line in (script.text_line(text), done))
    script.add("trickle", {"data": data, "piece": piece, "sleep": seconds})
    script.emitted.append(done)


@given(
    parsers.parse('the harness prints a text of {size:d} bytes in one line, then answers "{text}"')
)
def harness_oversized_line(world: AgentWorld, size: int, text: str) -> None:
    script = world.new_script().init()
    line = _unterminated(script.text_line("@FILL@")) + "\n"
    script.add("fill", {"line": line, "size": size}).text(text).done()


@given(parsers.parse(
    'the harness prints a line of {longer:d} bytes, spaces before a text "{hidden}", then two '
    'lines of exactly {size:d} bytes, the texts "{first}" and "{second}" each padded with '
    'spaces after it, then answers "{text}"'))
def harness_lines_at_the_limit(world: AgentWorld, longer: int, hidden: str, size: int,
                               first: str, second: str, text: str) -> None:
    """Sizes without the newline. The longer line is whitespace and then a whole JSON object:
    read from anywhere past its start, what is left of it is a line a backend reads. Each
    line of exactly `size` bytes is a JSON object padded with whitespace after it: only a line
    read from its start gives its text, and the answer stays small (through an adapter, each
    line's text comes back in the answer and in its events)."""
    script = world.new_script().init()
    tail = _unterminated(script.text_line(hidden))
    script.add("fill", {"line": "@FILL@" + tail + "\n", "size": longer - len(tail.encode()),
                        "with": " "})
    for end in (first, second):
        head = _unterminated(script.text_line(end))
        script.add("fill", {"line": head + "@FILL@\n", "size": size - len(head.encode()),
                            "with": " "})
    script.text(text).done()


@given(
    parsers.parse(
        'the harness reports the failure "{message}" in its stream, then exits with code {code:d}'
    )
)
def harness_reports_failure(world: AgentWorld, message: str, code: int) -> None:
    script = world.new_script().init()
    script.line(script.failure_line(message)).add("exit", code)


@given(parsers.parse(
    'the harness writes a text and a final answer "{noise}" to stderr, then answers "{text}"'))
def harness_stream_on_stderr(world: AgentWorld, noise: str, text: str) -> None:
    script = world.new_script().init()
    lines = [script.text_line(noise), script.done_line(noise)]
    script.add("err", "".join(json.dumps(line) + "\n" for line in lines))
    script.text(text).done()


@given(parsers.parse('the harness answers "{text}", then writes "{first}" and "{second}" '
                      'to stderr and exits with code {code:d}'))
def harness_answers_then_fails_at_exit(world: AgentWorld, text: str, first: str, second: str,
                                       code: int) -> None:
    script = world.new_script().init().text(text).done()
    script.add("err", f"{first}\n{second}\n").add("exit", code)


@given(parsers.parse('the harness answers "{text}", then exits with code {code:d} and writes '
                      'nothing to stderr'))
def harness_answers_then_exits_silently(world: AgentWorld, text: str, code: int) -> None:
    """A complete turn (init, text, success result), then a bare exit code: nothing on stderr
    says what failed, so only the agent can report it."""
    world.new_script().init().text(text).done().add("exit", code)


@given("the harness command is on PATH but is not executable")
def harness_not_executable(world: AgentWorld) -> None:
    plain = world.root / "plain-bin"
    plain.mkdir(parents=True)
    for name in HARNESS_NAMES:
        (plain / name).write_text("#!/bin/sh\necho never run\n")
    world.path_override = str(plain)


@given("the harness command is on PATH but its interpreter is gone")
def harness_interpreter_gone(world: AgentWorld) -> None:
    """Executable scripts whose first line names an interpreter that does not exist, with an
    option after it: the kernel refuses to run them with ENOENT, as for a script of a deleted
    virtualenv."""
    gone = world.root / "deleted-venv" / "bin" / "python"
    _scripts_run_by(world, world.root / "orphaned-bin", gone)
    world.gone_interpreter = str(gone)


@given("the harness command is on PATH but its interpreter is not executable")
def harness_interpreter_not_executable(world: AgentWorld) -> None:
    """Executable scripts whose first line names an interpreter that is there without its
    executable bit (a virtualenv copied without modes): the kernel refuses them with EACCES."""
    interpreter = world.root / "copied-venv" / "bin" / "python"
    interpreter.parent.mkdir(parents=True)
    interpreter.write_text("#!/bin/sh\n")
    interpreter.chmod(0o644)
    _scripts_run_by(world, world.root / "stranded-bin", interpreter)


def _scripts_run_by(world: AgentWorld, folder: Path, interpreter: Path) -> None:
    """Executable scripts for every harness name in `folder`, whose first line names
    `interpreter` with an option after it; `folder` is the agent's whole PATH."""
    folder.mkdir(parents=True)
    for name in HARNESS_NAMES:
        script = folder / name
        script.write_text(f"#!{interpreter} -sE\nprint('never run')\n")
        script.chmod(0o755)
    world.path_override = str(folder)


@then("the harness was never started")
def never_started(world: AgentWorld) -> None:
    assert world.rig.starts() == [], "the harness was started"


@given(parsers.parse('the implementation inherited "{name}"'))
def inherited(world: AgentWorld, name: str) -> None:
    assert name in INHERITED_ENV, f"the suite does not put {name} in the implementation's env"


def _harness_env(world: AgentWorld) -> dict[str, str]:
    env: dict[str, str] = world.rig.last_start()["env"]
    return env


@then(parsers.parse('the harness saw no "{name}"'))
def harness_saw_no(world: AgentWorld, name: str) -> None:
    env = _harness_env(world)
    assert name not in env, f"the harness got {name}={env[name]!r}"


@then(parsers.parse('the harness saw "{name}" as inherited'))
def harness_saw_inherited(world: AgentWorld, name: str) -> None:
    harness_saw_value(world, name, INHERITED_ENV[name])


@then(parsers.parse('the harness saw "{name}" set to "{value}"'))
def harness_saw_value(world: AgentWorld, name: str, value: str) -> None:
    assert _harness_env(world).get(name) == value, f"{name} = {_harness_env(world).get(name)!r}"


@then(parsers.parse('the creation was refused with an error that names "{name}", or the harness '
                    'saw "{variable}" set to "{value}"'))
def refused_naming_or_set(world: AgentWorld, name: str, variable: str, value: str) -> None:
    if world.refusal is not None:
        creation_refused(world, name)
    else:
        harness_saw_value(world, variable, value)


@given(parsers.parse(
    'the harness prints lines of shapes no version printed yet, then answers "{text}"'))
def harness_unknown_shapes(world: AgentWorld, text: str) -> None:
    script = world.new_script().init()
    for line in script.profile.unknown_shapes:
        script.add("out", json.dumps(line) + "\n")
    script.text(text).done(text)


@given(parsers.parse(
    'the harness prints "{text}" and exits with code 0 before the turn completes'))
def harness_cut_short(world: AgentWorld, text: str) -> None:
    world.new_script().init().text(text).add("exit", 0)


@given(parsers.parse(
    'the harness writes {size:d} bytes to stderr, then "{last}", and exits with code {code:d}'))
def harness_stderr_flood_then_fails(world: AgentWorld, size: int, last: str, code: int) -> None:
    world.new_script().init().add("err_bytes", size).add("err", f"\n{last}\n").add("exit", code)


@given("the harness prints nothing and never finishes")
def harness_silent(world: AgentWorld) -> None:
    world.new_script().add("sleep", 10_000)


@given("every run of the harness hangs")
def harness_always_hangs(world: AgentWorld) -> None:
    world.new_script().add("sleep_real", 10_000)
    world.rig.use(world.new_script())  # from now on, before any agent exists


@then("no harness started for it is left running")
def no_harness_left(world: AgentWorld) -> None:
    running = still_running([start["pid"] for start in world.rig.starts()])
    assert not running, f"harnesses still running (pid: state): {running}"


@then(parsers.parse('no harness was started with "{text}" as an option'))
def never_an_option(harness_rig: HarnessRig, text: str) -> None:
    for start in harness_rig.starts():
        argv: list[str] = start["argv"]
        options = argv[: argv.index("--")] if "--" in argv else argv
        assert text not in options, f"the harness was started with {text!r} as an option: {argv}"
