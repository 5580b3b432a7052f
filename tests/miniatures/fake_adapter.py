"""A scripted misbehaving adapter: the reference's adapter with one fault, for self-tests.

    python -m tests.miniatures.fake_adapter FAULT [CMD [N [ONCE_FILE]]]

misbehaves on the Nth request (default 1st) whose cmd is CMD (default `start`); with
ONCE_FILE, only the first adapter process to get there does (it creates the file). FAULT is one
of: crash, hang, junk (a non-JSON line before the response), wrong-seq, stale-seq (the seq
of the request before), twice (the response and the same response again), wrong-version,
bad-schema (a response missing a required field), noise (stderr chatter, then behaves),
sdk-stall (on agent.request, start `claude` as the Claude SDKs do, answer nothing after the
initialize handshake), hostile (an error whose message holds a lone surrogate, ESC, BEL and
NUL, as a JavaScript adapter quoting a prompt would send them; the same on stderr),
hostile-name (the same text as the implementation's name in `start`), declares-other (a
`start` that declares the runner component alone), leaves-child (start a
`sleep` it never ends, write its pid into ONCE_FILE, then behave and exit cleanly on `stop`),
leaves-session (start a process in a session of its own whose parent exits at once, append its
pid to ONCE_FILE.pids; it overwrites ONCE_FILE with `forged` whenever it exists), forges-record
(on every agent.request, forge the fake harness's record with entries naming the process whose
pid ONCE_FILE holds: tests/miniatures/forgery.py), canned (answer every runner.run with the
output smoke expects, without running the CLI), or broken:NAME (serve the broken agent
tests.miniatures.agent.NAME, no fault).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agent_tck.reference.adapter import Adapter

# JSON carries a lone surrogate as the escape `\ud800` (JavaScript strings hold them).
HOSTILE = "refused \ud800 \x1b[2J\x1b]0;pwned\x07 \x00 end"


def faulty(response: dict[str, Any], fault: str) -> list[str]:
    """The lines to print instead of `response`."""
    if fault == "crash":
        os._exit(3)
    if fault == "hang":
        time.sleep(3600)
    if fault == "junk":
        return ["Loading model weights... done", json.dumps(response)]
    if fault == "wrong-seq":
        return [json.dumps({**response, "seq": response["seq"] + 7})]
    if fault == "stale-seq":  # the seq of the request before
        return [json.dumps({**response, "seq": response["seq"] - 1})]
    if fault == "twice":  # the answer, and the same answer again
        return [json.dumps(response)] * 2
    if fault == "hostile":
        return [json.dumps({"seq": response["seq"], "error": {"message": HOSTILE}})]
    if fault == "hostile-name":
        return [json.dumps({**response, "implementation": {**response["implementation"],
                                                            "name": HOSTILE}})]
    if fault == "string-error":  # `error` must be an object with a message
        return [json.dumps({"seq": response["seq"], "error": "it broke"})]
    if fault == "declares-other":  # one component, where its other `start`s declare them all
        return [json.dumps({**response, "implementation": {**response["implementation"],
                                                            "components": ["runner"]}})]
    if fault == "wrong-version":
        return [json.dumps({**response, "version": 99})]
    if fault == "bad-schema":
        return [
            json.dumps(
                {
                    k: v
                    for k, v in response.items()
                    if k not in ("events", "response", "implementation")
                }
            )
        ]
    return [json.dumps(response)]


# A runner.run answer made up without running the CLI, with what smoke looks for in it.
CANNED = {"output": "agent-tck smoke: ok\n", "exit_code": 0, "signal": "NONE", "reason": "",
          "timed_out": False, "killed_by": None}


def stall_like_an_sdk(path: str) -> None:
    """Start `claude` as the Claude SDKs do, finish the initialize handshake, then never send
    the prompt (what a deadlocked SDK adapter does)."""
    claude = shutil.which("claude", path=path)
    assert claude is not None
    proc = subprocess.Popen(
        [claude, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"control_request","request_id":"r1",'
                     b'"request":{"subtype":"initialize","hooks":null}}\n')
    proc.stdin.flush()
    proc.stdout.readline()
    time.sleep(3600)


# A process that leaves its adapter's session and tree (its parent exits at once) and then
# rewrites its target whenever it exists: what it writes after a run shows it outlived the run.
LEAVER = """
import os, sys, time
if os.fork():
    os._exit(0)
target = sys.argv[1]
with open(target + ".pids", "a") as pids:
    pids.write(f"{os.getpid()}\\n")
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        if os.path.exists(target) and open(target).read() != "forged":
            open(target, "w").write("forged")
    except OSError:
        pass
    time.sleep(0.02)
"""


def leave_session(target: str) -> None:
    """Start LEAVER in a session of its own; return once it has noted its pid."""
    pids = Path(target + ".pids")
    before = _count(pids)
    subprocess.run([sys.executable, "-c", LEAVER, target], start_new_session=True, check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while _count(pids) == before and time.monotonic() < deadline:
        time.sleep(0.01)


def _count(pids: Path) -> int:
    """How many whole lines `pids` holds (0 when it does not exist)."""
    try:
        return pids.read_text().count("\n")
    except FileNotFoundError:
        return 0


def forge_record(request: dict[str, Any], paths: dict[str, str], victim: str) -> None:
    """Before answering `request`, forge a harness start and a grandchild naming the process
    whose pid the file `victim` holds, in the record of the harness on the agent's PATH."""
    from tests.miniatures.forgery import forge

    pid = int(Path(victim).read_text())
    bin_dir = paths[request["agent"]].split(os.pathsep)[0]
    forge(bin_dir, [{"what": "start", "rig": "", "name": "claude", "argv": [], "cwd": "/",
                     "pid": pid, "ppid": 1, "pgid": pid, "env": {}},
                    {"what": "grandchild", "pid": pid}])


def _first(once: str) -> bool:
    """True unless another process of this fake already misbehaved (ONCE_FILE exists)."""
    if not once:
        return True
    try:
        os.close(os.open(once, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def main(argv: list[str]) -> int:
    fault, cmd, nth, once = [*argv, "start", "1", ""][:4] if len(argv) < 3 else [*argv, ""][:4]
    adapter = Adapter()
    if fault.startswith("broken:"):
        from tests.miniatures import agent as broken

        adapter = getattr(broken, fault.split(":", 1)[1])().adapter
        fault = "none"
    if fault == "noise":
        print("warning: adapter starting in debug mode", file=sys.stderr, flush=True)
    if fault == "hostile":
        sys.stderr.buffer.write(HOSTILE.encode("utf-8", "surrogatepass") + b"\n")
        sys.stderr.flush()
    if fault == "leaves-child":  # a descendant in the adapter's group, never waited for
        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        Path(once).write_text(str(child.pid))
        fault, once = "none", ""
    if fault == "leaves-session":
        leave_session(once)
        fault, once = "none", ""
    victim = once if fault == "forges-record" else ""
    if victim:
        fault, once = "none", ""
    if fault == "stderr-flood":  # 8 MiB of log lines, then the last words
        for _ in range(8 * 1024):
            sys.stderr.write("x" * 1023 + "\n")
        print("the last words", file=sys.stderr, flush=True)
    seen, paths = 0, {}
    for line in sys.stdin:
        request = json.loads(line)
        if fault == "sdk-stall" and request.get("cmd") == "agent.request":
            stall_like_an_sdk(paths[request["agent"]])
        if victim and request.get("cmd") == "agent.request":
            forge_record(request, paths, victim)
        response = adapter.handle(request) if not (
            fault == "canned" and request.get("cmd") == "runner.run") else CANNED | {
            "seq": request["seq"]}
        if request.get("cmd") == "agent.create":
            paths[response.get("agent")] = request["settings"]["env"]["PATH"]
        seen += request.get("cmd") == cmd
        lines = [json.dumps(response)]
        if seen == int(nth) and request["cmd"] == cmd and _first(once):
            lines = faulty(response, fault)
        sys.stdout.write("".join(f"{item}\n" for item in lines))
        sys.stdout.flush()
        if request.get("cmd") == "stop":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
