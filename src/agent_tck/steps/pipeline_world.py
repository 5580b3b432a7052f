"""Per-scenario state of the pipeline steps: the document under validation, the scripted
agents and the sandbox the pipeline runs in; and the judge's comparisons.

The world arranges; the driver acts; steps assert. Agents are described as data (a YAML
response, what they write): every agent answers `status: success` unless a step says otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent_tck.kit.paths import SCHEMAS
from agent_tck.steps.world import World

# The seed's Agent Sequence (seed 002, Pipeline Protocol).
AGENTS = ("discovery-agent", "code-analyzer", "isolation-decider", "test-architect",
          "factory-agent", "test-implementer", "test-reviewer")
EXAMPLES = SCHEMAS / "contracts" / "examples"
EXPECTED_ERROR = re.compile(r"^(\d+):(\d+): (\$\S*): (.*)$")


def _default_agents() -> dict[str, dict[str, Any]]:
    return {name: {"name": name, "response": "status: success\n"} for name in AGENTS}


@dataclass(repr=False)
class PipelineWorld(World):
    """`root` is the project the pipeline runs in."""
    document: str | None = None
    contract: str | None = None
    verdict: dict[str, Any] | None = None
    agents: dict[str, dict[str, Any]] = field(default_factory=_default_agents)
    order: list[str] = field(default_factory=lambda: list(AGENTS))
    run: dict[str, Any] | None = None
    held: dict[str, str] = field(default_factory=dict)  # path -> what a step wrote there

    def example(self, name: str) -> str:
        self.contract = name.split(".")[0]
        return (EXAMPLES / name).read_text(encoding="utf-8")

    def validate(self, contract: str | None) -> dict[str, Any]:
        assert self.document is not None, "no document was given"
        self.verdict = self.driver.contract_validate(self.document, contract)
        return self.verdict

    def run_pipeline(self, source: str, start_at: str | None = None) -> dict[str, Any]:
        agents = [self.agents[name] for name in self.order]
        self.run = self.driver.pipeline_run(str(self.root), source, agents, start_at)
        return self.run

    @property
    def errors(self) -> list[dict[str, Any]]:
        assert self.verdict is not None, "nothing was validated"
        return list(self.verdict["errors"])

    @property
    def outcome(self) -> dict[str, Any]:
        assert self.run is not None, "the pipeline did not run"
        return self.run


def parse_expected(text: str) -> list[tuple[int, int, str, str]]:
    """`line:column: json/path: words` lines -> tuples."""
    found = []
    for line in text.strip().splitlines():
        match = EXPECTED_ERROR.match(line.strip())
        assert match, f"not an expected error (line:column: path: words): {line!r}"
        found.append((int(match[1]), int(match[2]), match[3], match[4]))
    return found


def error_matches(actual: dict[str, Any], expected: tuple[int, int, str, str]) -> bool:
    line, column, path, words = expected
    return (actual["line"], actual["column"], actual["path"]) == (line, column, path) \
        and words in actual["message"]


def shown(errors: list[dict[str, Any]]) -> str:
    return "\n".join(f"  {e['line']}:{e['column']}: {e['path']}: {e['message']}"
                     for e in errors) or "  (none)"


def contains(actual: Any, expected: Any) -> bool:
    """Mappings: every expected key, recursively; anything else: equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and contains(actual[k], v) for k, v in expected.items())
    return bool(actual == expected)
