"""The layout worker's script as the bundle ships it (explorer/frontend/__init__.py ``_ship``,
frontend/layout_worker.js): layout.js's text as the bundle wraps it — the same text, not a copy — safe inside
the report's ``<script>``, and runnable as a classic worker script: under node, in a fresh context with only a
worker-like ``self``, it answers a job with what layout.js computes. (That the page really runs it in a Web
Worker is tests/test_browser_worker.py.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer import frontend

FRONTEND = Path(frontend.__file__).parent
SHIPPED = re.compile(r"^const LAYOUT = (\{.*\});$", re.M)


def _shipped(entry: str) -> dict:
    found = SHIPPED.findall(frontend.bundle(entry))
    assert len(found) == 1, "the bundle ships layout.js once, in layout_worker.js's LAYOUT"
    return json.loads(found[0])


@pytest.mark.parametrize("entry", ["widget", "page"])
def test_the_bundle_ships_layout_js_as_it_bundles_it(entry):
    shipped = _shipped(entry)
    assert shipped["scope"] == "__dx_layout"
    assert shipped["source"] == frontend._wrap("layout.js")
    assert shipped["source"] in frontend.bundle(entry)  # the page's own layout module is this very text
    assert "</" not in SHIPPED.search(frontend.bundle(entry)).group(1)  # cannot end the report's <script>


def test_the_shipped_script_runs_as_a_worker(tmp_path):
    node = shutil.which("node")
    assert node, "node is needed for the app's tests (CI installs it)"
    (tmp_path / "shipped.json").write_text(json.dumps(_shipped("page")), encoding="utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(f"""import fs from "node:fs";
import vm from "node:vm";
import {{serve}} from {json.dumps((FRONTEND / "layout_worker.js").as_uri())};
import {{layered}} from {json.dumps((FRONTEND / "layout.js").as_uri())};
const S = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const posted = [], self = {{postMessage: (d) => posted.push(d)}};
// what layoutRunner puts in the worker's Blob, run where only `self` is defined
vm.runInNewContext(S.source + "\\n(" + serve.toString() + ")(self, " + S.scope + ".layered);\\n", {{self}});
const job = {{id: 3, count: 5, src: [0, 1, 2, 0, 3], dst: [1, 2, 3, 3, 4], weight: [4, 4, 4, 1, 4], key: [0, 0, 1, 1, 0]}};
self.onmessage({{data: job}});
const want = layered(job.count, job.src, job.dst, {{weight: job.weight, key: job.key}});
process.stdout.write(JSON.stringify({{n: posted.length, id: posted[0].id, rank: Array.from(posted[0].rank),
  x: Array.from(posted[0].x), want: [Array.from(want.rank), Array.from(want.x)]}}));""", encoding="utf-8")
    done = subprocess.run([node, str(script), str(tmp_path / "shipped.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["n"] == 1 and out["id"] == 3
    assert [out["rank"], out["x"]] == out["want"]
