"""The fake harness's benchmark ops, run as the real executable."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from steps.harness.script import Script, install, read_record, write_script


def play(tmp_path: Path, script: Script) -> tuple[list[str], list[dict[str, object]]]:
    install(tmp_path / "bin", tmp_path / "script.json", tmp_path / "record.jsonl")
    write_script(tmp_path / "script.json", script)
    out = subprocess.run(
        [str(tmp_path / "bin" / "claude")], capture_output=True, check=True, timeout=30
    ).stdout
    return out.decode().splitlines(), read_record(tmp_path / "record.jsonl")


def test_repeat_writes_count_lines_cycling_through_its_lines(tmp_path: Path) -> None:
    script = Script("claude", read_stdin=False).add(
        "repeat", {"lines": [{"n": 1}, {"n": 2}, {"n": 3}], "count": 70_001}
    )
    lines, _ = play(tmp_path, script)
    assert len(lines) == 70_001
    assert [json.loads(line)["n"] for line in lines[:4] + lines[-2:]] == [1, 2, 3, 1, 1, 2]
