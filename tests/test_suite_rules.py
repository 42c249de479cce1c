"""tests/conftest.py: a browser test whose Playwright wait timed out runs once more, under xdist as in CI; an
assertion, any other error, or a test that is not a browser test fails at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

EXAMPLE = '''
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")
RUNS = {}


def first(name):
    RUNS[name] = RUNS.get(name, 0) + 1
    return RUNS[name] == 1


@pytest.mark.browser
def test_wait_timed_out_once():
    if first("wait"):
        raise PlaywrightTimeout("Page.wait_for_function: Timeout 30000ms exceeded.")


@pytest.mark.browser
def test_assertion_in_a_browser_test():
    assert not first("assertion")


@pytest.mark.browser
def test_our_own_timeout_in_a_browser_test():
    if first("ours"):
        raise TimeoutError("the kernel did not start in 60 s")


def test_wait_timed_out_outside_the_browser_tests():
    if first("plain"):
        raise PlaywrightTimeout("Page.wait_for_function: Timeout 30000ms exceeded.")
'''


def test_only_a_timed_out_browser_wait_runs_again(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text())
    (tmp_path / "test_example.py").write_text(EXAMPLE)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider", "-rA",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    summary = run.stdout.strip().splitlines()[-1]
    assert "1 passed" in summary and "3 failed" in summary and "1 rerun" in summary, run.stdout
    passed = [line for line in run.stdout.splitlines() if line.startswith("PASSED ")]
    assert passed == ["PASSED test_example.py::test_wait_timed_out_once"], run.stdout


@pytest.mark.parametrize("argument", ["--reruns", "--only-rerun"])
def test_the_test_command_gives_no_rerun_to_every_test(argument):
    """A global ``--reruns`` would bring back the ~40 ms a test (conftest.py says why)."""
    script = (CONFTEST.parent.parent / "scripts" / "test.sh").read_text()
    assert argument not in script


class _Config:
    """What xdist's file scheduler reads of pytest's config, for a run of ``-n 2 --dist DIST``."""

    def __init__(self, dist: str):
        self.rootpath = CONFTEST.parent.parent
        self._values = {"dist": dist, "tx": ["2*popen"]}

    def getvalue(self, name: str):
        return self._values[name]


def test_the_jupyterlab_files_are_one_unit_and_the_others_one_each():
    import conftest

    lab = conftest.lab_files(CONFTEST.parent.parent)
    assert {"tests/test_browser.py", "tests/test_whatif_browser.py"} <= lab
    assert "tests/test_hosts.py" not in lab and "tests/test_suite_rules.py" not in lab
    for name in lab:
        assert "lab_browser(" in (CONFTEST.parent.parent / name).read_text()
    assert len(lab) >= 10
    scheduler = conftest.pytest_xdist_make_scheduler(_Config("loadfile"), None)
    units = {scheduler._split_scope(f"{name}::test_x[1]") for name in lab}
    assert units == {conftest.LAB_UNIT}
    assert scheduler._split_scope("tests/test_hosts.py::test_notebook7") == "tests/test_hosts.py"
    assert conftest.pytest_xdist_make_scheduler(_Config("load"), None) is None, "another --dist is xdist's own"
