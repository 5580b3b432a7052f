"""The reference agent's configuration, environment and edge cases the features don't reach."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tck.doubles.harness.script import Script, install, read_record, write_script
from agent_tck.reference.agent import JOIN_TEXTS, AgentConfig, CodingAgent, NodeEvent, create_agent
from agent_tck.reference.backends import get_backend
from agent_tck.reference.backends.base import RunOptions
from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.status import Status


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"timeout": 0}, "timeout must be a positive number of seconds up to 604800, got 0"),
        ({"timeout": "5"}, "timeout must be a positive number of seconds up to 604800, got '5'"),
        ({"grace_period": -1.0},
         "grace_period must be a positive number of seconds up to 604800, got -1.0"),
        ({"timeout": True}, "timeout must be a positive number of seconds up to 604800, got True"),
        ({"timeout": float("nan")},
         "timeout must be a positive number of seconds up to 604800, got nan"),
        ({"grace_period": float("inf")},
         "grace_period must be a positive number of seconds up to 604800, got inf"),
        ({"timeout": 1e300},
         "timeout must be a positive number of seconds up to 604800, got 1e+300"),
        ({"working_dir": "/no/such/dir"}, "working_dir '/no/such/dir' is not a directory"),
        ({"backend": "acme"}, "unknown backend 'acme' (known: claude, claude-acp, codex, "
                              "codex-acp, gemini, gemini-acp)"),
        ({"timeoutt": 3}, "unknown agent setting(s): timeoutt"),
    ],
)
def test_bad_settings_are_refused_naming_the_value(
    settings: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(**settings)
    assert str(caught.value) == message


def test_defaults() -> None:
    config = AgentConfig()
    assert (config.backend, config.timeout, config.working_dir) == ("claude", 300.0, None)


def test_commands_as_the_real_clis_take_them() -> None:
    claude = get_backend("claude").build("hi", RunOptions(model="opus", resume_session="s-1"))
    assert claude.argv == (
        "claude",
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        "opus",
        "--resume",
        "s-1",
    )
    codex = get_backend("codex").build(
        "hi", RunOptions(model="o4", resume_session="t-1", extra_args=("--sandbox", "read-only"))
    )
    assert codex.argv == (
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-m",
        "o4",
        "--sandbox",
        "read-only",
        "resume",
        "t-1",
        "-",
    )
    assert codex.stdin == b"hi"


@pytest.fixture
def rig(tmp_path: Path) -> tuple[Path, Path, Path]:
    install(tmp_path / "bin", tmp_path / "s.json", tmp_path / "r.jsonl")
    return tmp_path / "bin", tmp_path / "s.json", tmp_path / "r.jsonl"


def test_nesting_variable_is_removed_and_stripped_keys_too(
    rig: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, script, record = rig
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    write_script(script, Script("claude").init().done("ok"))
    path = f"{bin_dir}:{os.environ['PATH']}"
    create_agent(env={"PATH": path}, strip_env=("ANTHROPIC_API_KEY",)).process("hi")
    create_agent(env={"PATH": path}).process("hi")
    envs = [e["env"] for e in read_record(record) if e["what"] == "start"]
    assert ["CLAUDECODE" in e for e in envs] == [False, False]
    assert ["ANTHROPIC_API_KEY" in e for e in envs] == [False, True]


def test_command_that_is_not_executable(tmp_path: Path) -> None:
    plain = tmp_path / "claude"
    plain.write_text("#!/bin/sh\n")
    response = create_agent(command=str(plain)).process("hi")
    assert response["status"] == Status.LAUNCH_FAILED
    assert response["message"] == f"cannot start {str(plain)!r}: {plain} is not executable"


def test_command_on_path_that_is_not_executable(tmp_path: Path) -> None:
    (tmp_path / "codex").write_text("#!/bin/sh\n")
    response = create_agent(backend="codex", env={"PATH": str(tmp_path)}).process("hi")
    expected = f"cannot start 'codex': {tmp_path / 'codex'} is not executable"
    assert (response["status"], response["message"]) == (Status.LAUNCH_FAILED, expected)


def test_command_missing_from_path(tmp_path: Path) -> None:
    response = create_agent(env={"PATH": str(tmp_path)}).process("hi")
    expected = f"cannot start 'claude': the command was not found on PATH ({tmp_path})"
    assert (response["status"], response["message"]) == (Status.LAUNCH_FAILED, expected)


def test_an_unexpected_error_is_answered_and_leaves_the_agent_ready(
    rig: tuple[Path, Path, Path]
) -> None:
    """Decision D-24: DEGRADED naming the failure, status 1 saying the agent failed, READY."""
    bin_dir, script, _ = rig
    write_script(script, Script("claude").init().done("ok"))
    states: list[NodeEvent] = []
    agent = CodingAgent(AgentConfig(env={"PATH": str(bin_dir)}), listeners=[states.append])

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    agent.run_process = explode  # type: ignore[assignment]
    response = agent.process("hi")
    assert response["status"] == 1
    assert response["message"] == "internal error of the agent: RuntimeError: disk on fire"
    assert [(e.state.name, e.reason) for e in states[1:3]] == [
        ("BUSY", "request received"),
        ("DEGRADED", "internal error of the agent: RuntimeError: disk on fire")]
    assert states[-1].state.name == agent.state.name == "READY"


def test_an_interrupt_goes_on_and_leaves_the_agent_ready(rig: tuple[Path, Path, Path]) -> None:
    bin_dir, script, _ = rig
    write_script(script, Script("claude").init().done("ok"))
    states: list[NodeEvent] = []
    agent = CodingAgent(AgentConfig(env={"PATH": str(bin_dir)}), listeners=[states.append])

    def interrupt(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    agent.run_process = interrupt  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        agent.process("hi")
    assert agent.state.name == "READY"
    assert states[-1].reason == "recovered after an unexpected error"


def test_many_text_lines_make_one_message_in_order(rig: tuple[Path, Path, Path]) -> None:
    """Gemini's: its end line carries no text, so its answer is every piece, joined
    JOIN_TEXTS at a time (Claude's result would repeat the last piece, decision D-34)."""
    bin_dir, script_path, _ = rig
    script = Script("gemini").init()
    for i in range(2 * JOIN_TEXTS + 5):
        script.text(f"{i},")
    write_script(script_path, script.done())
    config = AgentConfig(backend="gemini", env={"PATH": str(bin_dir)})
    response = CodingAgent(config).process("hi")
    assert response["message"] == "".join(f"{i}," for i in range(2 * JOIN_TEXTS + 5))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"env": {"ANTHROPIC_API_KEY": "k"}, "strip_env": ["ANTHROPIC_API_KEY"]},
         "env sets and strip_env removes the same variable(s): ANTHROPIC_API_KEY"),
        ({"env": {"A=B": "x"}}, "env: 'A=B' is not an environment variable name"),
        ({"env": {"": "x"}}, "env: '' is not an environment variable name"),
        ({"env": {"A": "x\0y"}}, "env: the value of 'A' must be a string without NUL"),
        ({"env": {"A": 3}}, "env: the value of 'A' must be a string without NUL, not 3"),
        ({"env": ["A"]}, "env must map variable names to values, not ['A']"),
        ({"strip_env": "OPENAI_API_KEY"}, "strip_env must be a list of names"),
        ({"strip_env": ["X\0"]}, "strip_env: 'X\\x00' is not an environment variable name"),
        ({"extra_args": ["--ok", "bad\0"]}, "extra_args: 'bad\\x00' must be a string"),
    ],
)
def test_bad_environment_settings_are_refused_at_creation(
    settings: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(**settings)
    assert message in str(caught.value)


@pytest.mark.parametrize("session", ["--dangerously-skip-permissions", "a b", "x\n--model",
                                     "-1", "", "a" * 201, "id;rm"])
def test_a_session_id_that_is_not_one_is_refused_before_any_cli_starts(session: str) -> None:
    agent = create_agent(backend="claude", env={"PATH": "/nonexistent"})
    response = agent.process("Hello", session)
    assert response["status"] == Status.LAUNCH_FAILED
    assert "invalid session id" in response["message"] and "no CLI was started" in response["error"]


@pytest.mark.parametrize("session", ["latest", "3", "0"])
def test_a_session_id_a_cli_reads_as_an_alias_is_refused_before_any_cli_starts(session: str
                                                                            ) -> None:
    response = create_agent(backend="gemini", env={"PATH": "/nonexistent"}).process("Hi", session)
    assert response["status"] == Status.LAUNCH_FAILED
    assert "an alias of another session" in response["message"], response


@pytest.mark.parametrize("session", ["5d1c2b7e-0000-4000-8000-000000000001", "019c7199-abcd",
                                     "my-thread.v2", "a:b_c"])
def test_real_session_ids_are_taken(session: str) -> None:
    assert CodingAgent.check_session(session) is None


@pytest.mark.parametrize(("message", "why"), [
    (5, "invalid message 5: a prompt is a string"),
    ("a\ud800b", "invalid message: surrogates not allowed"),
])
def test_a_message_that_cannot_be_a_prompt_is_answered_with_a_status(
        message: object, why: str) -> None:
    agent = create_agent(backend="codex", env={"PATH": "/nonexistent"})
    response = agent.process(message, None)  # type: ignore[arg-type]
    assert response["status"] == Status.LAUNCH_FAILED and response["message"].startswith(why)
    assert agent.state.name == "READY"


def test_the_text_an_answer_keeps_is_bounded_with_a_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tck.reference import agent as agent_module
    from agent_tck.reference.events import Event

    monkeypatch.setattr(agent_module, "MAX_TEXT", 10)
    fold = agent_module._Fold("claude")
    for text in ("12345", "6789", "abcdef", "ghi"):
        fold.add(Event("text", text=text))
    response = fold.response(Status.OK, None)
    assert response["message"] == "123456789a"
    assert response["warnings"] == [
        "text beyond 10 characters was dropped: the answer's message is cut there"]
