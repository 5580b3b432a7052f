"""The conformance suite's test modules: one per component, each binding its feature folder."""
