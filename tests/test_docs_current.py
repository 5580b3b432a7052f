"""The documents stay current: every path of the repository they name exists.

A path in backticks that begins with one of the repository's top-level folders
(`kit/drivers/stdio.py`, `docs/dds.md`) must exist; placeholders (`<component>`, `*`) and the
worked examples listed below are not paths of this repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("benchmarks", "clis", "docs", "doubles", "examples", "features", "fixtures", "kit",
       "reference", "schemas", "src", "steps", "tests")
NAMED = re.compile(r"`((?:" + "|".join(TOP) + r")/[^`\s]*)`")
EXAMPLES = {"schemas/cli/acme.schema.json", "doubles/backends/acme"}  # CONTRIBUTING's example


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def missing_paths(text: str, root: Path = ROOT) -> list[str]:
    found = []
    for path in NAMED.findall(text):
        plain = path.split("#")[0].split("::")[0].rstrip("/.,:")
        if any(c in plain for c in "<>*{}") or plain in EXAMPLES:
            continue
        if not (root / plain).exists():
            found.append(path)
    return found


def test_every_repository_path_the_documents_name_exists() -> None:
    missing = {str(doc.relative_to(ROOT)): missing_paths(doc.read_text(encoding="utf-8"))
               for doc in documents()}
    assert {doc: paths for doc, paths in missing.items() if paths} == {}


def test_a_moved_path_is_found() -> None:
    text = ("see `steps/drivers/stdio.py`, `kit/drivers/stdio.py`, `features/<component>/` "
            "and `tests/`")
    assert missing_paths(text) == ["steps/drivers/stdio.py"]
