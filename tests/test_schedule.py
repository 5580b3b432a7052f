"""How `agent-tck run -n N` deals the scenarios to its workers (kit/schedule.py), and the
times it deals them by (benchmarks/durations.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agent_tck.kit import schedule
from agent_tck.kit.run import hermetic, pytest_args
from benchmarks import durations, testcpu
from tests.support import dealing

SUITE = "steps/suite/"


@pytest.fixture
def times(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, float]]:
    recorded: dict[str, dict[str, float]] = {"scenarios": {}, "modules": {}}
    monkeypatch.setattr(schedule, "recorded", lambda path=None: (recorded["scenarios"],
                                                                 recorded["modules"]))
    return recorded


def ids(module: str, count: int) -> list[str]:
    return [f"{SUITE}{module}::test_{module[5:-3]}_{i}" for i in range(count)]


def test_the_longest_go_first_each_to_the_worker_expected_to_be_free_first(
        times: dict[str, dict[str, float]]) -> None:
    collection = [*ids("test_agent.py", 3), *ids("test_real_cli.py", 3)]
    times["scenarios"] = {collection[5]: 30.0, collection[3]: 10.0, collection[4]: 9.0}
    times["modules"] = {"test_agent.py": 1.0}
    # 30 s to one worker, 10 and 9 to the two others; then the agent's 1 s each to the worker
    # expected to be free first (9 s; then 10 and 10, the one with fewer scenarios; then 10).
    assert schedule.deal(collection, 3) == [[5], [3, 1], [4, 0, 2]]


def test_every_scenario_is_dealt_once(times: dict[str, dict[str, float]]) -> None:
    collection = [*ids("test_runner.py", 50), *ids("test_agent.py", 31),
                  *ids("test_real_cli.py", 7)]
    times["modules"] = {"test_agent.py": 0.2, "test_real_cli.py": 3.6}
    times["scenarios"] = {collection[-1]: 30.0}
    for workers in (1, 2, 3, 6, 8):
        hands = schedule.deal(collection, workers)
        assert sorted(i for hand in hands for i in hand) == list(range(len(collection)))
        assert hands[0][0] == len(collection) - 1, workers  # the longest first of all


def test_scenarios_of_no_recorded_time_are_spread_evenly_in_their_order(
        times: dict[str, dict[str, float]]) -> None:
    assert schedule.deal(ids("test_pipeline.py", 7), 3) == [[0, 3, 6], [1, 4], [2, 5]]


def test_more_workers_than_scenarios_leaves_some_without_any(
        times: dict[str, dict[str, float]]) -> None:
    assert schedule.deal(ids("test_agent.py", 2), 4) == [[0], [1], [], []]


def test_the_recorded_times_are_those_of_a_reports_long_scenarios_and_the_others_means(
        tmp_path: Path) -> None:
    report = {"scenarios": [
        {"nodeid": f"{SUITE}test_real_cli.py::test_a[gemini-30]", "duration": 30.24},
        {"nodeid": f"{SUITE}test_real_cli.py::test_b", "duration": 0.5},
        {"nodeid": f"{SUITE}test_agent.py::test_c", "duration": 0.25},
        {"nodeid": f"{SUITE}test_transport.py::test_d", "duration": 3.0},
        {"nodeid": f"{SUITE}test_transport.py::test_e", "duration": 5.0},
    ]}
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert durations.main([str(tmp_path / "r.json"), str(tmp_path / "d.json")]) == 0
    assert json.loads((tmp_path / "d.json").read_text()) == {
        "scenarios": {f"{SUITE}test_real_cli.py::test_a[gemini-30]": 30.2,
                      f"{SUITE}test_transport.py::test_d": 3.0,
                      f"{SUITE}test_transport.py::test_e": 5.0},
        # the mean of those not recorded by name; of all where each is
        "modules": {"test_agent.py": 0.25, "test_real_cli.py": 0.5, "test_transport.py": 4.0},
    }


def test_the_shipped_times_name_scenarios_of_the_suite() -> None:
    """A renamed long scenario would lose its place at the front: its time must be recorded
    again (`python -m benchmarks.durations`)."""
    class Ids:
        def __init__(self) -> None:
            self.ids: set[str] = set()

        def pytest_collection_finish(self, session: pytest.Session) -> None:
            self.ids = {item.nodeid for item in session.items}

    args = argparse.Namespace(component=[], impl="reference", time_scale=0.02, keyword=None)
    found = Ids()
    with hermetic():
        pytest.main([*pytest_args(args), "--collect-only", "-q"], plugins=[found])
    scenarios, modules = schedule.recorded()
    assert found.ids and set(scenarios) <= found.ids, sorted(set(scenarios) - found.ids)
    assert set(modules) == {schedule.module_of(nodeid) for nodeid in found.ids}


def test_the_project_tests_times_name_only_modules_they_have() -> None:
    """tests/durations.json, which `python -m tests` deals its tests by (tests/conftest.py):
    a module it names that is gone is a stale file, rewritten with benchmarks.testcpu."""
    root = Path(__file__).resolve().parent.parent
    have = {p.name for folder in ("tests", "steps/suite")
            for p in (root / folder).glob("test_*.py")}
    scenarios, modules = schedule.recorded(root / "tests" / "durations.json")
    assert modules and set(modules) <= have, sorted(set(modules) - have)
    assert {schedule.module_of(nodeid) for nodeid in scenarios} <= have


def test_the_tests_times_are_written_from_what_each_worker_noted(tmp_path: Path) -> None:
    noted = [{"test": "tests/test_a.py::test_long", "wall": 2.5, "cpu": 1.0},
             {"test": "tests/test_a.py::test_short", "wall": 0.5, "cpu": 0.1}]
    (tmp_path / "gw0.jsonl").write_text("".join(json.dumps(n) + "\n" for n in noted))
    out = tmp_path / "durations.json"
    assert testcpu.main([str(tmp_path), "--durations", str(out)]) == 0
    assert json.loads(out.read_text()) == {"scenarios": {"tests/test_a.py::test_long": 2.5},
                                           "modules": {"test_a.py": 0.5},
                                           "cpu": {"tests/test_a.py::test_long": 1.0}}
    assert testcpu.main([str(tmp_path), "--durations"]) == 2


def _recorded(tmp_path: Path, walls: dict[str, float], cpu: dict[str, float],
              name: str = "durations.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"scenarios": walls, "modules": {"test_a.py": 1.0}, "cpu": cpu}))
    return path


def test_the_waiting_tests_go_to_workers_of_their_own_as_many_as_their_share(
        tmp_path: Path) -> None:
    """tests/support/dealing.py: a test whose CPU is under `WAITING` of its wall time waits;
    the waiting tests are dealt longest first to as many workers as their share of the
    recorded time (here 90 s of 162: two of four), the others to the rest."""
    collection = [f"tests/test_a.py::test_{i}" for i in range(8)]
    walls = {collection[0]: 40.0, collection[1]: 30.0, collection[2]: 20.0,
             collection[3]: 30.0, collection[4]: 20.0, collection[5]: 20.0}
    under, at = dealing.WAITING - 0.01, dealing.WAITING  # of the wall time
    cpu = {collection[0]: 1.0, collection[1]: under * 30, collection[2]: under * 20,
           collection[3]: at * 30, collection[4]: 20.0, collection[5]: at * 20}
    path = _recorded(tmp_path, walls, cpu)
    assert dealing.waiting(path) == set(collection[:3])
    # waiting, 90 s: 40 | 30 + 20; the others, 70 s and two of 1 s: 30 + 1 + 1 | 20 + 20
    assert dealing.deal(collection, 4, path) == [[0], [1, 2], [3, 6, 7], [4, 5]]


def test_without_waiting_tests_or_a_second_worker_the_tests_are_dealt_longest_first(
        tmp_path: Path) -> None:
    collection = [f"tests/test_a.py::test_{i}" for i in range(5)]
    walls = {collection[0]: 10.0, collection[3]: 30.0}
    computing = _recorded(tmp_path, walls, {collection[0]: 9.0, collection[3]: 30.0})
    assert dealing.deal(collection, 2, computing) == [[3], [0, 1, 2, 4]]
    waiting = _recorded(tmp_path, walls, {collection[0]: 0.1, collection[3]: 0.2}, "w.json")
    assert dealing.deal(collection, 1, waiting) == [[3, 0, 1, 2, 4]]
    # All waiting but the unrecorded: one worker is left for those
    assert dealing.deal(collection, 3, waiting) == [[3], [0], [1, 2, 4]]


def test_every_test_is_dealt_once_and_both_kinds_start_at_once(tmp_path: Path) -> None:
    collection = [f"tests/test_a.py::test_{i}" for i in range(60)]
    walls = {nodeid: float(i % 7 + 1) for i, nodeid in enumerate(collection) if i % 3}
    path = _recorded(tmp_path, walls, {nodeid: (i % 2) * wall for i, (nodeid, wall)
                                       in enumerate(walls.items())})
    slow = dealing.waiting(path)
    for workers in (2, 3, 8, 12):
        hands = dealing.deal(collection, workers, path)
        assert sorted(i for hand in hands for i in hand) == list(range(len(collection)))
        kinds = [{collection[i] in slow for i in hand} for hand in hands if hand]
        assert {True} in kinds and {False} in kinds, workers
        assert all(len(kind) == 1 for kind in kinds), workers  # no hand holds both
