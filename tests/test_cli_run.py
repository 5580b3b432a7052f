"""`agent-tck run`: the verdict table, the one-line verdict and the exit codes."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_tck.kit import plugin, registry
from agent_tck.kit import run as run_options
from agent_tck.kit.cli import main
from agent_tck.kit.drivers.inprocess import InProcessDriver
from benchmarks.suite import timeless_report
from tests.miniatures.agent import IgnoresWorkingDir

TOTAL = len(registry.load())
BACKENDS = sum(r.component == "backends" for r in registry.load().values())
RESPONSES = sum(r.component == "responses" for r in registry.load().values())
# RP-5.1 and RP-5.2's scenarios, on each backend: six, two requirements (AG-C5's scenarios say
# "working directory" too).
RP5 = "configured_working_directory or no_working_directory"


def table_rows(out: str) -> dict[str, list[str]]:
    """The verdict table's rows, by requirement: the lines after its header, up to the first
    that is no row (a blank line before the failures, a collapsed count, the verdict)."""
    rows = {}
    for line in out.splitlines()[2:]:
        words = line.split()
        if len(words) < 4 or not words[0][0].isupper() or words[0].endswith(":"):
            break
        rows[words[0]] = words[1:]
    return rows


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_reference_is_conformant_with_a_table_per_requirement() -> None:
    code, out, _ = run("--component", "backends")
    assert code == 0
    assert out.splitlines()[0].split() == ["requirement", "level", "verdict", "passed/run"]
    assert ["BK-CX.5", "SHOULD", "passed", "6/6"] in [line.split() for line in out.splitlines()]
    assert out.splitlines()[-1] == (
        f"PARTIAL: {BACKENDS} of {TOTAL} requirements judged, all passed; the rest were not judged")


def test_a_broken_implementation_is_not_conformant() -> None:
    code, out, _ = run(
        "--impl",
        "python:tests.miniatures.agent:IgnoresWorkingDir",
        "--component",
        "agent",
        "-k",
        RP5,
    )
    assert code == 1
    rows = table_rows(out)
    assert rows["RP-5.1"] == ["MUST", "failed", "0/3"]  # once per backend
    assert "RP-1.1" not in rows  # deselected by -k: counted on a line of their own
    agent = sum(r.component == "agent" for r in registry.load().values())
    assert f"{agent - 2} requirements not run: the selection left their scenarios out " \
        "(--all lists them)" in out.splitlines()
    assert out.splitlines()[-1] == (f"PARTIAL: 2 of {TOTAL} requirements judged, NOT CONFORMANT "
                                    f"(1 failed, {agent - 2} not run, 1 passed); "
                                    "the rest were not judged")


def test_failures_a_baseline_expects_are_named_as_such(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("- {id: RP-5.1, reason: ignores working_dir}\n")
    argv = ("--impl", "python:tests.miniatures.agent:IgnoresWorkingDir", "--component", "agent",
            "-k", RP5, "--baseline", str(baseline))
    code, out, _ = run(*argv)
    assert code == 0
    assert f"1 known failure (listed in {baseline}) and no other (1 failed" in (
        out.splitlines()[-1])
    assert "no MUST failed" not in out


class RewritesTheBaseline(IgnoresWorkingDir):
    """Ignores working_dir, and once it runs, rewrites the run's baseline to excuse that."""

    def __init__(self) -> None:
        super().__init__()
        Path(os.environ["AGENT_TCK_TEST_BASELINE"]).write_text(
            "- {id: RP-5.1, reason: written by the implementation under test}\n")


def test_the_baseline_is_the_one_read_before_the_implementation_ran(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("- {id: AG-H2, reason: not selected here}\n")
    monkeypatch.setenv("AGENT_TCK_TEST_BASELINE", str(baseline))
    code, out, _ = run("--impl", "python:tests.test_cli_run:RewritesTheBaseline",
                       "--component", "agent", "-k", RP5, "--baseline", str(baseline))
    assert "written by the implementation" in baseline.read_text()  # it did rewrite it
    assert code == 1, out
    assert table_rows(out)["RP-5.1"] == ["MUST", "failed", "0/3"]


def test_a_run_whose_must_failures_are_all_baselined_says_so_in_its_verdict(
        tmp_path: Path) -> None:
    """A whole run: its verdict line is what a CI summary shows, and every report leads with
    the same words: six MUST failures are never hidden behind a bare CONFORMANT."""
    failing = ("RUN-SIG-1", "RUN-SIG-2", "RUN-SIG-3", "RUN-SIG-6", "RUN-SIG-7", "RUN-SIG-8")
    baseline = tmp_path / "known.yaml"
    baseline.write_text("".join(f"- {{id: {rid}, reason: sees no signal}}\n" for rid in failing))
    md, report, page = tmp_path / "summary.md", tmp_path / "report.json", tmp_path / "r.html"
    code, out, _ = run("--impl", "python:tests.miniatures.runner:RunnerOnlyAlwaysNone",
                       "--baseline", str(baseline), "--markdown", str(md), "--json", str(report),
                       "--html", str(page))
    assert code == 0
    assert out.splitlines()[-1].startswith(
        f"CONFORMANT WITH 6 KNOWN FAILURES (listed in {baseline}): {TOTAL} requirements (6 "
        "failed, ")
    assert md.read_text().splitlines()[0].endswith(" is conformant with 6 known failures")
    assert json.loads(report.read_text())["footer"]["verdict"] == (
        "CONFORMANT WITH 6 KNOWN FAILURES")
    assert '"outcome good">CONFORMANT WITH 6 KNOWN FAILURES</p>' in page.read_text()


def test_an_implementation_that_declares_no_must_is_not_conformant() -> None:
    """It declares `backends` alone, whose requirements are all SHOULDs: no MUST can be
    judged, whatever they come to. --strict judges it on them."""
    impl = "python:tests.miniatures.agent:DeclaresBackendsOnly"
    code, out, _ = run("--impl", impl)
    assert code == 1
    assert out.splitlines()[-1] == (
        "NOT CONFORMANT: no MUST was judged: the components it declares have none that ran "
        f"(--strict judges it on their SHOULDs) ({TOTAL - BACKENDS} not applicable, "
        f"{BACKENDS} passed)")
    code, out, _ = run("--impl", impl, "--strict")
    assert (code, out.splitlines()[-1]) == (
        0, f"CONFORMANT: {TOTAL} requirements ({TOTAL - BACKENDS} not applicable, "
           f"{BACKENDS} passed)")


def test_an_implementation_that_declares_other_things_in_another_start_is_a_setup_error(
        tmp_path: Path) -> None:
    """The report's header is what the judged session declared; when the run's first `start`
    said otherwise, the verdicts are not those of one implementation: no verdict at all."""
    once = tmp_path / "once"
    code, out, err = run("--impl", f"{sys.executable} -m tests.miniatures.fake_adapter "
                         f"declares-other start 1 {once}", "--component", "backends",
                         "-k", "the_init_line", "--json", str(tmp_path / "r.json"))
    assert code == 2 and out == ""
    assert "declared different things in different `start`s of one run" in err
    assert '"components": ["runner"]' in err and not (tmp_path / "r.json").exists()


def test_should_failures_fail_only_a_strict_run_or_one_that_judged_no_must() -> None:
    """Beside MUSTs judged (RP-5.1's scenarios), a SHOULD failure (AG-D5.1, a prompt that
    looks like a flag) fails the run only with --strict; a run that judged SHOULDs alone is
    judged on them."""
    impl = "python:tests.miniatures.agent:PromptAsArgument"
    argv = ("--impl", impl, "--component", "agent", "-k", f"flag or {RP5}")
    code, out, _ = run(*argv)
    assert code == 0
    assert "no MUST failed (1 failed" in out.splitlines()[-1]
    assert "baseline" not in out  # a failure no baseline lists is not called expected
    assert run(*argv, "--strict")[0] == 1
    code, out, _ = run("--impl", impl, "--component", "agent", "-k", "flag")
    assert code == 1
    assert "judged, NOT CONFORMANT (1 failed" in out.splitlines()[-1]


def test_progress_shows_each_scenarios_verdict_as_it_ends_and_only_when_asked() -> None:
    """A user sees verdicts from the first scenario on (the table comes at the end): a line on
    stderr per scenario, in the order they ended, with the count, the verdict, the
    requirements and the scenario's title with the backend it ran for. Off where stderr is no
    terminal, unless asked."""
    impl = "python:tests.miniatures.agent:IgnoresWorkingDir"
    code, out, err = run("--impl", impl, "--component", "agent", "-k", RP5,
                         "--progress")
    assert code == 1
    lines = err.splitlines()
    assert [line.split()[0] for line in lines] == [f"[{i}/6]" for i in range(1, 7)]
    title = "Subprocess runs in configured working directory."
    assert sorted(line.split(None, 1)[1] for line in lines if "RP-5.1" in line) == [
        f"failed          RP-5.1  {title} [{backend}]" for backend in ("claude", "codex", "gemini")]
    assert sum(" passed          RP-5.2  " in line for line in lines) == 3
    assert out.splitlines()[-1].startswith("PARTIAL: ")  # the table and the verdict unchanged
    quiet = run("--impl", impl, "--component", "agent", "-k", RP5)
    same = [(result[0], table_rows(result[1]), result[1].splitlines()[-1])
            for result in (quiet, (code, out))]  # the failures name each run's own folders
    assert same[0] == same[1] and quiet[2] == ""
    split = run("--impl", impl, "--component", "agent", "-k", RP5, "-n", "2",
                "--progress")[2].splitlines()  # on workers: the same lines, in the controller
    assert [line.split()[0] for line in split] == [f"[{i}/6]" for i in range(1, 7)]
    assert sorted(line.split(None, 1)[1] for line in split) == sorted(
        line.split(None, 1)[1] for line in lines)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("argv", "shown"), [((), True), (("--no-progress",), False)])
def test_progress_is_on_where_stderr_is_a_terminal_unless_refused(argv: tuple[str, ...],
                                                                  shown: bool) -> None:
    err = Terminal()
    code = main(["run", "--component", "backends", "-k", "codex", *argv], io.StringIO(), err)
    assert code == 0
    assert err.getvalue().startswith("[1/") is shown, err.getvalue()


def test_usage_errors_exit_2_naming_the_value() -> None:
    code, _, err = run("--component", "nope")
    assert code == 2 and "invalid choice: 'nope'" in err
    for option, value in (("--time-scale", "0"), ("--time-scale", "nan"),
                          ("--adapter-timeout", "inf"), ("--adapter-timeout", "-1"),
                          ("--adapter-timeout", "1e300")):
        code, _, err = run(option, value)
        assert code == 2 and err.startswith("usage: agent-tck run ")
        assert err.endswith(f"agent-tck: error: argument {option}: must be a positive number "
                            f"of seconds up to 604800, got {value!r}\n")
    code, _, err = run("--time-scale", "fast")
    assert code == 2
    assert err.endswith("agent-tck: error: argument --time-scale: not a number: 'fast'\n")
    code, _, err = run("--impl", "python:no.such.module:X")
    assert code == 2 and "cannot load 'no.such.module:X'" in err


def test_every_component_folder_can_be_chosen_with_component() -> None:
    from agent_tck.kit.cli import build_parser
    from agent_tck.kit.paths import FEATURES
    from agent_tck.kit.run import COMPONENTS

    folders = {p.parent.name for p in FEATURES.glob("*/requirements.yaml")}
    assert set(COMPONENTS) == folders
    for component in COMPONENTS:
        assert build_parser().parse_args(["run", "--component", component]).component == [
            component]


def test_a_partial_run_says_what_it_judged_never_a_bare_conformant() -> None:
    code, out, _ = run("--component", "responses", "-k", "refusal")
    assert code == 0
    last = out.splitlines()[-1]
    assert last.startswith("PARTIAL: ") and "CONFORMANT" not in last, last
    judged = int(last.split()[1])
    assert 0 < judged < TOTAL and f"{judged} of {TOTAL} requirements judged, all passed" in last


class AgentOnly(InProcessDriver):
    """A correct implementation that declares only the agent component: it is never sent
    `parse_line`, a command of a component it did not declare."""

    def __init__(self) -> None:
        super().__init__()
        self.info = replace(self.info, components=("agent",))

    def parse_line(self, backend: str, line: str) -> list[dict[str, Any]]:
        raise AssertionError("parse_line was called, but `backends` was not declared")


def test_an_implementation_is_never_sent_a_command_of_a_component_it_did_not_declare() -> None:
    code, out, _ = run("--impl", "python:tests.test_cli_run:AgentOnly", "--component", "agent",
                       "-k", "simple_text_response")
    rows = {line.split()[0]: line.split()[2] for line in out.splitlines()[2:-1]}
    assert code == 0 and rows["RP-1.1"] == "passed", out


def test_a_selection_that_matches_nothing_judges_nothing_and_says_so() -> None:
    code, out, err = run("--component", "backends", "-k", "no_scenario_is_called_this")
    assert code == 2 and "matched no scenario that ran; nothing was judged" in err, out + err


def test_a_report_path_that_cannot_be_written_is_a_usage_error_before_the_run(
        tmp_path: Path) -> None:
    code, out, err = run("--component", "backends", "--json", str(tmp_path))
    assert (code, out) == (2, "")
    assert err.endswith(f"argument --json: {str(tmp_path)!r} is a directory, not a file to "
                        "write\n")
    missing = tmp_path / "nowhere" / "report.xml"
    code, _, err = run("--component", "backends", "--junit", str(missing))
    assert code == 2 and f"the directory {str(missing.parent)!r} does not exist" in err


def test_a_run_that_judged_nothing_is_not_a_pass() -> None:
    for argv in ((), ("--strict",)):
        code, out, _ = run("--impl", "python:tests.miniatures.agent:DeclaresNothing", *argv)
        assert code == 1
        assert out.splitlines()[-1] == (f"NOT CONFORMANT: nothing was judged "
                                        f"({TOTAL} not applicable)")


def test_a_run_whose_every_request_errored_is_not_a_pass() -> None:
    code, out, _ = run("--impl", f"{sys.executable} -m tests.miniatures.fake_adapter string-error "
                       "parse_line 1", "--component", "backends", "-k", "the_init_line")
    assert code == 1 and out.splitlines()[-1].startswith("PARTIAL: ")
    assert "NOT CONFORMANT, nothing was judged (1 errored" in out.splitlines()[-1]


def test_workers_give_the_report_of_one_process(tmp_path: Path) -> None:
    """Same verdicts, same scenarios in the same order, the same JSON apart from times; with
    scenarios that wait (the agent's), which the workers start first (kit/schedule.py)."""
    args = ("--component", "runner", "--component", "backends", "--component", "agent",
            "-k", "test_runner or test_backends or transcript")
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert run(*args, "--json", str(one))[0] == 0
    code, out, _ = run(*args, "-n", "2", "--json", str(two))
    assert code == 0, out
    assert timeless_report(two) == timeless_report(one)


def test_workers_fail_what_one_process_fails(tmp_path: Path) -> None:
    args = ("--impl", "python:tests.miniatures.agent:PromptAsArgument", "--component", "agent",
            "-k", "flag or stdin", "--strict")
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert run(*args, "--json", str(one))[0] == 1
    assert run(*args, "-n", "2", "--json", str(two))[0] == 1
    assert timeless_report(two) == timeless_report(one)
    assert "failed" in {s["verdict"] for s in timeless_report(one)["scenarios"]}


@pytest.mark.parametrize("bad", ["0", "65", "two", "-1"])
def test_a_bad_number_of_workers_is_a_usage_error_naming_it(bad: str) -> None:
    code, _, err = run("-n", bad)
    assert code == 2
    assert err.splitlines()[-1] == ("agent-tck: error: argument -n/--workers: expected a number "
                                    f"of workers from 1 to 64 or 'auto', got {bad!r}")


def test_req_runs_only_the_scenarios_of_matching_requirements(tmp_path: Path) -> None:
    import json

    report = tmp_path / "r.json"
    code, out, _ = run("--component", "runner", "--req", "RUN-SIG-*", "--json", str(report))
    assert code == 0, out
    reqs = {r for s in json.loads(report.read_text())["scenarios"] for r in s["reqs"]}
    assert reqs and all(r.startswith("RUN-SIG-") for r in reqs), reqs


def test_req_tells_pytest_what_it_left_out(capfd: pytest.CaptureFixture[str]) -> None:
    """`-v` shows pytest's own account: the scenarios `--req` left out are counted as
    deselected, not silently missing from the count collected."""
    code, _, _ = run("--component", "runner", "--req", "RUN-SIG-*", "-v")
    assert code == 0
    said = re.search(r"collected (\d+) items / (\d+) deselected / (\d+) selected",
                     capfd.readouterr().out)
    assert said is not None
    collected, deselected, selected = map(int, said.groups())
    assert deselected > 0 and collected == deselected + selected


def test_a_baseline_entry_that_passes_now_is_stale_and_fails_the_run(tmp_path: Path) -> None:
    """A baseline excuses failures; one that no longer fails is named, and the run fails
    until it is taken out (a fixed defect must not keep its excuse)."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("- {id: RP-5.1, reason: ignores working_dir}\n")
    code, out, _ = run("--component", "agent", "-k", RP5,
                       "--baseline", str(baseline))
    assert code == 1
    assert ("stale baseline entry: RP-5.1 is listed as an expected failure but passed"
            in out.splitlines())


def test_a_baseline_entry_the_run_did_not_judge_is_kept_not_stale(tmp_path: Path) -> None:
    """Only a pass shows an excused failure fixed: a run that left the requirement's
    scenarios out (-k, --req, or scenarios that cannot run on this machine) says nothing of
    it, and passes on what it judged."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("- {id: RP-5.1, reason: ignores working_dir}\n")
    code, out, _ = run("--component", "agent", "-k", "AG-M1", "--baseline", str(baseline))
    assert code == 0, out
    assert not [line for line in out.splitlines() if "stale" in line], out


def test_a_whole_runs_baseline_serves_a_run_of_one_component(tmp_path: Path) -> None:
    """The baseline a project keeps names requirements of every component; a run of one
    component (the CI recipes' `components`) takes the entries of its own and leaves the
    rest. An ID the kit does not know is still a usage error."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("- {id: RP-5.1, reason: ignores working_dir}\n")
    code, out, err = run("--component", "responses", "--baseline", str(baseline))
    assert code == 0, out + err
    assert out.splitlines()[-1] == (
        f"PARTIAL: {RESPONSES} of {TOTAL} requirements judged, all passed; the rest were not "
        "judged")
    baseline.write_text("- {id: RP-5.1, reason: ignores working_dir}\n"
                        "- {id: NO-SUCH.1, reason: r}\n")
    code, _, err = run("--component", "responses", "--baseline", str(baseline))
    assert code == 2
    assert err.splitlines()[-1] == (f"agent-tck: error: baseline {baseline}: entry 1: unknown "
                                    "requirement 'NO-SUCH.1'")


def test_a_written_baseline_lists_each_failure_and_excuses_exactly_it(tmp_path: Path) -> None:
    written = tmp_path / "baseline.yaml"
    argv = ("--impl", "python:tests.miniatures.agent:IgnoresWorkingDir", "--component", "agent",
            "-k", RP5)
    assert run(*argv, "--write-baseline", str(written))[0] == 1
    listed = yaml.safe_load(written.read_text())
    assert [entry["id"] for entry in listed] == ["RP-5.1"]
    # when, and the first line of what failed
    assert listed[0]["reason"].startswith(f"failed on {date.today().isoformat()}: AssertionError")
    assert run(*argv, "--baseline", str(written))[0] == 0


@pytest.mark.parametrize(("text", "workers"), [("1", 1), ("64", 64), ("auto", "auto")])
def test_every_number_of_workers_from_1_to_64_is_taken(text: str, workers: int | str) -> None:
    assert run_options.workers(text) == workers


def test_auto_is_four_workers_for_each_cpu_the_run_may_use_at_most_sixteen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def argv_for(cpus: int) -> list[str]:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)))
        args = argparse.Namespace(component=["runner"], impl="python", time_scale=0.02,
                                  workers="auto", keyword=None)
        argv = run_options.pytest_args(args)
        return argv[argv.index("-n"):argv.index("-n") + 2]

    assert [argv_for(n) for n in (1, 2, 4, 5)] == [["-n", "4"], ["-n", "8"], ["-n", "16"],
                                                    ["-n", "16"]]


def test_auto_counts_every_cpu_where_the_system_says_not_which_a_process_may_use(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS has no sched_getaffinity: `-n auto` counts the CPUs, never a traceback."""
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    args = argparse.Namespace(component=["runner"], impl="python", time_scale=0.02,
                              workers="auto", keyword=None)
    argv = run_options.pytest_args(args)
    assert argv[argv.index("-n") + 1] == "12"


def test_only_a_verbose_run_prints_pytests_own_report(capfd: pytest.CaptureFixture[str]) -> None:
    argv = ("--component", "backends", "-k", "codex")
    run(*argv)
    assert "PASSED" not in capfd.readouterr().out
    run(*argv, "-v")
    assert "PASSED" in capfd.readouterr().out


def test_the_runs_for_a_backend_the_implementation_does_not_declare_are_not_applicable(
        tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ("--impl", "python:tests.miniatures.agent:ClaudeOnly", "--component", "agent",
            "-k", "subprocess_runs_in_configured_working_directory", "--json", str(report))
    assert run(*argv)[0] == 0
    scenarios = json.loads(report.read_text())["scenarios"]
    assert [s["evidence"] for s in scenarios if s["verdict"] == "not applicable"] == [
        "not applicable: backend 'codex' not declared",
        "not applicable: backend 'gemini' not declared"]  # why, in the report
    verdicts = {s["name"]: s["verdict"] for s in scenarios}
    assert verdicts == {
        "test_subprocess_runs_in_configured_working_directory[claude]": "passed",
        "test_subprocess_runs_in_configured_working_directory[codex]": "not applicable",
        "test_subprocess_runs_in_configured_working_directory[gemini]": "not applicable"}


def test_a_scenario_of_a_one_backend_requirement_runs_for_that_backend(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A requirement's `backends` decide whom its scenarios run for, whatever backend their
    steps name, also when it lists one: a requirement made codex-only in requirements.yaml
    runs its "claude" scenario for codex, not applicable to an implementation of claude."""
    reqs = dict(registry.load())
    reqs["RP-5.1"] = replace(reqs["RP-5.1"], backends=("codex",))
    monkeypatch.setattr(plugin, "_requirements", lambda: reqs)
    report = tmp_path / "report.json"
    code, out, _ = run("--impl", "python:tests.miniatures.agent:ClaudeOnly", "--component",
                       "agent", "-k", "subprocess_runs_in_configured_working_directory",
                       "--json", str(report))
    assert code == 1 and "nothing was judged (1 not applicable" in out.splitlines()[-1]
    assert [(s["name"], s["verdict"], s["evidence"])
            for s in json.loads(report.read_text())["scenarios"]] == [
        ("test_subprocess_runs_in_configured_working_directory", "not applicable",
         "not applicable: backend 'codex' not declared")]


def test_short_evidence_is_kept_whole(tmp_path: Path) -> None:
    """Long evidence keeps its start and its end; evidence shorter than that is never cut."""
    report = tmp_path / "report.json"
    run("--impl", "python:tests.miniatures.agent:IgnoresWorkingDir", "--component", "agent",
        "-k", RP5, "--json", str(report))
    evidence = [s["evidence"] for s in json.loads(report.read_text())["scenarios"]
                if s["verdict"] == "failed"]
    assert evidence and all(0 < len(e) < 5000 and "characters cut" not in e for e in evidence)


def test_a_suite_that_cannot_run_is_exit_2_and_says_so() -> None:
    code, _, err = run("--component", "backends", "-m", "(")  # pytest refuses the expression
    assert code == 2
    assert err.splitlines()[-1] == "agent-tck: error: the suite could not run (pytest exit code 4)"


def test_a_run_leaves_the_environment_as_it_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process driver lends the agent the variables every implementation inherits
    (API keys, a nesting variable); the run closes each driver it started, which takes them
    back: a caller's own process keeps its environment."""
    from agent_tck.kit.drivers.base import INHERITED_ENV

    for name in INHERITED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # pytest's own, which the nested run clears
    before = dict(os.environ)
    assert run("--component", "backends", "-k", "codex")[0] == 0
    assert dict(os.environ) == before


def test_a_run_gives_back_the_signal_handlers_it_borrowed() -> None:
    """A run takes SIGTERM and SIGINT for its own (tests/test_stdio_driver.py sends one);
    afterwards the caller's handlers are back."""
    import signal

    def own(_signum: int, _frame: object) -> None:
        """The caller's."""

    previous = {sig: signal.signal(sig, own) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        assert run("--component", "backends", "-k", "codex")[0] == 0
        assert [signal.getsignal(sig) for sig in previous] == [own, own]
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_a_run_started_off_the_main_thread_leaves_signals_alone() -> None:
    """Only the main thread may set a signal handler: a caller that runs the suite from a
    thread of its own gets its verdicts, without the SIGTERM handling of a command line."""
    import signal
    import threading

    before = [signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)]
    done: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: done.append(run("--component", "backends", "-k",
                                                             "codex")), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive() and [code for code, _, _ in done] == [0], done
    assert [signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)] == before


def test_a_signal_the_caller_ignores_stays_ignored_during_a_run() -> None:
    """A shell starts a background job with SIGINT ignored: a Ctrl-C meant for the shell's
    foreground job must not interrupt it."""
    import signal

    from agent_tck.kit.run import _interrupts

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _interrupts() as heard:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_IGN, signal.SIG_DFL)
            signal.raise_signal(signal.SIGINT)
        assert heard == []
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_second_signal_while_the_run_stops_lets_the_stop_go_on() -> None:
    """The first SIGTERM (or Ctrl-C) interrupts the run; one more, heard while pytest tears
    down (the driver stopping the adapter and what it started), is noted and raises nothing:
    raised there, it would break the teardown off and end in a traceback. (SIGTERM both
    times: a pytest-xdist worker ignores SIGINT, which then stays ignored.)"""
    import signal

    from agent_tck.kit.run import _interrupts

    stopped = False
    with _interrupts() as heard:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGTERM)  # in the teardown
        stopped = True
    assert stopped and heard == ["SIGTERM", "SIGTERM"]


def test_a_scenario_of_one_backend_runs_once_under_its_own_name(tmp_path: Path) -> None:
    """A run per backend is named by its backend; a scenario written for one backend runs
    once, and keeps its name in every report (a CI viewer tracks a test by it)."""
    report = tmp_path / "report.json"
    assert run("--component", "agent", "--req", "RP-1.1", "--req", "AG-GM.1", "--json",
               str(report))[0] == 0
    ran = [s["name"] for s in json.loads(report.read_text())["scenarios"]
           if s["verdict"] != "not run"]
    assert ran == ["test_simple_text_response_from_claude_backend",
                   "test_simple_text_response_from_the_gemini_backend"]


def test_a_failure_reads_as_the_spec_in_full_and_pytest_says_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The requirement, the scenario, the failed step with its docstring (the expected argv),
    and both values whole; no pytest progress, traceback through the kit, repr or "-v" hint
    (they come with --debug)."""
    code, out, _ = run("--impl", "python:tests.miniatures.runner:NoPermissionMode",
                       "--req", "RUN-CMD-1")
    assert code == 1
    told = out[out.index("\nFAILED RUN-CMD-1 (MUST): "):]
    assert "  Scenario: " in told and "(features/runner/004_claude_runner.feature:" in told
    assert '    Then the harness was started as "claude" with the arguments:\n' in told
    assert '"-p", "-", "--permission-mode", "acceptEdits"]' in told  # the docstring
    assert "'-p', '-']" in told and "'-p', '-', '--permission-mode', 'acceptEdits']" in told
    for noise in ("Traceback", "_pytest", "object at 0x", "Use -v", "-vv", "..."):
        assert noise not in told, noise
    assert capsys.readouterr().out == ""


def test_a_table_shows_what_was_judged(tmp_path: Path) -> None:
    """Components not declared are a line each, listed with --all; a selection's left-out
    requirements too; the last column says passed of run."""
    impl = "python:tests.miniatures.runner:RunnerOnlyAlwaysNone"
    _, out, _ = run("--impl", impl, "--req", "RUN-SIG-1", "--req", "RUN-SIG-4")
    lines = out.splitlines()
    assert lines[:4] == ["requirement  level  verdict  passed/run",
                         "-----------  -----  -------  ----------",
                         "RUN-SIG-1    MUST   failed   0/1", "RUN-SIG-4    MUST   passed   2/2"]
    assert lines[4] == f"{TOTAL - 2} requirements not run: the selection left their scenarios " \
        "out (--all lists them)"
    _, out, _ = run("--impl", impl)
    collapsed = [line for line in out.splitlines() if "requirements not applicable" in line]
    counts = {c: sum(r.component == c for r in registry.load().values())
              for c in registry.COMPONENTS}
    assert collapsed == [f"{c}: {n} requirements not applicable (--all lists them)"
                         for c, n in sorted(counts.items()) if c != "runner"]
    _, out, _ = run("--impl", impl, "--all")
    assert not [line for line in out.splitlines() if "requirements not applicable" in line]


def test_k_selects_by_what_the_spec_says_never_by_a_mark(tmp_path: Path) -> None:
    """The runner's suite module has a timeout mark, which pytest's own -k would match for
    `-k timeout` in every runner scenario. A requirement ID selects its scenarios."""
    report = tmp_path / "r.json"
    run("--component", "runner", "-k", "timeout", "--json", str(report))
    ran = [s for s in json.loads(report.read_text())["scenarios"] if s["verdict"] != "not run"]
    assert ran and all("timeout" in f"{s['title']} {s['name']}".lower() for s in ran), ran
    run("--component", "runner", "-k", "RUN-SIG-4", "--json", str(report))
    ran = [s for s in json.loads(report.read_text())["scenarios"] if s["verdict"] != "not run"]
    assert ran and {r for s in ran for r in s["reqs"]} == {"RUN-SIG-4"}

