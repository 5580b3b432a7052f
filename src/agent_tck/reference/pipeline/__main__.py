"""`python -m agent_tck.reference.pipeline validate FILE...`: the validator without the
agent-tck CLI."""

from __future__ import annotations

import sys

from agent_tck.reference.pipeline.cli import main


def run(argv: list[str]) -> int:
    if not argv or argv[0] != "validate":
        sys.stderr.write("usage: python -m agent_tck.reference.pipeline validate FILE... "
                         "[--contract NAME] [--format text|json]\n")
        return 2
    return main(argv[1:], sys.stdout, sys.stderr)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
