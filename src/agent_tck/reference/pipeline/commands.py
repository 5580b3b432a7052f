"""The adapter-protocol commands of the `pipeline` component: JSON in, JSON out.

`contract.validate` validates YAML text; `pipeline.run` runs scripted agents (described as
data, see `reference.pipeline.scripted`) and reports, beside the result, when each agent
started and ended, so the suite can check order and fail-fast from the outside.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tck.reference import pipeline
from agent_tck.reference.exceptions import PipelineError

Request = dict[str, Any]
Answer = dict[str, Any]


def contract_validate(request: Request) -> Answer:
    """`{"valid", "contract", "errors": [{line, column, path, message}]}`."""
    report = pipeline.validate_text(str(request["document"]), "<document>",
                                    request.get("contract"))
    errors = [{k: v for k, v in i.to_dict().items() if k != "file"} for i in report.issues]
    return {"valid": report.valid, "contract": report.contract, "errors": errors}


def pipeline_run(request: Request) -> Answer:
    """The run's outcome and the agents' starts and ends, `[["start", name], ...]`."""
    calls: list[list[str]] = []
    base = Path(str(request["base_dir"]))
    try:
        agents = {a["name"]: _watched(a["name"], pipeline.scripted_agent(a, base), calls)
                  for a in request["agents"]}
        result = pipeline.run_pipeline(base, str(request["source_file"]), agents,
                                       request.get("start_at"))
    except PipelineError as exc:
        return {"outcome": "refused", "failed_agent": None, "message": str(exc),
                "reason": None, "calls": calls}
    return {**result.to_dict(), "calls": calls}


def _watched(name: str, agent: pipeline.Agent, calls: list[list[str]]) -> pipeline.Agent:
    """`agent`, recording when it starts and ends."""

    def run(context: pipeline.Context) -> pipeline.Reply:
        calls.append(["start", name])
        try:
            return agent(context)
        finally:
            calls.append(["end", name])

    return run


COMMANDS: dict[str, Callable[[Request], Answer]] = {
    "contract.validate": contract_validate,
    "pipeline.run": pipeline_run,
}
