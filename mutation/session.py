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
    """Mutants inside annotations change no behaviour (annotations are not evaluated here)."""
    spans: dict[Path, list[Span]] = {}
    for item in list(db.pending_work_items):
        mutation = item.mutations[0]
        path = Path(mutation.module_path)
        if path not in spans:
            spans[path] = list(annotation_spans(path.read_text()))
        if any(_within(mutation.start_pos, span) for span in spans[path]):
            db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED,
                                                  output="in an annotation"))


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

