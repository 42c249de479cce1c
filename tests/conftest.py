"""The suite's two collection rules, both for its 6 minutes on two cores (docs/testing.md, "Suite time").

1. The files with browser tests run first. Two workers take whole files (``--dist loadfile``) in collection order
   (``--no-loadscope-reorder``: xdist's own order is by number of tests, and the 158 quick slot checks are not the
   long part). The browser files are the long ones (up to ~50 s each); the short ones then even out the two
   workers' ends, where a browser file last on one worker left the other core idle for ~12 s.

2. A browser test whose Playwright wait timed out runs once more; nothing else does.

Why a marker on the browser tests and not ``--reruns 1`` on the command line: under xdist, pytest-rerunfailures
keeps its rerun counts in the controller and asks for them over a loopback socket before every test it may rerun
(a reply-less "set" followed by the next test's "get": Nagle's algorithm holds the second write until the delayed
ACK of the first, ~40 ms). Given to every test, that cost ~40 ms of idle wall time per test, ~80 s for the suite's
~2,000 tests, most of them a few milliseconds long (docs/testing.md, "Suite time"). A browser test takes seconds,
so the wait is hidden inside it; the other tests never ask.
"""

from __future__ import annotations

import pytest

#: Playwright's own wait timeout (``playwright._impl._errors.TimeoutError: Page.wait_for_function: Timeout 30000ms
#: exceeded``): a page that did not draw in time while two workers share the two cores. An assertion, a Python error
#: or one of our own timeouts does not match and fails at once.
BROWSER_TIMEOUT = r"TimeoutError: \w+\.\w+: Timeout"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    browser_files = set()
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=[BROWSER_TIMEOUT]))
            browser_files.add(item.path)
    items.sort(key=lambda item: item.path not in browser_files)  # stable: a file's tests keep their order
