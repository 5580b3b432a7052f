"""The slug convention (seed 002): the source path with `/` -> `_`, no extension.

`app/services/payment.rb` -> `app_services_payment`. A path that is absolute or has a `..`
component is refused: its metadata file must stay under the metadata directory, and two
spellings of one file must not get two slugs.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from agent_tck.reference.exceptions import PathError


def check_source_path(source: str) -> PurePosixPath:
    """The source path as a relative POSIX path; `PathError` if it could escape."""
    path = PurePosixPath(source)
    if not source or source != source.strip():
        raise PathError(f"source path {source!r} is empty or has surrounding spaces")
    if path.is_absolute() or "\\" in source:
        raise PathError(f"source path {source!r} must be relative to the project, with /")
    if ".." in path.parts or "." in source.split("/"):
        raise PathError(f"source path {source!r} has a '..' or '.' component: refused, the"
                        " metadata file must stay under the metadata directory")
    return path


def slug_for(source: str) -> str:
    """The slug of a source path; `PathError` for a path `check_source_path` refuses."""
    path = check_source_path(source)
    return str(path.with_suffix("")).replace("/", "_")
