"""Errors of the reference, one per stage.

- configuring an agent (bad backend, timeout, working directory) or a loop (iterations,
  timeout): `ConfigError`
- starting the CLI (missing, not executable): `LaunchError`, turned into a response with
  status LAUNCH_FAILED by the agent, never raised to a caller of `CodingAgent.process`
- reading an OpenAI Responses API object (`reference.responses`): `ResponsesError`, with the
  JSON path of the value that makes the payload unreadable
- running the agent loop (`reference.runner.loop`): `LoopError` when a runner fails,
  `BlockedError` (a `LoopError`) when the agent signals BLOCKED, naming its reason
- reading a pipeline YAML document (`reference.pipeline.loader`): `DocumentError`, with
  file:line:column and JSON path; naming a contract that does not exist: `ContractError`
- placing a metadata file (`reference.pipeline.store`): `PathError` for a source path that
  would leave the metadata directory. A pipeline that stops (failed prerequisite,
  `status: error`, discovery `stop`) is an outcome of `run_pipeline`, not an exception.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the reference raises."""


class ConfigError(AgentError, ValueError):
    """An agent was configured with a value it cannot use; the message names the value."""


class LaunchError(AgentError):
    """The CLI could not be started."""


class ResponsesError(AgentError, ValueError):
    """A payload is not a readable Responses API object; `path` says where (`$`, `$.object`)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


class LoopError(AgentError):
    """The agent loop stopped because a run failed."""


class BlockedError(LoopError):
    """The agent signalled `<promise>BLOCKED: reason</promise>`; `reason` is the trimmed text."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"agent blocked: {reason or '(no reason given)'}")
        self.reason = reason
# --- pipeline (seed 002) ------------------------------------------------------------------


class PipelineError(AgentError):
    """Base of the errors of the pipeline component (`reference.pipeline`)."""


class DocumentError(PipelineError, ValueError):
    """A YAML document the safe loader refuses: syntax, a tag that is not plain data, an
    alias bomb, a size limit, a conflicting duplicate key. Knows where: file, line, column
    (1-based) and the JSON path of the node being read."""

    def __init__(self, source: str, line: int, column: int, path: str, message: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {path}: {message}")
        self.source, self.line, self.column = source, line, column
        self.path, self.message = path, message


class ContractError(PipelineError, ValueError):
    """An unknown contract name; the message lists the known ones."""


class PathError(PipelineError, ValueError):
    """A source path the orchestrator refuses (absolute, or with a `..` component): its
    metadata file would not stay under the metadata directory."""
