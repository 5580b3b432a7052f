"""Parse rate of `ClaudeBackend.parse_line` against the claude-agent-sdk's message parser.

Both get the same real-shaped lines as text: the SDK's transport `json.loads` each line and
hands the dict to `parse_message`, so that is what is timed for it. Only the SDK's Python
parser is imported; its bundled `claude` binary is never run.
"""

from __future__ import annotations

import json
import time
import timeit
from collections.abc import Callable

from agent_tck.doubles.backends.claude import ClaudeLines
from agent_tck.reference.backends.claude import ClaudeBackend
from benchmarks.report import Row
from benchmarks.rig import turn


def lines() -> list[str]:
    c = ClaudeLines()
    shapes = [c.init(), *turn("claude"), c.text("Done: the tests pass."), c.result("All good")]
    return [json.dumps(shape) for shape in shapes]


def sdk_parser() -> Callable[[str], object] | None:
    try:
        from claude_agent_sdk._internal.message_parser import parse_message
    except ImportError:
        return None

    def parse(line: str) -> object:
        return parse_message(json.loads(line))

    return parse


def rates(parsers: list[Callable[[str], object]], sample: list[str], rounds: int) -> list[float]:
    """Lines per second of each parser, best of `rounds` short rounds taken in turn.

    CPU time of this process, not wall time: on a shared machine the wall clock also counts
    the time other processes had the core; turns and best-of shed what is left of that noise.
    """
    loops = 300
    best = [float("inf")] * len(parsers)
    for _ in range(rounds):
        for i, parse in enumerate(parsers):
            timer = timeit.Timer(_over(parse, sample), time.process_time)
            best[i] = min(best[i], timer.timeit(loops))
    return [len(sample) * loops / b for b in best]


def _over(parse: Callable[[str], object], sample: list[str]) -> Callable[[], None]:
    def work() -> None:
        for line in sample:
            parse(line)

    return work


def rows(rounds: int) -> list[Row]:
    sample = lines()
    sdk = sdk_parser()
    what = f"Claude parse rate: parse_line vs claude-agent-sdk parse_message ({len(sample)} shapes)"
    if sdk is None:
        (ours,) = rates([ClaudeBackend().parse_line], sample, rounds)
        return [Row(what, f"{ours:,.0f}/s", "SDK not installed", "", ">= 1.0x", None)]
    ours, theirs = rates([ClaudeBackend().parse_line, sdk], sample, rounds)
    return [
        Row(
            what,
            f"{ours:,.0f}/s",
            f"{theirs:,.0f}/s",
            f"{ours / theirs:.2f}x",
            ">= 1.0x",
            ours >= theirs,
        )
    ]
