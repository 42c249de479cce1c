"""The app's JavaScript unit tests (tests/js/*.test.js) under node's own test runner.

Node is required, not optional: CI (.ci/run) installs it. The modules are imported as they ship
(explorer/frontend/*.js, real ES modules), with no bundler and no npm package at run time.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from explorer import frontend

TESTS = Path(__file__).parent / "js"


def test_js_unit_tests_pass():
    node = shutil.which("node")
    assert node, "node is needed for the app's tests (CI installs it; see .ci/run)"
    files = sorted(str(p) for p in TESTS.glob("*.test.js"))
    assert len(files) >= 3
    done = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_bundles_are_valid_modules(tmp_path):
    """What anywidget and the report page load: each bundle parses as an ES module."""
    node = shutil.which("node")
    assert node
    for entry in ("widget", "page"):
        path = tmp_path / f"{entry}.mjs"
        path.write_text(frontend.bundle(entry), encoding="utf-8")
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
