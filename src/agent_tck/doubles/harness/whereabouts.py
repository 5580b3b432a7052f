"""Where each fake CLI of a scenario got to, in words; and whether it reached what the
scenario is about.

A fake CLI notes the plan of its script when it starts, each step as it begins it, the bytes
of stdin it read, its end (`doubles.harness.fake`). From that record, `told` says for each
start where it was and what it was waiting for ("still waiting for its stdin to end (12 bytes
on stdin, no end of file): nothing after its step 1 of 4 ran"), and `unmet` says when a
start never reached the behaviour its scenario is about, so that the scenario is not judged
on a setup that did not happen.

What a scenario is about: every step of its script up to the first step where the script
waits for the implementation to act (a pause, or a chatter that goes on for a while), whose
op is a behaviour (`SUBJECTS`: ignore SIGTERM, start a grandchild, write to stderr, exit,
die). Lines of output are not: an implementation may stop a CLI part way through its output
(a flood it refuses to read to the end), and that is what its scenario judges; nor is an
exit that ends the script, once every step before it began: an implementation may stop a
CLI whose stream said its turn ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WAITS = ("sleep", "sleep_real", "chatter")  # the script waits for the implementation to act
SUBJECTS = ("on_term", "err", "err_bytes", "close_stderr", "die", "exit", "login_fails",
            "chatter")  # and every op whose name begins with "spawn_"
# The requirement that judges a cause itself: its own scenarios are judged, and fail.
OWNERS = {"stdin": "AG-D5.2"}
DOING = {
    "sleep": "pausing, as its script says, for the implementation to act",
    "sleep_real": "pausing, as its script says, for the implementation to act",
    "chatter": "printing a line now and then, for the implementation to act",
    "err": "writing to stderr (a write waits while nobody reads the pipe)",
    "err_bytes": "writing to stderr (a write waits while nobody reads the pipe)",
    "die": "killing itself with a signal",
    "exit": "exiting",
    "on_term": "setting how it takes SIGTERM",
    "read_stdin_bytes": "reading part of its stdin",
    "until_cancel": "working on its turn until the client cancels it (session/cancel)",
    "ask": "waiting for the client's answer to a request of its own",
}
WRITING = "writing its output to stdout (a write waits while nobody reads the pipe)"


@dataclass
class Start:
    """One start of a fake CLI, as its record tells it."""

    name: str
    pid: int
    plan: list[str]
    reached: int | None = None  # the last step it began
    stdin_bytes: int = 0
    eof: bool = False
    ended: int | None = None  # its exit code, once its script was played
    refused: str = ""  # the message of a command line it refused
    signals: list[str] = field(default_factory=list)


def starts(record: list[dict[str, Any]], until: float | None = None) -> list[Start]:
    """Each start of a fake CLI the record holds, with what it noted since, up to `until`
    (time.monotonic(); None: all of it)."""
    found: dict[int, Start] = {}
    for entry in record:
        what, pid = entry["what"], entry.get("pid", 0)
        if until is not None and entry.get("t", until) > until:
            continue
        if what == "start":
            found[pid] = Start(entry["name"], pid, list(entry.get("plan", [])))
            continue
        start = found.get(pid)
        if start is None:
            continue  # a grandchild's entry
        if what == "step":
            start.reached = entry["n"]
        elif what == "stdin_bytes":
            start.stdin_bytes = entry["n"]
        elif what in ("stdin", "stdin_end"):  # its stdin, or an ACP agent's without a prompt
            start.eof = True
        elif what == "end":
            start.ended = entry["code"]
        elif what == "refused":
            start.refused = entry["message"].strip()
        elif what == "signal":
            start.signals.append(entry["signal"])
    return list(found.values())


def told(record: list[dict[str, Any]], until: float | None = None) -> str:
    """Where each fake CLI of the record got to by `until`, a line each; "" when none
    started. Without pids, so that two runs that did the same read the same."""
    found = starts(record, until)
    return "\n".join(tell(start, f" (start {n} of {len(found)})" if len(found) > 1 else "")
                     for n, start in enumerate(found, 1))


def tell(start: Start, which: str = "") -> str:
    """Where one start of a fake CLI got to, and what it was waiting for; `which`: which of
    the scenario's starts it is, when it had several."""
    who = f"the fake {start.name}{which}"
    got = f"; it got {', '.join(start.signals)}" if start.signals else ""
    if start.refused:
        return f"{who} refused its command line, as the real CLI does: {start.refused!r}"
    if start.ended is not None:
        return f"{who} played its script to the end and exited {start.ended}{got}"
    if start.reached is None:
        return f"{who} started and began no step of its script{got}"
    op, total = start.plan[start.reached], len(start.plan)
    doing = _doing(start, op)
    after = (f": nothing after its step {start.reached + 1} of {total} ran"
             if start.reached + 1 < total else f", its last step ({total} of {total})")
    return f"{who} was {doing}{after}{got}"


def _doing(start: Start, op: str) -> str:
    if op == "read_stdin":
        if start.eof:
            return "past its stdin (it reached its end)"
        return ("still waiting for its stdin to end "
                f"({start.stdin_bytes} bytes on stdin, no end of file)")
    if op.startswith("spawn_"):
        return "starting a process of its own"
    return DOING.get(op, WRITING)


def unmet(record: list[dict[str, Any]], until: float | None = None) -> tuple[str, str] | None:
    """Why the scenario's setup did not happen, and the cause's kind (a key of `OWNERS`, or
    "setup"); None when every start that played its script reached what it is about. The
    first line of the why names the cause alone, the same in every scenario it blocks."""
    for start in starts(record, until):
        if start.refused or not start.plan:
            continue
        if start.plan[0] == "read_stdin" and not start.eof:
            return (f"the fake {start.name} was still waiting for its stdin to end, which the "
                    "implementation never closed: the CLI never got to what this scenario "
                    f"is about\n{told(record, until)}", "stdin")
        missed = _subject(start.plan)
        if missed is not None and (start.reached is None or start.reached < missed) and not (
                _stopped_at_its_exit(start, missed)):
            return (f"the fake {start.name} never reached step {missed + 1} of its script "
                    f"({start.plan[missed]}), what this scenario is about\n"
                    f"{told(record, until)}", "setup")
    return None


def _stopped_at_its_exit(start: Start, missed: int) -> bool:
    """The start said all it had to and was stopped before its last step, its exit: an
    implementation may end a CLI whose stream said the turn ended (the Codex SDK does at
    turn.failed), and the scenario judges what it made of what was said."""
    return missed == len(start.plan) - 1 and start.plan[missed] == "exit" and (
        start.reached == missed - 1)


def _subject(plan: list[str]) -> int | None:
    """The last step of `plan` a start must begin for its scenario to judge anything: the
    last behaviour up to and including the first step that waits."""
    first_wait = next((n for n, op in enumerate(plan) if op in WAITS), len(plan) - 1)
    behaviours = [n for n, op in enumerate(plan[:first_wait + 1])
                  if op in SUBJECTS or op.startswith("spawn_")]
    return behaviours[-1] if behaviours else None
