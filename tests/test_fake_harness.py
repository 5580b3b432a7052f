"""The fake harness run as the real executable: its benchmark ops, its straggler check."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from steps.exceptions import SuiteError
from steps.harness.fake import STRAGGLER_EXIT
from steps.harness.script import Script, install, read_record, write_script
from steps.world import HarnessRig


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


def test_a_harness_started_after_its_scenario_ended_plays_nothing_and_notes_itself(
    tmp_path: Path,
) -> None:
    rig = HarnessRig(tmp_path / "harness", tmp_path / "strays.jsonl")
    rig.use(Script("claude", read_stdin=False).text("late"))
    rig.close()
    done = subprocess.run([str(rig.bin / "claude"), "-p"], cwd=tmp_path, capture_output=True,
                          timeout=30, check=False)
    assert (done.returncode, done.stdout) == (STRAGGLER_EXIT, b"")
    assert rig.starts() == []
    (stray,) = read_record(tmp_path / "strays.jsonl")
    assert (stray["rig"], stray["argv"], stray["cwd"]) == (rig.token, ["-p"], str(tmp_path))


def test_a_start_recorded_by_another_rig_is_an_error_of_the_suite(tmp_path: Path) -> None:
    mine, other = HarnessRig(tmp_path / "mine"), HarnessRig(tmp_path / "other")
    other.use(Script("claude", read_stdin=False).text("not yours"))
    subprocess.run([str(other.bin / "claude")], capture_output=True, timeout=30, check=True)
    mine.record_path.write_bytes(other.record_path.read_bytes())
    with pytest.raises(SuiteError, match="another rig"):
        mine.starts()
