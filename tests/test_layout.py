"""The layout's one rule, kept by a test: imports flow one way.

steps -> kit and doubles; doubles -> kit; kit -> nothing above it; reference -> nothing of
the kit. The kit's three edges are listed with the reason each one exists (CONTRIBUTING.md,
"The map"); any other import across the layers fails here, naming the file and the import.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("reference", "kit", "doubles", "steps")
ALLOWED = {
    "reference": {"reference"},
    "kit": {"kit"},
    "doubles": {"doubles", "kit"},
    "steps": {"steps", "kit", "doubles"},
}
# The kit's edges out of its layer: where it runs an implementation or a double for the user.
EDGES = {
    "kit/cli.py": {"reference", "doubles"},  # `serve`/`validate` forward; `record`, `install-clis`
    "kit/smoke.py": {"doubles"},  # plays the fake harness to the adapter
    "kit/drivers/inprocess.py": {"reference"},  # the in-process driver loads the reference
}


def imported_layers(path: Path) -> set[tuple[str, str]]:
    """(layer, module) of every `agent_tck.<layer>...` module that `path` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "agent_tck" and len(parts) > 1 and parts[1] in LAYERS:
                found.add((parts[1], name))
            elif parts[0] in LAYERS or parts[0] == "tests":  # a bare top-level import
                found.add((parts[0], name))
    return found


def violations(root: Path) -> list[str]:
    bad = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            allowed = ALLOWED[layer] | EDGES.get(rel, set())
            bad += [f"{rel} imports {module} ({layer} may import only {sorted(allowed)})"
                    for target, module in sorted(imported_layers(path)) if target not in allowed]
    return bad


def test_imports_flow_one_way() -> None:
    assert violations(ROOT) == []


def test_each_edge_of_the_kit_is_still_needed() -> None:
    """An edge nobody uses any more is removed from the list, not kept as a loophole."""
    for rel, targets in EDGES.items():
        used = {layer for layer, _ in imported_layers(ROOT / rel)}
        assert targets <= used, f"{rel} no longer imports {sorted(targets - used)}: drop the edge"


def test_a_wrong_way_import_is_named(tmp_path: Path) -> None:
    (tmp_path / "kit").mkdir()
    (tmp_path / "reference").mkdir()
    (tmp_path / "kit" / "verdicts.py").write_text("from agent_tck.steps.world import AgentWorld\n")
    (tmp_path / "reference" / "agent.py").write_text("import agent_tck.kit.errors\nimport tests\n")
    assert violations(tmp_path) == [
        "reference/agent.py imports agent_tck.kit.errors (reference may import only "
        "['reference'])",
        "reference/agent.py imports tests (reference may import only ['reference'])",
        "kit/verdicts.py imports agent_tck.steps.world (kit may import only ['kit'])",
    ]


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
