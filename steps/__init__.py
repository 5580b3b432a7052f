"""The agent-tck suite: step definitions, drivers, the fake harness and the pytest plugin."""
