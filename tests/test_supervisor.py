"""The supervisor and its line splitter, on real processes with short real deadlines."""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tck.reference.exceptions import LaunchError
from agent_tck.reference.feed import Feed
from agent_tck.reference.supervisor import LineSplitter, Supervisor, resolve, run_process
from tests.support.oldkernel import refusing, sleeper


def split(chunks: list[bytes], limit: int = 10) -> tuple[list[str], int]:
    lines: list[str] = []
    splitter = LineSplitter(lines.append, limit)
    for chunk in chunks:
        splitter.feed(chunk)
    splitter.close()
    return lines, splitter.skipped


def test_lines_are_reassembled_across_chunks_and_split_within_one() -> None:
    assert split([b"ab", b"c\nde\nf", b"g\n"]) == (["abc", "de", "fg"], 0)


def test_a_last_line_without_newline_is_delivered() -> None:
    assert split([b"one\ntwo"]) == (["one", "two"], 0)


def test_lines_over_the_limit_are_skipped_whole_and_counted() -> None:
    assert split([b"short\n", b"x" * 8, b"x" * 8, b"tail\nnext\n"]) == (["short", "next"], 1)
    assert split([b"y" * 11 + b"\nok\n"]) == (["ok"], 1)
    assert split([b"z" * 25]) == ([], 1)


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert split([b"caf\xe9\n"]) == (["caf\ufffd"], 0)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_stdin_is_written_then_closed_and_stdout_read() -> None:
    lines: list[str] = []
    out = run_process(
        python("import sys; print(sys.stdin.read().upper())"),
        b"hi",
        lines.append,
        cwd=None,
        env=None,
        timeout=10,
        grace=1,
    )
    assert (lines, out.returncode, out.timed_out) == (["HI"], 0, False)


class _Unreaped(Supervisor):
    reaped = False  # as where there is no reaper (macOS)


@pytest.mark.parametrize(("hidden", "supervisor"), [
    (("pidfd_open",), Supervisor), (("pidfd_open", "waitid"), _Unreaped)])
def test_without_pidfds_the_exit_is_looked_for(monkeypatch: pytest.MonkeyPatch,
                                               hidden: tuple[str, ...],
                                               supervisor: type[Supervisor]) -> None:
    """Without pidfds (an old kernel: under the reaper), and without waitid either (macOS
    before Python 3.13, which has no reaper): the child's exit is polled for, without or
    with reaping it; the request ends when it exits, not timed out at its deadline."""
    for name in hidden:
        monkeypatch.delattr(os, name)
    lines: list[str] = []
    out = run_process(python("print('done')"), b"", lines.append, cwd=None, env=None,
                      timeout=20, grace=1, supervisor=supervisor)
    assert (lines, out.returncode, out.timed_out) == (["done"], 0, False)


@pytest.mark.parametrize("refused", [errno.ENOSYS, errno.EPERM])
def test_where_pidfds_are_refused_a_stray_is_signalled_by_its_pid(
        monkeypatch: pytest.MonkeyPatch, refused: int) -> None:
    from agent_tck.reference import strays

    monkeypatch.setattr(os, "pidfd_open", refusing(refused))
    with sleeper() as child, strays.pinned(child.pid) as send:
        assert send is not None
        send(signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL


def test_a_process_that_has_ended_is_not_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tck.reference import strays

    def gone(pid: int) -> int:
        raise ProcessLookupError(errno.ESRCH, "No such process")

    monkeypatch.setattr(os, "pidfd_open", gone)
    with strays.pinned(os.getpid()) as send:
        assert send is None


def test_large_stdin_is_written_while_stdout_is_drained() -> None:
    lines: list[str] = []
    code = "import sys\nfor line in sys.stdin: print(len(line))"
    out = run_process(
        python(code),
        b"x" * 99 + b"\n" * 2000,
        lines.append,
        cwd=None,
        env=None,
        timeout=20,
        grace=1,
    )
    assert out.returncode == 0 and len(lines) == 2000


def test_stderr_tail_is_kept() -> None:
    code = "import sys; sys.stderr.write('a' * 10000 + 'THE END'); sys.exit(3)"
    out = run_process(python(code), b"", lambda _: None, cwd=None, env=None, timeout=10, grace=1)
    assert out.returncode == 3 and out.stderr_tail.endswith("THE END")
    assert len(out.stderr_tail) == 4096


def test_deadline_sends_sigterm_then_sigkill() -> None:
    """A shell ignores SIGTERM from its first instruction: a Python child could still be
    starting when the deadline came, and die of the SIGTERM it had not yet ignored."""
    started = time.monotonic()
    out = run_process(["/bin/sh", "-c", "trap '' TERM; sleep 30"], b"", lambda _: None, cwd=None,
                      env=None, timeout=0.3, grace=0.2)
    assert out.timed_out and out.returncode == -9
    assert time.monotonic() - started < 10  # bounded, not a precision check


def test_child_that_closes_stdout_early_is_still_waited_for() -> None:
    code = "import os, time; os.close(1); time.sleep(0.3); raise SystemExit(7)"
    out = run_process(python(code), b"", lambda _: None, cwd=None, env=None, timeout=10, grace=1)
    assert (out.returncode, out.timed_out) == (7, False)


def test_missing_program_is_a_launch_error(tmp_path: object) -> None:
    with pytest.raises(LaunchError, match="cannot start '/nonexistent/claude'"):
        run_process(
            ["/nonexistent/claude"], b"", lambda _: None, cwd=None, env=None, timeout=1, grace=1
        )


def test_an_exception_in_the_line_handler_kills_and_reaps_the_child() -> None:
    def boom(_: str) -> None:
        raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError, match="handler failed"):
        run_process(
            python("import time; print('x', flush=True); time.sleep(30)"),
            b"",
            boom,
            cwd=None,
            env=None,
            timeout=10,
            grace=1,
        )


ESCAPE = """
import os, subprocess, sys
# A tool that starts a process in a session of its own (as Claude Code's Bash tool does),
# which a signal to the CLI's process group cannot reach.
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         start_new_session=True, stdout=subprocess.DEVNULL)
print(child.pid, flush=True)
"""


class TagsOnly(Supervisor):
    reaped = False


@pytest.mark.parametrize("supervisor", [Supervisor, TagsOnly], ids=["reaper", "run-id"])
@pytest.mark.parametrize("timeout", [10.0, 0.5], ids=["exits", "times-out"])
def test_a_process_that_left_the_group_is_killed(
        timeout: float, supervisor: type[Supervisor]) -> None:
    lines: list[str] = []
    code = ESCAPE + ("import time; time.sleep(30)" if timeout < 1 else "")
    out = run_process(python(code), b"", lines.append, cwd=None, env=None, timeout=timeout,
                      grace=0.2, supervisor=supervisor)
    assert out.timed_out == (timeout < 1)
    escaped = int(lines[0])
    end = time.monotonic() + 5
    while _alive(escaped) and time.monotonic() < end:
        time.sleep(0.02)
    assert not _alive(escaped), f"process {escaped}, in a session of its own, outlived the run"


HIDE = """
import os, subprocess, sys
# A process that hides every way it can: a session of its own, an empty environment (no run
# id), and a parent that exits as soon as it has printed its pid, so it is nobody's child but
# the reaper's. (Had the parent exited at once, the CLI could end, and the reaper kill it, before
# a loaded machine let it print: the test had no pid to look for.)
hide = ("import os, time\\n"
        "r, w = os.pipe()\\n"
        "if os.fork(): os.close(w); os.read(r, 1); os._exit(0)\\n"
        "print(os.getpid(), flush=True); os.write(w, b'x'); time.sleep(60)")
subprocess.run([sys.executable, "-c", hide], env={}, start_new_session=True)
"""


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
@pytest.mark.parametrize(("rest", "timeout"), [("", 30), ("import time; time.sleep(30)", 5)],
                         ids=["exits", "times-out"])
def test_the_reaper_kills_a_descendant_that_hid_every_way(rest: str, timeout: float) -> None:
    """The timeout leaves two nested interpreters room to start on a loaded machine: the run
    that exits must not time out, the one that sleeps must have started its hidden child."""
    lines: list[str] = []
    out = run_process(python(HIDE + rest), b"", lines.append, cwd=None, env=None,
                      timeout=timeout, grace=0.2)
    assert out.timed_out == bool(rest)
    hidden = int(lines[0])
    assert not _alive(hidden), f"process {hidden}, hidden from group and tag, outlived the run"


class _HungReaper(Supervisor):
    """A reaper that says it started its CLI, then ignores every signal it is sent and
    never ends on its own (it sleeps 30 s)."""

    reaped = True
    reaper_command = (sys.executable, "-c", "import os, signal, sys, time\n"
                      "for sig in (signal.SIGTERM, signal.SIGUSR1):\n"
                      "    signal.signal(sig, signal.SIG_IGN)\n"
                      "os.close(int(sys.argv[1]))\n"
                      "time.sleep(30)\n")


def test_a_reaper_that_does_not_end_is_killed_with_its_group_and_the_run_ends() -> None:
    """Past the deadline, the grace period and the time the reaper is given to empty its
    tree, the supervisor stops waiting for it and kills its whole group itself."""
    out = run_process(["/bin/true"], b"", lambda _: None, cwd=None, env=None, timeout=1,
                      grace=0.2, supervisor=_HungReaper)
    assert out.timed_out and out.returncode == -9


def test_an_empty_stdin_is_closed_at_once() -> None:
    """A CLI given nothing on stdin (its prompt in argv) reads end of file at once: one that
    reads its stdin to the end does not wait for the deadline."""
    lines: list[str] = []
    out = run_process(python("import sys; print(len(sys.stdin.read()))"), b"", lines.append,
                      cwd=None, env=None, timeout=10, grace=1)
    assert (out.returncode, out.timed_out, lines) == (0, False, ["0"])


ECHO = "import sys\nfor line in sys.stdin: print('got ' + line.strip(), flush=True)\nprint('eof')"


def test_a_feed_stays_open_while_the_conversation_goes_on_and_closes_when_ended() -> None:
    """A CLI talked with: each answer is written as its line comes, stdin is kept open
    between them (the child waits for more), and closed once the feed has ended."""
    feed, lines = Feed(b"1\n", ended=False), []

    def on_line(line: str) -> None:
        lines.append(line)
        if len(lines) < 3:
            feed.send(f"{len(lines) + 1}\n".encode())
        elif len(lines) == 3:
            feed.end()

    out = run_process(python(ECHO), feed, on_line, cwd=None, env=None, timeout=10, grace=1)
    assert (lines, out.returncode, out.timed_out) == (["got 1", "got 2", "got 3", "eof"], 0,
                                                      False)


def test_a_feed_never_ended_leaves_stdin_open_until_the_deadline() -> None:
    lines: list[str] = []
    out = run_process(python(ECHO), Feed(b"1\n", ended=False), lines.append, cwd=None,
                      env=None, timeout=1, grace=1)
    assert (lines, out.timed_out) == (["got 1"], True)


def test_at_the_deadline_a_feeds_last_word_is_sent_and_a_child_that_ends_gets_no_signal() -> None:
    """A child talked with is asked to stop at the deadline (an ACP agent's session/cancel):
    it answers, the feed ends, and it exits on its own within the grace period."""
    feed, lines = Feed(b"1\n", ended=False), []
    feed.at_deadline = b"stop\n"

    def on_line(line: str) -> None:
        lines.append(line)
        if line == "got stop":
            feed.end()

    out = run_process(python(ECHO), feed, on_line, cwd=None, env=None, timeout=0.5, grace=30)
    assert (lines, out.returncode, out.timed_out) == (["got 1", "got stop", "eof"], 0, True)


HEARS_THEN_IGNORES = """\
import signal, sys, time
sys.stdin.readline()
def term(*_):
    print('term', time.monotonic(), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
print('heard', time.monotonic(), flush=True)
time.sleep(60)
"""


def test_a_child_that_does_not_end_when_asked_gets_sigterm_a_grace_period_later() -> None:
    feed, lines = Feed(b"", ended=False), []
    feed.at_deadline = b"stop\n"
    out = run_process(python(HEARS_THEN_IGNORES), feed, lines.append, cwd=None, env=None,
                      timeout=0.3, grace=3)
    assert [line.split()[0] for line in lines] == ["heard", "term"] and out.timed_out
    heard, term = (float(line.split()[1]) for line in lines)
    assert term - heard >= 1.5  # the grace period, less what the child took to say it heard


ANSWERS_THEN_LINGERS = """\
import signal, sys, time
def term(*_):
    print('term', time.monotonic(), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
print('answer', time.monotonic(), flush=True)
time.sleep(float(sys.argv[1]))
"""


def _turn_ends_at_answer(feed: Feed, lines: list[str]) -> Callable[[str], None]:
    def on_line(line: str) -> None:
        lines.append(line)
        if line.startswith("answer"):
            feed.end_turn()
    return on_line


def test_a_child_that_lingers_after_its_turn_gets_sigterm_a_grace_period_after_it() -> None:
    """Decision D-38: once the turn has ended, the child has a grace period to end, then it is
    stopped as at a deadline; that is no timeout."""
    feed, lines = Feed(b""), []
    out = run_process([*python(ANSWERS_THEN_LINGERS), "60"], feed,
                      _turn_ends_at_answer(feed, lines), cwd=None, env=None, timeout=60,
                      grace=2)
    assert [line.split()[0] for line in lines] == ["answer", "term"]
    assert (out.stopped_after_turn, out.timed_out, out.returncode) == (True, False, 0)
    answered, term = (float(line.split()[1]) for line in lines)
    assert 1.5 <= term - answered < 30  # the grace period, not the deadline


@pytest.mark.parametrize(("lingers", "timeout", "stopped", "timed_out"), [
    (0.3, 60, False, False),  # it ends within the grace period: it is not stopped
    (60, 0.5, False, True),  # the deadline comes first: a timeout, as ever
])
def test_a_child_is_stopped_after_its_turn_only_when_it_outlives_the_grace_period(
        lingers: float, timeout: float, stopped: bool, timed_out: bool) -> None:
    feed, lines = Feed(b""), []
    out = run_process([*python(ANSWERS_THEN_LINGERS), str(lingers)], feed,
                      _turn_ends_at_answer(feed, lines), cwd=None, env=None, timeout=timeout,
                      grace=5)
    assert (out.stopped_after_turn, out.timed_out) == (stopped, timed_out)


ANSWERS_THEN_LEAVES_A_WRITER = """\
import subprocess, sys
print('answer', flush=True)
subprocess.Popen([sys.executable, '-c',
                  'import time\\nfor _ in range(12): print(1, flush=True); time.sleep(0.1)'])
"""


class _Counting(Supervisor):
    reaped = False  # no reaper: the descendant outlives the child, as where there is none
    passes = 0

    def _wait_time(self) -> float:
        type(self).passes += 1
        return super()._wait_time()


def test_after_its_turn_an_exited_child_is_not_polled_while_a_descendant_writes() -> None:
    """The grace period after the turn is for a child that has not exited: once it has, the
    loop waits for its pipes as ever (a pass per chunk), never in a busy loop."""
    feed, lines = Feed(b""), []
    out = run_process(python(ANSWERS_THEN_LEAVES_A_WRITER), feed,
                      _turn_ends_at_answer(feed, lines), cwd=None, env=None, timeout=30,
                      grace=0.1, supervisor=_Counting)
    assert lines[0].startswith("answer") and not out.stopped_after_turn
    assert _Counting.passes < 200, f"{_Counting.passes} passes of the loop"


def test_a_child_that_closed_its_stdin_breaks_the_feed_and_nothing_sent_later_is_kept() -> None:
    """The child stops reading: what was pending is dropped, and so is what is sent after."""
    code = "import os, sys, time; os.close(0); print('closed', flush=True); time.sleep(0.5)"
    feed = Feed(b"", ended=False)

    def on_line(line: str) -> None:
        feed.send(b"x" * (1 << 20))  # more than a pipe holds: the write finds it closed
    out = run_process(python(code), feed, on_line, cwd=None, env=None, timeout=10, grace=1)
    assert (out.returncode, out.timed_out) == (0, False)
    assert (bytes(feed.pending), feed.ended) == (b"", True)
    feed.send(b"later")
    assert bytes(feed.pending) == b""


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
@pytest.mark.parametrize(("code", "returncode"), [
    ("raise SystemExit(3)", 3),
    ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", -15),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", -11),
])
def test_the_reaper_ends_as_the_cli_did(code: str, returncode: int) -> None:
    out = run_process(python(code), b"", lambda _: None, cwd=None, env=None, timeout=10, grace=1)
    assert out.returncode == returncode


class _Unreaped(Supervisor):
    reaped = False


@pytest.mark.parametrize("supervisor", [Supervisor, _Unreaped], ids=["reaped", "unreaped"])
def test_a_script_whose_interpreter_is_gone_is_a_launch_error_naming_both(
    tmp_path: Path, supervisor: type[Supervisor]
) -> None:
    """The kernel says ENOENT, as for a missing command: the error says the interpreter is
    what is missing, and names it."""
    script, gone = tmp_path / "claude", tmp_path / "gone" / "python"
    script.write_text(f"#!{gone} -I\nprint('never')\n")
    script.chmod(0o755)
    said = f"cannot start '{script}': its interpreter '{gone}' was not found"
    with pytest.raises(LaunchError, match=f"^{re.escape(said)}$"):
        run_process([str(script)], b"", lambda _: None, cwd=None, env=None, timeout=1, grace=1,
                    supervisor=supervisor)


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
def test_a_cli_the_reaper_cannot_exec_is_a_launch_error_naming_it(tmp_path: Path) -> None:
    script = tmp_path / "claude"
    script.write_bytes(b"\x7fELF not really\n")
    script.chmod(0o755)
    with pytest.raises(LaunchError, match=f"cannot start '{script}': Exec format error"):
        run_process([str(script)], b"", lambda _: None, cwd=None, env=None, timeout=1, grace=1)


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
def test_the_cli_leads_a_process_group_of_its_own_under_the_reaper() -> None:
    lines: list[str] = []
    run_process(python("import os; print(os.getpid(), os.getpgrp(), os.getsid(0))"), b"",
                lines.append, cwd=None, env=None, timeout=10, grace=1)
    pid, pgid, sid = map(int, lines[0].split())
    assert pgid == pid and sid != os.getsid(0)


AGENT = """
import sys
from agent_tck.reference.supervisor import run_process
cli = [sys.executable, "-c", sys.argv[1]]
run_process(cli, b"", lambda line: print(line, flush=True), cwd=None, env=None, timeout=60,
            grace=1)
"""
IGNORES_TERM = """
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print(os.getpid(), flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
@pytest.mark.parametrize("cli", ["import os, time; print(os.getpid(), flush=True); time.sleep(60)",
                                 IGNORES_TERM], ids=["ends-on-sigterm", "ignores-sigterm"])
def test_when_the_agent_dies_the_reaper_ends_the_cli(cli: str) -> None:
    import signal
    import subprocess

    with subprocess.Popen([sys.executable, "-c", AGENT, cli], stdout=subprocess.PIPE) as agent:
        try:
            assert agent.stdout is not None
            pid = int(agent.stdout.readline())
        finally:
            agent.send_signal(signal.SIGKILL)
    end = time.monotonic() + 15  # SIGTERM at once, SIGKILL after the reaper's 5 s
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _alive(pid), f"the CLI {pid} outlived its agent"


NOTES_TERM = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: open(sys.argv[1], "a").write("TERM\\n"))
print(os.getpid(), flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
def test_a_cli_gets_one_sigterm_when_a_second_comes_as_its_agent_dies(tmp_path: Path) -> None:
    """A multithreaded agent killed with SIGKILL can signal the reaper twice: when the thread
    that started it dies (its parent is then another thread of the agent) and when the rest
    of the agent does (it has no parent left). Here the first is sent by hand, after which the
    agent is killed: the CLI is sent SIGTERM once (AG-D6.2), then SIGKILL at the end of the
    orphan's grace."""
    from agent_tck.kit.observe import process_state

    notes = tmp_path / "notes"
    cli = NOTES_TERM.replace("sys.argv[1]", repr(str(notes)))
    with subprocess.Popen([sys.executable, "-c", AGENT, cli], stdout=subprocess.PIPE) as agent:
        pid = None
        try:
            assert agent.stdout is not None
            pid = int(agent.stdout.readline())
            reaper = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            os.kill(reaper, signal.SIGTERM)  # the first: its parent is still the agent
            end = time.monotonic() + 10
            while not notes.exists() and time.monotonic() < end:
                time.sleep(0.01)
            assert notes.exists(), "the CLI never got the first SIGTERM"
        finally:
            agent.send_signal(signal.SIGKILL)
        end = time.monotonic() + 15  # SIGKILL after the reaper's 5 s
        while pid is not None and _alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        if pid is not None and process_state(pid) not in (None, "Z"):
            os.kill(pid, signal.SIGKILL)
    assert not _alive(pid), f"the CLI {pid} outlived its agent"
    assert notes.read_text().splitlines() == ["TERM"]


@pytest.mark.skipif(not Supervisor.reaped, reason="the reaper needs Linux")
def test_a_reaper_whose_supervisor_is_already_gone_starts_nothing(tmp_path: Path) -> None:
    """The reaper arms its own parent-death signal; a supervisor that died before it could
    (PARENT_PID is not its parent any more) gets no CLI started behind its back."""
    import subprocess

    from agent_tck.reference.supervisor import REAPER

    marker = tmp_path / "ran"
    cli = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    ended = subprocess.Popen(["true"])  # a pid that is nobody's parent any more
    ended.wait()

    def reaper(parent: int) -> subprocess.CompletedProcess[bytes]:
        report, told = os.pipe()
        try:
            return subprocess.run([*REAPER, str(told), str(parent), *cli], pass_fds=(told,),
                                  capture_output=True, timeout=10)
        finally:
            os.close(report)
            os.close(told)

    gone = reaper(ended.pid)
    assert gone.returncode == 1 and not marker.exists()
    assert f"PARENT_PID {ended.pid} is not my parent" in gone.stderr.decode()
    ours = reaper(os.getpid())
    assert ours.returncode == 0 and marker.exists()


def test_the_run_id_is_fresh_per_run_and_only_tagged_processes_are_found() -> None:
    import subprocess

    from agent_tck.reference.strays import RUN_TAG, tag_env, tagged

    (env, first), (other, second) = tag_env({"A": "1"}), tag_env(None)
    assert env == {"A": "1", RUN_TAG: first} and first != second
    assert tagged(first) == []  # nothing runs with it yet; this process is not tagged
    proc = subprocess.Popen(python("import time; time.sleep(30)"), env=other)
    try:
        assert tagged(second) == [proc.pid]
        assert tagged(first) == []
    finally:
        proc.kill()
        proc.wait()


def test_the_run_id_fallback_signals_each_tagged_process_once_however_many_scans_it_takes(
        tmp_path: Path) -> None:
    """Where the kernel has no child subreapers, the supervisor's signals also go to every
    process that carries the run's tag, scanning again while new ones appear. A process
    already signalled is not signalled again by a later scan: a second SIGTERM makes many
    programs give up their clean exit. The count it returns is of processes, not signals."""

    from agent_tck.reference.strays import signal_tagged, tag_env

    env, run = tag_env(None)
    terms, ready = tmp_path / "terms", tmp_path / "ready"
    proc = subprocess.Popen(python(
        "import signal, time\n"
        f"signal.signal(signal.SIGTERM, lambda *_: open({str(terms)!r}, 'a').write('TERM\\n'))\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "while True: time.sleep(0.05)\n"), env=env)
    try:
        deadline = time.monotonic() + 10
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), "the tagged process did not start"
        assert signal_tagged(run, signal.SIGTERM) == 1
        while not terms.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # a second signal, if any, has been handled by now
        assert terms.read_text() == "TERM\n"
    finally:
        proc.kill()
        proc.wait()


def _alive(pid: int) -> bool:
    """Alive and not a zombie (an escaped process is reaped by init, not by us)."""
    from agent_tck.kit.observe import still_running

    return bool(still_running([pid]))


def test_a_relative_path_entry_never_finds_a_cli_planted_in_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real, repo = tmp_path / "real-bin", tmp_path / "repo"
    planted = repo / "node_modules" / ".bin"
    for folder in (real, planted):
        folder.mkdir(parents=True)
        (folder / "claude").write_text("#!/bin/sh\n")
        (folder / "claude").chmod(0o755)
    monkeypatch.chdir(repo)  # the agent's own directory holds the planted CLI too
    found = resolve("claude", {"PATH": f"node_modules/.bin{os.pathsep}{real}"})
    assert found == str(real / "claude")
    with pytest.raises(LaunchError, match="not found on PATH"):
        resolve("claude", {"PATH": "node_modules/.bin"})


def _fake_proc(root: Path, pid: int, environ: bytes, state: str, flags: int, env_end: int) -> None:
    """A /proc entry: `stat` with the fields `tagged` reads (state, flags, env_end), as
    proc(5) numbers them: 3, 9 and 51 of 52 (the last, the exit code, is 0 while it runs)."""
    (root / str(pid)).mkdir()
    (root / str(pid) / "environ").write_bytes(environ)
    fields = [state, "1", "1", "1", "0", "-1", str(flags)] + ["0"] * 41 + [str(env_end), "0"]
    (root / str(pid) / "stat").write_text(f"{pid} (x) y) " + " ".join(fields) + "\n")


def test_a_process_started_with_no_environment_is_not_waited_for_as_if_in_exec(
        tmp_path: Path) -> None:
    """Its environment reads empty for good, as one in the middle of exec reads for a moment:
    the end of its environment block tells them apart (0 only while exec sets it up). Waited
    for, every scan for strays would pause half a second for each such process."""
    from agent_tck.reference import strays

    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", f"""
import time
open({str(ready)!r}, "w").close()
time.sleep(60)"""], env={})
    try:
        while not ready.exists() and proc.poll() is None:
            time.sleep(0.01)
        assert (strays.PROC / str(proc.pid) / "environ").read_bytes() == b""
        assert not strays._in_exec(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_a_process_in_the_middle_of_exec_is_read_again_until_it_shows_its_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the new program's memory and its stack, /proc/PID/environ reads empty (CI saw
    it right after Popen returned). Such a process is read again; a kernel thread and a
    zombie, which never show one, are not waited for."""
    from agent_tck.reference import strays

    _fake_proc(tmp_path, 10, b"", "S", 0, 0)  # mid-exec: tagged once its stack is there
    _fake_proc(tmp_path, 11, b"", "I", strays.PF_KTHREAD, 0)
    _fake_proc(tmp_path, 12, b"", "Z", 0, 0)
    _fake_proc(tmp_path, 13, b"A=1\0", "S", 0, 4096)
    pauses: list[float] = []

    def sleep(pause: float) -> None:
        pauses.append(pause)
        if len(pauses) == 2:  # the exec completes after two pauses
            (tmp_path / "10" / "environ").write_bytes(f"{strays.RUN_TAG}=run\0".encode())

    monkeypatch.setattr(strays, "PROC", tmp_path)
    monkeypatch.setattr(strays, "_pause", sleep)
    assert strays.tagged("run") == [10]
    assert len(pauses) == 2  # for pid 10 twice; for 11, 12 and 13 never
