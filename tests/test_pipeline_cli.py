"""`agent-tck validate`: exit codes, text and JSON output, usage errors; streams as arguments."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.reference.pipeline import cli
from agent_tck.reference.pipeline.loader import Limits
from agent_tck.reference.pipeline.schemas import SCHEMA_DIR

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((SCHEMA_DIR / "examples").glob("*.yml"))


def run(*argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.yml"
    path.write_text("status: skipped\nskip_reason: x\n")
    return path


def test_valid_files_exit_0_silently() -> None:
    assert run(*map(str, EXAMPLES)) == (0, "", "")


def test_invalid_file_exit_1_with_one_line_per_error(bad: Path) -> None:
    assert run(str(EXAMPLES[0]), str(bad)) == (
        1, f"{bad}:1:9: $.status: 'skipped' is not one of 'success', 'error', 'skip'; did you"
           " mean 'skip'?\n", "")


def test_contract_option_overrides_inference(tmp_path: Path) -> None:
    path = tmp_path / "r.yml"
    path.write_text("status: success\ndata: {}\n")
    assert run(str(path))[0] == 0
    assert run("--contract", "test-reviewer", str(path)) == (
        1, f"{path}:2:7: $.data: 'tests_passed' is a required property\n"
           f"{path}:2:7: $.data: 'violations' is a required property\n", "")


def test_json_format(bad: Path) -> None:
    code, out, err = run("--format", "json", str(bad))
    assert (code, err) == (1, "")
    assert json.loads(out) == {"valid": False, "files": [{
        "file": str(bad), "contract": "response", "valid": False, "errors": [{
            "file": str(bad), "line": 1, "column": 9, "path": "$.status",
            "message": "'skipped' is not one of 'success', 'error', 'skip'; did you mean"
                       " 'skip'?"}]}]}


@pytest.mark.parametrize("argv", [[], ["--contract", "coder", "x.yml"], ["--format", "xml", "x"],
                                  ["--bogus", "x.yml"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    code, out, err = run(*argv)
    assert (code, out) == (2, "")
    assert err.startswith("usage: agent-tck validate")


def test_unknown_contract_is_named(tmp_path: Path) -> None:
    assert "invalid choice: 'coder'" in run("--contract", "coder", "x.yml")[2]


def test_missing_file_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yml"
    assert run(str(missing)) == (
        2, "", f"agent-tck validate: cannot read {missing}: No such file or directory\n")


def test_too_large_and_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    latin = tmp_path / "latin.yml"
    latin.write_bytes(b"status: caf\xe9\n")
    assert run(str(latin)) == (
        1, f"{latin}:1:1: $: file is not UTF-8 (invalid continuation byte at byte 11)\n", "")
    monkeypatch.setattr(cli, "LIMITS", Limits(max_bytes=4))
    assert run(str(latin)) == (
        1, f"{latin}:1:1: $: file is 13 bytes, over the limit of 4\n", "")
    monkeypatch.setattr(cli, "LIMITS", Limits(max_bytes=13))  # at the limit: read
    assert run(str(latin))[1] == f"{latin}:1:1: $: file is not UTF-8 (invalid continuation" \
                                 " byte at byte 11)\n"


def test_a_file_whose_size_says_empty_is_held_to_the_limit_by_what_it_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Files under /proc say they hold nothing (a size of 0) and hold text all the same: the
    limit is checked on what is read, one byte past it."""
    monkeypatch.setattr(cli, "LIMITS", Limits(max_bytes=4))
    status = "/proc/self/status"
    assert Path(status).stat().st_size == 0
    assert run(status) == (1, f"{status}:1:1: $: file is 5 bytes, over the limit of 4\n", "")


def test_help_exit_0() -> None:
    code, out, _ = run("--help")
    assert code == 0 and "exit status: 0 valid, 1 invalid, 2 usage error" in out


def test_python_dash_m(bad: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "agent_tck.reference.pipeline", "validate",
                           str(bad)], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          check=False)
    assert (done.returncode, done.stdout.count(":1:9: $.status:")) == (1, 1)
    done = subprocess.run([sys.executable, "-m", "agent_tck.reference.pipeline"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python -m agent_tck.reference.pipeline")


@pytest.mark.parametrize("argv", [[], ["check"], ["--help"]])
def test_python_dash_m_without_validate_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """In-process, so that the mutation tool's map of the project's tests sees its lines."""
    from agent_tck.reference.pipeline.__main__ import run as run_module

    assert run_module(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err.splitlines()[0]) == ("", "usage: python -m agent_tck.reference.pipeline "
                                          "validate FILE... [--contract NAME] "
                                          "[--format text|json]")


def test_python_dash_m_validate_gives_the_validators_code_and_output(
        bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agent_tck.reference.pipeline.__main__ import run as run_module

    assert run_module(["validate", str(bad)]) == 1
    assert capsys.readouterr().out.count(":1:9: $.status:") == 1


def test_python_dash_m_reads_the_arguments_after_the_module(
        bad: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Its `__main__` block, in-process as `python -m` runs it (so that the mutation tool's
    map sees it): sys.argv's first entry is the module's, not an argument."""
    import runpy

    from agent_tck.reference.pipeline import __main__ as module

    monkeypatch.setattr(sys, "argv", [module.__file__, "validate", str(bad)])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(module.__file__, run_name="__main__")
    assert ended.value.code == 1 and capsys.readouterr().out.count(":1:9: $.status:") == 1


def test_pre_commit_hook_definition() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"], h["language"]) for h in hooks] == [
        ("agent-tck-validate", "agent-tck validate", "python")]


def test_a_fifo_a_device_and_a_huge_number_each_get_an_issue_and_the_rest_is_validated(
        tmp_path: Path) -> None:
    fifo, big, good = tmp_path / "pipe.yml", tmp_path / "big.yml", tmp_path / "good.yml"
    os.mkfifo(fifo)
    big.write_text("status: " + "1" * 5000 + "\n")
    good.write_text("status: success\n")
    out, err = io.StringIO(), io.StringIO()
    argv = [str(fifo), "/dev/zero", str(big), str(good), "--contract", "response"]
    code = cli.main(argv, out, err)
    lines = out.getvalue().splitlines()
    assert code == 1 and err.getvalue() == ""
    refused = "1:1: $: not a regular file (a FIFO, device or directory): not read"
    assert lines[:2] == [f"{fifo}:{refused}", f"/dev/zero:{refused}"]
    assert lines[2].startswith(f"{big}:1:9: $.status: !!int '1111") and "4300 digits" in lines[2]
    assert len(lines) == 3  # good.yml is valid
