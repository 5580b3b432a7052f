"""`agent-tck`: run the conformance suite, convert spec documents, and the reference's tools.

`serve` and `ask` (and `validate`) are the reference implementation's own commands: this entry
point only forwards their argv to `reference.<...>.cli.main`, looked up by name.

Every command takes its streams as arguments (`main(argv, stdout, stderr)`), so it is tested
without subprocesses. Exit codes: 0 success / conformant, 1 not conformant / invalid, 2 usage
or setup error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from steps.exceptions import TckError, UsageError

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent-tck", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, what in (
        ("serve", "serve a reference agent over DDS (docs/dds.md)"),
        ("ask", "send one request to agents served over DDS"),
    ):
        sub.add_parser(name, help=what, add_help=False)
    from steps import run_command

    run_command.add_arguments(sub.add_parser("run", help="run the conformance suite"))
    smoke = sub.add_parser("smoke", help="check that an adapter starts and stops cleanly")
    smoke.add_argument("--impl", required=True, help="the adapter command line")
    smoke.add_argument("--timeout", type=run_command.duration, default=30.0,
                       help="seconds to wait for start")
    install = sub.add_parser(
        "install-clis", help="install the pinned real claude and codex CLIs (clis/package.json)"
    )
    install.add_argument("--dir", type=Path, help="where to install (default: clis/)")
    rec = sub.add_parser(
        "record", help="run a real CLI against a scripted model and save its raw stdout"
    )
    rec.add_argument("--backend", required=True, choices=["claude", "codex"])
    rec.add_argument("--script", type=Path, required=True, help="the model script (JSON)")
    rec.add_argument("--out", type=Path, required=True, help="the transcript to write (.jsonl)")
    rec.add_argument("--prompt", default="Hello", help="the prompt, sent on stdin")
    rec.add_argument(
        "--timeout", type=run_command.duration, default=120.0,
        help="seconds before the CLI is killed"
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
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            from steps import run_command

            return run_command.run(args, out, err)
        if args.command == "smoke":
            from steps.smoke import smoke

            return smoke(args.impl, out, args.timeout)
        if args.command == "record":
            from steps.realcli.record import record_command

            return record_command(
                args.backend, args.script, args.out, args.prompt, args.timeout, out
            )
        if args.command == "install-clis":
            from steps.realcli.report import install_clis

            return install_clis(args.dir, out)
        return _gherkin(args, out)
    except TckError as exc:
        print(f"agent-tck: error: {exc}", file=err)
        return USAGE_ERROR


def _gherkin(args: argparse.Namespace, out: TextIO) -> int:
    from steps.gherkin import convert_file, read_manifest

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


if __name__ == "__main__":
    raise SystemExit(main())
