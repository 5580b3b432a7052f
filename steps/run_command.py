"""`agent-tck run`: the conformance suite against one implementation, and its verdicts."""

from __future__ import annotations

import argparse
import importlib.metadata
from typing import TextIO

import pytest

from steps import registry, verdicts
from steps.drivers import make_driver
from steps.exceptions import UsageError
from steps.paths import ROOT
from steps.plugin import DEFAULT_TIME_SCALE

SUITE = ROOT / "steps" / "suite"
COMPONENTS = ("agent", "backends", "responses", "runner", "pipeline", "transport")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--impl",
        default="reference",
        help="'reference' (in-process, the default) or an adapter command line",
    )
    parser.add_argument(
        "--time-scale",
        type=float,
        default=DEFAULT_TIME_SCALE,
        help="factor for the spec's wall-clock durations (1 = literal)",
    )
    parser.add_argument(
        "--component",
        action="append",
        default=[],
        choices=COMPONENTS,
        help="run only this component (repeatable)",
    )
    parser.add_argument("-k", dest="keyword", help="select scenarios by pytest -k expression")
    parser.add_argument(
        "--strict", action="store_true", help="SHOULD failures also make the run not conformant"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="pytest's own report too")


def pytest_args(args: argparse.Namespace) -> list[str]:
    modules = [SUITE / f"test_{c}.py" for c in args.component] or [SUITE]
    found = [str(m) for m in modules if m.exists()]
    if not found:
        raise UsageError(f"no scenarios for component(s) {', '.join(args.component)}")
    argv = [
        *found,
        "--rootdir",
        str(ROOT),
        "-p",
        "no:cacheprovider",
        "--impl",
        args.impl,
        "--time-scale",
        str(args.time_scale),
    ]
    if not _plugin_installed():
        argv += ["-p", "steps.plugin"]
    argv += ["-v", "--tb=short"] if args.verbose else ["-qq", "--tb=no", "-p", "no:warnings"]
    if args.keyword:
        argv += ["-k", args.keyword]
    return argv


def _plugin_installed() -> bool:
    return any(ep.name == "agent_tck" for ep in importlib.metadata.entry_points(group="pytest11"))


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.time_scale <= 0:
        raise UsageError(f"--time-scale must be positive, got {args.time_scale}")
    make_driver(args.impl).close()  # a setup error is exit code 2, before any scenario runs
    collector = verdicts.Collector()
    code = pytest.main(pytest_args(args), plugins=[collector])
    if code in (
        pytest.ExitCode.INTERRUPTED,
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.USAGE_ERROR,
    ):
        print(f"agent-tck: error: the suite could not run (pytest exit code {int(code)})", file=err)
        return 2
    reqs = registry.load()
    if args.component:
        reqs = {k: v for k, v in reqs.items() if v.component in args.component}
    folded = verdicts.fold(reqs, collector.results.values(), selected=bool(args.keyword))
    ok = verdicts.conformant(folded, strict=args.strict)
    print(verdicts.table(folded), file=out)
    print(verdicts.summary(folded, ok), file=out)
    return 0 if ok else 1
