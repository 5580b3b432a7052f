"""agent-tck: the conformance kit for coding-agent wrappers.

One import namespace: `agent_tck.kit` (the command line, runs, verdicts, drivers),
`agent_tck.doubles` (the fake harness, the real CLIs' sandbox), `agent_tck.steps` (the step
definitions), `agent_tck.reference` (the reference implementation) and the spec as package
data (`features/`, `schemas/`, `fixtures/`). In a checkout the code lives here, linked from
the repository's top level; the spec lives at the top level, linked from here.

`pytest -p agent_tck` enables the suite's pytest plugin in a pytest run of your own; it is
never loaded otherwise. Importing this package imports nothing else.
"""

pytest_plugins = ["agent_tck.kit.plugin"]
