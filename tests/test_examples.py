"""The JavaScript example adapter passes what it declares: the protocol is language-neutral."""

from __future__ import annotations

import shutil

import pytest

from steps.paths import ROOT
from tests.runsuite import verdicts_for


def test_node_codex_parser_passes_codex_parse_line_and_nothing_else_applies() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed on this machine")
    adapter = ROOT / "examples" / "node-codex-parser" / "adapter.js"
    verdicts = verdicts_for(f"{node} {adapter}", ["agent", "backends"])
    passed = sorted(rid for rid, v in verdicts.items() if v == "passed")
    assert passed == ["BK-CX.1", "BK-CX.2", "BK-CX.3", "BK-CX.4", "BK-CX.5"]
    assert {v for rid, v in verdicts.items() if rid not in passed} == {"not applicable"}
