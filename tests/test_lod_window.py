"""A big fold drawn near the view (frontend/lod/views.js ``regionOf``, drawn by lod/graph.js), under node with a stand-in plot area
(app_js ``testPlot``): an expanded view of a ~4k-node plan draws only the markers in and near the view, says so
in its status line, and an overlay picked colours them on a scale that spans the whole fold — the same colour
for the same op as when every node is drawn, whatever part is in view."""

from __future__ import annotations

from pathlib import Path

from app_js import run_payload_js
from lod_helpers import synthetic

from explorer import Explorer
from explorer.views.payload.embed import unpack

FIXTURES = Path(__file__).parent / "fixtures"


def _payload(ex: Explorer, overlay: str | None) -> dict:
    P = unpack(ex._payload)["plans"][0]
    if overlay:
        P["testOverlay"] = next(o for o in unpack(ex._overlay_data)["plans"][P["name"]] if o["name"] == overlay)
    return P


def test_an_expanded_big_fold_draws_near_the_view_and_colours_on_the_folds_scale(tmp_path):
    program = synthetic(2_500)
    ex = Explorer(program)
    m = len(program.plans[0].instructions)
    ex.overlay("lat", {f"@{i}": float(i) for i in range(m)})
    P = _payload(ex, "lat")
    T = P["lod"]["trace"]
    first, = run_payload_js(tmp_path / "first", P, [{"op": "noop"}])
    top = first["groups"]
    assert len(top) >= 6 and first["tensors"] == 0  # the overview: groups only
    steps = [{"op": "set", "arg": top[:3], "figures": True}]
    whole, = run_payload_js(tmp_path / "whole", P, steps)
    near, = run_payload_js(tmp_path / "near", {**P, "testPlot": [900, 560]}, steps)
    assert near["nodes"] == whole["nodes"] and near["x"] == whole["x"] and near["y"] == whole["y"]  # one layout
    fold = len(whole["nodes"])
    assert fold > 1000
    drawn = {k: near["figures"]["graph"]["data"][T[k]] for k in ("tensors", "ops", "groups")}
    count = sum(len(t.get("customdata") or []) for t in drawn.values())
    assert 0 < count < fold / 4, count
    assert f"showing the {count:,} of {fold:,} nodes in and near the view" in near["status"]
    # what is drawn is inside the view's region: the ranges and a quarter of their size on every side
    (x0, x1), (y0, y1) = near["ranges"]
    w, h = (x1 - x0) / 4, (y1 - y0) / 4
    for t in drawn.values():
        for x, y in zip(t["x"], t["y"]):
            assert x0 - w - 1e-9 <= x <= x1 + w + 1e-9 and y0 - h - 1e-9 <= y <= y1 + h + 1e-9
    # the overlay's scale spans the fold: the domain and each drawn op's colour as when every node is drawn
    assert near["domain"] == whole["domain"]
    every = whole["figures"]["graph"]["data"][T["ops"]]
    colour = dict(zip(every["customdata"], every["marker"]["color"]))
    ops = drawn["ops"]
    assert ops["customdata"], "ops in view"
    assert [colour[i] for i in ops["customdata"]] == ops["marker"]["color"]
    assert all(len(ops[k]) == len(ops["customdata"]) for k in ("x", "y", "hovertext", "text"))
    assert all(text for text in ops["hovertext"])  # hover texts built for what is drawn


def test_a_redraw_before_the_staged_first_draw_still_opens_the_home_view(tmp_path):
    """Issue 32 item 11: a re-run cell in JupyterLab showed one group of a big plan. The widget's overlays are decoded
    asynchronously and ask for a redraw (overlay/view.js); when that came before the app's staged first draw, it drew
    with the skeleton's ranges (lod/figures.js: [-0.5, 0.5] x [-0.6, 0.6], one group) and the first draw, seeing a
    draw done, never opened the home view. Whatever the order, the first view is the home view."""
    ex = Explorer(FIXTURES / "named" / "transformer3k.pte")
    P = {**_payload(ex, None), "testPlot": [485, 594]}
    home, = run_payload_js(tmp_path / "home", P, [{"op": "noop"}])
    staged = run_payload_js(tmp_path / "staged", {**P, "testStaged": True},
                            [{"op": "redraw"}, {"op": "drawFirst"}, {"op": "redraw"}])
    assert home["ranges"] != [[-0.5, 0.5], [-0.6, 0.6]] and len(home["groups"]) > 10
    for after in staged[1:]:
        assert after["ranges"] == home["ranges"] and after["groups"] == home["groups"]
