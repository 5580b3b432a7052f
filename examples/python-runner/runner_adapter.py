#!/usr/bin/env python3
"""An agent-tck adapter for the `runner` component (seed 004), standard library only.

It speaks the adapter protocol (docs/adapter-protocol.md): one JSON request per line on
stdin, one JSON response per line on stdout. Logs go to stderr.

Commands: start, signal.parse, runner.run, loop.run, stop.
"""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from typing import Any

GRACE_SECONDS = 1.0  # between SIGTERM and SIGKILL at a run's timeout

# Seed 004's autonomousSystemPrompt, word for word, appended to claude's own system prompt
# (the user's prompt itself goes on stdin).
AUTONOMOUS_SYSTEM_PROMPT = (
    "CRITICAL: You are an autonomous agent.\n"
    "DO NOT ask questions. DO NOT summarize. DO NOT wait for confirmation.\n"
    "START WORKING IMMEDIATELY. Execute the workflow in prompt.md without any preamble."
)


class Refused(Exception):
    """A request refused before anything ran: answered as a protocol `error`."""


def log(*args: object) -> None:
    print("[python-runner]", *args, file=sys.stderr, flush=True)


# --- ParseSignal -------------------------------------------------------------------------

COMPLETE_MARK = "<promise>COMPLETE</promise>"
BLOCKED_RE = re.compile(r"<promise>BLOCKED:(.*?)</promise>", re.DOTALL)


def parse_signal(output: str) -> tuple[str, str]:
    """COMPLETE anywhere wins; else the first closed BLOCKED marker; else NONE."""
    if COMPLETE_MARK in output:
        return "COMPLETE", ""
    m = BLOCKED_RE.search(output)
    if m:
        return "BLOCKED", m.group(1).strip()
    return "NONE", ""


# --- The Claude runner -------------------------------------------------------------------

def claude_command(options: dict[str, Any]) -> list[str]:
    cmd = ["claude", "--disable-slash-commands", "--setting-sources", "",
           "--append-system-prompt", AUTONOMOUS_SYSTEM_PROMPT, "-p", "-"]
    if options.get("trust"):
        cmd.append("--dangerously-skip-permissions")
    else:
        cmd += ["--permission-mode", "acceptEdits"]
    model = options.get("model")
    if model is not None:
        cmd += ["--model", model]
    return cmd


def run_claude(prompt: str, options: dict[str, Any],
               env_overrides: dict[str, str]) -> dict[str, Any]:
    """Run claude once; return the result fields of a runner.run answer."""
    model = options.get("model")
    if model is not None and (not isinstance(model, str) or not model
                              or model.startswith("-") or "\0" in model):
        # After --model, "-..." would be read by claude as an option: refuse it.
        raise Refused(f"invalid model {model!r}: refused before starting claude")

    # The adapter's environment, with the request's values set and CLAUDECODE never.
    env = dict(os.environ)
    env.update(env_overrides)
    env.pop("CLAUDECODE", None)

    cmd = claude_command(options)
    try:
        # A process group of its own, so a timeout reaches whatever claude started.
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as e:
        return {"launch_failed": {"message": f"cannot start {cmd[0]}: {e}"}}

    timeout = options.get("timeout")
    timed_out = False
    data = prompt.encode("utf-8")
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _signal_group(proc, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            out, err = proc.communicate()

    output = out.decode("utf-8", "replace") + err.decode("utf-8", "replace")
    code = proc.returncode
    killed_by = signal.Signals(-code).name if code < 0 else None
    sig, reason = parse_signal(output)
    return {"output": output, "exit_code": -1 if code < 0 else code, "signal": sig,
            "reason": reason, "timed_out": timed_out, "killed_by": killed_by}


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group is gone already
        os.killpg(proc.pid, sig)


# --- The agent loop ----------------------------------------------------------------------

def open_balls(session: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in session.get("balls") or [] if b.get("state") != "complete"]


def build_prompt(session: dict[str, Any]) -> str:
    """One iteration's prompt, from the session as it is now."""
    balls = "\n".join(
        f"- {b['id']} [{b.get('state', 'pending')}, priority {b.get('priority', 'medium')}]: "
        f"{b['intent']}" + "".join(f"\n  - {c}" for c in b.get("acceptance_criteria") or [])
        for b in session.get("balls") or [])
    return (f"<context>\n{session.get('description', '')}\n{session.get('context', '')}\n"
            f"</context>\n<progress>\n{session.get('progress', '')}\n</progress>\n"
            f"<balls>\n{balls}\n</balls>\n<instructions>\n"
            "Pick the most important open ball and work on it. ONE BALL PER ITERATION.\n"
            "When every ball is done, print <promise>COMPLETE</promise>.\n"
            "If you are blocked, print <promise>BLOCKED: the reason</promise>.\n"
            "</instructions>\n")


def run_loop(session: dict[str, Any], script: list[dict[str, Any]],
             settings: dict[str, Any]) -> dict[str, Any]:
    """The loop, driving a scripted runner that plays `script`, then answers COMPLETE."""
    script = list(script)
    calls: list[dict[str, Any]] = []

    def ended(outcome: str, iterations: int) -> dict[str, Any]:
        return {"outcome": outcome, "iterations": iterations, "failure": None, "calls": calls}

    def failed(message: str, reason: str | None = None) -> dict[str, Any]:
        return {"outcome": None, "iterations": None, "calls": calls,
                "failure": {"message": message, "reason": reason}}

    if not open_balls(session):  # nothing to do: the runner is never called
        return ended("nothing_to_do", 0)
    for iteration in range(1, settings["max_iterations"] + 1):
        calls.append({"prompt": build_prompt(session), "trust": settings.get("trust", False),
                      "timeout": settings.get("timeout"), "model": None})
        step = script.pop(0) if script else {"signal": "COMPLETE"}
        if "fail" in step:  # the run could not start; `fail` is its error's message
            return failed(f"agent execution failed: {step['fail']}")
        # What the run did to the session, seen by the next iteration's prompt.
        for ball in session.get("balls") or []:
            if ball["id"] in step.get("complete_balls", []):
                ball["state"] = "complete"
        if "append_progress" in step:
            session["progress"] = session.get("progress", "") + step["append_progress"] + "\n"
        # COMPLETE is checked before BLOCKED (decision D-9).
        sig = step.get("signal") or parse_signal(step.get("output", ""))[0]
        if sig == "COMPLETE":
            return ended("complete", iteration)
        if sig == "BLOCKED":
            reason = step.get("reason", "")
            return failed(f"agent blocked: {reason}", reason)
        if not open_balls(session):
            return ended("balls_complete", iteration)
    return ended("max_iterations", settings["max_iterations"])


# --- The protocol ------------------------------------------------------------------------

def handle(req: dict[str, Any]) -> dict[str, Any]:
    cmd = req.get("cmd")
    if cmd == "start":
        return {"version": 1, "implementation": {
            "name": "python-runner-example", "language": "python", "version": "0.1.0",
            "components": ["runner"], "backends": ["claude"]}}
    if cmd == "signal.parse":
        sig, reason = parse_signal(req["output"])
        return {"signal": sig, "reason": reason}
    if cmd == "runner.run":
        return run_claude(req["prompt"], req["options"], req["env"])
    if cmd == "loop.run":
        return run_loop(req["session"], req["script"], req["settings"])
    if cmd == "stop":
        return {"stopped": True}
    return {"error": {"message": f"unsupported command: {cmd}"}}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            answer = handle(req)
        except Refused as e:
            answer = {"error": {"message": str(e)}}
        except Exception as e:  # an answer, never a crash: the suite reports it as errored
            log("error in", req.get("cmd"), repr(e))
            answer = {"error": {"message": f"{type(e).__name__}: {e}"}}
        print(json.dumps({"seq": req["seq"], **answer}), flush=True)
        if req.get("cmd") == "stop":
            return


if __name__ == "__main__":
    main()
