"""Benchmark: the reference agent over DDS against the same agent in process.

    PYTHONPATH=. python benchmarks/bench_dds.py [--requests 200] [--domain 230]

Measures (1) the round-trip latency of a trivial request (a tiny shell script stands in for
the CLI, so the harness costs little), in process and over DDS with one served agent, and
(2) requests per second with one and with two served agents, all requests sent at once by
one client. Cyclone DDS runs with the shipped loopback configuration. Run it on demand, not
in the tests; the table it prints is in docs/dds.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tck.reference.agent import AgentConfig, CodingAgent  # noqa: E402
from agent_tck.reference.dds.client import Client  # noqa: E402

TRIVIAL_CLAUDE = """#!/bin/sh
cat >/dev/null
{work}
echo '{"type":"system","subtype":"init","session_id":"bench"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"bench"}'
"""


def trivial_harness(directory: Path, work_ms: int) -> str:
    """A bin directory whose `claude` answers after `work_ms` (a CLI waiting on its model);
    the PATH to hand the agent."""
    claude = directory / "claude"
    work = f"sleep {work_ms / 1000}" if work_ms else ""
    claude.write_text(TRIVIAL_CLAUDE.replace("{work}", work))
    claude.chmod(0o755)
    return f"{directory}{os.pathsep}{os.environ.get('PATH', os.defpath)}"


@contextmanager
def served(count: int, domain: int, path: str) -> Iterator[list[str]]:
    """`count` served agents; stopped by pid (SIGTERM, then SIGKILL) whatever happens."""
    env = {**os.environ, "PATH": path,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    names = [f"bench-{os.getpid()}-{i}" for i in range(count)]
    procs = [subprocess.Popen([sys.executable, "-m", "agent_tck.reference.dds", "serve",
                               "--backend", "claude", "--name", name, "--domain", str(domain)],
                              env=env, stdin=subprocess.DEVNULL) for name in names]
    try:
        yield names
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def latencies(call: Callable[[], object], count: int) -> list[float]:
    out = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


def throughput(client: Client, count: int) -> float:
    start = time.perf_counter()
    rids = [client.submit("ping", timeout=120) for _ in range(count)]
    for rid in rids:
        assert client.result(rid).status == 0
    return count / (time.perf_counter() - start)


def warm_up(client: Client, names: list[str]) -> None:
    """Every agent answered once: discovery is over before anything is timed."""
    for name in names:
        assert client.ask("warm up", agent=name, timeout=60).status == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--domain", type=int, default=230)
    parser.add_argument("--work-ms", type=int, default=0,
                        help="how long the stand-in CLI works per request (default: none)")
    args = parser.parse_args()
    n = args.requests
    with tempfile.TemporaryDirectory() as tmp:
        path = trivial_harness(Path(tmp), args.work_ms)
        agent = CodingAgent(AgentConfig(env={"PATH": path}))
        inproc = latencies(lambda: agent.process("ping"), n)
        inproc_rps = n / sum(inproc)
        client = Client(args.domain, name="bench")
        try:
            with served(1, args.domain, path) as names:
                warm_up(client, names)
                dds = latencies(lambda: client.ask("ping", timeout=60), n)
                one = throughput(client, n)
            with served(2, args.domain, path) as names:
                warm_up(client, names)
                two = throughput(client, n)
        finally:
            client.close()
    print(f"{n} requests each, the CLI working {args.work_ms} ms per request; "
          f"{os.cpu_count()} CPUs; Cyclone DDS on loopback\n")
    print_table(inproc, dds, inproc_rps, one, two)
    return 0


def print_table(inproc: list[float], dds: list[float], inproc_rps: float, one: float,
                two: float) -> None:
    def ms(values: list[float], q: int) -> float:
        return 1000 * statistics.quantiles(values, n=100)[q - 1]

    med_in, med_dds = 1000 * statistics.median(inproc), 1000 * statistics.median(dds)
    rows = [
        ("latency, median (ms)", f"{med_in:.2f}", f"{med_dds:.2f}", f"{med_dds / med_in:.2f}x"),
        ("latency, p95 (ms)", f"{ms(inproc, 95):.2f}", f"{ms(dds, 95):.2f}",
         f"{ms(dds, 95) / ms(inproc, 95):.2f}x"),
        ("requests/s, 1 agent", f"{inproc_rps:.0f}", f"{one:.0f}", f"{one / inproc_rps:.2f}x"),
        ("requests/s, 2 agents", "-", f"{two:.0f}", f"{two / one:.2f}x vs 1 agent"),
    ]
    print("| measure | in process | over DDS | ratio |")
    print("|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    sys.exit(main())
