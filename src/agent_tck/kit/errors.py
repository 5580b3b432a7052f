"""Errors of the suite, one per stage.

- reading a GIVEN/WHEN/THEN document (`kit.gherkin`): `SpecError`, with source:line
- loading the requirement registry or a baseline: `RegistryError`, with file and entry
- reaching an implementation (driver start, protocol): `DriverError`, with the command
- bad command-line use: `UsageError` (exit code 2)
- the suite's own machinery misbehaving (a harness of an ended scenario): `SuiteError`
"""

from __future__ import annotations

import time


class TckError(Exception):
    """Base of every error the suite raises on purpose."""


class SpecError(TckError):
    """A spec document cannot be converted; the message names file and line."""


class RegistryError(TckError):
    """The requirement registry or a baseline file is invalid."""


class DriverError(TckError):
    """An implementation could not be reached or broke the protocol. The facts are fields;
    text is made only when the error is shown (`str`). `hint`: what the kind of failure
    means, for a person (`agent-tck smoke` prints it, `{command}` filled in); `command` and
    `seq`: the request it happened in; `evidence`: the exchange and the adapter's stderr;
    `at`: when it was found (time.monotonic()), before the driver dropped the adapter (the
    fake CLI it ran may go on from there, and what it did then is not the scenario's)."""

    hint = ""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.command = ""
        self.seq: int | None = None
        self.evidence = ""
        self.at = time.monotonic()

    def during(self, command: str, seq: int, evidence: str) -> DriverError:
        """The same error, told in which request it happened and with what evidence."""
        self.command, self.seq, self.evidence = command, seq, evidence
        return self

    def explained(self) -> str:
        """The hint for a person, or "" when this kind of failure has none."""
        return self.hint.format(command=self.command or "the request")

    def __str__(self) -> str:
        text = f"{self.command} (seq {self.seq}): {self.message}" if self.command else self.message
        return f"{text}\n{self.evidence}" if self.evidence else text


class AdapterHung(DriverError):
    """No response within `timeout` seconds."""

    hint = "the adapter did not answer `{command}` (hang)"

    def __init__(self, timeout: float) -> None:
        super().__init__(f"no response within {timeout:g} s (hang)")
        self.timeout = timeout


class AdapterExited(DriverError):
    """The adapter closed its stdout, or its stdin, before answering; `code`: its exit code."""

    hint = "the adapter exited before answering"

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class StrayOutput(DriverError):
    """A line on stdout that is not a protocol message; `text`: its start."""

    hint = "the adapter printed something that is not a protocol message"

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


class Refused(DriverError):
    """The implementation answered a command with an error: it refused what it was asked
    (`answer`: its words). A refusal can be what a scenario asks for; anywhere else it is an
    error of the run like any other DriverError."""

    def __init__(self, message: str, answer: str) -> None:
        super().__init__(message)
        self.answer = answer


class Unsendable(DriverError):
    """The suite was asked to send what the protocol cannot carry (a request its schema
    refuses): a scenario about such a value is not applicable through this driver."""


class WrongVersion(DriverError):
    """The implementation speaks protocol `theirs`; the suite speaks `ours`."""

    hint = "wrong protocol version"

    def __init__(self, theirs: object, ours: object) -> None:
        super().__init__(f"the implementation speaks protocol version {theirs}; this suite "
                         f"speaks {ours}")
        self.theirs, self.ours = theirs, ours


class BreaksSchema(DriverError):
    """A response that does not match `schema`; `problems`: what is wrong with it."""

    hint = "the `{command}` response does not match its schema"

    def __init__(self, schema: str, problems: list[str]) -> None:
        super().__init__(f"the response breaks {schema}.schema.json: {problems}")
        self.schema, self.problems = schema, problems


class UsageError(TckError):
    """The command line asks for something impossible. `usage`: the command's usage line(s),
    printed before the message."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class SuiteError(TckError):
    """The suite itself went wrong (e.g. a fake harness started after its scenario ended):
    never a verdict on the implementation's behaviour."""


class OwnedElsewhere(Exception):
    """A precondition of the scenario failed, and that failure is the subject of another
    requirement (`owner`): the scenario is not judged, and says why, unless it is one of the
    owner's own (steps/harness_steps.py). Not a TckError: what it says is the
    scenario's, not the kit's."""

    def __init__(self, owner: str, why: str) -> None:
        super().__init__(why)
        self.owner = owner
