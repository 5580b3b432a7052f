"""The suite's step definitions: one pytest-bdd module per component, with its world object."""
