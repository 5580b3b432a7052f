"""`agent-tck run`: the conformance suite against one implementation, and its verdicts."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any, TextIO

import pytest
from _pytest.mark.expression import Expression

from agent_tck.kit import (
    badge,
    failures,
    html_report,
    messages,
    registry,
    reports,
    schedule,
    shard,
    verdicts,
)
from agent_tck.kit.drivers import make_driver
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.drivers.stdio import DEFAULT_TIMEOUT, SAFE_PATH_WAS, SCENARIO_MARGIN
from agent_tck.kit.errors import DriverError, UsageError
from agent_tck.kit.failfast import FailFast
from agent_tck.kit.files import write_atomically
from agent_tck.kit.options import add_shared
from agent_tck.kit.paths import PACKAGE, RUN_INI, SUITE
from agent_tck.kit.progress import Progress
from agent_tck.kit.registry import COMPONENTS
from agent_tck.kit.text import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_shared(parser.add_argument)
    parser.add_argument(
        "--component",
        action="append",
        default=[],
        choices=COMPONENTS,
        help="run only this component (repeatable)",
    )
    parser.add_argument(
        "-n",
        "--workers",
        type=workers,
        metavar="N",
        help="run the scenarios on N worker processes ('auto': four per CPU, at most 16: the "
        "scenarios mostly wait), each with its own implementation (adapter); the same verdicts "
        "in the same order as without",
    )
    parser.add_argument("-k", dest="keyword", metavar="EXPRESSION", type=expression,
                        help="select scenarios: words joined by and, or, not and parentheses, "
                        "each found (any case) in a scenario's title, its feature's name, its "
                        "run's backend or example, or a requirement ID it checks")
    parser.add_argument("-m", dest="markexpr", help="select scenarios by tag (pytest -m)")
    parser.add_argument("--shard", type=shard.shard, metavar="K/N",
                        help="run the Kth of N shards of the scenarios (every Nth from the "
                             "Kth), for N parallel CI jobs; `agent-tck merge` joins their "
                             "JSON reports into the verdict of one run")
    parser.add_argument(
        "--keep-going", action="store_true",
        help="run every scenario even when many of a component break the same way (by "
             "default the run then stops and says why)")
    add_judging_arguments(parser)
    parser.add_argument("--debug", "-v", "--verbose", dest="verbose", action="store_true",
                        help="pytest's own report too: its progress, tracebacks through the "
                        "kit, test names")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="a line on stderr as each scenario ends (default: when stderr is a terminal)",
    )


def add_judging_arguments(parser: argparse.ArgumentParser) -> None:
    """How scenarios' verdicts are judged and reported: `run`'s and `merge`'s."""
    parser.add_argument(
        "--strict", action="store_true", help="SHOULD failures also make the run not conformant"
    )
    parser.add_argument("--json", type=report_path, metavar="FILE", help="write the JSON report")
    parser.add_argument("--junit", type=report_path, metavar="FILE", help="write JUnit XML")
    parser.add_argument("--messages", type=report_path, metavar="FILE",
                        help="write Cucumber Messages (NDJSON) for Cucumber's tools")
    parser.add_argument("--markdown", type=report_path, metavar="FILE",
                        help="write a Markdown summary")
    parser.add_argument("--html", type=report_path, metavar="FILE",
                        help="write a self-contained HTML report (no script, no network)")
    parser.add_argument("--badge", type=report_path, metavar="FILE",
                        help="write the verdict as a shields.io endpoint badge (JSON)")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="expected failures (YAML list of {id, reason})",
    )
    parser.add_argument(
        "--write-baseline",
        type=report_path,
        metavar="FILE",
        help="write the failing requirements as a baseline",
    )
    parser.add_argument("--all", dest="all_rows", action="store_true",
                        help="list in the table the requirements of components the "
                             "implementation does not declare, too")


def pytest_args(args: argparse.Namespace) -> list[str]:
    """The pytest arguments of a run; for a session started under `hermetic()` (they name the
    plugins that autoload would load too). The run's own configuration (`RUN_INI`) and no
    conftest.py above the suite (`--confcutdir`): the project a run is started from or
    installed in has no say in it (a conftest.py of its could pass a broken implementation)."""
    modules = [SUITE / f"test_{c.replace('-', '_')}.py" for c in args.component] or [SUITE]
    found = [str(m) for m in modules if m.exists()]
    if not found:
        raise UsageError(f"no scenarios for component(s) {', '.join(args.component)}")
    adapter_timeout = getattr(args, "adapter_timeout", DEFAULT_TIMEOUT)
    argv = [
        *found,
        "-c",
        str(RUN_INI),
        "--rootdir",
        str(PACKAGE),
        "--confcutdir",
        str(SUITE),
        "-p",
        "no:cacheprovider",
        "--impl",
        args.impl,
        "--time-scale",
        str(args.time_scale),
        "--adapter-timeout",
        str(adapter_timeout),
        "-o",
        f"timeout={adapter_timeout + SCENARIO_MARGIN:g}",
        *(["--isolate"] if getattr(args, "isolate", False) else []),
        *(w for path in getattr(args, "read_only", None) or [] for w in ("--read-only", path)),
    ]
    argv += [arg for plugin in RUN_PLUGINS for arg in ("-p", plugin)]
    # Quiet, a run shows no warnings; so it leaves out the plugins that turn exceptions no
    # one could catch (in `__del__`, in a thread) into warnings, and their two full garbage
    # collections as each run ends.
    argv += (
        ["-v", "--tb=short"]
        if getattr(args, "verbose", False)
        else ["-qq", "--tb=short", "-p", "no:warnings", "-p", "no:unraisableexception",
              "-p", "no:threadexception"]
    )
    for pattern in getattr(args, "req", None) or []:
        argv += ["--req", pattern]
    workers = getattr(args, "workers", None)
    if workers is not None:
        count = auto_workers() if workers == "auto" else workers
        argv += ["-n", str(count), "--dist", "worksteal"]
    if args.keyword:
        argv += ["--select", args.keyword]
    if not getattr(args, "keep_going", False):
        argv.append("--fail-fast")
    if getattr(args, "markexpr", None):
        argv += ["-m", args.markexpr]
    if getattr(args, "shard", None):
        argv += ["-p", "agent_tck.kit.shard", "--shard", args.shard]
    return argv


def expression(text: str) -> str:
    """An argparse type: a selection by words, and, or, not and parentheses (pytest's -k
    grammar), refused before the run when it cannot be read."""
    try:
        Expression.compile(text)
    except SyntaxError as exc:  # what pytest's expression parser raises
        raise argparse.ArgumentTypeError(f"{text!r} is no selection: {exc}") from None
    return text


def workers(text: str) -> int | str:
    """An argparse type: a number of worker processes from 1 to 64, or 'auto'."""
    if text == "auto":
        return text
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 64:  # not "²"
        raise argparse.ArgumentTypeError(f"expected a number of workers from 1 to 64 or "
                                         f"'auto', got {text!r}")
    return int(text)


def auto_workers() -> int:
    """`-n auto`: four workers for each CPU this process may run on (where the system says
    which: Linux; elsewhere every CPU), at most 16. A run's scenarios mostly wait (a deadline,
    a real CLI, a served DDS agent), so workers beyond the cores fill the waits
    (docs/benchmarks.md)."""
    return min(16, 4 * usable_cpus())


def usable_cpus() -> int:
    """The CPUs this process may run on, where the system says which (Linux); elsewhere every
    CPU."""
    usable = getattr(os, "sched_getaffinity", None)
    return len(usable(0)) if usable is not None else os.cpu_count() or 1


def report_path(text: str) -> Path:
    """A file a report can be written to: not a directory, in a directory that exists."""
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a file name")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file to write")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: the directory {str(path.parent)!r} "
                                         "does not exist")
    return path


# A conformance run loads these plugins and no others (`hermetic`): what else the environment
# has installed cannot change a verdict (pytest-randomly would reorder the scenarios,
# pytest-rerunfailures retry a failure into a pass) nor add to the run's cost (hypothesis'
# and anyio's plugins load in every process, workers included).
RUN_PLUGINS = ("pytest_bdd.plugin", "pytest_timeout", "xdist.plugin", "xdist.looponfail",
               "agent_tck.kit.plugin")
AUTOLOAD_OFF = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
# pytest's settings in the environment as a run's sessions have them (None: unset): autoload
# off, and none of the user's options (PYTEST_ADDOPTS), plugins (PYTEST_PLUGINS, loaded even
# with autoload off) or timeout (PYTEST_TIMEOUT, which pytest-timeout takes before the run's
# own `timeout`).
SEALED_ENVIRONMENT: Mapping[str, str | None] = {
    AUTOLOAD_OFF: "1", "PYTEST_ADDOPTS": None, "PYTEST_PLUGINS": None, "PYTEST_TIMEOUT": None,
}


@contextlib.contextmanager
def hermetic(isolate: bool = False) -> Iterator[None]:
    """The environment of `SEALED_ENVIRONMENT` for the sessions started in the block, and for
    their xdist workers, which inherit it (`pytest_args` names every plugin a run needs);
    as it was afterwards. With `isolate`, the workers do not import from the working
    directory (PYTHONSAFEPATH), which the isolated adapter shares and may write in before they
    start; the adapter gets the variable as the user had it (`SAFE_PATH_WAS`)."""
    sealed = {**SEALED_ENVIRONMENT, **({"PYTHONSAFEPATH": "1", SAFE_PATH_WAS: os.environ.get(
        "PYTHONSAFEPATH", "")} if isolate else {})}
    before = {name: os.environ.get(name) for name in sealed}
    _set_environment(sealed)
    try:
        yield
    finally:
        _set_environment(before)


def _set_environment(values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def plugin_args() -> list[str]:
    """The suite's pytest plugin: installing agent-tck loads it into no other pytest run."""
    return ["-p", "agent_tck.kit.plugin"]


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # A bad baseline is refused before any scenario runs; and it is read once, before the
    # implementation runs, which could otherwise rewrite it to excuse its own failures.
    _, baseline = _baseline(args, args.component)
    impl = make_driver(  # a setup error is exit code 2, before any scenario runs
        args.impl, args.adapter_timeout, getattr(args, "isolate", False),
        getattr(args, "read_only", None) or [])
    info = impl.info
    impl.close()
    collector = verdicts.Collector()
    shown = err.isatty() if getattr(args, "progress", None) is None else args.progress
    stopper = FailFast()
    plugins = [collector, schedule.Scheduler(), *([Progress(collector, err)] if shown else []),
               *([] if getattr(args, "keep_going", False) else [stopper])]
    quiet = ["-o", "console_output_style=classic"] if shown else []  # no [ 10%] either
    with _interrupts() as heard, hermetic(getattr(args, "isolate", False)), \
            private_basetemp() as basetemp, \
            _engine_output(getattr(args, "verbose", False)) as engine:
        code = pytest.main([*pytest_args(args), *basetemp, *quiet], plugins=plugins)
    if heard:
        print(f"agent-tck: error: interrupted by {heard[0]}: no verdict (the implementation "
              "and what it started were stopped)", file=err)
        return 2
    stopped = code == pytest.ExitCode.INTERRUPTED and bool(stopper.reason)
    if code in (
        pytest.ExitCode.INTERRUPTED,
        pytest.ExitCode.INTERNAL_ERROR,
        pytest.ExitCode.USAGE_ERROR,
    ) and not stopped:
        print(printable(engine.getvalue()), end="", file=err)
        print(f"agent-tck: error: the suite could not run (pytest exit code {int(code)})", file=err)
        return 2
    selected = bool(args.keyword or args.req or getattr(args, "markexpr", None))
    if (selected or args.shard) and all(
            r.verdict == verdicts.NOT_RUN for r in collector.results.values()):
        print("agent-tck: error: the selection (-k, --req, -m, --shard) matched no scenario "
              "that ran; nothing was judged", file=err)
        return 2
    info = judged_declaration(info, collector.declared.values())
    selection = {"shard": args.shard, "components": list(args.component), "selected": selected}
    said = (f"Stopped early: {printable(stopper.reason)}\nThe scenarios left were not run "
            "(--keep-going runs them all).") if stopped else ""
    return judge(args, info, list(collector.results.values()), selection, out, said, baseline)


def judge(args: argparse.Namespace, info: ImplInfo, scenarios: list[verdicts.ScenarioResult],
          selection: dict[str, Any], out: TextIO, said: str = "",
          known: dict[str, str] | None = None) -> int:
    """The verdicts of `scenarios`, of a run of `info` with `selection` (its `shard`, its
    `components`, and whether it `selected` scenarios otherwise): the reports the options
    ask for, the table, the failures and what the run `said` printed, the verdict line last;
    0 when conformant. `known`: the baseline as read before the run (else read now)."""
    everything = registry.load()
    components = selection["components"]
    reqs, baseline = _baseline(args, components, read=known is None)
    baseline = baseline if known is None else known
    selected = bool(selection["selected"] or selection["shard"])
    folded = verdicts.fold(reqs, scenarios, selected=selected)
    stale = reports.apply_baseline(folded, baseline)
    partial = selected or bool(components)  # the user chose: any level judged counts
    ok = verdicts.conformant(folded, args.strict, baseline, partial) and not stale
    line = verdicts.summary(folded, ok, len(everything) if partial else None, baseline,
                            any_level=args.strict or partial, baseline=str(args.baseline or ""))
    result = reports.Run(info, scenarios, folded, ok, baseline, stale, line, selection)
    _write_reports(args, result, partial)
    print(verdicts.table(folded, baseline, getattr(args, "all_rows", False), selected), file=out)
    told = failures.explain(folded, baseline)
    if told:
        print(f"\n{printable(told)}\n", file=out)
    for rid in stale:
        print(
            f"stale baseline entry: {rid} is listed as an expected failure but "
            f"{next(v.verdict for v in folded if v.req.id == rid)}",
            file=out,
        )
    if said:
        print(said, file=out)
    print(line, file=out)
    return 0 if ok else 1


def _baseline(args: argparse.Namespace, components: list[str], read: bool = True,
              ) -> tuple[dict[str, registry.Requirement], dict[str, str]]:
    """The requirements of `components` (all when none) and the entries of the baseline
    `--baseline` names among them (not read unless `read`): an entry of another component is
    left out, so a baseline written from a whole run serves a run of one component; one the
    kit does not know, or a file that cannot be read, is a usage error."""
    everything = registry.load()
    reqs = {k: v for k, v in everything.items() if not components or v.component in components}
    if not (args.baseline and read):
        return reqs, {}
    listed = reports.load_baseline(args.baseline, everything)
    return reqs, {rid: why for rid, why in listed.items() if rid in reqs}


def judged_declaration(first: ImplInfo, judged: Iterable[dict[str, Any]]) -> ImplInfo:
    """What the sessions that judged the implementation declared in their `start`: the
    reports' header. The run's first `start` (which chose the components) and every judged
    session (one per worker) must agree: otherwise the verdicts are not those of one
    implementation, and the header would name what was not judged."""
    seen = {json.dumps(d, sort_keys=True): d for d in [first.to_dict(), *judged]}
    if len(seen) > 1:
        said = "; ".join(printable(text) for text in seen)
        raise DriverError("the implementation declared different things in different `start`s "
                          f"of one run, so its verdicts are not of one implementation: {said}")
    return ImplInfo.from_dict(next(iter(seen.values())))


@contextlib.contextmanager
def _engine_output(shown: bool) -> Iterator[io.StringIO]:
    """What pytest prints (its progress dots, tracebacks through the kit, test names), kept
    from the user unless `shown` (--debug): the run's own report is the table and the
    failures as the spec reads them. Kept, not dropped: when pytest itself fails, it says
    why."""
    kept = io.StringIO()
    if shown:
        yield kept
        return
    with contextlib.redirect_stdout(kept):
        yield kept


@contextlib.contextmanager
def private_basetemp() -> Iterator[list[str]]:
    """pytest options giving a run a temporary folder of its own, removed afterwards.
    Concurrent pytest sessions that share /tmp/pytest-of-USER clean up each other's numbered
    folders and race doing it (a warning that `filterwarnings = error` makes a failure)."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-run-", ignore_cleanup_errors=True) as tmp:
        yield ["--basetemp", str(Path(tmp) / "basetemp")]


@contextlib.contextmanager
def _interrupts() -> Iterator[list[str]]:
    """SIGTERM ends the run as Ctrl-C does (pytest tears down, so the driver stops the adapter
    and what it started) instead of killing this process and orphaning the adapter. A second
    signal while it stops (a second Ctrl-C) is noted and lets the stop go on: raised in a
    teardown, it would break that off and leave what it was stopping. Yields the names of the
    signals heard, to tell an interrupted run from one that could not run."""
    heard: list[str] = []

    def interrupt(signum: int, _frame: object) -> None:
        heard.append(signal.Signals(signum).name)
        if len(heard) == 1:
            raise KeyboardInterrupt(f"signal {signum}")

    try:  # a signal the caller ignores (SIGINT in a shell's background job) stays ignored
        previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGINT)
                    if signal.getsignal(sig) is not signal.SIG_IGN}
    except ValueError:  # not the main thread: leave signals alone
        yield heard
        return
    try:
        yield heard
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _write_reports(args: argparse.Namespace, result: reports.Run, partial: bool) -> None:
    """Every report the options ask for; `partial`: the user chose what to judge (the badge
    says so)."""
    writers = (
        (args.json, reports.to_json),
        (args.junit, reports.to_junit),
        (args.markdown, reports.to_markdown),
        (args.html, html_report.render),
        (args.messages, messages.render),
    )
    for path, render in writers:
        if path is not None:
            write_atomically(path, render(result))
    if args.badge is not None:
        write_atomically(args.badge, badge.render(result, partial))
    if args.write_baseline is not None:
        text = reports.baseline_text(result.verdicts, date.today().isoformat())
        write_atomically(args.write_baseline, text)
