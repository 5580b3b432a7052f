"""Component `pipeline` (seed 002): the YAML contracts of an RSpec test-writing pipeline, the
validator that checks them, and the orchestrator that runs its agents.

- `validate_text`: a YAML document -> a `Report` of `Issue`s (`file:line:column: path: msg`)
- `run_pipeline`: agents (callables) -> a `PipelineResult`; `scripted_agent` builds agents
  from data
- `slug_for`: the seed's slug convention
"""

from __future__ import annotations

from agent_tck.reference.pipeline.orchestrator import (
    Agent,
    Context,
    PipelineResult,
    Reply,
    marker,
    run_pipeline,
)
from agent_tck.reference.pipeline.schemas import AGENTS, CONTRACTS
from agent_tck.reference.pipeline.scripted import scripted_agent
from agent_tck.reference.pipeline.slug import slug_for
from agent_tck.reference.pipeline.validate import Issue, Report, validate_text

__all__ = ["AGENTS", "CONTRACTS", "Agent", "Context", "Issue", "PipelineResult", "Reply", "Report",
           "marker", "run_pipeline", "scripted_agent", "slug_for", "validate_text"]
