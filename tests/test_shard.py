"""A run split into shards and merged gives the verdict of one run (kit/shard.py)."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from agent_tck.kit import shard
from agent_tck.kit.cli import main
from benchmarks.suite import timeless_report
from tests.support import once

# A runner with one defect: the merged verdict must carry its failure as one run does. Its
# command line and output scenarios are enough to split and merge (and cheaper than all).
BROKEN = ("--impl", "python:tests.miniatures.runner:NoPermissionMode", "--component", "runner",
          "--req", "RUN-CMD-*", "--req", "RUN-OUT-*")


def agent_tck(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def shards(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """One whole run and its three shards (the second on two workers), reports in one folder:
    made once a session, by the first worker whose test asks."""
    def make(where: Path) -> None:
        where.mkdir()
        code, out, _ = agent_tck("run", *BROKEN, "--json", str(where / "whole.json"))
        assert code == 1
        (where / "whole.txt").write_text(out)
        for k, workers in ((1, ()), (2, ("-n", "2")), (3, ())):
            code, _, err = agent_tck("run", *BROKEN, "--shard", f"{k}/3", *workers,
                                     "--json", str(where / f"{k}.json"))
            assert code in (0, 1), err

    return once.made_once(once.session_dir(tmp_path_factory, worker_id), "shards", make)


def test_the_merged_shards_give_the_verdict_table_and_report_of_one_run(shards: Path,
                                                                       tmp_path: Path) -> None:
    merged = tmp_path / "merged.json"
    code, out, err = agent_tck("merge", *(str(shards / f"{k}.json") for k in (3, 1, 2)),
                               "--json", str(merged))
    assert (code, err) == (1, "")
    assert out == (shards / "whole.txt").read_text()
    assert timeless_report(merged) == timeless_report(shards / "whole.json")


def test_each_scenario_runs_in_one_shard_alone(shards: Path) -> None:
    """Every Nth from the Kth: the shards split the scenarios, workers or not."""
    ran = [[s["nodeid"] for s in json.loads((shards / f"{k}.json").read_text())["scenarios"]]
           for k in (1, 2, 3)]
    whole = [s["nodeid"] for s in json.loads((shards / "whole.json").read_text())["scenarios"]]
    assert [whole[k::3] for k in range(3)] == ran


@pytest.mark.parametrize(("given", "error"), [
    ((1, 2), "the reports are not the 3 shards of one run: missing [3], given twice none"),
    ((1, 2, 2, 3), "the reports are not the 3 shards of one run: missing none, given twice [2]"),
])
def test_merge_refuses_what_is_not_the_n_shards_of_one_run(
        shards: Path, given: tuple[int, ...], error: str) -> None:
    code, out, err = agent_tck("merge", *(str(shards / f"{k}.json") for k in given))
    assert (code, out, err) == (2, "", f"agent-tck: error: {error}\n")


def test_merge_refuses_a_report_of_a_whole_run_or_of_another_implementation(
        shards: Path, tmp_path: Path) -> None:
    whole = shards / "whole.json"
    code, _, err = agent_tck("merge", str(whole))
    assert code == 2 and f"report {whole}: not the report of a shard" in err, err
    other = json.loads((shards / "2.json").read_text())
    other["header"]["implementation"]["name"] = "another"
    (tmp_path / "2.json").write_text(json.dumps(other))
    code, _, err = agent_tck("merge", str(shards / "1.json"), str(tmp_path / "2.json"),
                             str(shards / "3.json"))
    assert code == 2 and f"report {tmp_path / '2.json'} is not a shard of the run of" in err, err


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "1/0", "a/b", "1/257", "²/3"])
def test_a_shard_is_k_of_n(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected K/N"):
        shard.shard(text)
    assert shard.shard("02/3") == "2/3"
