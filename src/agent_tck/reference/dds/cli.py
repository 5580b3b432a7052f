"""Command lines of the DDS transport: `serve` (an agent as a DDS service) and `ask`.

Each takes its streams as arguments (`main(argv, stdout, stderr) -> exit code`), so it is
tested without subprocesses; `agent-tck serve|ask` and `python -m agent_tck.reference.dds` call it.
Exit codes: 0 success; 1 the agent answered with a non-zero status; 2 usage or
configuration error; 3 no agent answered in time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from agent_tck.reference.agent import CREDENTIALS, DEFAULT_GRACE, DEFAULT_TIMEOUT, AgentConfig
from agent_tck.reference.backends import BACKENDS
from agent_tck.reference.dds.bypass import PARSERS, find_bypass
from agent_tck.reference.dds.config import loopback_only, security_problem
from agent_tck.reference.exceptions import ConfigError
from agent_tck.reference.limits import seconds

OK, FAILED, USAGE, NO_REPLY = 0, 1, 2, 3
DEFAULT_DOMAIN = 0
DEFAULT_ASK_TIMEOUT = 600.0


class _Parser(argparse.ArgumentParser):
    """Reports usage errors as an exception, so `main` returns 2 instead of exiting."""

    def error(self, message: str) -> Any:
        raise ConfigError(f"{self.prog}: {message}")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", type=int, default=DEFAULT_DOMAIN,
                        help="DDS domain id (default %(default)s)")
    parser.add_argument("--dds-config", metavar="FILE",
                        help="Cyclone DDS configuration; default: the shipped loopback-only one")
    parser.add_argument("--timeout", type=float, help="seconds (see each command)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent-tck", description="The reference agent over DDS.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    serve = commands.add_parser("serve", help="run a reference agent as a DDS service")
    serve.add_argument("--backend", required=True, choices=sorted(BACKENDS))
    serve.add_argument("--name", help="the agent's name (default BACKEND-HOST-PID)")
    serve.add_argument("--working-dir", metavar="DIR", help="the CLI's working directory")
    serve.add_argument("--grace-period", type=float, default=DEFAULT_GRACE,
                       help="seconds between SIGTERM and SIGKILL (default %(default)s)")
    serve.add_argument("--command", dest="cli", help="the CLI to run (default: the backend's name)")
    serve.add_argument("--model", help="the model flag passed to the CLI")
    serve.add_argument("--credentials", choices=CREDENTIALS,
                       help="the CLI's own login (its API-key variables withheld), an API key "
                            "(one must be set), or probe: the login if a short run on it "
                            "works, else a key, else DEGRADED; default: the environment as it is")
    serve.add_argument("--strip-env", action="append", default=[], metavar="NAME",
                       help="remove this variable from the CLI's environment (repeatable)")
    serve.add_argument("--cli-arg", action="append", default=[], metavar="ARG",
                       help="pass ARG to the CLI (repeatable; write --cli-arg=--option)")
    serve.add_argument("--allow-bypass-on-network", action="store_true",
                       help="serve a CLI that acts without asking (e.g. "
                            "--dangerously-skip-permissions) on a DDS configuration that is "
                            "not loopback-only: anyone who can publish on the domain can then "
                            "run any command here")
    serve.add_argument("-v", "--verbose", action="store_true", help="log state changes")
    _common(serve)
    ask = commands.add_parser("ask", help="send one request to the agents on a domain")
    ask.add_argument("message")
    ask.add_argument("--conversation", default="", metavar="ID",
                     help="continue conversation ID (its harness session is resumed)")
    ask.add_argument("--agent", default="", metavar="NAME",
                     help="only the agent with this name (or guid) may answer")
    ask.add_argument("--json", action="store_true", help="print the whole response as JSON")
    _common(ask)
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        with contextlib.redirect_stdout(out):  # --help goes to the caller's stream
            args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except ConfigError as exc:
        print(f"error: {exc}", file=err)
        return USAGE
    try:
        if args.command == "serve":
            return _serve(args, err)
        return _ask(args, out, err)
    except ConfigError as exc:
        print(f"error: {exc}", file=err)
        return USAGE


def _serve(args: argparse.Namespace, err: TextIO) -> int:
    from agent_tck.reference.dds.service import (
        AgentService,
        StopFlag,
        _launch_problem,
        default_name,
    )

    config = AgentConfig(backend=args.backend, working_dir=args.working_dir,
                         timeout=DEFAULT_TIMEOUT if args.timeout is None else args.timeout,
                         grace_period=args.grace_period, command=args.cli,
                         model=args.model, strip_env=tuple(args.strip_env),
                         credentials=args.credentials,
                         extra_args=tuple(args.cli_arg))
    _check_exposure(config, args.dds_config, args.domain, args.allow_bypass_on_network)
    if args.verbose:
        logging.basicConfig(stream=err, level=logging.INFO, format="%(message)s")
    stop = StopFlag()
    _on_signals(stop)  # before joining the domain: a signal during start-up still stops it
    name = args.name or default_name(args.backend)
    service = AgentService(config, name=name, domain=args.domain, dds_config=args.dds_config)
    problem = _launch_problem(service.agent, config)
    state = "DEGRADED: " + problem if problem else service.agent.state.name
    print(f"{name}: serving {args.backend} requests on DDS domain {args.domain} ({state}); "
          "SIGINT or SIGTERM stops it", file=err, flush=True)
    service.run(stop)
    return OK


def _check_exposure(config: AgentConfig, dds_config: str | None, domain: int,
                    allowed: bool) -> None:
    """Refuse what would expose this machine: a CLI that acts without asking, served beyond
    loopback on `domain` without `--allow-bypass-on-network`; DDS Security this build cannot
    provide."""
    problem = security_problem(dds_config)
    if problem:
        raise ConfigError(problem)
    bypass = find_bypass(config.extra_args, PARSERS[config.backend],
                         Path(config.working_dir or "."))
    if bypass and not allowed and not loopback_only(dds_config, domain):
        raise ConfigError(
            f"refusing to serve {config.backend} with {bypass!r} on DDS configuration "
            f"{dds_config!r} for domain {domain}, which is not loopback-only: anyone who can "
            "publish on the domain could run any command in the working directory without "
            "being asked; pass --allow-bypass-on-network if that is what you want")


def _on_signals(stop: Any) -> None:
    """SIGINT and SIGTERM stop the service (only possible from the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, _frame: Any) -> None:
        stop.stop(f"received {signal.Signals(signum).name}")

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)


def _ask(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_tck.reference.dds.client import Client
    from agent_tck.reference.dds.exceptions import NoReplyError

    timeout = seconds("--timeout", DEFAULT_ASK_TIMEOUT if args.timeout is None else args.timeout)
    client = Client(args.domain, args.dds_config)
    try:
        reply = client.ask(args.message, conversation_id=args.conversation, agent=args.agent,
                           timeout=timeout)
    except NoReplyError as exc:
        print(f"error: {exc}", file=err)
        return NO_REPLY
    finally:
        client.close()
    if args.json:
        print(json.dumps(reply.to_dict(), indent=2, ensure_ascii=False), file=out)
    elif reply.status == 0:
        print(reply.message, file=out)
    else:  # the error begins with the message: said once, where errors go
        print(f"error: status {reply.status}: {reply.response.get('error') or reply.message}",
              file=err)
    return OK if reply.status == 0 else FAILED
