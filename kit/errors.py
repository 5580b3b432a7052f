"""Errors of the suite, one per stage.

- reading a GIVEN/WHEN/THEN document (`kit.gherkin`): `SpecError`, with source:line
- loading the requirement registry or a baseline: `RegistryError`, with file and entry
- reaching an implementation (driver start, protocol): `DriverError`, with the command
- bad command-line use: `UsageError` (exit code 2)
- the suite's own machinery misbehaving (a harness of an ended scenario): `SuiteError`
"""

from __future__ import annotations


class TckError(Exception):
    """Base of every error the suite raises on purpose."""


class SpecError(TckError):
    """A spec document cannot be converted; the message names file and line."""


class RegistryError(TckError):
    """The requirement registry or a baseline file is invalid."""


class DriverError(TckError):
    """An implementation could not be reached or broke the protocol."""


class UsageError(TckError):
    """The command line asks for something impossible. `usage`: the command's usage line(s),
    printed before the message."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class SuiteError(TckError):
    """The suite itself went wrong (e.g. a fake harness started after its scenario ended):
    never a verdict on the implementation's behaviour."""
