"""The flake hunt reads failures from the right place and cleans up its load."""

from __future__ import annotations

from agent_tck.kit.observe import process_state
from benchmarks.flakes import cpu_load, failures

NESTED = """\
tests/test_x.py F
E   AssertionError: nested run said
FAILED steps/suite/test_agent.py::test_nested - this is a test's evidence
=========================== short test summary info ============================
FAILED tests/test_x.py::test_outer - AssertionError
ERROR tests/test_y.py::test_setup
================== 1 failed, 1 error, 9 passed in 3.00s ===================
"""

TABLE = """\
requirement  level   verdict  scenarios
RP-1.1       MUST    passed   1/1
AG-H6        SHOULD  failed   1/2
EH-1.1       MUST    errored  0/1
NOT CONFORMANT: 3 requirements (1 errored, 1 failed, 1 passed)
"""


def test_only_the_last_pytest_summary_counts() -> None:
    assert failures(NESTED) == ["tests/test_x.py::test_outer", "tests/test_y.py::test_setup"]


def test_failed_and_errored_requirements_of_a_verdict_table_count() -> None:
    assert failures(TABLE) == ["AG-H6", "EH-1.1"]


def test_the_load_runs_during_the_block_and_is_gone_after_it() -> None:
    with cpu_load(2) as pids:
        assert len(pids) == 2 and all(process_state(pid) not in (None, "Z") for pid in pids)
    assert [process_state(pid) for pid in pids] == [None, None]
