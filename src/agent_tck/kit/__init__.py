"""The kit's machinery: command line, runs, verdicts, reports, registry, drivers, converter.

Imports nothing from `agent_tck.steps`; of the test doubles only the command line and the
smoke check use the fake harness and the real-CLI tools (see CONTRIBUTING.md, "The map").
"""
