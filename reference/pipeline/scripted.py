"""Agents described as data: a scripted YAML response and what the agent writes.

Used to dry-run a pipeline and by the suite's drivers. A description is a mapping:

- `name`: the agent (`code-analyzer`, ...); `response`: its final message, YAML text;
- `writes`: what it adds to the metadata file; `version`: its `{agent}_version` marker;
- `removes`: paths (relative to the base directory) it deletes while it runs;
- `crash_mid_write`: its metadata cannot be serialized past the first keys, which is how a
  crash in the middle of writing the metadata file is simulated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_tck.reference.pipeline.orchestrator import Agent, Context, Reply


class Unwritable:
    """A value no YAML serializer can write: placed last, it fails a write halfway."""


def scripted_agent(spec: Mapping[str, Any], base_dir: Path) -> Agent:
    """The agent `spec` describes; `base_dir` roots its `removes`."""
    writes = dict(spec.get("writes") or {})
    if spec.get("crash_mid_write"):
        writes["~crash"] = Unwritable()

    def agent(context: Context) -> Reply:
        for relative in spec.get("removes") or ():
            (base_dir / relative).unlink(missing_ok=True)
        return Reply(str(spec["response"]), writes, str(spec.get("version", "1.0")))

    return agent
