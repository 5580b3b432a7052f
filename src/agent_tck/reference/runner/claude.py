"""`ClaudeRunner`: one loop iteration as one `claude` run, as seed 004's Claude runner.

The command line is the seed's: `--disable-slash-commands --setting-sources ""
--append-system-prompt <autonomous prompt> -p -`, then `--dangerously-skip-permissions` when
trusted or `--permission-mode acceptEdits` otherwise, then `--model` when one is given. The
prompt goes on stdin. The process runs under the reference supervisor (own process group,
deadline, SIGTERM then SIGKILL, always reaped). The output is stdout followed by the tail of
stderr; a non-zero exit is a result, not an error, because the agent may have said something.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

from agent_tck.reference.backends.claude import NESTING_VARIABLES
from agent_tck.reference.runner.base import RunOptions, RunResult
from agent_tck.reference.runner.signals import parse_signal
from agent_tck.reference.supervisor import Outcome, resolve, run_process

AUTONOMOUS_SYSTEM_PROMPT = """CRITICAL: You are an autonomous agent.
DO NOT ask questions. DO NOT summarize. DO NOT wait for confirmation.
START WORKING IMMEDIATELY. Execute the workflow in prompt.md without any preamble."""

NO_DEADLINE = 7 * 24 * 3600.0
DEFAULT_GRACE = 5.0


class ClaudeRunner:
    """Runs `command` (default `claude`) once per iteration."""

    def __init__(self, command: str = "claude", *, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, grace: float = DEFAULT_GRACE) -> None:
        self.command = command
        self.cwd = cwd
        self.env = env
        self.grace = grace

    def argv(self, options: RunOptions) -> list[str]:
        """The command line for one iteration (the prompt is not on it: it goes on stdin)."""
        argv = [self.command, "--disable-slash-commands", "--setting-sources", "",
                "--append-system-prompt", AUTONOMOUS_SYSTEM_PROMPT, "-p", "-"]
        if options.trust:
            argv.append("--dangerously-skip-permissions")
        else:
            argv += ["--permission-mode", "acceptEdits"]
        if options.model:
            argv += ["--model", options.model]
        return argv

    def run(self, prompt: str, options: RunOptions) -> RunResult:
        """Run once; raises LaunchError only when the command cannot be started."""
        env = self._environment()
        argv = self.argv(options)
        argv[0] = resolve(argv[0], env)
        lines: list[str] = []
        outcome = run_process(argv, prompt.encode("utf-8"), lines.append, cwd=self.cwd,
                              env=env, timeout=options.timeout or NO_DEADLINE, grace=self.grace)
        return _result("".join(f"{line}\n" for line in lines) + outcome.stderr_tail, outcome)

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env or {})
        for name in NESTING_VARIABLES:
            env.pop(name, None)
        return env


def _result(output: str, outcome: Outcome) -> RunResult:
    code = outcome.returncode
    signal_kind, reason = parse_signal(output)
    killed_by = signal.Signals(-code).name if code < 0 else None
    return RunResult(output=output, exit_code=-1 if code < 0 else code, signal=signal_kind,
                     blocked_reason=reason, timed_out=outcome.timed_out, killed_by=killed_by)
