"""The metadata file of one source file: `tmp/rspec_metadata/{slug}.yml` under a base directory.

Writes are atomic: the new content is serialized first, written to a temporary file in the
same directory, flushed to disk, then renamed over the old one, so a crash at any point leaves
either the previous file or the new one, never a mix. The path is built from the slug, and a
source path that could leave the directory is refused before anything is touched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from agent_tck.reference.exceptions import PathError
from agent_tck.reference.pipeline.loader import load_document
from agent_tck.reference.pipeline.slug import slug_for

METADATA_DIR = Path("tmp") / "rspec_metadata"


class MetadataStore:
    """Reads and atomically writes the metadata file of `source_file` under `base_dir`."""

    def __init__(self, base_dir: Path, source_file: str) -> None:
        self.base_dir = base_dir
        self.source_file = source_file
        self.slug = slug_for(source_file)
        self.directory = base_dir / METADATA_DIR
        self.path = self.directory / f"{self.slug}.yml"
        if self.path.resolve().parent != self.directory.resolve():
            raise PathError(f"metadata file {self.path} would leave {self.directory}")
        self._check_inside()

    def _check_inside(self) -> None:
        """A symlinked `tmp/` or `tmp/rspec_metadata/` must not carry writes out of base_dir."""
        if not self.directory.resolve().is_relative_to(self.base_dir.resolve()):
            raise PathError(f"{self.directory} leads outside the base directory "
                            f"{self.base_dir} (to {self.directory.resolve()}): refused")

    @property
    def source_path(self) -> Path:
        return self.base_dir / self.source_file

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> dict[str, Any]:
        """The file's data (`{}` when absent); `DocumentError` if it is not plain YAML data."""
        if not self.exists():
            return {}
        value = load_document(self.path.read_text(encoding="utf-8"), str(self.path)).value
        return value if isinstance(value, dict) else {}

    def write(self, metadata: dict[str, Any]) -> None:
        """Replace the file with `metadata`, atomically. Metadata the loader would refuse
        (too large, too deep, keys that are not strings) is a DocumentError and nothing is
        written: the pipeline never leaves a file it cannot read back."""
        text = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True)
        load_document(text, str(self.path))
        self.directory.mkdir(parents=True, exist_ok=True)
        self._check_inside()  # again: the directory may have been replaced meanwhile
        fd, temp = tempfile.mkstemp(prefix=f".{self.slug}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
