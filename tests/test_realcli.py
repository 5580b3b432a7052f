"""The real-CLI machinery without the real CLIs: isolation, the sandbox's wrapper, the pinned
installs, `agent-tck record`'s errors, and what a run says when real CLIs cannot run here."""

from __future__ import annotations

import fcntl
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tck.doubles.realcli import clis, isolation
from agent_tck.doubles.realcli.sandbox import OWNER, REFUSED, TMP_PREFIX, Sandbox, sweep
from agent_tck.kit import cli
from agent_tck.kit.errors import UsageError
from agent_tck.kit.observe import still_running

needs_isolation = pytest.mark.skipif(
    isolation.problem() is not None, reason=f"not run: {isolation.problem()}"
)
STUB = """#!/bin/sh
# Stands in for a real CLI: says where it runs, starts a process of its own session, exits.
links=$(ip -o link show | cut -d: -f2 | tr -d ' ' | tr '\\n' ,)
{{ echo "home=$HOME"; echo "links=$links"; echo "proxy=$HTTPS_PROXY"; \
   echo "config=$CLAUDE_CONFIG_DIR"; echo "kept=$KEEP_ME"; \
   echo "tmp=$TMPDIR"; echo "runtime=$XDG_RUNTIME_DIR"; }} > {out}
setsid sleep 300 < /dev/null > /dev/null 2>&1 &
echo $! > {out}.child
"""


def test_only_loopback_reads_ip_link_listings() -> None:
    lo = "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN"
    eth = "2: eth0: <BROADCAST,MULTICAST,UP> mtu 1500 qdisc pfifo_fast state UP"
    assert isolation.only_loopback(lo + "\n")
    assert not isolation.only_loopback(f"{lo}\n{eth}\n")
    assert not isolation.only_loopback("")


def test_without_unshare_there_is_no_isolation_and_it_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    isolation.problem.cache_clear()
    try:
        assert isolation.problem() == (
            "no network isolation: 'unshare' is not installed (util-linux, iproute2)"
        )
    finally:
        isolation.problem.cache_clear()


@pytest.fixture
def stub(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "stub-said"
    path = tmp_path / "stub-cli"
    path.write_text(STUB.format(out=out))
    path.chmod(0o755)
    return path, out


@needs_isolation
def test_the_wrapper_runs_the_cli_in_the_namespace_with_the_sandbox_home(
    tmp_path: Path, stub: tuple[Path, Path]
) -> None:
    cli_path, said = stub
    with Sandbox(tmp_path / "box", "claude", {"turns": []}, cli_path) as box:
        env = {"PATH": box.path(), "HTTPS_PROXY": "http://proxy.example:3128",
               "CLAUDE_CONFIG_DIR": "/somewhere/else", "KEEP_ME": "yes", "TMPDIR": "/tmp",
               "XDG_RUNTIME_DIR": "/run/user/0"}
        done = subprocess.run(["claude", "-p"], env=env, timeout=60, check=False)
        assert done.returncode == 0
        assert said.read_text().split() == [
            f"home={box.home}", "links=lo,", "proxy=", "config=", "kept=yes",
            f"tmp={box.tmp}", f"runtime={box.tmp}"]
        # short enough for the socket Claude keeps there (at most 103 bytes, pids to 2**22)
        assert box.tmp.is_dir() and len(str(box.tmp / "cc-socks" / "4194304.sock")) <= 103
        child = int(Path(f"{said}.child").read_text())
        # Its environment is unreadable while it execs `setsid`, then `sleep`: look once it is
        # the sleep (docs/flakes.md: a process seen through /proc may be in an exec).
        deadline = time.monotonic() + 5
        while not _runs(child, b"sleep") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert child in box.processes()  # found by the sandbox's mark, in a session of its own
        assert box.tmp not in sweep() and box.tmp.is_dir(), "a live sandbox's folder was swept"
    assert not still_running([child]), "close() left it running"
    assert not box.tmp.exists(), "close() left the CLI's temporary folder"


def _runs(pid: int, program: bytes) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(program)
    except OSError:
        return False


def test_a_sweep_removes_only_folders_whose_lock_nobody_holds(tmp_path: Path) -> None:
    """What a sweep of a shared temporary folder may meet; it neither hangs nor follows."""
    def folder(name: str) -> Path:
        made = tmp_path / f"{TMP_PREFIX}{name}"
        made.mkdir()
        return made

    (folder("abandoned") / OWNER).touch()
    held = folder("held") / OWNER
    held.touch()
    os.mkfifo(folder("fifo") / OWNER)  # opened for reading, a pipe would wait for a writer
    folder("being-made")  # no OWNER yet
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / OWNER).touch()
    (tmp_path / f"{TMP_PREFIX}link").symlink_to(elsewhere)
    with open(held) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert sweep(tmp_path) == [tmp_path / f"{TMP_PREFIX}abandoned"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        "elsewhere", *(f"{TMP_PREFIX}{n}" for n in ("being-made", "fifo", "held", "link"))])
    assert (elsewhere / OWNER).exists()


@needs_isolation
def test_a_sandbox_whose_suite_is_killed_leaves_no_model_server(
    tmp_path: Path, stub: tuple[Path, Path]
) -> None:
    """A run killed from outside (a cancelled CI job, a stopped flake hunt) never gets to
    close its sandbox: the model server, in a session of its own, must end with it, and the
    CLI's temporary folder it leaves is removed by the next sandbox's sweep."""
    cli_path, _ = stub
    code = ("import sys, time; from pathlib import Path\n"
            "from agent_tck.doubles.realcli.sandbox import Sandbox\n"
            f"box = Sandbox(Path({str(tmp_path / 'box')!r}), 'claude', {{'turns': []}}, "
            f"Path({str(cli_path)!r}))\n"
            "print(box.server.pid, box.tmp, flush=True); time.sleep(60)")
    own_tmp = tmp_path / "tmp"  # its folder is swept by this test alone, not by another's
    own_tmp.mkdir()
    suite = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(own_tmp)})
    assert suite.stdout is not None
    server, said = 0, []
    try:
        said = suite.stdout.readline().split()
        server = int(said[0])
    finally:
        suite.kill()
        suite.wait()
        suite.stdout.close()
    try:
        deadline = time.monotonic() + 10
        while still_running([server]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not still_running([server]), "the model server outlived the suite that started it"
        left = Path(said[1])
        assert left.parent == own_tmp and left.is_dir()
        assert sweep(own_tmp) == [left] and not left.exists()
    finally:
        if server and still_running([server]):
            os.kill(server, signal.SIGKILL)
        if len(said) == 2:
            shutil.rmtree(said[1], ignore_errors=True)


@needs_isolation
def test_the_wrapper_refuses_a_namespace_that_is_not_loopback_alone(
    tmp_path: Path, stub: tuple[Path, Path]
) -> None:
    cli_path, said = stub
    with Sandbox(tmp_path / "box", "codex", {"turns": []}, cli_path) as box:
        wrapper = box.bin / "codex"
        assert box.server is not None
        # Point the wrapper at this process's network namespace, which has more than loopback.
        wrapper.write_text(wrapper.read_text().replace(f"--net=/proc/{box.server.pid}/",
                                                       f"--net=/proc/{os.getpid()}/"))
        done = subprocess.run(["codex"], env={"PATH": box.path()}, capture_output=True,
                              text=True, timeout=60, check=False)
    assert not said.exists(), "the CLI ran outside the isolated namespace"
    if os.geteuid() == 0:  # otherwise nsenter itself may not enter that namespace: also safe
        assert done.returncode == REFUSED
        assert "refusing to run codex: this network namespace is not loopback alone" in (
            done.stderr)
    assert done.returncode != 0


def _pinned_dir(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {
        "@anthropic-ai/claude-code": "2.1.330", "@openai/codex": "0.169.0",
        "@google/gemini-cli": "0.61.0", "@agentclientprotocol/claude-agent-acp": "0.101.0",
        "@agentclientprotocol/codex-acp": "2.6.0"}}))
    return tmp_path


def test_a_missing_install_says_what_is_pinned_and_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TCK_CLIS", str(_pinned_dir(tmp_path)))
    assert clis.binary("codex") is None
    assert clis.not_installed("codex") == (
        f"not run: the real codex CLI (@openai/codex 0.169.0) is not installed in {tmp_path}: "
        "it is missing; run `agent-tck install-clis`"
    )


def test_a_broken_pin_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"dependencies": {"@openai/codex": "0.169.0"}}')
    with pytest.raises(UsageError, match=r"package.json: no pinned version for "
                                         r"'@anthropic-ai/claude-code'"):
        clis.pins(tmp_path)


FAKE_NPM = """#!/bin/sh
# Installs what clis/package.json pins, as npm would lay it out; records its arguments.
echo "$@" >> npm-args
for pkg in @anthropic-ai/claude-code:claude @openai/codex:codex @google/gemini-cli:gemini \\
    @agentclientprotocol/claude-agent-acp:claude-agent-acp \\
    @agentclientprotocol/codex-acp:codex-acp; do
  name=${pkg%:*}; bin=${pkg#*:}
  mkdir -p node_modules/$name node_modules/.bin
  version=$(python3 -c "import json; print(json.load(open('package.json'))\
['dependencies']['$name'])")
  echo "{\\"version\\": \\"$version\\"}" > node_modules/$name/package.json
  printf '#!/bin/sh\\n' > node_modules/.bin/$bin; chmod +x node_modules/.bin/$bin
done
"""


def test_install_uses_a_project_local_cache_and_is_a_no_op_once_installed(tmp_path: Path) -> None:
    where = _pinned_dir(tmp_path / "clis")
    npm = tmp_path / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    first = clis.install(where, npm=str(npm))
    assert [(p.backend, p.binary.name, p.installed, p.ready) for p in first] == [
        ("claude", "claude", "2.1.330", True),
        ("claude-acp", "claude-agent-acp", "0.101.0", True),
        ("codex", "codex", "0.169.0", True), ("codex-acp", "codex-acp", "2.6.0", True),
        ("gemini", "gemini", "0.61.0", True), ("gemini-acp", "gemini", "0.61.0", True)]
    again = clis.install(where, npm=str(npm))
    assert again == first
    args = (where / "npm-args").read_text().splitlines()
    assert len(args) == 1, "the second install ran npm again"
    assert f"--cache {where / '.npm-cache'}" in args[0]


def test_a_failing_npm_is_reported_with_its_output(tmp_path: Path) -> None:
    npm = tmp_path / "npm"
    npm.write_text("#!/bin/sh\necho 'E404 no such package' >&2\nexit 1\n")
    npm.chmod(0o755)
    with pytest.raises(UsageError, match="exited 1:\nE404 no such package"):
        clis.install(_pinned_dir(tmp_path / "clis"), npm=str(npm))
    with pytest.raises(UsageError, match="'/nonexistent/npm' is not on PATH"):
        clis.install(_pinned_dir(tmp_path / "clis"), npm="/nonexistent/npm")


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_record_names_a_bad_script_and_its_turn(tmp_path: Path) -> None:
    script = tmp_path / "model.json"
    script.write_text('{"turns": [{"say": "hi"}, {"say": "a", "stall": 3}]}')
    code, _, err = run_cli("record", "--backend", "codex", "--script", str(script),
                           "--out", str(tmp_path / "out.jsonl"))
    assert code == 2
    assert f"{script}: turn 2: give exactly one of say, tool, fail, stall" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_record_says_why_a_real_cli_cannot_run_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TCK_CLIS", str(_pinned_dir(tmp_path / "clis")))
    script = tmp_path / "model.json"
    script.write_text('{"turns": [{"say": "hi"}]}')
    out = tmp_path / "out.jsonl"
    code, _, err = run_cli("record", "--backend", "claude", "--script", str(script),
                           "--out", str(out))
    assert code == 2
    assert "cannot record claude: not run: the real claude CLI" in err
    assert not out.exists()


def test_real_cli_scenarios_are_not_run_with_the_reason_when_the_clis_are_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.runsuite import scenario_results, verdicts_for

    monkeypatch.setenv("AGENT_TCK_CLIS", str(_pinned_dir(tmp_path)))
    results = scenario_results("reference", ["real-cli"])
    # seven requirements, three CLIs; six for claude-agent-acp and codex-acp, four for
    # gemini --acp
    assert len(results) == 37
    assert {(r.verdict, r.evidence.split(" (")[0]) for r in results} == {
        ("skipped", f"not run: the real {command} CLI")
        for command in ("claude", "codex", "gemini", "claude-agent-acp", "codex-acp")}
    assert set(verdicts_for("reference", ["real-cli"]).values()) == {"not run"}


def test_real_cli_scenarios_never_run_without_isolation_and_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.runsuite import scenario_results

    npm = tmp_path / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    where = _pinned_dir(tmp_path / "clis")
    clis.install(where, npm=str(npm))  # "installed", but only stubs that would fail the run
    monkeypatch.setenv("AGENT_TCK_CLIS", str(where))
    monkeypatch.setattr(isolation, "problem", lambda: "no network isolation: none here")
    results = scenario_results("reference", ["real-cli"])
    assert {(r.verdict, r.evidence) for r in results} == {
        ("skipped", "not run: no network isolation: none here")}


def test_an_agent_that_ignores_working_dir_fails_rc2_with_the_real_clis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tck.doubles.realcli.sandbox import unavailable
    from tests.support.runsuite import verdicts_for

    reasons = [r for r in map(unavailable, ("claude", "codex", "gemini")) if r]
    if reasons:
        pytest.skip(reasons[0])
    monkeypatch.chdir(tmp_path)  # where that agent's CLI runs, and writes
    verdicts = verdicts_for("python:tests.miniatures.agent:IgnoresWorkingDir", ["real-cli"],
                            keyword="writes")
    assert verdicts["RC-2"] == "failed"
    assert verdicts["RC-1"] == "not run"  # deselected by the keyword, not passed by default


def test_an_acp_agent_that_lives_on_after_its_turn_still_resumes_its_session() -> None:
    """RC-4 through claude-agent-acp and codex-acp, with the turn's end read 4 s late: each
    asks its model something of its own after a turn (a title, the next prompt), and the
    scripted model answers that beside the script; played from the script, codex-acp's title
    takes the second prompt's turn and RC-4 fails."""
    from agent_tck.doubles.realcli.sandbox import unavailable
    from tests.support.runsuite import scenario_results

    reason = next((r for r in map(unavailable, ("claude", "codex")) if r), None)
    if reason:
        pytest.skip(reason)
    results = scenario_results("python:tests.miniatures.agent:LingersAfterEachTurn",
                               ["real-cli"], "resumes and (claude-acp or codex-acp)")
    judged = [(r.name, r.verdict, r.message) for r in results if r.verdict != "not run"]
    assert [verdict for _, verdict, _ in judged] == ["passed", "passed"], judged


@pytest.mark.parametrize(("defect", "expected"), [
    (None, {"RC-4": "passed", "RC-7": "passed"}),
    ("no-resume", {"RC-4": "failed", "RC-7": "passed"}),
    ("hidden-tools", {"RC-4": "passed", "RC-7": "failed"}),
])
def test_the_real_cli_over_dds_resumes_a_conversation_and_publishes_its_tools(
    defect: str | None, expected: dict[str, str]
) -> None:
    """End to end as a GENESIS client sees it: the real claude behind a served agent, a
    conversation of two requests, the tool calls on the event topic; a served agent that
    forgets conversations, or hides tool calls, fails exactly that requirement."""
    import sys

    from agent_tck.doubles.realcli.sandbox import unavailable
    from agent_tck.kit.drivers import dds_available
    from tests.support.dds import ROOT
    from tests.support.runsuite import verdicts_for

    if not dds_available():
        pytest.skip("Cyclone DDS is not installed (pip install 'agent-tck[dds]')")
    if (reason := unavailable("claude")) is not None:
        pytest.skip(reason)
    impl = "dds" if defect is None else (
        f"dds:serve={sys.executable} {ROOT / 'tests' / 'miniatures' / 'dds.py'} {defect} serve;"
        "fork=on")
    verdicts = verdicts_for(impl, ["real-cli"], keyword="claude and (resumes or published)")
    assert {rid: verdicts[rid] for rid in expected} == expected
    assert {v for rid, v in verdicts.items() if rid not in expected} == {"not run"}


def test_a_failed_real_cli_scenario_tells_a_repeated_model_request_from_a_new_one() -> None:
    """The model requests a real-CLI failure lists carry a digest of each body: a CLI that sent
    one request twice (a retry, which plays the script's next turn) shows the same digest; and
    of each system prompt, with the end of the last message: a request of the CLI's own (a
    summary, a title) shows another system prompt and its own last words."""
    from agent_tck.steps.realcli_steps import LAST_WORDS, _summary

    first = {"instructions": "You are Codex.", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Remember 7."}]}]}
    second = {**first, "input": [*first["input"], {"role": "assistant", "content": "Noted."},
                                 {"role": "user", "content": "Which?"}]}
    own = {"system": [{"type": "text", "text": "Summarize."}],
           "messages": [{"role": "user", "content": "x" * 100 + " Remember 7. Noted."}]}
    asked = [{"path": "/v1/responses", "turn": n, "answer": "say", "body": body}
             for n, body in ((1, first), (2, first), (3, second), (4, own))]
    summary = _summary(asked)
    assert summary[0]["body"] == summary[1]["body"] != summary[2]["body"]
    assert summary[0] == {"path": "/v1/responses", "turn": 1, "answer": "say",
                          "body": summary[0]["body"], "system": summary[2]["system"],
                          "last": "Remember 7."}
    assert summary[2]["last"] == "Which?"
    assert summary[3]["system"] != summary[0]["system"]
    assert summary[3]["last"] == ("x" * 100 + " Remember 7. Noted.")[-LAST_WORDS:]
    assert "system" not in _summary([{"body": {"contents": []}}])[0]
