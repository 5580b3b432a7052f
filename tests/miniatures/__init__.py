"""Miniature implementations, each broken in one known way, for the self-tests."""
