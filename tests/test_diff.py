"""`agent-tck diff OLD.json NEW.json`: regressions first, then fixes, then other changes; exit
code 1 on a regression, 0 without, 2 on a report it cannot read (the error names the file).

The reports are written by the kit's own JSON writer (`reports.to_json`) from runs made here,
so the diff reads what `agent-tck run --json` writes."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agent_tck.kit import registry, reports
from agent_tck.kit.cli import main
from agent_tck.kit.drivers.base import ImplInfo
from agent_tck.kit.verdicts import ERRORED, FAILED, NA, NOT_RUN, PASSED, ReqVerdict

REQS = list(registry.load().values())[:6]
A, B, C, D, E, F = (r.id for r in REQS)
LEVEL = {r.id: r.level for r in REQS}


def report(path: Path, verdicts: dict[str, str], conformant: bool = True) -> Path:
    """A JSON report of a run whose requirements came to `verdicts` (in REQS' order)."""
    judged = [ReqVerdict(r, verdicts[r.id]) for r in REQS if r.id in verdicts]
    info = ImplInfo("wrapper", "python", "1.0", ("agent",), ("claude",))
    path.write_text(reports.to_json(reports.Run(info, [], judged, conformant, {}, [])))
    return path


def diff(*argv: str | Path) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", *map(str, argv)], out, err)
    return code, out.getvalue().splitlines(), err.getvalue()


def columns(line: str) -> list[str]:
    """A change's kind, requirement, level and "old -> new" (verdicts of one or two words)."""
    kind, rid, level, rest = line.split(maxsplit=3)
    return [kind, rid, level, rest.split("  ")[0].strip()]


def test_regressions_come_first_then_fixes_then_other_changes(tmp_path: Path) -> None:
    old = report(tmp_path / "old.json", {A: PASSED, B: FAILED, C: NA, D: PASSED, E: ERRORED,
                                         F: PASSED})
    new = report(tmp_path / "new.json", {A: FAILED, B: PASSED, C: ERRORED, D: NA, E: FAILED,
                                         F: PASSED}, conformant=False)
    code, lines, err = diff(old, new)
    assert (code, err) == (1, "")
    assert [columns(line) for line in lines[:-1]] == [
        ["regression", A, LEVEL[A], "passed -> failed"],
        ["regression", C, LEVEL[C], "not applicable -> errored"],
        ["fix", B, LEVEL[B], "failed -> passed"],
        ["changed", D, LEVEL[D], "passed -> not applicable"],
        ["changed", E, LEVEL[E], "errored -> failed"],
    ]
    assert lines[-1] == ("2 regressions, 1 fix, 2 other changes in 6 requirements; "
                         "verdict CONFORMANT -> NOT CONFORMANT")


def test_a_failure_where_there_was_none_is_a_regression_even_not_run_or_absent(
        tmp_path: Path) -> None:
    old = report(tmp_path / "old.json", {A: NOT_RUN, B: FAILED, C: PASSED})
    new = report(tmp_path / "new.json", {A: ERRORED, C: PASSED, D: FAILED})
    code, lines, _ = diff(old, new)
    assert code == 1
    assert [columns(line) for line in lines[:-1]] == [
        ["regression", A, LEVEL[A], "not run -> errored"],
        ["regression", D, LEVEL[D], "absent -> failed"],
        ["changed", B, LEVEL[B], "failed -> absent"],
    ]
    assert lines[-1].startswith("2 regressions, 0 fixes, 1 other change in 4 requirements;")


def test_fixes_and_other_changes_alone_exit_0(tmp_path: Path) -> None:
    old = report(tmp_path / "old.json", {A: FAILED, B: PASSED}, conformant=False)
    new = report(tmp_path / "new.json", {A: PASSED, B: NA})
    code, lines, _ = diff(old, new)
    assert code == 0
    assert [columns(line)[0] for line in lines[:-1]] == ["fix", "changed"]
    assert lines[-1] == ("0 regressions, 1 fix, 1 other change in 2 requirements; "
                         "verdict NOT CONFORMANT -> CONFORMANT")


def test_two_equal_reports_print_only_the_counts(tmp_path: Path) -> None:
    same = report(tmp_path / "same.json", {A: PASSED, B: FAILED})
    assert diff(same, same) == (0, ["0 regressions, 0 fixes, 0 other changes in 2 "
                                    "requirements; verdict CONFORMANT -> CONFORMANT"], "")


def test_the_text_is_one_line_cut_short_and_inert(tmp_path: Path) -> None:
    old = report(tmp_path / "old.json", {A: PASSED})
    data = json.loads(report(tmp_path / "new.json", {A: FAILED}).read_text())
    data["requirements"][0]["text"] = "\x1b[2J Wipes\nthe screen " + "x" * 100
    (tmp_path / "new.json").write_text(json.dumps(data))
    _, lines, _ = diff(old, tmp_path / "new.json")
    assert len(lines) == 2
    assert lines[0].endswith("failed  \\x1b[2J Wipes the screen " + "x" * 35 + "...")
    assert "\x1b" not in lines[0]


def test_a_missing_file_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    good = report(tmp_path / "good.json", {A: PASSED})
    missing = tmp_path / "missing.json"
    assert diff(good, missing) == (
        2, [], f"agent-tck: error: report {missing}: cannot read: No such file or directory\n")


def test_a_file_that_is_not_json_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    good = report(tmp_path / "good.json", {A: PASSED})
    junit = tmp_path / "junit.xml"
    junit.write_text("<testsuite/>")
    code, lines, err = diff(junit, good)
    assert (code, lines) == (2, [])
    assert err.startswith(f"agent-tck: error: report {junit}: cannot read it as JSON: ")


def test_json_that_is_no_report_names_the_file_and_the_missing_key(tmp_path: Path) -> None:
    good = report(tmp_path / "good.json", {A: PASSED})
    badge = tmp_path / "badge.json"
    badge.write_text('{"schemaVersion": 1, "label": "agent-tck", "message": "conformant"}')
    assert diff(good, badge) == (
        2, [], f"agent-tck: error: report {badge}: $.header is missing\n")
    data = json.loads(good.read_text())
    del data["footer"]["conformant"]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(data))
    assert diff(cut, good) == (
        2, [], f"agent-tck: error: report {cut}: $.footer.conformant is missing\n")
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    assert diff(good, listed) == (2, [], f"agent-tck: error: report {listed}: $ is not an "
                                         "object\n")


def test_diff_takes_exactly_two_reports() -> None:
    code, lines, err = diff("one.json")
    assert (code, lines) == (2, [])
    assert err.startswith("usage: agent-tck diff [-h] OLD NEW\n")
    assert err.endswith("error: the following arguments are required: NEW\n")
