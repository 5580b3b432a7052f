"""How `agent-tck run -n N` deals the scenarios to its workers (kit/schedule.py)."""

from __future__ import annotations

from agent_tck.kit.schedule import deal

SUITE = "src/agent_tck/steps/suite/"


def ids(module: str, count: int) -> list[str]:
    return [f"{SUITE}{module}::test_{module[5:-3]}_{i}" for i in range(count)]


def test_each_worker_starts_with_its_share_of_the_waiting_scenarios_the_longest_first() -> None:
    collection = [*ids("test_agent.py", 4), *ids("test_pipeline.py", 6),
                  *ids("test_real_cli.py", 3), *ids("test_transport.py", 2)]
    hands = [[collection[i].rpartition("::")[2] for i in hand] for hand in deal(collection, 3)]
    assert hands == [
        ["test_real_cli_0", "test_transport_0", "test_agent_1", "test_pipeline_0",
         "test_pipeline_1"],
        ["test_real_cli_1", "test_transport_1", "test_agent_2", "test_pipeline_2",
         "test_pipeline_3"],
        ["test_real_cli_2", "test_agent_0", "test_agent_3", "test_pipeline_4", "test_pipeline_5"],
    ]


def test_every_scenario_is_dealt_once_and_the_hands_differ_by_one_at_most() -> None:
    collection = [*ids("test_runner.py", 50), *ids("test_agent.py", 31),
                  *ids("test_real_cli.py", 7)]
    for workers in (1, 2, 3, 6, 8):
        hands = deal(collection, workers)
        assert sorted(i for hand in hands for i in hand) == list(range(len(collection)))
        assert max(map(len, hands)) - min(map(len, hands)) <= 1, workers


def test_scenarios_that_do_not_wait_keep_their_order_in_contiguous_runs() -> None:
    collection = ids("test_pipeline.py", 7)
    assert deal(collection, 3) == [[0, 1, 2], [3, 4], [5, 6]]


def test_when_every_scenario_waits_they_are_dealt_in_turn() -> None:
    collection = ids("test_agent.py", 7)
    assert deal(collection, 3) == [[0, 3, 6], [1, 4], [2, 5]]


def test_more_workers_than_scenarios_leaves_some_without_any() -> None:
    assert deal(ids("test_agent.py", 1) + ids("test_runner.py", 1), 4) == [[0], [1], [], []]
