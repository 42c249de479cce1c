"""A small plan shows every label, clear of the edges, whatever is drawn over it (issue 32, item 3).

device_mlp (25 tensors, 20 ops) with a run profile (ops sized by time), with an overlay shown (ops drawn a third
larger), and as the B side of a diff (change rings around most nodes): every tensor and op has its label (before:
11 of 25 tensors lost theirs with a profile, 10 with an overlay, 5 on the diff's B side), and no label's box is
crossed by an edge (their polylines, in pixels, from the figure as drawn). One browser page for all three reports.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS, chromium, require_browser, settled

import explorer
from explorer.cli import main
from explorer.views.html.diff import write_diff_report

pytestmark = pytest.mark.browser

FIX = Path(__file__).resolve().parent / "fixtures"

# per graph div: the labels drawn (text, box in the div's px), the tensors and ops drawn, and every edge segment in px
DRAWN_JS = """
(sel) => { const gd = document.querySelector(sel), L = gd._fullLayout, xa = L.xaxis, ya = L.yaxis;
  const r0 = gd.getBoundingClientRect();
  const labels = Array.from(gd.querySelectorAll('.dx-labels text')).map((t) => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, box: [r.left - r0.left, r.top - r0.top, r.right - r0.left, r.bottom - r0.top]}; });
  const px = (x) => xa._offset + xa.l2p(x), py = (y) => ya._offset + ya.l2p(y), segs = [];
  gd._fullData.forEach((t) => {
    if (t.visible !== true || t.mode !== 'lines') return;
    const xs = gd.data[t.index].x || [], ys = gd.data[t.index].y || [];
    for (let k = 1; k < xs.length; k++)
      if (xs[k - 1] !== null && xs[k] !== null) segs.push([px(xs[k - 1]), py(ys[k - 1]), px(xs[k]), py(ys[k])]);
  });
  const sz = L._size;
  return {labels, segs, nodes: gd.data[4].x.length + gd.data[5].x.length,
          area: [sz.l, sz.t, sz.l + sz.w, sz.t + sz.h]}; }
"""


def crosses(seg, box, inset=1.0) -> bool:
    """Whether the segment passes through the box shrunk by ``inset`` px (a label's glyphs, not its halo)."""
    x0, y0, x1, y1 = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
    t0, t1 = 0.0, 1.0
    dx, dy = seg[2] - seg[0], seg[3] - seg[1]
    for p, q in ((-dx, seg[0] - x0), (dx, x1 - seg[0]), (-dy, seg[1] - y0), (dy, y1 - seg[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    require_browser()
    out = tmp_path_factory.mktemp("small_labels")
    pte = FIX / "device_mlp.pte"
    assert main(["show", str(pte), "--profile", str(FIX / "etdump" / "synthetic_device_mlp.etdp"), "-o",
                 str(out / "profile.html")], stdout=io.StringIO()) == 0
    ex = explorer.Explorer(pte)
    ex.overlay("lat", {f"@{i}": float(i * 30) for i in range(20)})
    ex.save_html(out / "overlay.html")
    write_diff_report(FIX / "diff" / "cpu_only.pte", FIX / "diff" / "device_cuda0.pte", out / "diff.html")
    explorer.Explorer(FIX / "whatif" / "residual_cpu_only.pte", moves=["delegate:*=cuda:0"]).save_html(out / "whatif.html")
    return out


@pytest.fixture(scope="module")
def drawn(reports):
    got = {}
    with chromium((1400, 1000)) as (page, messages):
        for name, graphs in (("profile", [".dx-graph"]), ("overlay", [".dx-graph"]), ("diff", [".dx-graph-a", ".dx-graph-b"]),
                             ("whatif", [".dx-graph-b"])):
            if name == "whatif":  # a smaller window: B's labels met the plot's edges there (issue 32's screenshots)
                page.set_viewport_size({"width": 1280, "height": 800})
            page.goto((reports / f"{name}.html").as_uri())
            page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
            for sel in graphs:
                settled(page, sel)
                got[f"{name} {sel}"] = page.evaluate(DRAWN_JS, sel)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"small_labels_{name}.png"), full_page=True)
        assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
    return got


@pytest.mark.parametrize("view", ["profile .dx-graph", "overlay .dx-graph", "diff .dx-graph-a", "diff .dx-graph-b",
                                  "whatif .dx-graph-b"])
def test_a_small_plan_labels_every_node_clear_of_edges(drawn, view):
    got = drawn[view]
    assert got["nodes"] <= 100
    assert len(got["labels"]) == got["nodes"], f"{view}: {len(got['labels'])} labels for {got['nodes']} tensors and ops"
    over = [(lb["text"], s) for lb in got["labels"] for s in got["segs"] if crosses(s, lb["box"])]
    assert not over, f"{view}: labels crossed by edges: {over[:5]}"
    # every label inside the plot area, a few px clear of its edges (the what-if's B side: "%16", "%21" and
    # "BackendWithCompilerDemo" flush with them, issue 32's screenshots)
    a = got["area"]
    near = [(lb["text"], [round(v) for v in lb["box"]]) for lb in got["labels"]
            if lb["box"][0] < a[0] + 3 or lb["box"][1] < a[1] + 3 or lb["box"][2] > a[2] - 3 or lb["box"][3] > a[3] - 3]
    assert not near, f"{view}: labels at the plot area's edges {[round(v) for v in a]}: {near}"
