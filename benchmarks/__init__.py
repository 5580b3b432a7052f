"""Benchmarks of the reference and the suite, each a ratio against a baseline run alongside.

`python -m benchmarks` runs them all, prints one table and writes it to docs/benchmarks.md with
the machine it ran on. Nothing here is collected by the test suite: timings on a shared
machine are figures to read, never assertions.
"""
