"""The fake harness refuses what the pinned real CLIs refuse, as they do.

The unit tests read the checked-in option table (fixtures/cli-options.json); the fidelity
tests run the real CLIs (in a loopback-only namespace, stdin empty) on the same argvs and
compare exit code and message.
"""

from __future__ import annotations

import json

import pytest

from agent_tck.doubles.backends import PROFILES
from agent_tck.doubles.harness.fake import refusal
from agent_tck.doubles.realcli import clis, isolation
from agent_tck.doubles.realcli.options import OPTIONS_FILE, measure, run_real

COMMANDS = json.loads(OPTIONS_FILE.read_text(encoding="utf-8"))["commands"]

# What the SDKs and the reference pass: every one is taken.
TAKEN = {
    "claude": [
        ["-p", "--output-format", "stream-json", "--verbose", "--", "--help"],
        ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
         "--system-prompt", "", "--setting-sources", "", "--permission-mode", "default",
         "--max-turns", "3", "--model", "sonnet", "--include-partial-messages",
         "--mcp-config", "{}", "--resume", "s-1", "--permission-prompt-tool", "stdio"],
        ["-p", "--allowedTools", "Bash", "Read", "--output-format=stream-json", "--verbose"],
    ],
    "codex": [
        ["exec", "--json", "--skip-git-repo-check", "-m", "gpt-5", "-"],
        ["exec", "--experimental-json", "--cd", "/tmp", "--skip-git-repo-check", "--sandbox",
         "workspace-write", "-c", "model_reasoning_effort=high", "--model", "gpt-5"],
        ["exec", "--json", "--skip-git-repo-check", "resume", "019c7199-0000", "-"],
        ["e", "--json", "--skip-git-repo-check", "-"],  # exec's alias
        ["-c", "model=gpt-5", "exec", "--json", "-"],  # the CLI's own options first
        ["--version"],  # a wrapper's probe: no interactive CLI
    ],
}
REFUSED = {
    "claude": [
        ["-p", "--bogus-option", "x"],
        ["-p", "--model"],
        ["-p", "--permission-mode", "yolo", "hi"],
        ["-p", "--output-format=bogus", "hi"],
        ["-p", "--output-format", "stream-json", "hi"],  # stream-json in print mode: --verbose
        ["--print", "--output-format=stream-json", "--", "hi"],
    ],
    "codex": [
        ["exec", "--bogus-option", "x"],
        ["exec", "--sandbox", "bogus", "hi"],
        ["exec", "--model"],
        ["exec", "-c"],
        ["exec", "resume", "--bogus"],
        ["exec", "--json", "one", "two"],
        # Without `exec`: the interactive CLI, which takes no --json and needs a terminal.
        ["--json", "-"],
        ["-m", "gpt-5", "hi"],
        [],
    ],
}

START = {name: profile.start for name, profile in PROFILES.items()}


@pytest.mark.parametrize(("name", "argv"), [(n, a) for n, argvs in TAKEN.items() for a in argvs])
def test_what_the_sdks_pass_is_taken(name: str, argv: list[str]) -> None:
    assert refusal(START[name], argv, COMMANDS) is None


def test_refusals_have_the_real_clis_words_and_exit_codes() -> None:
    assert refusal(START["claude"], ["-p", "--bogus"], COMMANDS) == (
        1, "error: unknown option '--bogus'\n")
    assert refusal(START["claude"], ["--permission-mode", "yolo"], COMMANDS) == (
        1, "error: option '--permission-mode <mode>' argument 'yolo' is invalid. Allowed choices "
           "are acceptEdits, auto, bypassPermissions, manual, dontAsk, plan.\n")
    assert refusal(START["claude"], ["-p", "--output-format", "stream-json"], COMMANDS) == (
        1, "Error: When using --print, --output-format=stream-json requires --verbose\n")
    assert refusal(START["claude"], ["--output-format", "stream-json"], COMMANDS) is None
    assert refusal(START["claude"], ["-p", "--output-format", "json"], COMMANDS) is None
    code, message = refusal(START["codex"], ["exec", "--sandbox", "x"], COMMANDS) or (0, "")
    assert code == 2 and message.startswith(
        "error: invalid value 'x' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only,")
    code, message = refusal(START["codex"], ["exec", "resume", "--bogus"], COMMANDS) or (0, "")
    assert code == 2 and "Usage: codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]" in message
    assert refusal(START["codex"], ["-m", "gpt-5", "hi"], COMMANDS) == (
        1, "Error: stdin is not a terminal\n")
    code, message = refusal(START["codex"], ["--json", "-"], COMMANDS) or (0, "")
    assert code == 2 and "Usage: codex [OPTIONS] [PROMPT]" in message
    code, message = refusal(START["codex"], ["exec", "resume", "s", "p", "x"], COMMANDS) or (0, "")
    assert code == 2 and message.startswith("error: unexpected argument 'x' found")
    assert refusal(START["codex"], ["exec", "review", "--anything"], COMMANDS) is None


needs_real = pytest.mark.skipif(
    isolation.problem() is not None or any(map(clis.not_installed, ("claude", "codex"))),
    reason="not run: the real CLIs or network isolation are not available here")
PARSE_ERRORS = ("unknown option", "argument missing", "is invalid", "unexpected argument",
                "a value is required", "invalid value")


@needs_real
@pytest.mark.parametrize(("name", "argv"),
                         [(n, a) for n, argvs in REFUSED.items() for a in argvs])
def test_the_fake_refuses_as_the_real_cli_does(name: str, argv: list[str]) -> None:
    """The same exit code, and the real CLI's refusal ends with the fake's message word for
    word; what the real CLI says before it is about its environment, not its command line
    (claude: a missing ~/.claude.json that has a backup; codex: a home under /tmp)."""
    real = run_real(name, *argv, timeout=30)
    fake = refusal(START[name], argv, COMMANDS)
    assert fake is not None and fake[0] == real.returncode, (fake, real.returncode, real.stderr)
    assert fake[1] and real.stderr.endswith(fake[1]), (fake[1], real.stderr)


@needs_real
@pytest.mark.parametrize(("name", "argv"), [(n, a) for n, argvs in TAKEN.items() for a in argvs])
def test_the_real_cli_takes_what_the_fake_takes(name: str, argv: list[str]) -> None:
    """Stdin is empty and the network is loopback alone: the real CLI fails later (or waits
    for a model it cannot reach, and is stopped), never on its command line."""
    real = run_real(name, *argv, timeout=15)
    assert not any(error in real.stderr for error in PARSE_ERRORS), real.stderr[:500]


@needs_real
def test_the_option_table_is_the_pinned_clis_own() -> None:
    assert json.loads(OPTIONS_FILE.read_text(encoding="utf-8")) == measure(), (
        f"{OPTIONS_FILE} is stale: run `python -m agent_tck.doubles.realcli.options`")
