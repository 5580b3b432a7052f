"""One run split across a CI system's parallel jobs, and merged back into one verdict.

`agent-tck run --shard K/N` runs every Nth scenario of the collection from its Kth on: the
collection's order is the same in every process (pytest-xdist's workers check it too), so the
N shards run each scenario once between them. A shard's own verdict is that of a selection
(a requirement none of whose scenarios it ran is not failed). `agent-tck merge` reads the N
shards' JSON reports, checks they are the shards of one run of one implementation (the same
declaration, components and selection; each K once), and judges their scenarios together, in
the collection's order, as one run does: the same verdicts, table and reports.

As a pytest plugin (`-p agent_tck.kit.shard`, in every process of a run, workers included),
it adds `--shard` and deselects the scenarios of the other shards.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest

from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.errors import RegistryError, UsageError
from agent_tck.kit.files import read_bounded
from agent_tck.kit.text import well_formed_json
from agent_tck.kit.verdicts import ScenarioResult

MAX_SHARDS = 256
MAX_BYTES = 64 * 2**20  # a shard's report, as `agent-tck report` reads at most
SCENARIO_FIELDS = {f.name: f.type for f in fields(ScenarioResult)}


def shard(text: str) -> str:
    """An argparse type: K/N, the Kth of N shards (1 <= K <= N <= MAX_SHARDS)."""
    k, slash, n = text.partition("/")
    numbers = [s for s in (k, n) if s.isascii() and s.isdigit()]
    if not slash or len(numbers) < 2 or not 1 <= int(k) <= int(n) <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(
            f"expected K/N, the Kth of N shards (1 <= K <= N <= {MAX_SHARDS}), got {text!r}")
    return f"{int(k)}/{int(n)}"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("agent-tck").addoption(
        "--shard", metavar="K/N", help="run only the Kth of N shards of the scenarios")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep every Nth scenario from the Kth on, in the collection's order."""
    chosen = config.getoption("--shard")
    if not chosen:
        return
    k, n = map(int, shard(chosen).split("/"))
    keep = items[k - 1::n]
    kept = set(map(id, keep))
    config.hook.pytest_deselected(items=[i for i in items if id(i) not in kept])
    items[:] = keep


@dataclass
class Shard:
    """What a shard's JSON report tells of it."""

    path: Path
    k: int
    n: int
    impl: ImplInfo
    components: list[str]
    selected: bool  # another selection than the shard's (-k, --req, -m)
    scenarios: list[ScenarioResult]


def load(path: Path) -> Shard:
    """A shard's JSON report; RegistryError naming the file and what is wrong with it."""
    try:
        data = json.loads(well_formed_json(read_bounded(path, MAX_BYTES, "report").decode()))
    except UsageError as exc:
        raise RegistryError(str(exc)) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RegistryError(f"report {path}: cannot read it as JSON: {exc}") from None
    header = data.get("header") if isinstance(data, dict) else None
    header = header if isinstance(header, dict) else {}
    run = header.get("run")
    if not isinstance(run, dict) or not run.get("shard"):
        raise RegistryError(f"report {path}: not the report of a shard ($.header.run.shard is "
                            "missing: write it with `agent-tck run --shard K/N --json FILE`)")
    try:
        k, n = map(int, shard(str(run["shard"])).split("/"))
        impl = ImplInfo.from_dict(header["implementation"])
        scenarios = [_scenario(s) for s in data["scenarios"]]
        return Shard(path, k, n, impl, [str(c) for c in run["components"]],
                     bool(run["selected"]), scenarios)
    except (argparse.ArgumentTypeError, KeyError, TypeError, ValueError) as exc:
        raise RegistryError(f"report {path}: not a report of agent-tck run: {exc!r}") from None


def _scenario(data: dict[str, Any]) -> ScenarioResult:
    known = {k: v for k, v in data.items() if k in SCENARIO_FIELDS}
    result = ScenarioResult(**known)
    result.reqs = tuple(result.reqs)
    return result


def merged(shards: list[Shard]) -> tuple[ImplInfo, list[str], bool, list[ScenarioResult]]:
    """The run the shards are parts of: its declaration, components, selection and
    scenarios in the collection's order; RegistryError when they are not one run's N shards."""
    if not shards or len(shards) > MAX_SHARDS:
        raise RegistryError(f"{len(shards)} reports: give the N reports of the N shards")
    first = shards[0]
    n = first.n
    for s in shards:
        same = (s.n, s.impl.to_dict(), s.components, s.selected)
        if same != (n, first.impl.to_dict(), first.components, first.selected):
            raise RegistryError(f"report {s.path} is not a shard of the run of {first.path}: "
                                "their shard counts, declarations, components or selections "
                                "differ")
    ks = sorted(s.k for s in shards)
    if ks != list(range(1, n + 1)):
        missing = sorted(set(range(1, n + 1)) - set(ks))
        twice = sorted({k for k in ks if ks.count(k) > 1})
        raise RegistryError(f"the reports are not the {n} shards of one run: missing "
                            f"{missing or 'none'}, given twice {twice or 'none'}")
    ordered = sorted(shards, key=lambda s: s.k)
    longest = max(len(s.scenarios) for s in ordered)
    scenarios = [s.scenarios[i] for i in range(longest) for s in ordered if i < len(s.scenarios)]
    return first.impl, first.components, first.selected, scenarios
