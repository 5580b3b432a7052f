"""Mutation testing of `reference/` against the conformance run, and of the kit's judging code
against the project's tests: docs/mutation.md."""

from pathlib import Path

FIRST = "AGENT_TCK_MUTATION_FIRST"  # what a judge runs first (a JSON list of node ids)
PACKAGE = ("src", "agent_tck")  # where the code lives; the repository's top-level links reach it


def listed(path: Path, root: Path) -> Path:
    """`path` (a file under `root`, by any way there) as the lists name files: from `root`,
    through its top-level links into the package (`reference/agent.py`, not
    `src/agent_tck/reference/agent.py`)."""
    whole = path.resolve().relative_to(root.resolve())
    parts = whole.parts
    if parts[:2] == PACKAGE and len(parts) > 3 and (root / parts[2]).is_symlink():
        return Path(*parts[2:])
    return whole
