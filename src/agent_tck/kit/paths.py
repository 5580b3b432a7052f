"""Where the spec lives: the feature files, the requirement registries, the schemas, the
fixtures and the documents the spec cites (`docs/decisions.md`), read as package data of
`agent_tck` (the same in a checkout and in a wheel); and the pytest configuration of a
conformance run (`RUN_INI`).

`PACKAGE` is the installed `agent_tck` folder; in a checkout it is `src/agent_tck`, whose
data folders link to the repository's top-level ones. `CHECKOUT` is the repository root when
agent-tck runs from one (the project's own tests and benchmarks), else None.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PACKAGE = Path(str(resources.files("agent_tck")))
FEATURES = PACKAGE / "features"
SCHEMAS = PACKAGE / "schemas"
FIXTURES = PACKAGE / "fixtures"
DOCS = PACKAGE / "docs"  # in a wheel: only the documents the spec's site renders
SUITE = PACKAGE / "steps" / "suite"
RUN_INI = PACKAGE / "kit" / "run.ini"  # `agent-tck run`'s own, never the user's (kit/run.py)
_ABOVE = PACKAGE.resolve().parent.parent
CHECKOUT: Path | None = _ABOVE if (_ABOVE / "pyproject.toml").is_file() else None
# The repository root for tools that only run from a checkout (benchmarks, the flake hunt).
ROOT = CHECKOUT or PACKAGE
