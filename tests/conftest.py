"""The suite's three collection rules, all for its 6 minutes on two cores (docs/testing.md, "Suite time").

1. The files with browser tests run first, then those with interop tests (torch and executorch: a few seconds a
   test), then the rest. Two workers take whole files (``--dist loadfile``) in collection order
   (``--no-loadscope-reorder``: xdist's own order is by number of tests, and the 158 quick slot checks are not the
   long part). The long files first, the short ones then even out the two workers' ends, where a browser file last
   on one worker left the other core idle for ~12 s.

2. The files that drive JupyterLab (those importing ``lab_browser``) go to one worker, as one unit: each worker that
   runs one starts a Lab server and boots Lab's front end in Chromium (~10 CPU-s), and one worker is enough.

3. A browser test whose Playwright wait timed out runs once more; nothing else does.

Why a marker on the browser tests and not ``--reruns 1`` on the command line: under xdist, pytest-rerunfailures
keeps its rerun counts in the controller and asks for them over a loopback socket before every test it may rerun
(a reply-less "set" followed by the next test's "get": Nagle's algorithm holds the second write until the delayed
ACK of the first, ~40 ms). Given to every test, that cost ~40 ms of idle wall time per test, ~80 s for the suite's
~2,000 tests, most of them a few milliseconds long (docs/testing.md, "Suite time"). A browser test takes seconds,
so the wait is hidden inside it; the other tests never ask.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

#: Playwright's own wait timeout (``playwright._impl._errors.TimeoutError: Page.wait_for_function: Timeout 30000ms
#: exceeded``): a page that did not draw in time while two workers share the two cores. An assertion, a Python error
#: or one of our own timeouts does not match and fails at once.
BROWSER_TIMEOUT = r"TimeoutError: \w+\.\w+: Timeout"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank: dict[Path, int] = {}  # a file's: 0 with a browser test, 1 with an interop test, else 2
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=[BROWSER_TIMEOUT]))
            rank[item.path] = 0
        elif item.get_closest_marker("interop") is not None:
            rank[item.path] = min(rank.get(item.path, 1), 1)
    items.sort(key=lambda item: rank.get(item.path, 2))  # stable: a file's tests keep their order


LAB_UNIT = "the JupyterLab files"


def lab_files(rootpath: Path) -> set[str]:
    """The test files that drive JupyterLab, as xdist names them (relative to the root, with ``/``)."""
    tests = Path(__file__).resolve().parent
    return {path.relative_to(rootpath).as_posix() for path in sorted(tests.glob("test_*.py"))
            if _IMPORTS_LAB.search(path.read_text(encoding="utf-8"))}


_IMPORTS_LAB = re.compile(r"^\s*from browser_helpers import \(?[\w\s,]*\blab_browser\b", re.MULTILINE)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (the test extra): a run with -p no:xdist still loads
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadfile`` with the JupyterLab files as one unit (rule 2); any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    lab = lab_files(config.rootpath)

    class LabAsOneUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return LAB_UNIT if path in lab else path

    return LabAsOneUnit(config, log)
