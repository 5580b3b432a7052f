"""The mutation tool (`python -m mutation`, docs/mutation.md): which mutants it makes, which
scenarios judge each, how it classifies what it sees, and a mutant judged for real."""

from __future__ import annotations

import dataclasses
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

pytest.importorskip("cosmic_ray")

from cosmic_ray.mutating import mutate_code
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import MutationSpec, WorkerOutcome, WorkItem, WorkResult
from cosmic_ray.work_item import TestOutcome as Outcome  # not a test class

from agent_tck.kit import observe
from mutation import equivalents, kit, operators, plan, report, scenarios, session, workers
from mutation import listed as listed_as
from mutation.__main__ import main, to_judge
from mutation.plan import Planner
from mutation.scenarios import ROOT
from mutation.workers import Worker, make_copy

operators.register()


def _mutants(source: str, operator: object) -> list[str]:
    found, occurrence = [], 0
    while (code := mutate_code(source, operator, occurrence)) is not None:
        found.append(code)
        occurrence += 1
    return found


def test_a_call_statement_is_deleted_and_nothing_else_is() -> None:
    source = ("def f(p):\n    p.kill()\n    x = g()\n    if x:\n        os.close(3)\n"
              "    return h(x)\n")
    assert _mutants(source, operators.DeleteCall()) == [
        source.replace("p.kill()", "pass"), source.replace("os.close(3)", "pass")]


EVERY_KIND = '''\
@decorated
def f(p, *, q=1):
    if p < 2 and not q or p >= -3 and p <= 4 or p > 5 or p == 6:
        p.kill()
    while p != 0 and q is not None:
        p = p - 1 * 4 // 2 + 3 / 2 % 5 | 8 & 9
        break
    for x in p:
        continue
    try:
        return q is None or True
    except (OSError, ValueError):
        return False
'''


def test_each_mutant_made_from_one_parse_is_cosmic_rays_own(tmp_path: Path) -> None:
    """mutation/workers.py applies each mutant to a copy of one parse tree: as cosmic-ray's own
    `mutate_code` does, for every operator kept and every construct they touch."""
    from cosmic_ray.plugins import operator_names

    path = tmp_path / "every_kind.py"
    path.write_text(EVERY_KIND)
    made = equivalents._all_mutants(path, EVERY_KIND, ("every kind",))
    assert {m.operator_name for m in made} == set(operator_names()), made
    for mutation in made:
        operator = get_operator(mutation.operator_name)(**mutation.operator_args)
        assert workers._mutated(EVERY_KIND, mutation) == mutate_code(
            EVERY_KIND, operator, mutation.occurrence), mutation


def test_only_the_operators_that_model_a_defect_are_kept() -> None:
    assert operators.kept("core/AddNot")
    assert operators.kept("core/ReplaceComparisonOperator_Lt_LtE")
    assert operators.kept("agent-tck/DeleteCall")
    assert not operators.kept("core/ReplaceBinaryOperator_Add_Pow")
    assert not operators.kept("core/ReplaceComparisonOperator_Eq_Lt")
    assert not operators.kept("core/VariableReplacer")


def test_mutants_inside_annotations_are_skipped(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("def f(a: int | None = 1) -> str | None:\n    return a | 2\n")
    assert session.create(tmp_path / "s.sqlite", [Path("m.py")]) == 5
    with use_db(str(tmp_path / "s.sqlite"), WorkDB.Mode.open) as db:
        skipped = [item.mutations[0] for item, result in db.completed_work_items
                   if result.worker_outcome == WorkerOutcome.SKIPPED]
        pending = [item.mutations[0] for item in db.pending_work_items]
    assert {m.operator_name for m in skipped} == {"core/ReplaceBinaryOperator_BitOr_BitAnd"}
    assert [m.start_pos[1] for m in skipped] == [13, 32]  # `int | None`, `str | None`
    assert sorted(m.operator_name for m in pending) == [
        *["core/NumberReplacer"] * 4,  # the default 1 and the 2, each one up and one down
        "core/ReplaceBinaryOperator_BitOr_BitAnd"]  # `a | 2`


def test_the_marker_of_keyword_only_parameters_is_no_multiplication(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("def f(a, *, b=x * y):\n    return a *b, [*a, *b]\n")
    session.create(tmp_path / "s.sqlite", [Path("m.py")])
    with use_db(str(tmp_path / "s.sqlite"), WorkDB.Mode.open) as db:
        skipped = [(item.mutations[0].start_pos, result.output)
                   for item, result in db.completed_work_items
                   if result.worker_outcome == WorkerOutcome.SKIPPED]
        pending = [item.mutations[0] for item in db.pending_work_items]
    assert skipped == [((1, 9), "the marker of keyword-only parameters")]
    assert sorted(m.start_pos for m in pending
                  if m.operator_name == "core/ReplaceBinaryOperator_Mul_Div") == [(1, 16), (2, 13)]


def test_survivors_are_judged_again_on_demand(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --survivors`, after a new scenario or test: the survivors with what is pending,
    never what was caught or skipped."""
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("x = 1\ny = 2\nz = 3\n")
    session.create(tmp_path / "s.sqlite", [Path("m.py")])
    with use_db(str(tmp_path / "s.sqlite"), WorkDB.Mode.open) as db:
        first, second, *rest = list(db.pending_work_items)
        db.set_result(first.job_id, _result(Outcome.SURVIVED, [], code=0))
        db.set_result(second.job_id, _result(Outcome.KILLED, [["A", "MUST", "failed"]]))
        ids = {item.job_id for item in rest}
        assert {i.job_id for i in to_judge(db, set(), survivors=False)} == ids
        assert {i.job_id for i in to_judge(db, set(), True)} == {first.job_id, *ids}
        assert to_judge(db, {"other.py"}, True) == []


def test_a_session_can_be_mapped_by_the_components_that_judge_its_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`init --component pipeline`: only the pipeline's scenarios are mapped (a minute, not
    the 25 of every component's), and only they judge its mutants."""
    mapped: list[list[str]] = []

    def mapping(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        mapped.append(command[2:])
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.chdir(tmp_path)  # init works from the checkout; the test's folder comes back
    monkeypatch.setattr("mutation.__main__.subprocess.run", mapping)
    folder = tmp_path / "session"
    assert main(["--session", str(folder), "init", "--component", "pipeline",
                 str(ROOT / "reference/pipeline/slug.py")]) == 0
    assert mapped == [["mutation.scenarios", "pipeline", str(folder / "pipeline.json")]]
    with pytest.raises(SystemExit):
        main(["--session", str(folder), "init", "--component", "real-cli"])


MAPS = {
    "agent": {"files": {"reference/a.py": {"1": [""], "5": ["test_x"], "6": ["test_x", "test_y"],
                                          "9": [""], "10": ["test_z"]}},
              "spawned": {"reference/reaper.py": {"3": ["test_y"]}}},
    "transport": {"files": {}, "spawned": {"reference/dds/s.py": {"4": ["test_t"]}}},
}


def _spec(where: str, start: int, end: int | None = None) -> MutationSpec:
    return MutationSpec(where, "core/AddNot", 0, (start, 0), (end or start, 9))


@pytest.fixture
def planner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Planner:
    monkeypatch.setattr("mutation.plan.COMPONENTS", ("agent", "transport"))
    for where in ("reference/a.py", "reference/reaper.py", "reference/dds/s.py"):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / where).write_text("x = 1\n" * 9 + "y = f(\n    2)\n")
    return Planner(MAPS, root=tmp_path)


def test_a_mutant_is_judged_by_the_scenarios_that_run_its_lines(planner: Planner) -> None:
    assert planner.plan(_spec("reference/a.py", 5)).tries == (
        ("--component", "agent", "-k", "test_x"),)
    assert planner.plan(_spec("reference/a.py", 5, 6)).tries == (
        ("--component", "agent", "-k", "test_x or test_y"),)
    assert planner.plan(_spec("reference/reaper.py", 3)).tries == (  # and then its own tests
        ("--component", "agent", "-k", "test_y"),
        ("--tests", "tests/test_reaper.py", "tests/test_fallback.py"))


def test_a_line_inside_a_statement_counts_as_the_statements_first(planner: Planner) -> None:
    # coverage records `y = f(\n    2)` by its first line only
    assert planner.plan(_spec("reference/a.py", 11)).tries == (
        ("--component", "agent", "-k", "test_z"),)


def test_an_import_time_line_gets_the_files_scenarios_then_the_whole_component(
        planner: Planner) -> None:
    assert planner.plan(_spec("reference/a.py", 9)).tries == (
        ("--component", "agent", "-k", "test_x or test_y or test_z"), ("--component", "agent"))


def test_a_file_of_constants_is_judged_by_every_component_that_imports_it(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """reference/status.py runs no line in any scenario, only at import: its constants change
    the answers of every component that imports it, so each one judges them whole."""
    maps = {"agent": {"files": {"reference/a.py": {"1": [""], "2": [""]}}},
            "transport": {"files": {}, "spawned": {"reference/a.py": {"1": [""]}}}}
    monkeypatch.setattr(planner, "maps", maps)
    assert planner.plan(_spec("reference/a.py", 2)).tries == (
        ("--component", "agent", "--component", "transport"),)


def test_a_served_agents_line_is_judged_again_whole_when_it_survives(planner: Planner) -> None:
    assert planner.plan(_spec("reference/dds/s.py", 4)).tries == (
        ("--component", "transport", "-k", "test_t"), ("--component", "transport"))


def test_a_line_no_scenario_runs_is_not_judged(planner: Planner) -> None:
    assert planner.plan(_spec("reference/a.py", 7)).tries == ()
    assert planner.components("reference/nowhere.py") == ()


def _traced(tmp_path: Path, context: str, script: Path, *args: str) -> dict[str, list[str]]:
    """The lines of `script` the map gets from running it as the reaper, traced."""
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run([sys.executable, "-I", "-S", str(scenarios.COVER_REAPER), str(data), context,
                    str(script), *args], check=False, timeout=60)
    return scenarios.with_reapers({}, data, root=tmp_path).get(script.name, {})


@pytest.mark.parametrize("ending", ["os.kill(os.getpid(), signal.SIGTERM)", "os._exit(3)",
                                    "raise SystemExit(0)"])
def test_a_reaper_that_ends_by_a_signal_keeps_its_lines_in_the_map(tmp_path: Path,
                                                                  ending: str) -> None:
    """The reaper re-raises the signal that killed its CLI: `coverage run` saved nothing then."""
    script = tmp_path / "reaper.py"
    script.write_text(f"import os, signal, sys\nassert sys.argv[1:] == ['7', 'cli']\n{ending}\n"
                      "after = 'not run'\n")
    lines = _traced(tmp_path, "test_timeout", script, "7", "cli")
    assert lines == {"1": ["test_timeout"], "2": ["test_timeout"], "3": ["test_timeout"]}


@pytest.mark.parametrize("execs", ["os.execv(sys.executable, [sys.executable, '-c', 'pass'])",
                                   "os.execlp(sys.executable, sys.executable, '-c', 'pass')",
                                   "os.execve(sys.executable, [sys.executable], {})"])
def test_the_lines_a_forked_child_runs_before_its_exec_are_in_the_map(tmp_path: Path,
                                                                       execs: str) -> None:
    """The reaper's child sets the CLI's signal mask and process group, then execs the CLI: an
    exec that works saved nothing, and those lines were mapped to the scenarios whose CLI
    cannot start."""
    script = tmp_path / "reaper.py"
    script.write_text("import os, sys\n"
                      "pid = os.fork()\n"
                      "if pid == 0:\n"
                      "    child = 'ran'\n"
                      f"    {execs}\n"
                      "os.waitpid(pid, 0)\n")
    lines = _traced(tmp_path, "test_start", script)
    assert lines.get("4") == ["test_start"] and lines.get("6") == ["test_start"], lines


def test_the_map_gets_a_reapers_lines_once_each_beside_what_coverage_measured(
        tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    for pid, context, lines in ((1, "test_a", [2, 3]), (2, "test_b", [3]), (3, "test_a", [3])):
        (tmp_path / "data" / f"reaper.{pid}.json").write_text(json.dumps(
            {"context": context, "file": str(tmp_path / "r.py"), "lines": lines}))
    measured = {"r.py": {"3": ["test_c"]}, "s.py": {"1": ["test_c"]}}
    assert scenarios.with_reapers(measured, tmp_path / "data", root=tmp_path) == {
        "r.py": {"2": ["test_a"], "3": ["test_a", "test_b", "test_c"]}, "s.py": {"1": ["test_c"]}}
    assert measured == {"r.py": {"3": ["test_c"]}, "s.py": {"1": ["test_c"]}}


def test_a_kit_mutant_is_judged_by_the_tests_that_run_its_lines(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kit's judging code is judged by the project's tests (mutation.kit), a line run at
    import by all of them, a line none runs by none."""
    (planner.root / "kit").mkdir()
    (planner.root / "kit/v.py").write_text("x = 1\n" * 9)
    tests = {"files": {"kit/v.py": {"1": [""], "2": ["t.py::a", "t.py::b"], "3": ["t.py::b"],
                                    "5": ["t.py::a", "u.py", "u.py::c"]}}}
    monkeypatch.setitem(planner.maps, "tests", tests)
    assert planner.plan(_spec("kit/v.py", 2, 3)).tries == (("--tests", "t.py::a", "t.py::b"),)
    # run by the fixtures of u.py's tests: the module whole
    assert planner.plan(_spec("kit/v.py", 5)).tries == (("--tests", "t.py::a", "u.py"),)
    assert planner.plan(_spec("kit/v.py", 1)).tries == (("--tests", *kit.JUDGING_TESTS),)
    assert planner.plan(_spec("kit/v.py", 4)).tries == ()
    assert planner.components("kit/v.py") == ("tests",)


def test_what_no_scenario_can_reach_is_judged_by_the_project_tests_that_run_it(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/mutation.md, What no scenario can reach: in a file listed out of the suite's
    reach, a line is judged by the project's tests that run it, then by every test of its
    file (a test may run the line in a process it starts, which the map does not measure),
    after the scenarios that run it if any. Elsewhere a line no scenario runs is judged by
    nothing (`nothing runs it`)."""
    monkeypatch.setitem(kit.OUT_OF_REACH, "reference/a.py", ("tests/test_a.py",))
    monkeypatch.setitem(planner.maps, "tests", {"files": {"reference/a.py": {
        "1": [""], "2": ["tests/test_a.py::t"], "5": ["tests/test_a.py::u"]}}})
    whole = ("--tests", "tests/test_a.py")  # after the tests that run it, all of the file's
    assert planner.plan(_spec("reference/a.py", 2)).tries == (
        ("--tests", "tests/test_a.py::t"), whole)
    assert planner.plan(_spec("reference/a.py", 5)).tries == (  # a scenario runs it, and a test
        ("--component", "agent", "-k", "test_x"), ("--tests", "tests/test_a.py::u"), whole)
    assert planner.plan(_spec("reference/a.py", 6)).tries == (  # no test runs it in-process
        ("--component", "agent", "-k", "test_x or test_y"), ("--tests", "tests/test_a.py"))
    assert planner.plan(_spec("reference/a.py", 3)).tries == (  # nothing measured runs it
        ("--tests", "tests/test_a.py"),)
    assert planner.components("reference/a.py") == ("agent", "tests")
    # a file no scenario runs at all: its import-time lines too go to its tests
    monkeypatch.setitem(kit.OUT_OF_REACH, "reference/reaper.py", ("tests/test_r.py",))
    monkeypatch.setitem(planner.maps, "agent", {"files": {"reference/reaper.py": {"1": [""]}}})
    monkeypatch.setitem(planner.maps, "tests", {"files": {"reference/reaper.py": {"1": [""]}}})
    assert planner.plan(_spec("reference/reaper.py", 1)).tries == (("--tests", "tests/test_r.py"),)


def test_the_adapters_stdio_loop_is_judged_by_the_conformance_run_through_it(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process driver calls the adapter's handlers (judged by the scenarios that run
    them); its stdio loop runs only with the adapter as the implementation under test: every
    scenario of the components it serves, through the adapter started from the worker's copy
    (so it imports the mutant)."""
    (planner.root / plan.ADAPTER).write_text(
        "x = 1\nx = 2\nx = 3\ndef serve():\n    return 0\n\n\n"
        "if __name__ == '__main__':\n    serve()\n")
    monkeypatch.setitem(planner.maps, "agent", {"files": {plan.ADAPTER: {"2": ["test_x"]}}})
    unit = ("--tests", "tests/test_adapter_unit.py")  # every test of the adapter
    assert planner.plan(_spec(plan.ADAPTER, 2)).tries == (
        ("--component", "agent", "-k", "test_x"), unit)
    assert planner.plan(_spec(plan.ADAPTER, 3)).tries == (unit,)  # a handler's line none runs
    assert planner.plan(_spec(plan.ADAPTER, 9)).tries == planner.plan(_spec(plan.ADAPTER, 5)).tries
    tries, tests = planner.plan(_spec(plan.ADAPTER, 5)).tries
    assert tests == unit
    assert tries[:-1] == ("--component", "agent", "--component", "backends", "--component",
                          "responses", "--component", "runner", "--impl")
    assert shlex.split(tries[-1]) == [sys.executable, "-m", "agent_tck.reference.adapter"]
    # what the suite never sends nor checks (a line that is no request, the answer to `stop`,
    # which the last scenario's teardown runs, the exit code) is judged by the adapter's own
    # tests after the run through it, or after the scenarios that run it
    monkeypatch.setitem(planner.maps, "tests", {"files": {plan.ADAPTER: {
        "2": ["tests/test_adapter_unit.py::test_stop"],
        "5": ["tests/test_adapter_unit.py::test_eof"]}}})
    assert planner.plan(_spec(plan.ADAPTER, 5)).tries == (
        tries, ("--tests", "tests/test_adapter_unit.py::test_eof"), unit)
    assert planner.plan(_spec(plan.ADAPTER, 2)).tries == (
        ("--component", "agent", "-k", "test_x"),
        ("--tests", "tests/test_adapter_unit.py::test_stop"), unit)


def test_a_file_with_some_lines_out_of_reach_gives_its_tests_only_the_lines_no_scenario_runs(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's recovery from an interrupt of its own code is judged by its unit tests;
    a line some scenario runs is judged by the scenarios alone, so the tests cannot hide
    what the conformance run misses."""
    where = "reference/agent.py"
    assert where in kit.UNRUN_ONLY and kit.OUT_OF_REACH[where] == ("tests/test_agent_unit.py",)
    (planner.root / where).parent.mkdir(parents=True, exist_ok=True)
    (planner.root / where).write_text("x = 1\nx = 2\n")
    monkeypatch.setitem(planner.maps, "agent", {"files": {where: {"1": ["test_x"]}}})
    monkeypatch.setitem(planner.maps, "tests", {"files": {where: {
        "1": ["tests/test_agent_unit.py::t"], "2": ["tests/test_agent_unit.py::u"]}}})
    assert planner.plan(_spec(where, 1)).tries == (("--component", "agent", "-k", "test_x"),)
    assert planner.plan(_spec(where, 2)).tries == (
        ("--tests", "tests/test_agent_unit.py::u"), ("--tests", "tests/test_agent_unit.py"))


def test_a_survivor_of_the_scenarios_on_a_supervisor_line_is_judged_on_an_old_kernel(
        planner: Planner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The supervisor's line that runs in every scenario may hold a path only an old kernel
    takes: after the scenarios, the conformance run on an old kernel judges it; its own tests
    judge only the lines no scenario runs, as for any file of UNRUN_ONLY."""
    where = "reference/supervisor.py"
    assert where in kit.UNRUN_ONLY
    (planner.root / where).parent.mkdir(parents=True, exist_ok=True)
    (planner.root / where).write_text("x = 1\nx = 2\n")
    monkeypatch.setitem(planner.maps, "agent", {"files": {where: {"1": ["test_x"]}}})
    monkeypatch.setitem(planner.maps, "tests", {"files": {where: {
        "2": ["tests/test_supervisor.py::u"]}}})
    assert planner.plan(_spec(where, 1)).tries == (
        ("--component", "agent", "-k", "test_x"), ("--tests", "tests/test_fallback.py"))
    assert planner.plan(_spec(where, 2)).tries == (
        ("--tests", "tests/test_supervisor.py::u"),
        ("--tests", "tests/test_supervisor.py", "tests/test_fallback.py"))


def test_the_tests_of_files_judged_by_tests_are_theirs_once_each() -> None:
    assert kit.tests_of(["kit/verdicts.py", "kit/run.py"]) == kit.JUDGING_TESTS
    assert kit.tests_of(["reference/dds/client.py", "reference/dds/cli.py"]) == (
        "tests/test_dds_cli.py", "tests/test_dds_inprocess.py")
    assert kit.tests_of(["reference/responses.py"]) == ()
    for tests in kit.OUT_OF_REACH.values():  # each names tests that exist
        assert all((ROOT / t).is_file() for t in tests), tests


def test_a_session_of_reference_files_some_out_of_reach_maps_their_tests_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mapped: list[list[str]] = []

    def mapping(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        mapped.append(command[2:])
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("mutation.__main__.subprocess.run", mapping)
    folder = tmp_path / "session"
    assert main(["--session", str(folder), "init", "--component", "transport",
                 str(ROOT / "reference/dds/cli.py"), str(ROOT / "reference/dds/types.py")]) == 0
    assert mapped == [["mutation.scenarios", "transport", str(folder / "transport.json")],
                      ["mutation.kit", "map", str(folder / "tests.json"), "reference/dds/cli.py"]]
    for name in ("transport", "tests"):
        (folder / f"{name}.json").write_text('{"files": {}}')
    assert not report.is_kit(folder)  # a reference session, judged by tests in part
    (folder / "transport.json").unlink()
    assert report.is_kit(folder)


def test_a_requirement_the_reference_no_longer_answers_for_is_one_it_fails() -> None:
    """A mutant that drops a component from what the adapter declares makes its scenarios
    not applicable: the reference declares everything, so that is no pass."""
    from agent_tck.kit import verdicts
    from mutation.judge import Judging

    judging = Judging(["--component", "responses"])
    req = next(r for r in judging.reqs.values() if r.component == "responses")
    judging.collector.results["n1"] = verdicts.ScenarioResult(
        "n1", "test_n1", "responses", (req.id,), verdicts.NA)
    record = judging.record(0)
    assert (record["code"], record["failed"]) == (1, [[req.id, req.level, verdicts.NA]])
    judging.collector.results["n1"].verdict = verdicts.PASSED
    assert judging.record(0)["code"] == 0
    # through an adapter, some requirements are not applicable unmutated: no kill then
    through = Judging(["--component", "responses", "--impl", "python -m some.adapter"])
    through.collector.results["n1"] = verdicts.ScenarioResult(
        "n1", "test_n1", "responses", (req.id,), verdicts.NA)
    assert through.record(0)["code"] == 0


def test_the_report_names_the_init_that_makes_its_session(tmp_path: Path) -> None:
    """A session of one component's files says so, so that its figures are read as that."""
    (tmp_path / "agent.json").write_text("{}")
    assert report._init_command(tmp_path, ["reference/agent.py", "reference/reaper.py"]) == (
        "python -m mutation init --component agent reference/agent.py reference/reaper.py")
    for component in plan.COMPONENTS:
        (tmp_path / f"{component}.json").write_text("{}")
    every = sorted(str(f.relative_to(ROOT)) for f in (ROOT / "reference").rglob("*.py"))
    assert report._init_command(tmp_path, every) == "python -m mutation init"
    # the files are those init was given (noted in the session), not those with mutants
    (tmp_path / "files.txt").write_text("".join(f"{f}\n" for f in every))
    assert report._files(tmp_path, []) == every


def _result(outcome: Outcome, failed: list[list[str]], code: object = 1) -> WorkResult:
    return WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=outcome,
                      output=json.dumps({"code": code, "failed": failed}),
                      diff="--- a/x\n+++ b/x\n@@ -3 +3 @@\n-    if a:\n+    if not a:\n")


ITEM = WorkItem.single("job", _spec("reference/a.py", 3))


@pytest.mark.parametrize(("result", "outcome"), [
    (_result(Outcome.KILLED, [["AG-1", "SHOULD", "failed"], ["AG-2", "MUST", "errored"]]),
     "must"),
    (_result(Outcome.KILLED, [["AG-1", "SHOULD", "failed"]]), "should"),
    (_result(Outcome.KILLED, [["tests/t.py::test_a", "TEST", "failed"]]), "test"),
    (_result(Outcome.KILLED, [], code="timeout"), "broke"),
    (_result(Outcome.SURVIVED, [], code=0), "survived"),
    (WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=Outcome.SURVIVED,
                output=report.unexecuted(), diff=_result(Outcome.SURVIVED, []).diff),
     "unexecuted"),
])
def test_each_outcome_is_told_apart(result: WorkResult, outcome: str) -> None:
    mutant = report.classify(ITEM, result, [])
    assert mutant is not None and mutant.outcome == outcome
    assert (mutant.was, mutant.becomes) == ("if a:", "if not a:")


def test_the_report_says_how_long_the_judges_took() -> None:
    timed = [report.classify(ITEM, attrs.evolve(
        _result(Outcome.KILLED, [["AG-1", "MUST", "failed"]]),
        output=json.dumps({"code": 1, "failed": [["AG-1", "MUST", "failed"]], "seconds": s})), [])
        for s in (30.0, 90.0)]
    untimed = report.classify(ITEM, _result(Outcome.SURVIVED, [], code=0), [])
    assert [m.seconds for m in timed if m] == [30.0, 90.0] and untimed and untimed.seconds is None
    assert report.timed([m for m in (*timed, untimed) if m]) == [
        "The judges took 2 minutes for 2 of them (60.0 s a mutant; `run --jobs N` judges N at"
        " a time)."]
    assert report.timed([untimed]) == []
    page = report.render([m for m in (*timed, untimed) if m], Path("no-session"))
    assert "The judges took" not in page and "Measured with `" in page  # no day, no timing


def test_the_report_lists_what_only_shoulds_caught_where_a_should_cites_a_seed() -> None:
    """A mutant no MUST caught, caught by a SHOULD that cites a seed document, may change what
    the seeds require: the report lists it. One caught by a MUST, or by SHOULDs that cite
    decisions alone, is not listed."""
    from agent_tck.kit.registry import Requirement

    reqs = {"EH-1": Requirement("EH-1", "MUST", "t", "features/agent/spec/001_x.txt", "agent"),
            "AG-1": Requirement("AG-1", "SHOULD", "t", "features/agent/spec/001_x.txt; D-4",
                                "agent"),
            "AG-2": Requirement("AG-2", "SHOULD", "t", "docs/decisions.md D-4", "agent")}

    def mutant(outcome: str, *failed: str) -> report.Mutant:
        return report.Mutant("reference/a.py", 3, "AddNot", "if a:", "if not a:", outcome,
                             failed)

    assert report.seed_cited([mutant("should", "AG-2 SHOULD", "AG-1 SHOULD")], reqs) == [
        "- `reference/a.py` line 3, AddNot: `if a:` -> `if not a:` (AG-1)"]
    assert report.seed_cited([mutant("should", "AG-2 SHOULD"), mutant("must", "EH-1 MUST"),
                              mutant("survived")], reqs) == ["None."]


def test_a_mutant_cosmic_ray_cannot_make_is_no_mutant() -> None:
    made_of_nothing = WorkResult(worker_outcome=WorkerOutcome.NORMAL,
                                 test_outcome=Outcome.SURVIVED, output=report.unexecuted())
    assert report.classify(ITEM, made_of_nothing, []) is None  # reference/a.py: no diff


def test_a_listed_equivalent_survivor_is_not_counted_as_missed() -> None:
    key = ("reference/a.py", "AddNot", "if a:", "if not a:")
    entry = [equivalents.Listed(key, "why")]
    survivor = _result(Outcome.SURVIVED, [], code=0)
    listed = report.classify(ITEM, survivor, entry)
    assert listed is not None and listed.outcome == "equivalent"
    killed = report.classify(ITEM, _result(Outcome.KILLED, [["A", "MUST", "failed"]]), entry)
    assert killed is not None and killed.outcome == "must"  # a listed one that is killed shows


def test_a_listed_equivalent_mutant_is_not_judged_by_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` records a listed mutant without a judge, though a scenario runs its line (a
    survivor costs a whole component's run; `check` judges the list on demand); the report
    counts it equivalent while it is listed, says it was not judged, and calls it a survivor
    not judged once it is no longer listed. The other mutants of its line are judged; those of
    lines no scenario runs are recorded so."""
    monkeypatch.chdir(ROOT)  # sessions name files relative to the checkout
    folder = tmp_path / "session"
    folder.mkdir()
    where = Path("reference/pipeline/slug.py")
    session.create(folder / "session.sqlite", [where])
    with use_db(str(folder / "session.sqlite"), WorkDB.Mode.open) as db:
        first = next(iter(db.pending_work_items))
    mutation = first.mutations[0]
    ran = {str(where): {str(mutation.start_pos[0]): ["test_x"]}}
    (folder / "pipeline.json").write_text(json.dumps({"files": ran, "spawned": {}}))
    entry = [equivalents.Listed(equivalents.key_of(mutation, workers.diff_of(mutation)), "why")]
    monkeypatch.setattr(equivalents, "load", lambda: entry)
    judged: list[MutationSpec] = []

    def judge(_: Worker, spec: MutationSpec, tries: object, first: object) -> WorkResult:
        judged.append(spec)  # the line's other mutants are judged
        return _result(Outcome.KILLED, [["PL-1", "MUST", "failed"]])

    monkeypatch.setattr(Worker, "judge", judge)
    assert main(["--session", str(folder), "run", "--jobs", "1"]) == 0
    assert judged and mutation not in judged
    assert all(spec.start_pos[0] == mutation.start_pos[0] for spec in judged)
    with use_db(str(folder / "session.sqlite"), WorkDB.Mode.open) as db:
        results = {item.job_id: result for item, result in db.completed_work_items}
        assert not list(db.pending_work_items)
    outputs = {job: json.loads(result.output or "{}") for job, result in results.items()}
    assert outputs.pop(first.job_id) == {"code": None, "failed": [], "listed": True}
    assert any(o.get("unexecuted") for o in outputs.values())
    assert "1 of the equivalent mutants are listed" in report.render(
        report.mutants(folder / "session.sqlite"), folder)
    recorded = results[first.job_id]
    assert (report.classify(first, recorded, entry) or pytest.fail()).outcome == "equivalent"
    unlisted = report.classify(first, recorded, []) or pytest.fail()
    assert (unlisted.outcome, unlisted.listed) == ("survived", True)
    monkeypatch.setattr(equivalents, "load", lambda: [])
    assert "(not judged: it was listed equivalent" in report.render(
        report.mutants(folder / "session.sqlite"), folder)


def test_check_judges_the_listed_mutants_side_by_side_and_fails_on_one_caught_or_gone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        ) -> None:
    """`check --jobs N` judges the list N at a time, each judge in its own copy; a listed
    mutant that a scenario now catches, or that today's source no longer has, fails it."""
    monkeypatch.chdir(ROOT)
    folder = tmp_path / "session"
    folder.mkdir()
    where = Path("reference/pipeline/slug.py")
    session.create(folder / "session.sqlite", [where])
    with use_db(str(folder / "session.sqlite"), WorkDB.Mode.open) as db:
        first, second = [item.mutations[0] for item in db.pending_work_items][:2]
    ran = {str(where): {str(m.start_pos[0]): ["test_x"] for m in (first, second)}}
    (folder / "pipeline.json").write_text(json.dumps({"files": ran, "spawned": {}}))
    listed = [equivalents.Listed(equivalents.key_of(m, workers.diff_of(m)), "why")
              for m in (first, second)]
    gone = equivalents.Listed((str(where), "AddNot", "no such line", "not one"), "why")
    judges: set[Path] = set()

    def judge(worker: Worker, spec: MutationSpec, tries: object, _: object) -> WorkResult:
        judges.add(worker.copy)
        caught = spec == first
        return _result(Outcome.KILLED if caught else Outcome.SURVIVED,
                       [["PL-1", "MUST", "failed"]] if caught else [], code=int(caught))

    monkeypatch.setattr(Worker, "judge", judge)
    monkeypatch.setattr(equivalents, "CHECKED", tmp_path / "checked.json")
    # An entry added while the judges run was not judged: the note holds for the list read
    # when the check started.
    current = [listed[1:]]
    monkeypatch.setattr(equivalents, "load", lambda: current[0])

    def judge_while_one_is_added(worker: Worker, spec: MutationSpec, tries: object,
                                 first: object) -> WorkResult:
        current[0] = [*listed[1:], gone]
        return judge(worker, spec, tries, first)

    monkeypatch.setattr(Worker, "judge", judge_while_one_is_added)
    assert main(["--session", str(folder), "check", "--jobs", "2", "--again"]) == 0
    monkeypatch.setattr(Worker, "judge", judge)
    monkeypatch.setattr(equivalents, "load", lambda: listed[1:])
    assert not equivalents.unchecked(str(where))  # all its listed mutants survived: noted
    judges.clear()
    equivalents.CHECKED.unlink()
    monkeypatch.setattr(equivalents, "load", lambda: [*listed, gone])
    assert main(["--session", str(folder), "check", "--jobs", "2", "--again"]) == 1
    assert equivalents.unchecked(str(where))  # one caught: not noted as checked
    said = capsys.readouterr().out
    assert f"CAUGHT: {where}:{first.start_pos[0]}" in said
    assert f"survives: {where}:{second.start_pos[0]}" in said
    assert "gone: ('reference/pipeline/slug.py', 'AddNot', 'no such line'" in said
    assert len(judges) == 2 and all(copy.parent == folder / "check" / "workers"
                                    for copy in judges)

    # Resumed, it keeps the verdicts it has (while the file is unchanged): the caught one
    # still fails it, and nothing is judged again.
    judges.clear()
    assert main(["--session", str(folder), "check", "--jobs", "2"]) == 1
    said = capsys.readouterr().out
    assert said.count("(judged before:") == 2 and not judges
    with (folder / "check" / "judged.jsonl").open("a") as record:
        record.write('{"mark": "cut sh')  # an interrupted write: left out, not an error
    monkeypatch.setattr(equivalents, "load", lambda: listed[1:])
    assert main(["--session", str(folder), "check", "--jobs", "2"]) == 0
    assert not judges
    assert (folder / "check" / "judged.jsonl").read_text().count("\n") == 3  # cut line ended

    # What judges it changed (here: what counts as its judges): judged again.
    monkeypatch.setattr(equivalents, "JUDGES", ("features",))
    assert main(["--session", str(folder), "check", "--jobs", "2"]) == 0
    assert len(judges) == 1
    judges.clear()

    # A file no map of the session has (a kit file, in a session of reference/): not judged,
    # and said so, rather than called a survivor.
    kit_entry = equivalents.Listed(("kit/verdicts.py", "AddNot", "x", "y"), "why")
    monkeypatch.setattr(equivalents, "find", lambda key, within=None, nth=None: first)
    monkeypatch.setattr(equivalents, "load", lambda: [kit_entry])
    assert main(["--session", str(folder), "check", "--jobs", "2"]) == 0
    assert "not judged: kit/verdicts.py" in capsys.readouterr().out and not judges

    # Given files, the check judges only their listed mutants (a file just changed).
    monkeypatch.setattr(equivalents, "load", lambda: [kit_entry, *listed])
    assert main(["--session", str(folder), "check", "--jobs", "2", "--again",
                 str(where)]) == 1
    said = capsys.readouterr().out
    assert "kit/verdicts.py" not in said and f"CAUGHT: {where}" in said and len(judges) == 2
    judges.clear()
    assert main(["--session", str(folder), "check", "--jobs", "2", "--again",
                 str(ROOT / "src" / "agent_tck" / where)]) == 1
    assert f"CAUGHT: {where}" in capsys.readouterr().out and len(judges) == 2  # by its link
    with pytest.raises(SystemExit):
        main(["--session", str(folder), "check", "reference/other.py"])
    assert "no listed mutant is of reference/other.py" in capsys.readouterr().err


def test_an_entry_within_a_function_lists_that_function_s_line_alone() -> None:
    """The same line in two functions: an entry that says which lists that one only."""
    key = ("reference/a.py", "AddNot", "if a:", "if not a:")
    survivor = _result(Outcome.SURVIVED, [], code=0)
    item = WorkItem.single("job", attrs.evolve(_spec("reference/a.py", 3), definition_name="f"))
    for within, outcome in (("f", "equivalent"), ("g", "survived"), (None, "equivalent")):
        mutant = report.classify(item, survivor, [equivalents.Listed(key, "why", within)])
        assert mutant is not None and mutant.outcome == outcome, within
    kill = ("reference/supervisor.py", "DeleteCall", "self._signal(signal.SIGKILL)", "pass")
    lines = {within: equivalents.find(kill, within=within) for within in ("_enforce", "_finish")}
    assert all(lines.values()) and len({m.start_pos for m in lines.values() if m}) == 2
    # named relative to the checkout, as sessions name their files
    assert all(m is not None and not m.module_path.is_absolute() for m in lines.values())
    assert equivalents.find(kill, within="_loop") is None


def test_an_entry_of_the_nth_same_line_of_a_function_lists_that_one_alone() -> None:
    """A function with one line twice (the served agent's /proc scan `continue`s after a name
    that is no pid and after a process gone meanwhile): `nth` says which of them."""
    key = ("reference/dds/service.py", "ReplaceContinueWithBreak", "continue", "break")
    first, second = (equivalents.find(key, within="_children", nth=n) for n in (1, 2))
    assert first is not None and second is not None and first.start_pos < second.start_pos
    assert equivalents.find(key, within="_children", nth=3) is None
    assert equivalents.find(key, within="_children") == first
    assert [equivalents.ordinal(key, m) for m in (first, second)] == [1, 2]
    entry = equivalents.Listed(key, "why", "_children", nth=2)
    assert not entry.names(key, first) and entry.names(key, second)
    assert equivalents.Listed(key, "why", "_children").names(key, first)
    survivor = attrs.evolve(_result(Outcome.SURVIVED, [], code=0), diff=None)  # its own diff
    outcomes = [report.classify(WorkItem.single("job", m), survivor, [entry]) for m in (first,
                                                                                      second)]
    assert [m.outcome if m else None for m in outcomes] == ["survived", "equivalent"]


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    worker = Worker(make_copy(tmp_path_factory.mktemp("copies")), timeout=120,
                    sandbox=workers.sandbox())  # as a session's judges run
    yield worker
    worker.stop()


def test_a_judge_sees_and_can_signal_only_what_it_started() -> None:
    """A mutant of the code that finds processes to signal (the run tag's check in
    reference/strays.py, the reaper's walk of /proc) could reach any process of the user:
    in its namespace a judge's /proc shows itself and what it started, nothing else."""
    command = workers.sandbox()
    if not command:
        pytest.skip("this machine allows no PID namespaces (unshare)")
    listing = "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    seen = subprocess.run([*command, sys.executable, "-c", listing], capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(seen.stdout) == [1]


def test_a_copys_code_is_its_own_by_every_path_the_lists_use(tmp_path: Path) -> None:
    """A mutant is written to the copy's `reference/...` (the lists' paths): through the
    copy's top-level links that must reach the copy's `src/`, never the checkout's code."""
    copy = make_copy(tmp_path)
    for name in ("reference", "kit", "steps", "doubles"):
        assert (copy / name / "__init__.py").resolve().is_relative_to(copy / "src"), name
    assert listed_as(copy / "src/agent_tck/reference/agent.py", copy) == Path(
        "reference/agent.py")


def test_a_copy_in_a_session_named_relatively_is_found_by_its_judges(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--session .mutation-kit`: the judge runs inside the copy, so a relative PYTHONPATH
    would point nowhere and Python would import the checkout's unmutated code."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "session").mkdir()
    copy = make_copy(Path("session"))
    assert copy.is_absolute() and copy.parent == tmp_path / "session"
    assert Worker(copy, timeout=1).env["PYTHONPATH"] == str(tmp_path / copy / "src")


def test_what_a_judge_leaves_in_its_temporary_folder_goes_with_it(tmp_path: Path) -> None:
    """A judge killed mid-run (a hang, an interrupt) cannot clean up after itself: its
    TMPDIR is the worker's own, emptied after every judge."""
    worker = Worker(tmp_path, timeout=1)
    assert worker.env["TMPDIR"] == str(tmp_path / "tmp")
    (tmp_path / "tmp" / "agent-tck-run-left").mkdir()
    worker._end()
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_stopped_worker_starts_no_more_judges(tmp_path: Path) -> None:
    """Interrupted, a session stops its workers; a thread between two judges must not start
    another and keep the session waiting for it."""
    stopped = Worker(tmp_path, timeout=1)
    stopped.stop()
    assert stopped._run(["--component", "responses"]) == workers.STOPPED


def test_the_unmutated_reference_survives_the_judge(worker: Worker) -> None:
    outcome, output = worker._run(["--component", "responses"])
    assert (outcome, json.loads(output)["failed"]) == (Outcome.SURVIVED, [])


def _usage_dropped(copy: Path) -> MutationSpec:
    """A mutant of reference/responses.py: the usage message's append deleted."""
    where = Path("reference/responses.py")
    original = (copy / where).read_text()
    occurrence = next(i for i, code in enumerate(_mutants(original, operators.DeleteCall()))
                      if '"usage": _usage(usage)})' not in code)
    return MutationSpec(where, "agent-tck/DeleteCall", occurrence, (1, 0), (1, 1))


def test_a_mutant_is_caught_in_its_copy_and_the_copy_restored(worker: Worker) -> None:
    where = Path("reference/responses.py")
    original = (worker.copy / where).read_text()
    result = worker.judge(_usage_dropped(worker.copy), (("--component", "responses"),))
    assert result.test_outcome == Outcome.KILLED
    failed = {req for req, level, _ in json.loads(result.output)["failed"] if level == "MUST"}
    assert {f for f in failed if f.startswith("RESP-")} == failed and failed, failed
    assert "-        messages.append({\"role\": ROLE, \"content\": \"\", \"usage\"" in result.diff
    assert (worker.copy / where).read_text() == original
    assert (Path(__file__).parent.parent / where).read_text() == original  # the checkout


def test_a_judge_runs_the_scenarios_it_is_given_first_and_says_which_caught_it(
        worker: Worker) -> None:
    """The scenarios that caught the file's last mutants run first; the record names the
    scenario that caught this one."""
    tries = (("--component", "responses"),)
    records = [json.loads(worker.judge(_usage_dropped(worker.copy), tries, first).output)
               for first in ([], [LATER_CATCH])]
    for record in records:
        assert record.pop("seconds") > 0 and record["code"] == 1, record
    assert records[0]["by"] == FIRST_CATCH and records[1]["by"] == LATER_CATCH, records


# the usage message's append deleted: both fail, and the first is run first unless told
FIRST_CATCH = "steps/suite/test_responses.py::test_usage_is_appended_as_the_final_message"
LATER_CATCH = ("steps/suite/test_responses.py::"
               "test_empty_output_with_usage_emits_only_the_usage_message")


class _Scenario:
    """What a judge reads of a collected scenario: its node id and requirement; the marks it
    is given are kept."""

    def __init__(self, nodeid: str, req: str) -> None:
        self.nodeid, self.req, self.marks = nodeid, req, []

    def iter_markers(self, name: str) -> list[pytest.Mark]:
        return [pytest.mark.req(self.req).mark] if name == "req" else []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.marks.append(marker.mark)


def test_a_judge_runs_must_scenarios_first_then_the_last_catches_then_the_shortest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The order decides how soon a judge stops, never which level a mutant is caught by."""
    from agent_tck.kit import registry, verdicts
    from mutation import judge

    reqs = registry.load()
    must = next(r.id for r in reqs.values() if r.level == "MUST")
    should = next(r.id for r in reqs.values() if r.level == "SHOULD")
    times = {"long": 5.0, "short": 0.1, "caught": 9.0, "s-short": 0.1, "s-caught": 7.0}
    monkeypatch.setattr(judge.schedule, "expected", times.__getitem__)
    items = [_Scenario("s-short", should), _Scenario("long", must),
             _Scenario("s-caught", should), _Scenario("caught", must), _Scenario("short", must)]
    stop = judge.StopAtFirstFailure(verdicts.Collector(), reqs, ["s-caught", "caught"])
    stop.pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == ["caught", "short", "long", "s-caught", "s-short"]


def test_the_scenario_that_caught_a_mutant_goes_first_for_the_next_of_its_file() -> None:
    from mutation.__main__ import KILLERS, _remember

    killers: dict[str, list[str]] = {}
    other = WorkItem.single("job2", _spec("reference/b.py", 3))
    for by in ["t1", "t2", "t1", *(f"u{n}" for n in range(KILLERS))]:
        result = _result(Outcome.KILLED, [["AG-1", "MUST", "failed"]])
        _remember(killers, ITEM, attrs.evolve(result, output=json.dumps({"by": by})))
        if by == "t1":
            assert killers["reference/a.py"][0] == "t1"
    assert killers["reference/a.py"] == [f"u{n}" for n in reversed(range(KILLERS))]
    _remember(killers, other, _result(Outcome.SURVIVED, []))  # no catch: nothing to remember
    _remember(killers, other, attrs.evolve(_result(Outcome.KILLED, []), output="broke"))
    assert set(killers) == {"reference/a.py"}


def test_a_judge_past_its_deadline_is_killed_and_its_mutant_caught(tmp_path: Path) -> None:
    worker = Worker(make_copy(tmp_path), timeout=5)
    where = worker.copy / "reference" / "responses.py"
    original = where.read_text()
    try:
        where.write_text(original + "\nimport time\n\ntime.sleep(120)\n")  # hangs at import
        outcome, output = worker._run(["--component", "responses"])
        assert (outcome, json.loads(output)["code"]) == (Outcome.KILLED, "timeout")
    finally:
        where.write_text(original)


def test_what_a_judge_left_running_ends_with_it_and_its_folder_goes(tmp_path: Path) -> None:
    """A mutant that leaves a process running (a stuck fake harness) must not reach the next
    mutant's run: the judge's process group ends as it ends, and its temporary folder is
    emptied."""
    worker = Worker(make_copy(tmp_path), timeout=120)
    where = worker.copy / "reference" / "responses.py"
    original = where.read_text()
    pid_file = tmp_path / "left.pid"
    leaves = ("\nimport subprocess as _sp, tempfile as _tf\n\n"  # in the judge's group
              f"open({str(pid_file)!r}, 'w').write(str(_sp.Popen(['sleep', '300']).pid))\n"
              "open(_tf.mkstemp()[1], 'w').write('left')\n")
    try:
        where.write_text(original + leaves)
        assert worker._run(["--component", "responses", "-k", "single_text_item"])[0] \
            == Outcome.SURVIVED
        left = int(pid_file.read_text())  # sent SIGKILL: it may take a moment to die
        assert observe.still_running([left], within=10) == {}, "it outlived its judge"
        assert list(worker.tmp.iterdir()) == []  # its folder went
    finally:
        where.write_text(original)


def test_an_interrupted_worker_ends_its_judge_at_once_and_keeps_no_verdict(
        tmp_path: Path) -> None:
    """Ctrl-C while a judge runs: the judge's thread returns within seconds (not at its
    deadline), with no record kept."""
    import threading
    import time

    worker = Worker(make_copy(tmp_path), timeout=300)
    where = worker.copy / "reference" / "responses.py"
    original = where.read_text()
    found: list[tuple[Outcome, str]] = []
    try:
        where.write_text(original + "\nimport time\n\ntime.sleep(300)\n")
        judging = threading.Thread(target=lambda: found.append(
            worker._run(["--component", "responses"])))
        judging.start()
        deadline = time.monotonic() + 60
        while worker.proc is None:  # its judge started
            assert time.monotonic() < deadline
            time.sleep(0.05)
        stopped_at = time.monotonic()
        worker.stop()
        judging.join(timeout=60)
        assert not judging.is_alive() and time.monotonic() - stopped_at < 30
        assert found == [workers.STOPPED]
    finally:
        where.write_text(original)


def test_a_kit_mutant_is_caught_by_a_project_test_in_its_copy(worker: Worker) -> None:
    """A verdict that turns a failure into a pass fails the project's tests, run in the copy
    with the mutant applied; the checkout is untouched."""
    where = Path("kit/verdicts.py")
    original = (worker.copy / where).read_text()
    test = "tests/test_cli_run.py::test_a_broken_implementation_is_not_conformant"
    name = "core/ReplaceComparisonOperator_Eq_NotEq"
    occurrence = next(i for i, code in enumerate(_mutants(original, get_operator(name)()))
                      if 'every_level or v.req.level != "MUST"' in code)  # MUSTs pass unless strict
    spec = MutationSpec(where, name, occurrence, (1, 0), (1, 1))
    result = worker.judge(spec, (("--tests", test),))
    assert result.test_outcome == Outcome.KILLED, result.output
    assert json.loads(result.output)["failed"] == [[test, "TEST", "failed"]]
    assert (worker.copy / where).read_text() == original
    assert (Path(__file__).parent.parent / where).read_text() == original


def test_a_kit_mutant_that_skips_the_project_tests_is_caught(worker: Worker) -> None:
    """The suite's plugin also loads into the project's own pytest: a mutant that gives every
    test an empty set of backends skips them all, and pytest calls that a success."""
    where = Path("kit/plugin.py")
    original = (worker.copy / where).read_text()
    test = ("tests/test_verdicts.py::"
            "test_the_verdict_line_of_a_whole_run_says_what_the_run_came_to")
    name = "core/ReplaceAndWithOr"
    occurrence = next(i for i, code in enumerate(_mutants(original, get_operator(name)()))
                      if 'len(backends) > 1 or "scenario_backend"' in code)
    result = worker.judge(MutationSpec(where, name, occurrence, (1, 0), (1, 1)),
                          (("--tests", test),))
    assert result.test_outcome == Outcome.KILLED, result.output
    # pytest names the test by the empty parameter set it was given
    assert json.loads(result.output)["failed"] == [[f"{test}[NOTSET]", "TEST", "skipped"]]
    assert (worker.copy / where).read_text() == original


def test_a_kit_judge_runs_first_the_tests_that_caught_the_last_mutants(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a scenario judge does (`by` names the test that failed first): the tests named
    first, then the shortest expected (tests/durations.json)."""
    (tmp_path / "test_two.py").write_text(
        "def test_a():\n    assert False\n\n\ndef test_b():\n    assert False\n")
    monkeypatch.chdir(tmp_path)
    times = tmp_path / "durations.json"
    times.write_text(json.dumps({"scenarios": {"test_two.py::test_a": 5.0}, "modules": {}}))
    monkeypatch.setattr(kit, "TEST_DURATIONS", times)
    ids = ["test_two.py::test_a", "test_two.py::test_b"]
    assert kit.judge(ids)["by"] == "test_two.py::test_b"  # the shorter
    found = kit.judge(ids, ["test_two.py::test_a"])
    assert found["by"] == "test_two.py::test_a"
    assert found["failed"] == [["test_two.py::test_a", "TEST", "failed"]]  # -x: stops there


LISTED_FILES = sorted({e.key[0] for e in equivalents.load()})


@pytest.mark.parametrize("where", LISTED_FILES)
def test_each_listed_file_was_checked_since_it_or_its_entries_last_changed(where: str) -> None:
    """A change to a file can make its listed mutants' reasons false: a check must have
    judged them all surviving on today's source and list (mutation/checked.json, which it
    writes). A check fails on an entry today's source has not, so this also holds that each
    listed mutant still exists, without finding them again."""
    assert not equivalents.unchecked(where), (
        f"{where} or its entries changed since its listed equivalent mutants were last judged: "
        f"judge them again (docs/mutation.md, 'Checking the list': `python -m mutation "
        f"--session DIR init {where}` then `check`, and commit mutation/checked.json)")


def test_an_entry_added_or_changed_since_the_check_leaves_its_file_unchecked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its reason aside, which no judge reads; another file's entries are not its own."""
    where = "reference/limits.py"
    entries = equivalents.load()
    mine = next(e for e in entries if e.key[0] == where)
    noted = equivalents._checked_digest(where, entries)
    monkeypatch.setattr(equivalents, "checked", lambda: {where: noted})
    other = next(e for e in entries if e.key[0] != where)
    lists = {
        "added": [*entries, equivalents.Listed((where, "AddNot", "a", "not a"), "why")],
        "another nth": [dataclasses.replace(mine, nth=(mine.nth or 1) + 1)
                        if e is mine else e for e in entries],
        "another function": [dataclasses.replace(mine, within="elsewhere")
                             if e is mine else e for e in entries],
        "removed": [e for e in entries if e is not mine],
        "another reason": [dataclasses.replace(mine, reason="another")
                           if e is mine else e for e in entries],
        "another file's removed": [e for e in entries if e is not other],
    }
    found = {}
    for change, listed in lists.items():
        monkeypatch.setattr(equivalents, "load", lambda listed=listed: listed)
        found[change] = equivalents.unchecked(where)
    assert found == {"added": True, "another nth": True, "another function": True,
                     "removed": True, "another reason": False,
                     "another file's removed": False}


def test_each_listed_equivalent_mutant_says_why() -> None:
    assert [e.key for e in equivalents.load() if not e.reason.strip()] == []


def test_each_equivalent_mutant_is_listed_once() -> None:
    """A second entry for a mutant is a second reason to keep current, and it hides which
    one the report gives."""
    keys = [(e.key, e.within, e.nth) for e in equivalents.load()]
    assert [k for k in keys if keys.count(k) > 1] == []


def test_a_mutant_the_source_does_not_have_is_not_found() -> None:
    nine_days = ("reference/limits.py", "NumberReplacer", "MAX_SECONDS = 7 * 24 * 3600.0",
                 "MAX_SECONDS = 9 * 24 * 3600.0")
    assert equivalents.find(nine_days) is None
    assert equivalents.find(("reference/gone.py", "AddNot", "a", "b")) is None


def test_what_a_judge_left_outside_its_group_is_killed_with_it(worker: Worker) -> None:
    import subprocess
    import sys

    stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             env=worker.env, start_new_session=True)  # as a mutated reaper
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        worker._end()
        assert stray.wait(timeout=10) == -9
        assert bystander.poll() is None  # not tagged: not the judge's
    finally:
        for proc in (stray, bystander):
            proc.kill()
            proc.wait()


def test_each_judge_has_dds_domains_of_its_own(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Two judges side by side must not share a domain (their served agents would answer
    each other's scenarios): each has a pair, within 100..131, below the project's tests'
    own slots."""
    from agent_tck.kit.drivers.dds import default_domain
    from mutation.pool import MAX_JOBS

    domains = []
    for slot in range(MAX_JOBS):
        env = Worker(tmp_path, timeout=1, slot=slot).env
        monkeypatch.setenv("PYTEST_XDIST_WORKER", env["PYTEST_XDIST_WORKER"])
        domains += [default_domain(), default_domain() + 1]  # the transport's is one up
    assert len(set(domains)) == len(domains) and (min(domains), max(domains)) == (100, 131)


@pytest.mark.parametrize("jobs", ["0", "17"])
def test_more_judges_than_domains_or_none_is_a_usage_error(
        jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--session", "nowhere", "run", "--jobs", jobs])
    assert stopped.value.code == 2 and f"--jobs {jobs}: from 1 to 16" in capsys.readouterr().err
