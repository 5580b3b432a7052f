"""`agent-tck validate FILE... [--contract NAME] [--format text|json]`: check pipeline YAML.

Streams are arguments (python-jsonschema's style), so the command is tested without
subprocesses. Exit codes: 0 every file valid, 1 some file invalid, 2 usage error (bad option,
unknown contract, unreadable file). In text format each error is one line
`file:line:column: json/path: message`, the format editors and pre-commit understand.
"""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path
from typing import NoReturn, TextIO

from agent_tck.reference.exceptions import ContractError
from agent_tck.reference.pipeline.loader import DEFAULT_LIMITS
from agent_tck.reference.pipeline.schemas import CONTRACTS
from agent_tck.reference.pipeline.validate import Issue, Report, validate_text

PROG = "agent-tck validate"
LIMITS = DEFAULT_LIMITS


class _Usage(Exception):
    """A usage error: message for stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Usage(f"{self.format_usage()}{self.prog}: error: {message}")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Validate rspec pipeline YAML contracts (seed 002).",
                epilog="exit status: 0 valid, 1 invalid, 2 usage error", add_help=False)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML documents to validate")
    p.add_argument("--contract", choices=CONTRACTS, metavar="NAME",
                   help=f"the contract to check against ({', '.join(CONTRACTS)}); inferred"
                        " from each file when not given")
    p.add_argument("--format", choices=("text", "json"), default="text")
    return p


def main(argv: list[str], stdout: TextIO, stderr: TextIO) -> int:
    """Run the command; return the exit code."""
    if "-h" in argv or "--help" in argv:
        stdout.write(parser().format_help())
        return 0
    try:
        args = parser().parse_args(argv)
        reports = [_validate(Path(f), args.contract) for f in args.files]
    except (_Usage, ContractError) as exc:
        stderr.write(f"{exc}\n")
        return 2
    _print(reports, args.format, stdout)
    return 0 if all(r.valid for r in reports) else 1


def _validate(path: Path, contract: str | None) -> Report:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block, /dev/zero never end
            return _refused(path, contract, "not a regular file (a FIFO, device or directory):"
                                            " not read")
        with path.open("rb") as file:  # at most the limit, even if the file grows meanwhile
            data = file.read(LIMITS.max_bytes + 1)
        size = max(info.st_size, len(data))
        if size > LIMITS.max_bytes:
            return _refused(path, contract, f"file is {size} bytes, over the limit of "
                                            f"{LIMITS.max_bytes}")
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Report(str(path), contract, [Issue(str(path), 1, 1, "$",
                                                  f"file is not UTF-8 ({exc.reason} at byte"
                                                  f" {exc.start})")])
    except OSError as exc:
        raise _Usage(f"{PROG}: cannot read {path}: {exc.strerror}") from None
    return validate_text(text, str(path), contract, LIMITS)


def _refused(path: Path, contract: str | None, why: str) -> Report:
    return Report(str(path), contract, [Issue(str(path), 1, 1, "$", why)])


def _print(reports: list[Report], fmt: str, stdout: TextIO) -> None:
    if fmt == "json":
        body = {"valid": all(r.valid for r in reports), "files": [r.to_dict() for r in reports]}
        stdout.write(json.dumps(body, indent=2) + "\n")
        return
    for report in reports:
        for issue in report.issues:
            stdout.write(f"{issue}\n")
