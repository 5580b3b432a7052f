"""The layout's walls, kept by import-linter: the contracts of `[tool.importlinter]` in
pyproject.toml (CONTRIBUTING.md, "The map").

steps -> doubles -> kit, never back; within the doubles, the harness -> the real-CLI tools ->
the model servers -> the backends, each backend apart from the others; the reference imports
nothing of the kit, and the kit reaches the reference only where it runs it; the DDS wire
contract, which both speak, imports neither; the product
imports nothing of the workshop (`tests`, `mutation`, `benchmarks`). Each edge across a wall
is an `ignore_imports` entry with its reason; an entry that no longer matches an import fails
the check. And `steps/` holds step modules and their worlds only.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kit", "doubles", "steps", "reference")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
# One import across each wall, into a copy of the code: every contract must name its own.
WRONG_WAY = {
    "kit/verdicts.py": "from agent_tck.steps.world import World",  # layers
    "reference/agent.py": "import agent_tck.kit.errors\nimport tests",  # reference, workshop
    "steps/world.py": "from agent_tck.reference import agent",  # judge
    "doubles/backends/base.py": "from agent_tck.doubles.harness import fake",  # doubles
    "doubles/backends/claude/lines.py": "from agent_tck.doubles.backends.codex import lines",
    "wire.py": "from agent_tck.kit import errors",  # wire
}


def lint_imports(root: Path, config: Path = ROOT / "pyproject.toml",
                 ) -> subprocess.CompletedProcess[str]:
    """import-linter on the contracts of `config`, `root` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", str(config)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_every_import_contract_is_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(CONTRACTS['contracts'])} kept, 0 broken." in done.stdout, \
        done.stdout


def copy_of_the_code(tmp_path: Path) -> Path:
    """The project's Python code in `tmp_path`, links followed, to be broken there."""
    package = tmp_path / "agent_tck"
    package.mkdir()
    for module in ("__init__.py", "wire.py"):
        shutil.copy(ROOT / "src" / "agent_tck" / module, package)
    for name in PACKAGES:
        shutil.copytree(ROOT / name, package / name,
                        ignore=lambda _, names: [n for n in names if n == "__pycache__"
                                                 or n.endswith((".feature", ".json"))])
    for workshop in ("tests", "mutation", "benchmarks"):
        (tmp_path / workshop).mkdir()
        (tmp_path / workshop / "__init__.py").write_text("")
    return tmp_path


def test_each_contract_names_an_import_across_its_wall(tmp_path: Path) -> None:
    root = copy_of_the_code(tmp_path)
    for where, imports in WRONG_WAY.items():
        with (root / "agent_tck" / where).open("a") as module:
            module.write(f"\n{imports}  # noqa\n")
    done = lint_imports(root)
    said = " ".join(done.stdout.split())  # it wraps long lines
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"Contracts: 0 kept, {len(CONTRACTS['contracts'])} broken." in said, said
    for edge in ("agent_tck.kit.verdicts -> agent_tck.steps.world",
                 "agent_tck.reference.agent -> agent_tck.kit.errors",
                 "agent_tck.reference.agent -> tests",
                 "agent_tck.steps.world -> agent_tck.reference.agent",
                 "agent_tck.doubles.backends.base -> agent_tck.doubles.harness.fake",
                 "agent_tck.doubles.backends.claude.lines -> "
                 "agent_tck.doubles.backends.codex.lines",
                 "agent_tck.wire -> agent_tck.kit.errors"):
        assert edge in said, f"{edge!r} not named:\n{done.stdout}"


def test_an_edge_listed_across_a_wall_that_no_import_takes_fails(tmp_path: Path) -> None:
    text = (ROOT / "pyproject.toml").read_text()
    listed = '"agent_tck.kit.smoke -> agent_tck.doubles.harness.*",'
    assert listed in text
    config = tmp_path / "pyproject.toml"
    config.write_text(text.replace(listed, listed + '\n    "agent_tck.kit.html_report -> '
                                                    'agent_tck.doubles.harness.rig",'))
    done = lint_imports(ROOT, config)
    assert done.returncode != 0, done.stdout + done.stderr
    said = " ".join((done.stdout + done.stderr).split())  # it wraps long lines
    assert "No matches for ignored import agent_tck.kit.html_report -> " \
        "agent_tck.doubles.harness.rig" in said, said


def test_steps_holds_step_modules_and_their_worlds_only() -> None:
    """`steps/` is pytest-bdd step modules (`*_steps.py`), their world objects (`*world.py`)
    and the suite modules that bind the features (`steps/suite/`); nothing else."""
    others = [p.relative_to(ROOT).as_posix() for p in (ROOT / "steps").rglob("*.py")
              if p.parent.name != "suite" and p.name != "__init__.py"
              and not p.stem.endswith(("_steps", "world"))]
    assert others == []


def test_every_world_has_the_same_shape() -> None:
    """Each class in steps/ is a component's world: `World` (the implementation under test,
    the scenario's folder, the time scale) or a subclass of it, named for what it holds."""
    from agent_tck.steps import world

    found = {}
    for path in sorted((ROOT / "steps").glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                found[f"{path.name}:{node.name}"] = bases
    odd = {name: bases for name, bases in found.items()
           if not name.endswith("World") or (bases != ["World"] and not name.endswith(":World"))}
    assert odd == {}
    assert [f.name for f in world.World.__dataclass_fields__.values()] == [
        "driver", "root", "time_scale"]
    # and each keeps the world's short repr, not a dataclass's of every field (`World`)
    modules = {path.stem: importlib.import_module(f"agent_tck.steps.{path.stem}")
               for path in sorted((ROOT / "steps").glob("*.py")) if path.stem != "__init__"}
    long = [name for name in found if getattr(modules[name.split(".")[0]], name.split(":")[1])
            .__repr__ is not world.World.__repr__]
    assert long == []
