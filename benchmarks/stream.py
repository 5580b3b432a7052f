"""Stream throughput and memory of the reference agent against a bare read loop.

Each measurement runs in a child process (`python -m benchmarks.stream MODE BACKEND COUNT`)
so its peak RSS is its own. The bare loop reads the same harness's stdout line by line and
`json.loads` each line: the least any wrapper has to do.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

from agent_tck.doubles.harness.rig import HarnessRig
from benchmarks.report import Row, median
from benchmarks.rig import child_env, harness, stream

PROMPT = "List the files and look at the tests."


def run_agent(rig: HarnessRig, backend: str) -> int:
    from agent_tck.reference.agent import create_agent

    agent = create_agent(backend=backend, env={"PATH": rig.path()}, timeout=3600.0)
    response = agent.process(PROMPT)
    assert response["status"] == 0, response
    return int(response["tool_calls"])


def run_bare(rig: HarnessRig, backend: str) -> int:
    """The same CLI, started with the command line the agent gives it (the fake refuses one
    the real CLI refuses: a bare `codex` wants a terminal), read line by line."""
    from agent_tck.reference.backends import get_backend
    from agent_tck.reference.backends.base import RunOptions

    call = get_backend(backend).build(PROMPT, RunOptions())
    argv = [str(rig.bin / call.argv[0]), *call.argv[1:]]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(call.stdin)
    proc.stdin.close()
    count = 0
    for line in proc.stdout:
        json.loads(line)
        count += 1
    proc.wait()
    assert count, f"{' '.join(argv)} printed no line (exit code {proc.returncode})"
    return count


def child(mode: str, backend: str, count: int) -> dict[str, Any]:
    with harness(stream(backend, count)) as rig:
        start = time.perf_counter()
        read = (run_agent if mode == "agent" else run_bare)(rig, backend)
        elapsed = time.perf_counter() - start
    return {"elapsed": elapsed, "peak_rss": peak_rss(), "read": read}


def peak_rss() -> int:
    """This process's peak RSS in bytes.

    VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child started from a big
    parent reports the parent's size until it outgrows it.
    """
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(mode: str, backend: str, count: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.stream", mode, backend, str(count)],
        capture_output=True,
        check=True,
        env=child_env(),
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def throughput(backend: str, count: int, repeats: int) -> Row:
    agent: list[float] = []
    bare: list[float] = []
    for _ in range(repeats):  # interleaved, so both see the same load
        agent.append(measure("agent", backend, count)["elapsed"])
        bare.append(measure("bare", backend, count)["elapsed"])
    a, b = median(agent), median(bare)
    return Row(
        f"{backend} stream, {count:,} lines: agent vs bare loop (lines/s, median of {repeats})",
        f"{count / a:,.0f}/s",
        f"{count / b:,.0f}/s",
        f"{b / a:.2f}x",
        ">= 0.7x",
        b / a >= 0.7,
    )


def memory(backend: str, small: int, large: int) -> Row:
    low = measure("agent", backend, small)["peak_rss"]
    high = measure("agent", backend, large)["peak_rss"]
    growth = (high - low) / 2**20
    return Row(
        f"{backend} agent peak RSS, {large:,} vs {small:,} lines",
        f"{high / 2**20:.1f} MB",
        f"{low / 2**20:.1f} MB",
        f"+{growth:.1f} MB",
        "< +30 MB",
        growth < 30,
    )


def rows(count: int, repeats: int) -> list[Row]:
    found = [throughput(b, count, repeats) for b in ("claude", "codex")]
    return [*found, *(memory(b, count // 10, count) for b in ("claude", "codex"))]


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
