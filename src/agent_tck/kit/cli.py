"""`agent-tck`: run the conformance suite, convert spec documents, and the reference's tools.

One table, `COMMANDS`, names every subcommand with its one-line help and its handler.
`validate`, `serve` and `ask` are the reference implementation's own commands: their argv is
forwarded whole to `reference.<...>.cli.main`, which parses it (and answers `--help`).

Every command takes its streams as arguments (`main(argv, stdout, stderr)`), so it is tested
without subprocesses. Exit codes: 0 success / conformant, 1 not conformant / invalid / a
regression (`diff`), 2 usage or setup error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TextIO

from agent_tck.kit import registry
from agent_tck.kit.errors import TckError, UsageError
from agent_tck.kit.options import duration
from agent_tck.kit.text import printable

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, usage=self.format_usage())


def _forward_validate(argv: list[str], out: TextIO, err: TextIO) -> int:
    from agent_tck.reference.pipeline.cli import main as validate

    return validate(argv, out, err)


def _forward_dds(command: str) -> Callable[[list[str], TextIO, TextIO], int]:
    def forward(argv: list[str], out: TextIO, err: TextIO) -> int:
        from agent_tck.reference.dds.cli import main as dds

        return dds([command, *argv], out, err)

    return forward


# Subcommands whose argv goes whole to the reference's own command line.
FORWARDED: dict[str, tuple[str, Callable[[list[str], TextIO, TextIO], int]]] = {
    "validate": ("validate rspec pipeline YAML contracts (docs/pipeline.md)", _forward_validate),
    "serve": ("serve a reference agent over DDS (docs/dds.md)", _forward_dds("serve")),
    "ask": ("send one request to agents served over DDS (docs/dds.md)", _forward_dds("ask")),
}


def version() -> str:
    try:
        return metadata.version("agent-tck")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent-tck", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"agent-tck {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")
    for name, (what, _) in FORWARDED.items():
        sub.add_parser(name, help=what, add_help=False)
    from agent_tck.kit import run as run_command

    run_command.add_arguments(sub.add_parser("run", help="run the conformance suite"))
    report = sub.add_parser("report", help="JSON reports of several runs side by side")
    report.add_argument("reports", nargs="+", type=Path, metavar="REPORT",
                        help="a report of `agent-tck run --json`")
    report.add_argument("--html", type=run_command.report_path, metavar="FILE",
                        help="write the matrix as a self-contained HTML page")
    report.add_argument("--markdown", type=run_command.report_path, metavar="FILE",
                        help="write the matrix as Markdown (without --html: printed)")
    merge = sub.add_parser(
        "merge", help="join the JSON reports of a run's shards into its verdict",
        description="Judge the scenarios of the N shards of one run (`agent-tck run --shard "
                    "K/N --json FILE` in N jobs) together, as one run judges them: the same "
                    "table, reports and exit code. The reports must be the N shards of one "
                    "run of one implementation.",
    )
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT",
                       help="a shard's report of `agent-tck run --shard K/N --json`")
    run_command.add_judging_arguments(merge)
    diff = sub.add_parser(
        "diff", help="what changed between two JSON reports, regressions first",
        description="Compare two reports of `agent-tck run --json`: a line for each "
                    "requirement whose verdict changed, regressions first (failed or errored "
                    "in NEW, not in OLD), then fixes (failed or errored in OLD, passed in "
                    "NEW), then other changes; then the counts. Exit code 1 when there is a "
                    "regression, 0 otherwise, 2 when a report cannot be read.",
    )
    diff.add_argument("old", type=Path, metavar="OLD", help="the earlier report (JSON)")
    diff.add_argument("new", type=Path, metavar="NEW", help="the later report (JSON)")
    matrix = sub.add_parser(
        "matrix", help="judge the implementations a list names, side by side, with their "
                       "badges and a hall of bugs",
        description="Run each implementation LIST names (a YAML list of {name, impl, "
                    "components, baseline, setup}), after its setup, and write into --out its "
                    "reports and badge, the matrix of them all (index.html, index.md) and the "
                    "hall of bugs (bugs.md); with --previous, what changed since (changes.md). "
                    "Exit code 1 when one regressed or its setup or run ended in an error.",
    )
    matrix.add_argument("list", type=Path, metavar="LIST", help="the implementations (YAML)")
    matrix.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where the reports and pages go")
    matrix.add_argument("--previous", type=Path, metavar="DIR",
                        help="an earlier matrix's --out, to say what changed")
    matrix.add_argument("-n", dest="workers", default="auto", metavar="N",
                        help="workers of each run (default: auto)")
    explain = sub.add_parser("explain", help="one requirement: its text, source, scenarios "
                                             "and the real failures it guards against")
    explain.add_argument("req_id", metavar="REQ-ID", help="a requirement id, e.g. AG-H1")
    smoke = sub.add_parser("smoke", help="check that an adapter starts and stops cleanly")
    smoke.add_argument("--impl", required=True, help="the adapter command line")
    smoke.add_argument("--timeout", type=duration, default=30.0,
                       help="seconds to wait for each answer (start, the requests, stop)")
    install = sub.add_parser(
        "install-clis", help=f"install the pinned real {', '.join(registry.KNOWN_BACKENDS)} CLIs "
                             "and ACP agents (clis/package.json)"
    )
    install.add_argument("--dir", type=Path, help="where to install (default: clis/)")
    rec = sub.add_parser(
        "record", help="run a real CLI against a scripted model and save its raw stdout"
    )
    rec.add_argument("--backend", required=True, choices=registry.KNOWN_BACKENDS)
    rec.add_argument("--script", type=Path, required=True, help="the model script (JSON)")
    rec.add_argument("--out", type=Path, required=True, help="the transcript to write (.jsonl)")
    rec.add_argument("--prompt", default="Hello", help="the prompt, sent on stdin")
    rec.add_argument(
        "--timeout", type=duration, default=120.0,
        help="seconds before the CLI is killed"
    )
    docs = sub.add_parser(
        "docs", help="write the spec alone as a small static site (HTML)",
        description="The spec as self-contained HTML pages: an overview, each component's "
                    "features as Gherkin, the requirement index, the decisions, the GENESIS "
                    "mapping (when docs/genesis.md exists) and each feature file's source.",
    )
    docs.add_argument(
        "--out", type=Path, required=True, metavar="DIR",
        help="the folder to write: new, empty, or one this command wrote before (it keeps "
             "a list in DIR/.agent-tck-docs; only the files it writes are replaced, and its "
             "pages it no longer writes removed); any other folder is refused",
    )
    gherkin = sub.add_parser("gherkin", help="convert GIVEN/WHEN/THEN documents to Gherkin")
    gherkin.add_argument("sources", nargs="*", type=Path, metavar="SRC")
    gherkin.add_argument("--out", type=Path, required=True, help="output directory")
    gherkin.add_argument(
        "--id-prefix",
        action="append",
        default=[],
        help="requirement-ID prefix, one per SRC, in order",
    )
    gherkin.add_argument(
        "--manifest", type=Path, help="a YAML list of {source, id_prefix}, relative to itself"
    )
    return parser


def main(
    argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in FORWARDED:
        return FORWARDED[words[0]][1](words[1:], out, err)
    try:
        with contextlib.redirect_stdout(out):  # --help and --version go to the caller's stream
            args = build_parser().parse_args(words)
        return HANDLERS[args.command](args, out, err)
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0)
    except TckError as exc:  # its text can quote an implementation, or a file's name
        usage = exc.usage if isinstance(exc, UsageError) else ""
        print(f"{usage}agent-tck: error: {printable(str(exc))}", file=err)
        return USAGE_ERROR


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit import run as run_command

    return run_command.run(args, out, err)


def _report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit import html_report, reports
    from agent_tck.kit.files import write_atomically

    judged = reports.load_reports(args.reports)
    markdown = reports.matrix_markdown(judged)
    if args.html is None and args.markdown is None:
        print(markdown, file=out, end="")
        return 0
    for path, text in ((args.markdown, markdown), (args.html, html_report.render_matrix(judged))):
        if path is not None:
            write_atomically(path, text)
    rows = reports.matrix(judged)
    print(f"{len(judged)} reports, {sum(r.differs for r in rows)} of {len(rows)} requirements "
          "differ", file=out)
    return 0


def _merge(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit import run as run_command
    from agent_tck.kit import shard

    impl, components, selected, scenarios = shard.merged([shard.load(p) for p in args.reports])
    selection = {"shard": None, "components": components, "selected": selected}
    return run_command.judge(args, impl, scenarios, selection, out)


def _diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.diff import diff

    return diff(args.old, args.new, out)


def _matrix(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.matrix import matrix

    return matrix(args.list, args.out, args.previous, args.workers, out)


def _explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.explain import explain

    return explain(args.req_id, out)


def _smoke(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.smoke import smoke

    return smoke(args.impl, out, args.timeout)


def _record(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.doubles.realcli.record import record_command

    return record_command(args.backend, args.script, args.out, args.prompt, args.timeout, out)


def _install(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.doubles.realcli.report import install_clis

    return install_clis(args.dir, out)


def _docs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.docs_site import build

    started = time.monotonic()
    site = build(args.out)
    size = sum(len(page.encode("utf-8")) for page in site.values())
    print(f"{len(site)} pages, {size / 1024:.0f} KB, in {args.out} "
          f"({time.monotonic() - started:.1f} s)", file=out)
    return 0


def _gherkin(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.kit.gherkin import convert_file, read_manifest

    pairs = read_manifest(args.manifest) if args.manifest else []
    if len(args.sources) != len(args.id_prefix):
        raise UsageError(
            f"give one --id-prefix per SRC: {len(args.sources)} SRC, "
            f"{len(args.id_prefix)} --id-prefix"
        )
    pairs += list(zip(args.sources, args.id_prefix, strict=True))
    if not pairs:
        raise UsageError("nothing to convert: give SRC... with --id-prefix, or --manifest")
    for src, prefix in pairs:
        print(convert_file(src, args.out, prefix), file=out)
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, TextIO, TextIO], int]] = {
    "run": _run, "report": _report, "merge": _merge, "diff": _diff, "matrix": _matrix,
    "explain": _explain,
    "smoke": _smoke,
    "record": _record, "install-clis": _install, "gherkin": _gherkin, "docs": _docs,
}


if __name__ == "__main__":
    raise SystemExit(main())
