"""The budget in the suite: every crafted adversary of writers/amplify.py, small, through inspect, check and show.

Each command runs in a fresh process with its CPU time and peak memory read from its own rusage (bench/
bench_budget.py's ``measure``); each must stay within 10 s CPU and 1 GiB and end with a status, never a
traceback. The cases are the full run's at 2% of their size, so the suite stays fast; the full run, at 10 MB,
is ``python bench/bench_budget.py`` (figures in docs/testing.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_budget  # noqa: E402
from writers.amplify import CASES, LISTED, make  # noqa: E402


# a table listed again: tests/test_bounded_readers.py runs those at half size with tighter bounds
@pytest.mark.parametrize("name", sorted(set(CASES) - set(LISTED)))
def test_a_crafted_input_is_answered_within_the_budget(tmp_path, name):
    case = make(name, 0.02)
    assert 0 < case.size <= bench_budget.MAX_BYTES
    bench_budget.write_case(case, tmp_path)
    for command in bench_budget.COMMANDS:
        r = bench_budget.measure(case, command, tmp_path)
        assert not r["crash"] and r["code"] in (0, 1, 2), r
        assert r["seconds"] <= bench_budget.BUDGET_S and r["peak_mib"] <= bench_budget.BUDGET_MIB, r
    assert (tmp_path / "report.html").exists()  # show answered with its report, not only a status


def test_the_measure_sees_a_command_over_budget(tmp_path):
    """The oracle can fail: a child that burns more CPU than the budget is marked over."""
    burn = [sys.executable, "-c", "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"]
    seconds, peak, code, _, _ = bench_budget.run(burn, tmp_path)
    assert seconds >= 0.3 and code == 0 and peak > 1
