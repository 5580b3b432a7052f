"""Where the spec lives: the feature files, the requirement registries and the schemas."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FEATURES = ROOT / "features"
SCHEMAS = ROOT / "schemas"
