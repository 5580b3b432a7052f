"""agent-tck: the conformance kit for coding-agent wrappers.

One import namespace: `agent_tck.steps` (the suite: steps, drivers, the fake harness, the
command line), `agent_tck.reference` (the reference implementation) and the spec as package
data (`features/`, `schemas/`, `fixtures/`). In a checkout these are the repository's
top-level folders, linked from `src/agent_tck/`.

`pytest -p agent_tck` enables the suite's pytest plugin in a pytest run of your own; it is
never loaded otherwise. Importing this package imports nothing else.
"""

pytest_plugins = ["agent_tck.kit.plugin"]
