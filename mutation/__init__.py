"""Mutation testing of `reference/` against the conformance run, and of the kit's judging code
against the project's tests: docs/mutation.md."""

FIRST = "AGENT_TCK_MUTATION_FIRST"  # what a cold judge runs first (a JSON list of node ids)
