"""The fake harness executable: plays a script, records what it saw.

Started through a shim named `claude`, `codex` or `gemini` (`doubles.harness.script`), which
imports this module and calls `main()` with `--rig ADDRESS TOKEN NAME ARGS...` (a scenario's
rig, `doubles.harness.rig`) or SCRIPT RECORD NAME ARGS... (a script and a record file, for
benchmarks and tests of the harness alone); imported rather than run as a file, its bytecode
can be cached. It starts fast, as a CLI is started for every request: the standard library
only, and what only some steps need (base64, subprocess) imported by those steps. JSON goes
through json's C half (`_json`), signals through signal's (`_signal`) and the rig's socket
through socket's (`_socket`): their Python halves import re and enum, which would cost each
start more than the rest of this file.
Under a rig the harness connects to the rig's socket (an abstract UNIX socket, ADDRESS
`@name`), says hello and gets its script in the answer; the rig answers only a process it can
prove is a harness started by that rig's shim (`doubles.harness.switchboard`). What the
harness notes goes to that connection, which no other process holds: nothing of the record is
on disk, beside the PATH or anywhere else. The record is JSON lines, each written whole with
SIGTERM held back, so the signal handler and the main flow never interleave:
  {"what": "start", "rig", "name", "argv", "cwd", "pid", "ppid", "pgid", "env", "plan"}
  (plan: the op of each step of its script, in order)
Started as `claude ... --input-format stream-json` (as both Claude SDKs start it), it speaks
Claude's streaming input: `read_stdin` answers control requests (initialize, interrupt,
set_permission_mode, set_model; any other subtype gets an error response) until a `user`
message comes, whose text is the prompt (recorded as stdin, `"via": "stream-json"`); stdin is
left open. After a script whose turn ended (it printed a `result` line) the harness keeps
answering until stdin closes, as the real CLI waits for another turn; after one that ended
without a result it exits, as a CLI cut off mid-turn does.
Started with an option that makes the CLI an agent of the Agent Client Protocol (the `acp` of
its start: `gemini --acp`), it is one: `doubles.harness.acpagent` says how. Its ops `reply`,
`ask` and `until_cancel` (below) are an ACP agent's alone: started otherwise, a harness that
comes to one says so on stderr and exits 1.
A harness started after its scenario ended (the rig answers `closed`) is a straggler: it plays
nothing and exits with STRAGGLER_EXIT, and the rig notes it in the session's stray log, which
the suite reports as an error of the suite. One whose rig is gone, or that the rig refuses,
says so on stderr and exits with STRAGGLER_EXIT too.
An argv the real CLI refuses (an unknown option, a missing value, a value outside the
option's choices, an extra positional argument of `codex exec`, a `--cd` directory that does
not exist, an option that another needs missing: claude's `-p --output-format stream-json`
without `--verbose`) is refused the same way:
the real CLI's message on stderr and its exit code (claude 1, codex 2), after the start is
recorded, and recorded as {"what": "refused", "code", "message"}. The options are the pinned
CLIs' own (fixtures/cli-options.json, the script's `cli_options`).
  {"what": "step", "n", "pid", "t"}   as it begins its step n (0: the first of `plan`)
  {"what": "stdin_bytes", "n", "pid", "t"}  bytes of stdin read so far, after each read
  {"what": "stdin", "data", "pid", "t"}  once stdin reached end of file
  {"what": "end", "code", "pid", "t"}  its script played, as it exits with `code`
  (t: time.monotonic() when noted, which the suite's own clock reads alike)
  {"what": "grandchild", "pid", "since"}   a process it started (since: its start time in
                                           /proc/PID/stat, which tells it from a later one
                                           given the same pid; null when it had ended)
  {"what": "signal", "signal": "SIGTERM", "pid", "t"}   t: time.monotonic() on arrival
Script steps (a JSON list; schemas/harness/script.schema.json), each an object with one key:
  out: text (written as is)         line: JSON value (one line)   err: text (stderr)
  raw_b64: bytes for stdout         sleep: seconds (scaled)       exit: code
  sleep_real: seconds, never scaled (a pause that is not a scenario's subject)
  die: signal name (kill itself)    on_term: "exit"|"ignore"      read_stdin: true
  spawn_holder: seconds (a grandchild holding stdout and stderr open)
  spawn_escaped: seconds (a grandchild in a session of its own, as `nohup cmd &` in Claude
      Code's Bash tool: no signal to the harness's process group reaches it)
  spawn_escaped_noting: seconds (the same, but it notes a SIGTERM in the record, as
      {"what": "signal", "signal": "SIGTERM", "by": "grandchild", "pid", "t"}, and exits;
      on a connection of its own, which the harness opened for it)
  spawn_group_noting: count (that many processes in the harness's own group, each noting
      every SIGTERM as the one above does and going on: only SIGKILL ends them)
  spawn_escaped_noting_below: seconds (the noting process one level further down, started
      by a process in a session of its own that the harness starts)
  spawn_hidden: seconds (a grandchild in a session of its own, with an empty environment,
      whose parent exits at once)
  spawn_hidden_as: {"seconds": s, "name": text} (the same, under that process name: what
      /proc/PID/stat and ps show, up to 15 bytes)
  err_bytes: bytes of stderr          read_stdin_bytes: bytes (read that many, no more)
  close_stderr: true (stderr closed for good)
  login_fails: {"keys": [names], "lines": [JSON values]}  with none of the keys in its
      environment, print the lines (an authentication failure) and exit 0; else go on
  pipe_size: bytes (stdout's pipe widened to hold that many, as F_SETPIPE_SZ allows)
  line_stdin: JSON value, printed like `line` with "{stdin}" in its strings replaced by
              what stdin said (so each request can be told apart by its answer)
  repeat: {"lines": [JSON values], "count": N}  N lines cycling through `lines`, written in
          blocks of about 64 KiB as fast as the pipe takes them (for benchmarks)
  fill: {"line": text, "size": n, "with": c}  the line with "@FILL@" replaced by n bytes of
        c ("x" when not given; one ASCII character)
  burst: {"line": text, "count": n}  n copies of the line, "@N@" numbered 0..n-1, in one write
  trickle: {"data": text, "piece": n, "sleep": s}  data in writes of n bytes, s (scaled) apart,
                                                  each once the last was read (2 s in all)
  deep: n (one JSON line nested n arrays deep, of a type no CLI prints)
  chatter: {"lines": [values], "every": s, "for": s, "stderr": bool}  one line every s real
           seconds, cycling through `lines`, for that long: a CLI that keeps showing signs
           of life (JSON values to stdout; with "stderr", texts to stderr)
An ACP agent's own (`doubles.harness.acpagent`):
  reply: {"result": value} or {"error": object}, and "id" to answer another id than the
         prompt's      ask: {"method", "params"} (a request of its own, and its answer)
  until_cancel: seconds (scaled) to wait for the prompt's session/cancel
"""

from __future__ import annotations

import _json
import itertools
import os
import sys
import time

TYPE_CHECKING = False  # typing costs a start more than the rest of this file
if TYPE_CHECKING:
    import signal
    import subprocess
    from collections.abc import Callable
    from typing import Any, NoReturn

    from agent_tck.doubles.harness.acpagent import Peer
else:
    signal = __import__("_signal")

RECORDED_ENV_PREFIXES = ("AGENT_TCK",)  # and each CLI's own (`env_prefixes` of its start)
RECORDED_ENV = ("PATH", "HOME", "CODING_AGENT_PROBE")
BLOCK = 1 << 16
STRAGGLER_EXIT = 86
GRANDCHILD = "agent-tck-grandchild"  # in every grandchild's argv: who it is, in `ps`
# What the fake answers to the SDKs' control requests (the real CLI's answers carry more).
CONTROL_ANSWERS: dict[str, dict[str, Any]] = {
    "initialize": {"commands": [], "output_style": "default", "available_output_styles": []},
    "interrupt": {},
    "set_permission_mode": {},
    "set_model": {},
}
SIGNAL_NAMES = {getattr(signal, name): name for name in ("SIGTERM", "SIGINT", "SIGHUP")}


def _unencodable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _Scanning:
    """What json's C scanner reads from its context: json.loads's defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float  # float("NaN") and the like


_ENCODE = _json.make_encoder(None, _unencodable, _json.encode_basestring_ascii, None, ": ", ", ",
                             False, False, True)
_SCAN = _json.make_scanner(_Scanning())  # type: ignore[arg-type]


def dumps(value: Any) -> str:
    """json.dumps(value), as json's own C encoder writes it."""
    return "".join(_ENCODE(value, 0))


def loads(text: str | bytes) -> Any:
    """json.loads(text); ValueError when it is not one JSON value."""
    if isinstance(text, bytes):
        text = text.decode()
    text = text.strip(" \t\n\r")
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        raise ValueError(f"not JSON: {text[:40]!r}") from None
    if end != len(text):
        raise ValueError(f"not one JSON value: {text[:40]!r}")
    return value


class Harness:
    """Plays `script`, noting what it sees on `record_fd`; `another()` opens one more fd on the
    record, for a grandchild that notes on its own; `rig`: the rig's token, in the start."""

    def __init__(self, script: dict[str, Any], record_fd: int, another: Callable[[], int],
                 rig: str = "") -> None:
        self.steps: list[dict[str, Any]] = script["steps"]
        self.scale: float = script.get("time_scale", 1.0)
        self.rig = rig
        self.record_fd = record_fd
        self.another = another
        self.stdin_data = ""
        self.turn_ended = False  # it printed a `result` line: the CLI waits for another turn
        self.pid = os.getpid()
        self.clis: dict[str, dict[str, Any]] = script.get("clis", {})
        self.acp_withholds: list[str] = script.get("acp_withholds", [])
        options = script.get("cli_options")
        self.cli_options: dict[str, Any] = {}
        if options:
            with open(options, encoding="utf-8") as file:
                self.cli_options = loads(file.read())["commands"]

    def note(self, **entry: Any) -> None:
        """Write `entry` whole: SIGTERM, whose handler notes too, waits until it is written
        (a socket may take a long entry in several writes)."""
        view = memoryview((dumps(entry) + "\n").encode())
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            while view:
                view = view[os.write(self.record_fd, view):]
        except OSError:
            pass  # the rig is gone (its scenario is over): nobody reads this record any more
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def note_grandchild(self, pid: int, **more: Any) -> None:
        self.note(what="grandchild", pid=pid, since=started_at(pid), **more)

    def on_term(self, signum: int, _frame: Any) -> None:
        now = time.monotonic()  # first, so the record's cost is not part of the latency
        name = SIGNAL_NAMES.get(signum, str(signum))
        self.note(what="signal", signal=name, pid=os.getpid(), t=now)
        if self.term_mode == "exit":
            os._exit(128 + signum)

    def play(self, name: str, argv: list[str]) -> int:
        self.term_mode = "exit"
        start = self.clis.get(name, {})
        stream: list[str] = start.get("stream_input") or []
        self.streaming = bool(stream) and _option(argv, stream[0]) == stream[1]
        self.name = name
        self.acp_start: dict[str, Any] | None = start.get("acp")
        self.acp = self.acp_start is not None and (  # yargs takes `--acp=true` too
            not self.acp_start["options"] or any(
                word in (option, option + "=true") for option in self.acp_start["options"]
                for word in argv))
        self.acp_peer: Peer | None = None
        signal.signal(signal.SIGTERM, self.on_term)
        prefixes = RECORDED_ENV_PREFIXES + tuple(
            p for cli in self.clis.values() for p in cli.get("env_prefixes", []))
        env = {k: v for k, v in os.environ.items()
               if k in RECORDED_ENV or k.startswith(prefixes)}
        # `codex exec --cd DIR` works in DIR, as the real codex does (the Codex SDK passes it).
        workdir = next(filter(None, (_option(argv, o) for o in start.get("workdir_options", []))),
                       None)
        try:
            if workdir:
                os.chdir(workdir)
        except OSError:
            workdir = "missing"
        self.note(
            what="start",
            rig=self.rig,
            name=name,
            argv=argv,
            cwd=os.getcwd(),
            pid=os.getpid(),
            ppid=os.getppid(),
            pgid=os.getpgrp(),
            env=env,
            plan=[next(iter(step)) for step in self.steps],
        )
        refused = refusal(start, argv, self.cli_options)
        if refused is None and workdir == "missing":
            refused = 1, "Error: No such file or directory (os error 2)\n"
        if refused is not None:
            code, message = refused
            self.note(what="refused", code=code, message=message, pid=self.pid)
            sys.stderr.write(message)
            return code
        replays = self.acp and self.steps[:1] == [{"read_stdin": True}]
        while True:
            for n, step in enumerate(self.steps):
                ((op, arg),) = step.items()
                self.note(what="step", n=n, pid=self.pid, t=time.monotonic())
                result = getattr(self, "op_" + op)(arg)
                if result is not None:
                    self.note(what="end", code=int(result), pid=self.pid, t=time.monotonic())
                    return int(result)
            if not replays:  # an ACP agent serves until stdin closes: each prompt, the turn
                break
        if self.streaming and self.turn_ended:
            self.drain_stream()  # like the real CLI: more turns may come until stdin closes
        self.note(what="end", code=0, pid=self.pid, t=time.monotonic())
        return 0

    def write(self, data: bytes) -> None:
        out = sys.stdout.buffer
        out.write(data)
        out.flush()

    def op_out(self, text: str) -> None:
        self.write(text.encode())

    def op_raw_b64(self, data: str) -> None:
        import base64

        self.write(base64.b64decode(data))

    def op_line(self, value: Any, stdin: bool = False) -> None:
        """`value` on a line: with `stdin`, what stdin said in place of "{stdin}" in its
        strings; for an ACP agent, its session's id in place of "{session}"."""
        self.turn_ended |= isinstance(value, dict) and value.get("type") == "result"
        text = dumps(value)
        if stdin:
            text = text.replace("{stdin}", dumps(self.stdin_data)[1:-1])
        if self.acp:
            text = text.replace("{session}", dumps(self.peer().session)[1:-1])
        self.write((text + "\n").encode())

    def op_repeat(self, arg: dict[str, Any]) -> None:
        cycle = [(dumps(v) + "\n").encode() for v in arg["lines"]]
        count: int = arg["count"]
        per_block = max(1, (BLOCK // sum(map(len, cycle))) * len(cycle))
        lines = itertools.islice(itertools.cycle(cycle), count)
        while block := b"".join(itertools.islice(lines, per_block)):
            self.write(block)

    def op_fill(self, arg: dict[str, Any]) -> None:
        head, _, tail = arg["line"].encode().partition(b"@FILL@")
        self.write(head + arg.get("with", "x").encode() * arg["size"] + tail)

    def op_burst(self, arg: dict[str, Any]) -> None:
        line: str = arg["line"]
        self.write("".join(line.replace("@N@", str(i)) for i in range(arg["count"])).encode())

    def op_trickle(self, arg: dict[str, Any]) -> None:
        data, piece = arg["data"].encode(), arg["piece"]
        drained_by = time.monotonic() + TRICKLE_WAIT
        for start in range(0, len(data), piece):
            self.write(data[start : start + piece])
            _wait_until_read(drained_by)
            self.op_sleep(arg["sleep"])

    def op_chatter(self, arg: dict[str, Any]) -> None:
        say = self.op_err if arg.get("stderr") else self.op_line
        ends = time.monotonic() + arg["for"]
        for value in itertools.cycle(arg["lines"]):
            if time.monotonic() >= ends:
                return
            say(f"{value}\n" if arg.get("stderr") else value)
            self.op_sleep_real(arg["every"])

    def op_deep(self, depth: int) -> None:
        self.write(b'{"type":"agent-tck.deep","data":' + b"[" * depth + b"]" * depth + b"}\n")

    def op_err_bytes(self, size: int) -> None:
        for start in range(0, size, BLOCK):
            sys.stderr.buffer.write(b"e" * min(BLOCK, size - start))
        sys.stderr.flush()

    def op_close_stderr(self, _: Any) -> None:
        sys.stderr.flush()
        os.close(2)

    def op_pipe_size(self, size: int) -> None:
        """Widen stdout's pipe to `size` bytes; a stdout that is a socket (Node gives its
        children socket pairs) has its send buffer widened instead, as far as the kernel
        lets (net.core.wmem_max): the real CLI writes to either alike."""
        import fcntl

        resize = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux alone resizes pipes: elsewhere
        try:  # a pipe keeps its size, and the CLI waits for its reader as it would
            if resize is None:
                raise OSError("pipes cannot be resized here")
            fcntl.fcntl(1, resize, size)
        except OSError:
            import socket

            try:
                sock = socket.socket(fileno=1)
            except OSError:
                return  # neither a pipe nor a socket (a file): nothing to widen
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
            finally:
                sock.detach()

    def op_err(self, text: str) -> None:
        sys.stderr.buffer.write(text.encode())
        sys.stderr.flush()

    def op_sleep(self, seconds: float) -> None:
        self.op_sleep_real(seconds * self.scale)

    def op_sleep_real(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            time.sleep(left)

    def op_read_stdin(self, _: Any) -> int | None:
        if self.acp:
            prompt = self.peer().prompt()
            if prompt is None:  # stdin closed: the agent's connection is over
                self.note(what="stdin_end", pid=self.pid, t=time.monotonic())
                return 0
            self.stdin_data = prompt  # noted as it came (acpagent)
            return None
        if self.streaming:
            self.stdin_data = next((_text(m) for m in self.stream() if m["type"] == "user"), "")
            self.note(what="stdin", data=self.stdin_data, via="stream-json", pid=self.pid)
            return None
        data = bytearray()
        while chunk := _read_some(0):
            data += chunk
            self.note(what="stdin_bytes", n=len(data), pid=self.pid, t=time.monotonic())
        self.stdin_data = data.decode("utf-8", errors="replace")
        self.note(what="stdin", data=self.stdin_data, pid=self.pid, t=time.monotonic())
        return None

    def op_read_stdin_bytes(self, size: int) -> None:
        """Read `size` bytes of stdin (fewer at its end) and no more: a CLI that stops
        reading its prompt part way."""
        while size > 0 and (chunk := os.read(0, size)):
            size -= len(chunk)

    # Claude's streaming input (`--input-format stream-json`, what the SDKs use): JSON lines
    # on stdin, control requests answered on stdout, the prompt as a `user` message, stdin
    # left open between turns.

    def stream(self) -> Any:
        """The messages on stdin other than control requests, which are answered here."""
        for raw in sys.stdin.buffer:
            try:
                message = loads(raw)
            except ValueError:
                self.note(what="stdin_junk", data=raw.decode("utf-8", errors="replace"))
                continue
            if not isinstance(message, dict):
                continue
            if message.get("type") == "control_request":
                self.answer_control(message)
                continue
            message.setdefault("type", None)
            yield message

    def answer_control(self, message: dict[str, Any]) -> None:
        request = message.get("request")
        subtype = request.get("subtype") if isinstance(request, dict) else None
        self.note(what="control", subtype=subtype)
        reply: dict[str, Any] = {"request_id": message.get("request_id")}
        if subtype in CONTROL_ANSWERS:
            reply.update(subtype="success", response=CONTROL_ANSWERS[subtype])
        else:
            reply.update(subtype="error", error=f"Unsupported control request subtype: {subtype}")
        self.op_line({"type": "control_response", "response": reply})

    def drain_stream(self) -> None:
        for message in self.stream():
            if message["type"] == "user":
                self.note(what="stdin", data=_text(message), via="stream-json", pid=self.pid)

    def op_line_stdin(self, value: Any) -> None:
        self.op_line(value, stdin=True)

    # The Agent Client Protocol (`doubles.harness.acpagent`, imported by the ACP agent alone).

    def peer(self) -> Peer:
        """The agent's side of the connection, made at first use (`acpagent` is found beside
        this file, which the shim put on sys.path)."""
        if self.acp_peer is None:
            assert self.acp_start is not None
            agent = __import__("acpagent")
            self.acp_peer = agent.Peer(self, agent.offering(self.acp_start, self.acp_withholds),
                                       dumps, loads, _read_some)
        return self.acp_peer

    def as_agent(self, act: Callable[[Peer], None]) -> int | None:
        """`act` on the peer; 1, said on stderr, when the harness was not started as an ACP
        agent."""
        if self.acp:
            act(self.peer())
            return None
        options = (self.acp_start or {}).get("options") or ["(none)"]
        self.op_err(f"agent-tck fake harness: an ACP agent's turn, but {self.name} was not "
                    f"started as one ({' or '.join(options)})\n")
        return 1

    def op_reply(self, arg: dict[str, Any]) -> int | None:
        return self.as_agent(lambda peer: peer.reply(arg))

    def op_ask(self, arg: dict[str, Any]) -> int | None:
        return self.as_agent(lambda peer: peer.ask(arg))

    def op_until_cancel(self, seconds: float) -> int | None:
        return self.as_agent(lambda peer: peer.until_cancel(seconds * self.scale))

    def op_on_term(self, mode: str) -> None:
        self.term_mode = mode

    def op_die(self, name: str) -> None:
        """Die by the signal `name`, whatever this process inherited: a harness started under
        `nohup` (SIGHUP ignored), or with the signal blocked, would otherwise live on."""
        sys.stdout.flush()
        sig = getattr(signal, name)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # no process can catch or block those
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        time.sleep(10)

    def op_spawn_holder(self, seconds: float) -> None:
        self._spawn(seconds, escaped=False)

    def op_spawn_escaped(self, seconds: float) -> None:
        self._spawn(seconds, escaped=True)

    def op_spawn_escaped_ignoring(self, seconds: float) -> None:
        """A grandchild in a session of its own that ignores SIGTERM from its start (SIG_IGN
        is kept across its exec): only SIGKILL ends it."""
        self._spawn(seconds, escaped=True, ignoring=True)

    def op_spawn_hidden(self, seconds: float) -> None:
        self._hide(seconds)

    def op_spawn_hidden_as(self, arg: dict[str, Any]) -> None:
        self._hide(arg["seconds"], arg["name"])

    def _hide(self, seconds: float, name: str | None = None) -> None:
        """A grandchild that hides three ways: a session of its own, an empty environment,
        and a parent that exits at once (it forks, and only its child sleeps on); a fourth
        with a `name` it gives itself before it tells its pid."""
        rename = f"open('/proc/self/comm', 'w').write({name!r})\n" if name else ""
        hide = ("import os, sys, time\n"
                "ready, told = os.pipe()\n"
                "pid = os.fork()\n"
                "if pid:\n    os.close(told)\n    os.read(ready, 1)\n"
                "    print(pid, flush=True)\n    os._exit(0)\n"
                + rename +
                "os.close(told)\n"  # its parent tells its pid once it has its name
                "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
                f"time.sleep({seconds * self.scale})\n")
        import subprocess

        parent = subprocess.Popen([sys.executable, "-I", "-c", hide, GRANDCHILD], env={},
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        out, _ = parent.communicate()
        self.note_grandchild(int(out))

    def op_spawn_escaped_noting(self, seconds: float) -> None:
        """A grandchild in a session of its own that notes a SIGTERM and exits on it; the
        harness goes on once its handler is set. It starts with SIGTERM blocked (the harness
        blocks it around the start, and a signal mask is inherited), so a SIGTERM sent while
        it is still starting waits for its handler instead of killing it unnoted."""
        self._spawn_noting(self._noting(seconds))

    def op_spawn_escaped_noting_below(self, seconds: float) -> None:
        """The same, one level further down: the harness starts a launcher in a session of
        its own, which starts the noting process in a session of its own, then sleeps (it
        unblocks SIGTERM once that process is ready, so it stops on SIGTERM as a shell
        would)."""
        launch = ("import os, signal, subprocess, sys, time\n"
                  "child = subprocess.Popen([sys.executable, '-c', sys.argv[2], sys.argv[1],\n"
                  f"                          {GRANDCHILD!r}], stdin=subprocess.DEVNULL,\n"
                  "    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,\n"
                  "    start_new_session=True, pass_fds=(int(sys.argv[1]),))\n"
                  "child.stdout.readline()\n"
                  "print(child.pid, flush=True)\n"
                  "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
                  "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})\n"
                  f"time.sleep({seconds * self.scale})\n")
        self._spawn_noting(launch, self._noting(seconds))

    def op_spawn_group_noting(self, count: int) -> None:
        """`count` processes in the harness's own process group, as a CLI's workers are, each
        noting every SIGTERM it receives and going on (only SIGKILL ends them). Started side
        by side; the harness goes on once each has set its handler."""
        for child in self._start_noting(self._noting(10_000, exits=False), count=count):
            self._ready(child)
            self.note_grandchild(child.pid, group=True)

    def _noting(self, seconds: float, exits: bool = True) -> str:
        """The code of a process that notes a SIGTERM (by an fd of the record of its own, its
        first argument) and exits on it (or goes on, not `exits`), and prints `ready` once its
        handler is set."""
        return ("import json, os, signal, sys, time\n"
                "fd = int(sys.argv[1])\n"
                "def term(signum, frame):\n"
                "    entry = {'what': 'signal', 'signal': 'SIGTERM', 'by': 'grandchild',\n"
                "             'pid': os.getpid(), 't': time.monotonic()}\n"
                "    os.write(fd, (json.dumps(entry) + '\\n').encode())\n"
                + ("    os._exit(0)\n" if exits else "") +
                "signal.signal(signal.SIGTERM, term)\n"
                "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})\n"
                "print('ready', flush=True)\n"
                "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
                f"time.sleep({seconds * self.scale})\n")

    def _spawn_noting(self, code: str, *args: str) -> None:
        """Start `code` in a session of its own (`_start_noting`), given `args`; go on once it
        prints a line, noting its pid and the one the line names, if any (a launcher's
        child)."""
        (child,) = self._start_noting(code, *args, session=True)
        told = self._ready(child)
        self.note_grandchild(child.pid)
        if told.isdigit():
            self.note_grandchild(int(told))

    def _start_noting(self, code: str, *args: str, count: int = 1,
                      session: bool = False) -> list[subprocess.Popen[bytes]]:
        """`count` processes running `code` with an fd of the record each (one connection to
        the rig per process: a long note of the harness's is never cut by a grandchild's) and
        `args`, SIGTERM blocked (the harness blocks it around the start, and a signal mask is
        inherited), so that a SIGTERM sent while one is still starting waits for its handler
        instead of killing it unnoted; in a session of their own, or in the harness's group."""
        import subprocess

        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        fds = [self.another() for _ in range(count)]
        try:
            return [subprocess.Popen(
                [sys.executable, "-c", code, str(fd), *args, GRANDCHILD],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                start_new_session=session, pass_fds=(fd,)) for fd in fds]
        finally:
            for fd in fds:
                os.close(fd)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})

    @staticmethod
    def _ready(child: subprocess.Popen[bytes]) -> str:
        """The line `child` prints once its handler is set (its stdout is closed after)."""
        assert child.stdout is not None
        told = child.stdout.readline().decode().strip()
        child.stdout.close()
        return told

    def _spawn(self, seconds: float, escaped: bool, ignoring: bool = False) -> None:
        """A sleeping grandchild: holding our stdout and stderr, or in a session of its own
        with neither; `ignoring` SIGTERM, or not."""
        import subprocess

        out = subprocess.DEVNULL if escaped else None  # None: inherit ours
        child = subprocess.Popen(
            [sys.executable, "-c", f"import time; time.sleep({seconds * self.scale})", GRANDCHILD],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=escaped,
            preexec_fn=_ignore_sigterm if ignoring else None,
        )
        self.note_grandchild(child.pid)

    def op_exit(self, code: int) -> int:
        return code

    def op_login_fails(self, arg: dict[str, Any]) -> int | None:
        """A CLI with no login that works: without any of `keys` in its environment it prints
        `lines` (its stream's authentication failure) and exits 0, as the real CLIs may; with
        one, the script goes on."""
        if any(os.environ.get(key) for key in arg["keys"]):
            return None
        for value in arg["lines"]:
            self.op_line(value)
        return 0


def refusal(start: dict[str, Any], argv: list[str], commands: dict[str, Any]
            ) -> tuple[int, str] | None:
    """(exit code, stderr) as the real CLI refuses `argv`; None when it takes it. `start`:
    the CLI's start facts from its profile (its subcommand, options and parser)."""
    sub = start.get("subcommand", [])
    if start.get("options") not in commands:
        return None
    if start["parser"] == "commander":
        return None if argv[:len(sub)] != sub else _commander(
            argv[len(sub):], commands[start["options"]], start.get("requires", []))
    top = start["options"].split()[0]
    if top not in commands:  # a table without the CLI's own command: its subcommand's alone
        return None if argv[:len(sub)] != sub else _clap(argv[len(sub):], commands,
                                                          start["options"])
    command, refused = _clap_parse(argv, commands, top)
    asks = set(argv[:argv.index("--")] if "--" in argv else argv) & ABOUT_ITSELF
    if refused is None and command == top and not asks:
        # No subcommand: the interactive CLI, which needs a terminal; a wrapper's CLI has a
        # pipe or /dev/null (codex, run so: exit 1 and this line).
        return 1, INTERACTIVE
    return refused


INTERACTIVE = "Error: stdin is not a terminal\n"
ABOUT_ITSELF = {"-h", "--help", "-V", "--version"}  # answered, and no interactive CLI


def _table(command: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: option for option in command["options"] for n in option["names"]}


def _commander(argv: list[str], command: dict[str, Any], requires: list[dict[str, Any]]
               ) -> tuple[int, str] | None:
    """claude's parser (commander.js): options anywhere, a required value is the next word;
    then the CLI's own checks of options that need each other (`requires`)."""
    options, i, seen = _table(command), 0, {}
    while i < len(argv):
        arg, i = argv[i], i + 1
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-":
            continue
        name, eq, value = arg.partition("=")
        option = options.get(name)
        if option is None:
            return 1, f"error: unknown option '{name}'\n"
        kind, flags = option["value"], option["flags"]
        seen.update(dict.fromkeys(option["names"], value))
        if kind == "none":
            continue
        if not eq:
            takes = kind != "optional" or (i < len(argv) and not argv[i].startswith("-"))
            if kind != "optional" and i >= len(argv):
                return 1, f"error: option '{flags}' argument missing\n"
            value, i = (argv[i], i + 1) if takes else ("", i)
            seen.update(dict.fromkeys(option["names"], value))
        while kind == "variadic" and i < len(argv) and not argv[i].startswith("-"):
            i += 1
        if option["choices"] and value and value not in option["choices"] + option["unlisted"]:
            allowed = ", ".join(option["choices"])
            return 1, (f"error: option '{flags}' argument '{value}' is invalid. "
                       f"Allowed choices are {allowed}.\n")
    return _unmet(seen, requires)


def _unmet(seen: dict[str, str], requires: list[dict[str, Any]]) -> tuple[int, str] | None:
    """The first rule whose `when` options are given (with the value named, where one is)
    and whose `needs` option is not: its exit code and message."""
    for rule in requires:
        given = all(name in seen and value in (None, seen[name])
                    for name, value in rule["when"].items())
        if given and rule["needs"] not in seen:
            return rule["code"], rule["message"]
    return None


CLAP_HINT = "\nFor more information, try '--help'.\n"


def _clap(argv: list[str], commands: dict[str, Any], base: str) -> tuple[int, str] | None:
    return _clap_parse(argv, commands, base)[1]


def _clap_parse(argv: list[str], commands: dict[str, Any], base: str
                ) -> tuple[str, tuple[int, str] | None]:
    """A clap parser (codex): the command `argv` comes to and its refusal, or None. A first
    positional that names a subcommand of the command so far, or an alias of one (`codex e`),
    is that subcommand (`codex exec resume`); one the table does not have is taken as it is."""
    command, positionals, i = base, [], 0
    while i < len(argv):
        arg, i = argv[i], i + 1
        if arg == "--":
            positionals += argv[i:]
            break
        if not arg.startswith("-") or arg == "-":
            named = commands[command].get("subcommands", {}).get(arg)
            if positionals or named is None:
                positionals.append(arg)
            elif f"{command} {named}" in commands:
                command = f"{command} {named}"
            else:
                return f"{command} {named}", None
            continue
        name, eq, value = arg.partition("=")
        option = _table(commands[command]).get(name)
        if option is None:
            usage = "\n".join(commands[command]["usage"])
            return command, (2, f"error: unexpected argument '{name}' found\n\n  tip: to pass "
                                f"'{name}' as a value, use '-- {name}'\n\n{usage}\n{CLAP_HINT}")
        if option["value"] == "none":
            continue
        if not eq:
            if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
                return command, (2, f"error: a value is required for '{option['flags']}' but "
                                    f"none was supplied\n{CLAP_HINT}")
            value, i = argv[i], i + 1
        if option["choices"] and value not in option["choices"]:
            return command, (2, f"error: invalid value '{value}' for '{option['flags']}'\n  "
                                f"[possible values: {', '.join(option['choices'])}]\n{CLAP_HINT}")
    limit = _positionals(commands[command]["usage"][0])
    if len(positionals) > limit:
        usage = "\n".join(commands[command]["usage"])
        return command, (2, f"error: unexpected argument '{positionals[limit]}' found\n\n"
                            f"{usage}\n{CLAP_HINT}")
    return command, None


def _positionals(usage: str) -> int:
    """How many positionals a usage line takes: `codex exec resume [OPTIONS] [SESSION_ID]
    [PROMPT]`, two."""
    return sum(1 for word in usage.split() if word.startswith("[") and word != "[OPTIONS]")


def _option(argv: list[str], name: str) -> str | None:
    """The value of `name` in argv, as `--name value` or `--name=value`."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.partition("=")[2]
    return None


def _text(message: dict[str, Any]) -> str:
    """The text of a stream-json `user` message: a string, or its text blocks joined."""
    inner = message.get("message")
    content = inner.get("content") if isinstance(inner, dict) else None
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict))


TRICKLE_WAIT = 2.0  # real seconds a trickle waits, in all, for its pieces to be read


def _wait_until_read(deadline: float) -> None:
    """Until stdout's pipe is empty, so that each piece is read on its own (a reader busy on a
    loaded machine would read several at once, and a character split across two pieces would
    then arrive whole), or `deadline`: an implementation that reads only once the CLI has
    exited is not held up by more than that."""
    import fcntl
    import termios

    unread = bytearray(4)
    while time.monotonic() < deadline:
        try:
            fcntl.ioctl(1, termios.FIONREAD, unread)
        except OSError:
            return  # not a pipe
        if not int.from_bytes(unread, sys.byteorder):
            return
        time.sleep(0.001)


def _ignore_sigterm() -> None:
    """In a child before its exec: SIGTERM ignored (SIG_IGN is kept across an exec)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


RIG = "--rig"  # the shim's word before ADDRESS TOKEN: the harness reports to a rig


def connect(address: str, hello: str) -> tuple[int, dict[str, Any]]:
    """A connection to the rig at `address` (`@name`, a socket in the abstract namespace),
    introduced as `hello` ("start": this harness, or "delegate": a grandchild's own), and
    the rig's answer: {"script": ...}, {"ok": true}, {"closed": true} or {"refused": why}."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect("\0" + address[1:])
        sock.sendall((dumps({"hello": hello}) + "\n").encode())
        answer = bytearray()
        while not answer.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                raise ValueError("the rig closed the connection without an answer")
            answer += chunk
        return sock.detach(), loads(bytes(answer))
    finally:
        if sock.fileno() != -1:
            sock.close()


def reporting(address: str, token: str) -> Harness:
    """The harness of the rig at `address`, playing the script its answer holds. A rig that
    is gone, closed (a straggler) or that refuses this process plays nothing."""
    try:
        fd, answer = connect(address, "start")
    except (OSError, ValueError) as exc:
        give_up(f"cannot reach its rig at {address} ({exc}): its scenario is over, or this "
                "CLI runs where the kit's socket is not (another network namespace)")
    if "script" not in answer:
        give_up("its scenario is over" if answer.get("closed") else
                f"its rig refused it: {answer.get('refused')}")

    def another() -> int:
        try:
            fd, answer = connect(address, "delegate")
        except (OSError, ValueError):
            answer = {}
        if answer.get("ok"):
            return fd
        if answer:
            os.close(fd)
        return os.open(os.devnull, os.O_WRONLY)  # nobody to note to any more

    return Harness(answer["script"], fd, another, token)


def give_up(why: str) -> NoReturn:
    sys.stderr.write(f"agent-tck fake harness: {why}\n")
    sys.stderr.flush()
    os._exit(STRAGGLER_EXIT)


def recording(script_path: str, record: str) -> Harness:
    """The harness playing the script in the file `script_path`, noting to the file `record`
    (no rig: for benchmarks and tests of the harness alone)."""
    with open(script_path) as fh:
        script = loads(fh.read())
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT

    def another() -> int:
        return os.open(record, flags, 0o644)

    return Harness(script, another(), another)


def _read_some(fd: int) -> bytes:
    """What one read of `fd` gives; b"" at its end, or when it is not open at all."""
    try:
        return os.read(fd, BLOCK)
    except OSError:
        return b""


def started_at(pid: int) -> int | None:
    """When `pid` started (clock ticks since boot: /proc/PID/stat's 22nd field); None when it
    has ended."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def main() -> None:
    args = sys.argv[1:]
    if args[0] == RIG:
        address, token, name, *argv = args[1:]
        harness = reporting(address, token)
    else:
        script_path, record, name, *argv = args
        harness = recording(script_path, record)
    code = harness.play(name, argv)
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
