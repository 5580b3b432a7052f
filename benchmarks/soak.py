"""Soak test, on demand: many requests in a row through one reference agent, hostile harnesses
mixed in, then what is left behind: file descriptors, processes, memory.

    PYTHONPATH=. python benchmarks/soak.py [--requests 1000] [--timeout 1.0]

The harness is the suite's fake (doubles/harness); each request plays the next behaviour of
the mix in turn. The run fails (exit 1) when a request gets an unexpected status, a file
descriptor or a process is left over, or RSS grows by more than --max-rss-growth MiB after
the warm-up. Figures of a run are in docs/soak.md.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_tck.doubles.harness.script import Script, install, read_record, write_script
from agent_tck.kit.observe import still_running
from agent_tck.reference.agent import create_agent

Behaviour = Callable[[Script], int]  # scripts the harness, returns the expected status


def normal(s: Script) -> int:
    s.init().text("2 + 2 = 4").done()
    return 0


def blank_lines(s: Script) -> int:
    s.add("out", "\n").init().add("out", "\n \t\n\r\n").text("gaps").done()
    return 0


def unterminated(s: Script) -> int:
    s.init().add("out", json.dumps(s.text_line("cut short")))
    return 0


def non_objects(s: Script) -> int:
    s.init().add("out", '[]\n"text"\n42\nnull\n').text("objects only").done()
    return 0


def deep(s: Script) -> int:
    s.init().add("deep", 100_000).text("deep").done()
    return 0


def burst(s: Script) -> int:
    line = json.dumps(s.text_line("@N@,")) + "\n"
    s.init().add("burst", {"line": line, "count": 10_000}).done_after("9999,")
    return 0


def trickle(s: Script) -> int:
    text = "Größe ✓ 完了 🎉"
    data = json.dumps(s.text_line(text), ensure_ascii=False) + "\n"
    s.init().add("trickle", {"data": data, "piece": 3, "sleep": 0.0005}).done_after(text)
    return 0


def long_line(s: Script) -> int:
    s.init().text("x" * (2 << 20)).done()
    return 0


def oversized_line(s: Script) -> int:
    line = json.dumps(s.text_line("@FILL@")) + "\n"
    s.init().add("fill", {"line": line, "size": 20 << 20}).text("after").done()
    return 0


def stderr_flood(s: Script) -> int:
    s.add("err_bytes", 1_200_000).init().text("after the noise").done()
    return 0


def invalid_utf8(s: Script) -> int:
    s.init().add("raw_b64", base64.b64encode(b"\xff\xfe not UTF-8\n").decode()).text("ok").done()
    return 0


def grandchild_exit(s: Script) -> int:
    s.init().text("finished").done().add("spawn_holder", 60).add("exit", 0)
    return 0


def grandchild_timeout(s: Script) -> int:
    s.add("spawn_holder", 60).init().add("sleep", 60)
    return 3


def ignores_sigterm(s: Script) -> int:
    s.add("on_term", "ignore").init().add("sleep", 60)
    return 3


def killed(s: Script) -> int:
    s.init().add("die", "SIGKILL")
    return 2


def error_exit_0(s: Script) -> int:
    s.init().line(s.failure_line("quota exhausted")).add("exit", 0)
    return 1


def success_exit_1(s: Script) -> int:
    s.init().text("done").done().add("exit", 1)
    return 0


# Weighted so the expensive behaviours (deadlines, 20 MiB) are present but not dominant.
MIX: list[Behaviour] = [
    normal, blank_lines, unterminated, non_objects, deep, trickle, stderr_flood,
    invalid_utf8, grandchild_exit, killed, error_exit_0, success_exit_1, normal,
    blank_lines, burst, long_line, normal, grandchild_timeout, non_objects, normal,
    ignores_sigterm, unterminated, oversized_line, normal,
]  # fmt: skip


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def children() -> list[int]:
    """Live or zombie processes whose parent is this process."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                found.append(int(entry.name))
    return found


def soak(requests: int, timeout: float, root: Path) -> dict[str, object]:
    bin_dir, script_path, record = root / "bin", root / "script.json", root / "record.jsonl"
    install(bin_dir, script_path, record)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    agent = create_agent(
        backend="claude", timeout=timeout, grace_period=timeout / 10, env={"PATH": path}
    )
    tally: collections.Counter[str] = collections.Counter()
    wrong: list[str] = []
    samples: list[int] = []  # RSS every 250 requests: flat, or growing?
    before = {"fds": open_fds(), "rss": rss_kib(), "children": len(children())}
    warm_rss = before["rss"]
    started = time.monotonic()
    for i in range(requests):
        behaviour = MIX[i % len(MIX)]
        script = Script("claude")
        expected = behaviour(script)
        write_script(script_path, script)
        status = agent.process(f"request {i}")["status"]
        tally[behaviour.__name__] += 1
        if status != expected or agent.state.name != "READY":
            wrong.append(f"#{i} {behaviour.__name__}: status {status}, expected {expected}")
        if i == min(99, requests - 1):
            warm_rss = rss_kib()
        if (i + 1) % 250 == 0:
            samples.append(rss_kib())
    elapsed = time.monotonic() - started
    grandchildren = [e["pid"] for e in read_record(record) if e["what"] == "grandchild"]
    return {
        "requests": requests,
        "seconds": elapsed,
        "tally": dict(tally),
        "wrong": wrong,
        "fds": (before["fds"], open_fds()),
        "children": (before["children"], len(children())),
        "grandchildren running": (len(grandchildren), len(still_running(grandchildren))),
        "rss_kib": (before["rss"], warm_rss, rss_kib()),
        "rss_samples": samples,
    }


def report(r: dict[str, object], max_growth_mib: float) -> bool:
    fds, kids, grand, rss = r["fds"], r["children"], r["grandchildren running"], r["rss_kib"]
    assert isinstance(fds, tuple) and isinstance(kids, tuple) and isinstance(grand, tuple)
    assert isinstance(rss, tuple) and isinstance(r["wrong"], list)
    growth = (rss[2] - rss[1]) / 1024
    rows = [
        ("requests", f"{r['requests']} in {r['seconds']:.1f} s", "", True),
        ("unexpected statuses", str(len(r["wrong"])), "0", not r["wrong"]),
        ("open fds (before -> after)", f"{fds[0]} -> {fds[1]}", "equal", fds[0] == fds[1]),
        ("child processes", f"{kids[0]} -> {kids[1]}", "equal", kids[0] == kids[1]),
        ("grandchildren still running", f"{grand[1]} of {grand[0]}", "0", grand[1] == 0),
        ("RSS MiB (start, after 100, end)", " / ".join(f"{k / 1024:.1f}" for k in rss),
         f"growth <= {max_growth_mib:g}", growth <= max_growth_mib),
    ]  # fmt: skip
    print(f"{'measure':<34} {'value':<26} {'bound':<14} ok")
    for name, value, bound, ok in rows:
        print(f"{name:<34} {value:<26} {bound:<14} {'yes' if ok else 'NO'}")
    print("mix:", ", ".join(f"{k} {v}" for k, v in sorted(r["tally"].items())))  # type: ignore[attr-defined]
    print("RSS MiB every 250 requests:", " ".join(f"{k / 1024:.1f}" for k in r["rss_samples"]))  # type: ignore[attr-defined]
    for line in r["wrong"][:20]:
        print("  ", line)
    return all(ok for *_, ok in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=1.0, help="agent timeout, seconds")
    parser.add_argument("--max-rss-growth", type=float, default=16.0, help="MiB after warm-up")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the skipped 20 MiB lines warn, as designed
    with tempfile.TemporaryDirectory(prefix="agent-tck-soak-") as tmp:
        result = soak(args.requests, args.timeout, Path(tmp))
    return 0 if report(result, args.max_rss_growth) else 1


if __name__ == "__main__":
    sys.exit(main())
