"""The autonomous agent loop (seed 004): completion signals, runners, and the loop itself.

- `signals`: `parse_signal`, reading `<promise>COMPLETE</promise>` and `<promise>BLOCKED: ...`
- `base`: what a runner is (`Runner`), its options and its result
- `claude`: `ClaudeRunner`, one `claude -p -` run per iteration, under the supervisor
- `scripted`: `ScriptedRunner`, the seed's mock runner: scripted results, captured calls
- `loop`: `run_loop` over a `Session` (context, progress, balls) and the prompt it builds
"""

from agent_tck.reference.runner.base import Runner, RunOptions, RunResult
from agent_tck.reference.runner.claude import AUTONOMOUS_SYSTEM_PROMPT, ClaudeRunner
from agent_tck.reference.runner.loop import (
    Ball,
    LoopResult,
    MemorySession,
    Session,
    build_prompt,
    run_loop,
)
from agent_tck.reference.runner.scripted import ScriptedCall, ScriptedRunner
from agent_tck.reference.runner.signals import Signal, parse_signal

__all__ = [
    "AUTONOMOUS_SYSTEM_PROMPT",
    "Ball",
    "ClaudeRunner",
    "LoopResult",
    "MemorySession",
    "RunOptions",
    "RunResult",
    "Runner",
    "ScriptedCall",
    "ScriptedRunner",
    "Session",
    "Signal",
    "build_prompt",
    "parse_signal",
    "run_loop",
]
