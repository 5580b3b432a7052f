"""Agents described as data: a scripted YAML response and what the agent writes.

Used to dry-run a pipeline and by the suite's drivers. A description is a mapping:

- `name`: the agent (`code-analyzer`, ...); `response`: its final message, YAML text;
- `writes`: what it adds to the metadata file; `version`: its `{agent}_version` marker;
- `removes`: paths (relative to the base directory) it deletes while it runs;
- `crash_mid_write`: its metadata cannot be serialized past the first keys, which is how a
  crash in the middle of writing the metadata file is simulated;
- `crashes`: it fails before it answers (raises, with this message), as an agent's own bug
  would.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_tck.reference.exceptions import ContractError
from agent_tck.reference.pipeline.orchestrator import Agent, Context, Reply


class Unwritable:
    """A value no YAML serializer can write: placed last, it fails a write halfway."""


def scripted_agent(spec: Mapping[str, Any], base_dir: Path) -> Agent:
    """The agent `spec` describes; `base_dir` roots its `removes`, which must stay inside it
    (an absolute path, `..` or a symlink out of it is a ContractError, checked up front)."""
    writes = dict(spec.get("writes") or {})
    if spec.get("crash_mid_write"):
        writes["~crash"] = Unwritable()
    removes = [_inside(base_dir, relative) for relative in spec.get("removes") or ()]

    def agent(context: Context) -> Reply:
        for path in removes:
            path.unlink(missing_ok=True)
        if spec.get("crashes"):
            raise RuntimeError(str(spec["crashes"]))
        return Reply(str(spec["response"]), writes, str(spec.get("version", "1.0")))

    return agent


def _inside(base_dir: Path, relative: object) -> Path:
    if not isinstance(relative, str) or not relative or Path(relative).is_absolute():
        raise ContractError(f"removes: {relative!r} must be a path relative to the base directory")
    path = base_dir / relative
    root = base_dir.resolve()
    if not path.parent.resolve().is_relative_to(root) or path.resolve() == root:
        raise ContractError(f"removes: {relative!r} leads outside the base directory {base_dir}")
    return path
