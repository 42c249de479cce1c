"""The layout worker's script as the bundle ships it (explorer/frontend/__init__.py ``_ship``,
frontend/layout/worker.js): layout/layout.js is bundled once, as a named function whose own text the page hands the
worker (no copy of it in the bundle), and that text runs as a classic worker script: under node, the bundle's
layout/layout.js section and layout/worker.js's ``LAYOUT`` line are run as the page runs them, then the script it gives
is run in a fresh context with only a worker-like ``self``, where it answers a job with what layout/layout.js computes.
(That the page really runs it in a Web Worker is tests/test_browser_worker.py.)"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer import frontend

FRONTEND = Path(frontend.__file__).parent


@pytest.mark.parametrize("entry", ["widget", "page"])
def test_the_bundle_holds_layout_js_once_and_ships_its_function(entry):
    text = frontend.bundle(entry)
    assert text.count("function __dx_src_layout_layout() {") == 1
    assert text.count("function networkSimplex(") == 1, "layout/layout.js's code is in the bundle once"
    line = next(ln for ln in text.splitlines() if ln.startswith("const LAYOUT = "))
    assert line == ('const LAYOUT = {source: "const __dx_layout_layout = (" + __dx_src_layout_layout + ")();\\n", '
                    'scope: "__dx_layout_layout"};')
    # every other module keeps its plain scope
    assert "const __dx_util_common = (() => {" in text and "function __dx_src_util_common" not in text


def test_the_shipped_script_runs_as_a_worker(tmp_path):
    node = shutil.which("node")
    assert node, "node is needed for the app's tests (CI installs it)"
    (tmp_path / "bundle.js").write_text(frontend.bundle("page"), encoding="utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(f"""import fs from "node:fs";
import vm from "node:vm";
import {{serve}} from {json.dumps((FRONTEND / "layout/worker.js").as_uri())};
import {{layered}} from {json.dumps((FRONTEND / "layout/layout.js").as_uri())};
const bundle = fs.readFileSync(process.argv[2], "utf8");
// layout/layout.js as the bundle holds it, and layout/worker.js's LAYOUT line, run as the page runs them
const start = bundle.indexOf("// ---- layout/layout.js\\n"), end = bundle.indexOf("\\n// ---- ", start + 1);
const line = bundle.split("\\n").find((l) => l.startsWith("const LAYOUT = "));
const page = {{}};
vm.runInNewContext(bundle.slice(start, end) + "\\n" + line + "\\nthis.LAYOUT = LAYOUT;", page);
// what layoutRunner puts in the worker's Blob, run where only `self` is defined
const posted = [], self = {{postMessage: (d) => posted.push(d)}};
vm.runInNewContext(page.LAYOUT.source + "\\n(" + serve.toString() + ")(self, " + page.LAYOUT.scope + ".layered);\\n", {{self}});
const job = {{id: 3, count: 5, src: [0, 1, 2, 0, 3], dst: [1, 2, 3, 3, 4], weight: [4, 4, 4, 1, 4], key: [0, 0, 1, 1, 0]}};
self.onmessage({{data: job}});
const want = layered(job.count, job.src, job.dst, {{weight: job.weight, key: job.key}});
process.stdout.write(JSON.stringify({{n: posted.length, id: posted[0].id, rank: Array.from(posted[0].rank),
  x: Array.from(posted[0].x), want: [Array.from(want.rank), Array.from(want.x)],
  source: page.LAYOUT.source.slice(0, 80)}}));""", encoding="utf-8")
    done = subprocess.run([node, str(script), str(tmp_path / "bundle.js")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["source"].startswith("const __dx_layout_layout = (function __dx_src_layout_layout() {")
    assert out["n"] == 1 and out["id"] == 3
    assert [out["rank"], out["x"]] == out["want"]
