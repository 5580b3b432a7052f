"""A mutation session: cosmic-ray's work database of every mutant of the chosen files, those
that cannot be defects marked skipped, and the results as they come in (so a session stopped
halfway resumes where it was)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

from cosmic_ray.commands.init import init
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkResult

from mutation import operators

Span = tuple[tuple[int, int], tuple[int, int]]


def create(db_path: Path, files: Iterable[Path]) -> int:
    """A new session of every kept mutant of `files` (paths relative to the repository);
    returns how many are to be run."""
    operators.register()
    with use_db(str(db_path), WorkDB.Mode.create) as db:
        init(list(files), db, {})
        skip_unrunnable(db)
        return sum(1 for _ in db.pending_work_items)


def skip_unrunnable(db: WorkDB) -> None:
    """Mutants inside annotations change no behaviour (annotations are not evaluated here);
    the `*` that starts a signature's keyword-only parameters is no multiplication, and a
    `/` in its place models no slip anyone makes."""
    spans: dict[Path, list[Span]] = {}
    lines: dict[Path, list[str]] = {}
    for item in list(db.pending_work_items):
        mutation = item.mutations[0]
        path = Path(mutation.module_path)
        if path not in spans:
            source = path.read_text()
            spans[path], lines[path] = list(annotation_spans(source)), source.splitlines()
        if any(_within(mutation.start_pos, span) for span in spans[path]):
            why = "in an annotation"
        elif _keyword_marker(lines[path], mutation.start_pos):
            why = "the marker of keyword-only parameters"
        else:
            continue
        db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=why))


def _keyword_marker(lines: list[str], pos: tuple[int, int]) -> bool:
    """A bare `*` at `pos` (1-based line, 0-based column), followed by a comma: only a
    parameter list has one (a star before a name unpacks, one between values multiplies)."""
    line = lines[pos[0] - 1] if 0 < pos[0] <= len(lines) else ""
    return line[pos[1]:pos[1] + 1] == "*" and line[pos[1] + 1:].lstrip().startswith(",")


def annotation_spans(source: str) -> Iterator[Span]:
    for node in ast.walk(ast.parse(source)):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        for expr in found:
            if expr is not None:
                yield ((expr.lineno, expr.col_offset),
                       (expr.end_lineno or expr.lineno, expr.end_col_offset or 0))


def _within(pos: tuple[int, int], span: Span) -> bool:
    return span[0] <= tuple(pos) < span[1]

