"""`agent-tck smoke --impl CMD`: does the adapter start, answer `start`, answer one request of
each component it declares (a request through the fake harness for `agent`, a run of the fake
claude for `runner`, a line for `backends`, an object for `responses`), and stop cleanly?

Prints one line per check and a readable diagnosis of the first failure. Every line goes
through `say`: the implementation's name, answers and errors are its own text, shown with their
control characters escaped (kit/text.py).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from agent_tck.doubles.harness import whereabouts
from agent_tck.doubles.harness.acpscript import AcpScript
from agent_tck.doubles.harness.rig import HarnessRig
from agent_tck.doubles.harness.script import Script
from agent_tck.kit.drivers.protocol import PROTOCOL_VERSION
from agent_tck.kit.drivers.stdio import AdapterProcess, StdioDriver
from agent_tck.kit.errors import DriverError, UsageError
from agent_tck.kit.registry import ACP_BACKENDS, KNOWN_BACKENDS
from agent_tck.kit.text import printable

SMOKE_ANSWER = "agent-tck smoke: ok"


def diagnose_command(command: str) -> str | None:
    """Why `command` cannot be started, or None when it looks startable."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"cannot parse the command {command!r}: {exc}"
    if not argv:
        return "the command is empty"
    program = argv[0]
    if os.sep in program:
        if not os.path.exists(program):
            return f"{program!r} does not exist"
        if not os.access(program, os.X_OK):
            return f"{program!r} is not executable (chmod +x?)"
        return None
    if shutil.which(program) is None:
        return f"{program!r} was not found on PATH"
    return None


def say(line: str, out: TextIO) -> None:
    """Print `line` with its control characters escaped."""
    print(printable(line), file=out)


def smoke(command: str, out: TextIO, timeout: float = 30.0) -> int:
    problem = diagnose_command(command)
    if problem:
        raise UsageError(f"--impl {command!r}: {problem}")
    try:
        driver = StdioDriver(command, timeout=timeout)
    except DriverError as exc:
        hint = exc.explained()
        say(f"FAIL start: {hint}\n{exc}" if hint else f"FAIL start: {exc}", out)
        return 1
    info = driver.info
    say(f"ok   start: {info.name} {info.version} ({info.language}), protocol "
        f"{PROTOCOL_VERSION}, components {', '.join(info.components) or 'none'}, "
        f"backends {', '.join(info.backends) or 'none'}", out)
    try:  # the adapter is stopped whatever a check raises
        requested = [check(driver, out) for check in (_request, _parse, _responses, _runner)]
        process = driver.process
    finally:
        driver.close()
    if process is None:  # dropped after the failed request: there is no clean stop to see
        return 1
    return max(_report_stop(process, out), 0 if all(requested) else 1)


def _request(driver: StdioDriver, out: TextIO) -> bool:
    """One request through the fake harness of the first declared backend: the answer must
    be the harness's. A stall is explained from what the harness saw."""
    info = driver.info
    played = [b for b in info.backends if b in (*KNOWN_BACKENDS, *ACP_BACKENDS)]
    if "agent" not in info.components or not played:
        say("skip request: the implementation declares no agent component with a backend "
            "the fake harness plays", out)
        return True
    backend = played[0]

    def request(path: str) -> dict[str, Any]:
        agent, _ = driver.agent_create({"backend": backend, "env": {"PATH": path}})
        return driver.agent_request(agent, "agent-tck smoke").response

    script = (AcpScript(backend.removesuffix("-acp")).done(SMOKE_ANSWER)
              if backend in ACP_BACKENDS else
              Script(backend).init("smoke-session").text(SMOKE_ANSWER).done(SMOKE_ANSWER))
    done = _through_fake("request", backend, script, request, out)
    if done is None:
        return False
    response, _, seen = done
    if (response.get("status"), response.get("message")) != (0, SMOKE_ANSWER):
        say(f"FAIL request: expected status 0 and message {SMOKE_ANSWER!r} from the fake "
            f"{backend}, got {response!r}\n{seen}", out)
        return False
    say(f"ok   request: the fake {backend} answered through the implementation", out)
    return True


def _through_fake(command: str, backend: str, script: Script,
                  call: Callable[[str], dict[str, Any]], out: TextIO
                  ) -> tuple[dict[str, Any], bool, str] | None:
    """`call` given the PATH of a fake `backend` playing `script`: its answer, whether the
    fake was started, and where it got to; None, said as the `command`'s failure, when the
    implementation broke (where the fake was then: `_stall`)."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-smoke-") as tmp:
        rig = HarnessRig(Path(tmp))
        rig.use(script)
        try:
            answer = call(rig.path())
            return answer, bool(rig.starts()), _stall(rig, backend)
        except DriverError as exc:
            say(f"FAIL {command}: {_stall(rig, backend, exc.at)}\n{exc}", out)
            return None
        finally:
            rig.close()  # ends a harness a stalled implementation left waiting on stdin


def _parse(driver: StdioDriver, out: TextIO) -> bool:
    """`backends`: a text line of each declared backend's CLI, parsed into its text event."""
    streams = [b for b in driver.info.backends if b in KNOWN_BACKENDS]
    if "backends" not in driver.info.components or not streams:
        return True
    for backend in streams:
        line = json.dumps(Script(backend).text_line(SMOKE_ANSWER))
        try:
            events = driver.parse_line(backend, line)
        except DriverError as exc:
            say(f"FAIL parse_line: {exc}", out)
            return False
        if not any(e.get("kind") == "text" and e.get("text") == SMOKE_ANSWER for e in events):
            say(f"FAIL parse_line: expected a text event {SMOKE_ANSWER!r} from {backend}'s "
                f"line {line}, got {events!r}", out)
            return False
    say(f"ok   parse_line: a text line of {', '.join(streams)} parsed", out)
    return True


def _responses(driver: StdioDriver, out: TextIO) -> bool:
    """`responses`: a Responses API object of one message, read into that message."""
    if "responses" not in driver.info.components:
        return True
    payload = {"object": "response", "output": [
        {"type": "message", "content": [{"type": "text", "text": SMOKE_ANSWER}]}]}
    try:
        messages = driver.responses_parse(payload).get("messages")
    except DriverError as exc:
        say(f"FAIL responses.parse: {exc}", out)
        return False
    if messages != [{"role": "assistant", "content": SMOKE_ANSWER}]:
        say(f"FAIL responses.parse: expected the one assistant message {SMOKE_ANSWER!r}, got "
            f"{messages!r}", out)
        return False
    say("ok   responses.parse: a message read", out)
    return True


def _runner(driver: StdioDriver, out: TextIO) -> bool:
    """`runner`: one run of the fake claude, which must be started and its output answered."""
    if "runner" not in driver.info.components:
        return True

    def run(path: str) -> dict[str, Any]:
        return driver.runner_run("agent-tck smoke", {"timeout": 30}, {"PATH": path})

    done = _through_fake("runner.run", "claude", Script("claude").add("out", SMOKE_ANSWER + "\n"),
                         run, out)
    if done is None:
        return False
    answer, started, seen = done
    if not started or SMOKE_ANSWER not in str(answer.get("output")):
        say(f"FAIL runner.run: expected the fake claude's output {SMOKE_ANSWER!r}, got "
            f"{answer!r}\n{seen}", out)
        return False
    say("ok   runner.run: the fake claude ran and its output came back", out)
    return True


def _stall(rig: HarnessRig, backend: str, until: float | None = None) -> str:
    """Where the fake harness got to in a request without the right answer (by `until`:
    when the implementation broke)."""
    record = rig.record()
    if not any(e["what"] == "start" for e in record):
        return (f"the implementation never started the fake {backend!r} from the PATH it was "
                "given (SDKs run their bundled CLI unless told: see docs/adapter-protocol.md)")
    controls = [e["subtype"] for e in record if e["what"] == "control"]
    if controls and not any(e["what"] == "stdin" for e in record):
        return (f"the implementation wrote control request(s) {', '.join(map(str, controls))}"
                "; the harness answered; no user message followed")
    return whereabouts.told(record, until)


def _report_stop(process: AdapterProcess, out: TextIO) -> int:
    code = process.returncode
    noise = process.stderr_tail().strip()
    say(f"{'ok  ' if code == 0 else 'FAIL'} stop: exit code {code}", out)
    for note in process.notes:
        say(f"note keeper: {note}", out)
    if noise:
        say(f"note stderr: the adapter wrote to stderr: {noise[-300:]!r}", out)
    return 0 if code == 0 else 1
