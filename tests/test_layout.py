"""The layout's walls, kept by import-linter: the contracts of `[tool.importlinter]` in
pyproject.toml (CONTRIBUTING.md, "The map").

steps -> doubles -> kit, never back; within the doubles, the harness -> the real-CLI tools ->
the model servers -> the backends, each backend apart from the others; the reference imports
nothing of the kit, and the kit reaches the reference only where it runs it; the product
imports nothing of the workshop (`tests`, `mutation`, `benchmarks`). Each edge across a wall
is an `ignore_imports` entry with its reason; an entry that no longer matches an import fails
the check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kit", "doubles", "steps", "reference")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on the project's contracts, `root` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", str(ROOT / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def test_the_import_contracts_are_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " kept, 0 broken." in done.stdout, done.stdout


def copy_of_the_code(tmp_path: Path) -> Path:
    """The project's Python code in `tmp_path`, links followed, to be broken there."""
    package = tmp_path / "agent_tck"
    package.mkdir()
    shutil.copy(ROOT / "src" / "agent_tck" / "__init__.py", package)
    for name in PACKAGES:
        shutil.copytree(ROOT / name, package / name,
                        ignore=lambda _, names: [n for n in names if n == "__pycache__"
                                                 or n.endswith((".feature", ".json"))])
    for workshop in ("tests", "mutation", "benchmarks"):
        (tmp_path / workshop).mkdir()
        (tmp_path / workshop / "__init__.py").write_text("")
    return tmp_path


def test_a_wrong_way_import_is_named(tmp_path: Path) -> None:
    root = copy_of_the_code(tmp_path)
    with (root / "agent_tck" / "kit" / "verdicts.py").open("a") as verdicts:
        verdicts.write("\nfrom agent_tck.steps.world import AgentWorld  # noqa\n")
    with (root / "agent_tck" / "reference" / "agent.py").open("a") as agent:
        agent.write("\nimport agent_tck.kit.errors  # noqa\nimport tests  # noqa\n")
    done = lint_imports(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert " kept, 3 broken." in done.stdout, done.stdout
    for edge in ("agent_tck.kit.verdicts -> agent_tck.steps.world",
                 "agent_tck.reference.agent -> agent_tck.kit.errors",
                 "agent_tck.reference.agent -> tests"):
        assert edge in done.stdout, f"{edge!r} not named:\n{done.stdout}"
