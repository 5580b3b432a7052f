"""Errors of the reference, one per stage.

- configuring an agent (bad backend, timeout, working directory): `ConfigError`
- starting the CLI (missing, not executable): `LaunchError`, turned into a response with
  status LAUNCH_FAILED by the agent, never raised to a caller of `CodingAgent.process`
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
