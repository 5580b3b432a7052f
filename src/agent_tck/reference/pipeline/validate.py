"""Validating a YAML document against a contract: schema, then the rules schema cannot say.

Every error is an `Issue` printed as `file:line:column: json/path: message`, the line and
column pointing into the YAML source. Schema messages are python-jsonschema's, made precise
where a user needs more: an unexpected key points at the key and names the closest allowed
one; a near-miss status word (`skipped`, `ok`) gets a hint (decision D-10).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonschema import ValidationError

from agent_tck.reference.exceptions import DocumentError
from agent_tck.reference.pipeline import rules
from agent_tck.reference.pipeline.loader import (
    DEFAULT_LIMITS,
    Document,
    Limits,
    Path,
    json_path,
    load_document,
)
from agent_tck.reference.pipeline.schemas import infer_contract, validator

# Words agents write instead of the seed's (decision D-10): refused, with the right word.
NEAR_MISSES = {"skipped": "skip", "ok": "success", "failed": "error", "stopped": "stop",
               "succeeded": "success"}


# Keys the seed allows only alongside a given value (`not: {required: [key]}` in the schemas).
ALLOWED_ONLY = {"error": "status: error", "skip_reason": "status: skip",
                "subtype": "type: side_effect"}


@dataclass(frozen=True, order=True)
class Issue:
    """One error, where it is: file, line, column (1-based), JSON path."""

    source: str
    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}: {self.path}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.source, "line": self.line, "column": self.column,
                "path": self.path, "message": self.message}


@dataclass
class Report:
    """The verdict on one document: the contract it was checked against and its issues."""

    source: str
    contract: str | None
    issues: list[Issue] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.source, "contract": self.contract, "valid": self.valid,
                "errors": [i.to_dict() for i in self.issues]}


def validate_text(text: str, source: str = "<document>", contract: str | None = None,
                  limits: Limits = DEFAULT_LIMITS) -> Report:
    """Load `text` safely and check it against `contract` (inferred when None).

    A document the loader refuses is a report with that one issue; an unknown contract name
    raises `ContractError`.
    """
    if contract is not None:
        validator(contract)  # an unknown name is a usage error, before any loading
    try:
        doc = load_document(text, source, limits)
    except DocumentError as exc:
        return Report(source, contract, [Issue(source, exc.line, exc.column, exc.path,
                                               exc.message)])
    name = contract or infer_contract(doc.value, source)
    return Report(source, name, sorted(set(validate_document(doc, name))))


def validate_document(doc: Document, contract: str) -> Iterator[Issue]:
    """The schema's issues, then the rules'."""
    yield from _schema_issues(doc, contract)
    for path, message in rules.check(doc, contract):
        yield _issue(doc, path, message)


def _issue(doc: Document, path: Path, message: str, *, key: bool = False) -> Issue:
    where = doc.where(path, key=key)
    return Issue(doc.source, where.line, where.column, json_path(path), message)


def _schema_issues(doc: Document, contract: str) -> Iterator[Issue]:
    errors = list(validator(contract).iter_errors(doc.value))
    status = [e for e in errors if tuple(e.absolute_path) == ("status",)
              and e.validator == "enum"]
    for error in status or errors:  # a wrong status makes every branch's errors noise
        yield from _explain(doc, error)


def _explain(doc: Document, error: ValidationError) -> Iterator[Issue]:
    path: Path = tuple(error.absolute_path)
    if error.validator == "additionalProperties":
        yield from _unexpected_keys(doc, path, error)
    elif "propertyNames" in error.relative_schema_path:
        yield _issue(doc, (*path, str(error.instance)), _bad_name(error), key=True)
    elif error.validator == "not" and (key := _forbidden_key(error)) in ALLOWED_ONLY:
        yield _issue(doc, (*path, key), f"{key!r} is allowed only with {ALLOWED_ONLY[key]}",
                     key=True)
    elif error.validator == "enum":
        yield _issue(doc, path, _enum_message(error))
    elif error.validator == "const" and path and str(path[-1]).endswith(("_completed",
                                                                           "_skipped")):
        written = doc.where(path).raw or repr(error.instance)
        yield _issue(doc, path, f"marker {path[-1]} must be true, not {written}: an agent"
                                " that did not finish writes no marker")
    else:
        yield _issue(doc, path, error.message)


def _forbidden_key(error: ValidationError) -> str:
    """`k` for `not: {required: [k]}`, else ""."""
    value = error.validator_value
    required = value.get("required") if isinstance(value, dict) else None
    return str(required[0]) if isinstance(required, list) and len(required) == 1 else ""


def _unexpected_keys(doc: Document, path: Path, error: ValidationError) -> Iterator[Issue]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    allowed = sorted(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    for key in error.instance if isinstance(error.instance, dict) else ():
        if key in allowed or any(re.search(p, key) for p in patterns):
            continue
        hint = difflib.get_close_matches(key, allowed, n=1)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        yield _issue(doc, (*path, key), f"unexpected key {key!r}{extra}", key=True)


def _bad_name(error: ValidationError) -> str:
    name = str(error.instance)
    if "-" in name:
        return (f"unexpected key {name!r}: agent names use snake_case"
                f" ({name.replace('-', '_')!r})")
    return f"unexpected key {name!r}: expected {{agent}}_completed, {{agent}}_version," \
           " {agent}_skipped, {agent}_skip_reason, errors or warnings"


def _enum_message(error: ValidationError) -> str:
    allowed = list(error.validator_value) if isinstance(error.validator_value, list) else []
    hint = near_miss(error.instance, allowed)
    extra = f"; did you mean {hint!r}?" if hint is not None else ""
    return f"{error.instance!r} is not one of {', '.join(repr(a) for a in allowed)}{extra}"


def near_miss(word: object, allowed: list[Any]) -> str | None:
    """The allowed word `word` was probably meant to be (decision D-10), if any."""
    if not isinstance(word, str):
        return None
    hint = NEAR_MISSES.get(word)
    if hint in allowed:
        return hint
    close = difflib.get_close_matches(word, [a for a in allowed if isinstance(a, str)], n=1)
    return close[0] if close else None
