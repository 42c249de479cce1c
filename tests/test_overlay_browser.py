"""Overlays seen in a real browser (headless Chromium): the report written by ``device-explorer show --overlay``
and the widget in JupyterLab. What a person sees, read from the drawn page: the picker in the controls row, node
fills in the overlay's colours (folded groups by the stated rule), the legend, the hover line, the details row;
a group collapsed and expanded again keeps the overlay's colours; "device" brings the device colours back; in the
widget ``ex.overlay(...)`` / ``ex.show_overlay(...)`` reach the page and the page's pick reaches Python.
Screenshots go to ``artifacts/``."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    TRACE_POINTS_JS,
    chromium,
    click_point,
    hex_to_rgb,
    jupyter_lab,
    lab_browser,
    open_notebook,
    point_of,
    require_browser,
    run_all,
    screenshot_on_failure,
    settled,
    write_notebook,
)
from lod_helpers import llm_builder
from test_overlays import brute

from explorer import Explorer
from explorer.cli import main
from writers.pte import write
from explorer.views.state.overview import OVERVIEW_TRACE as T

pytestmark = pytest.mark.browser

MLP = Path(__file__).parent / "fixtures" / "device_mlp.pte"
BANDS = [[None, "#1A7F37", "low"], [40, "#BF8700", "mid"], [400, "#CF222E", "high"]]
GREY = "#D0D7DE"


@pytest.fixture(scope="module", autouse=True)
def _browser_available():
    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)


def band(x) -> str:
    if x is None or math.isnan(x):
        return GREY
    return [c for bound, c, _ in BANDS if bound is None or x >= bound][-1]


def points(page, trace: int) -> list[dict]:
    return page.evaluate(f"(i) => ({TRACE_POINTS_JS})([document.querySelector('.dx-graph'), i])", trace) or []


def click(page, point: dict) -> None:
    """A click where a person clicks (browser_helpers.click_point): plotly's hover on the node first, and not
    within plotly's double-click window of the last click (a double click resets the view)."""
    click_point(page, ".dx-graph", point)


def hover_text(page, point: dict) -> str:
    page.mouse.move(point["x"], point["y"])
    page.wait_for_selector(".dx-graph .hoverlayer .hovertext", timeout=5_000)
    text = page.locator(".dx-graph .hoverlayer .hovertext").text_content()
    page.mouse.move(5, 5)
    return text


def test_report_overlay_picked_colours_nodes_and_survives_collapse_and_expand(tmp_path):
    pte = tmp_path / "llm16.pte"
    pte.write_bytes(write(llm_builder(16).program()))  # 618 nodes: opens with every group expanded
    spec = {"name": "lat", "unit": "us", "thresholds": BANDS, "aggregate": "sum",
            "values": {**{f"@{i}": float(3 * i) for i in range(0, 120, 2)}, "layers.12": 900.0}}
    (tmp_path / "lat.json").write_text(json.dumps(spec))
    report = tmp_path / "report.html"
    assert main(["show", str(pte), "-o", str(report), "--overlay", str(tmp_path / "lat.json")], stdout=io.StringIO()) == 0
    # what the page must show, from Python: each instruction's and each group's number by the rule
    ex = Explorer(pte)
    ex.load_overlay(tmp_path / "lat.json")
    ov, G = ex.overlay_data("lat"), ex._overlay_set.groups("forward")
    want = brute(ov, G)
    layer = next(g for g in G.groups if g.label == "layers.0")  # in view when the page opens
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "overlay_report_failure.png"):
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1' && document.querySelectorAll('.dx-graph .point').length > 0",
                               timeout=30_000)
        picker = page.locator(".dx-controls select.dx-ov-pick")
        # `--overlay FILE` alone opens with it drawn, as the widget draws a loaded overlay at once
        assert picker.input_value() == "lat"
        assert page.locator(".dx-ov-legend").is_visible()
        options = page.eval_on_selector(".dx-ov-pick", "s => Array.from(s.options).map(o => o.value)")
        assert options == ["", "copy_bytes", "size", "lifetime", "lat"]
        drawn = {p["id"]: p["fill"] for p in points(page, T["ops"]) if p["w"] > 0}
        assert drawn and all(fill == hex_to_rgb(band(ov.instr[i])) for i, fill in drawn.items()), "drawn on opening"
        picker.select_option("")
        settled(page, ".dx-graph")
        before = {p["id"]: p["fill"] for p in points(page, T["tensors"])}
        picker.select_option("lat")
        settled(page, ".dx-graph")
        ops = [p for p in points(page, T["ops"]) if p["w"] > 0]
        assert len(ops) == len(ov.instr)  # every op drawn as itself
        assert all(p["fill"] == hex_to_rgb(band(ov.instr[p["id"]])) for p in ops), "ops filled by their number"
        assert {p["fill"] for p in ops} >= {hex_to_rgb(c) for _, c, _ in BANDS}
        after = {p["id"]: p["fill"] for p in points(page, T["tensors"])}
        assert after != before and set(after.values()) == {hex_to_rgb(GREY)}  # no tensor has a number
        legend = page.locator(".dx-ov-legend").inner_text()
        assert "lat" in legend and "low" in legend and "high" in legend and "no data" in legend and "groups: sum" in legend
        # the legend sits in the controls row: it overlaps neither the other controls nor the graph's card
        boxes = page.evaluate("""() => ['.dx-ov-legend', '.dx-ov-pick', '.dx-search', '.dx-devices', '.dx-plan', '.dx-graph-card']
          .map(s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })""")
        legend_box = boxes[0]
        for other in boxes[1:]:
            assert (legend_box[2] <= other[0] or other[2] <= legend_box[0] or legend_box[3] <= other[1]
                    or other[3] <= legend_box[1]), (legend_box, other)
        page.screenshot(path=str(ARTIFACTS / "overlay_report.png"))
        # hover: one line with the number
        op = point_of(ops, 4)
        assert hover_text(page, op).endswith("lat: 12 us")
        # details: the row first
        click(page, op)
        page.wait_for_function("() => document.querySelector('.dx-details').textContent.includes('lat')", timeout=5_000)
        first_row = page.locator(".dx-details .dx-kv tr").first.inner_text()
        assert first_row.split() == ["lat", "12", "us"], first_row
        # collapse layers.0 (its header), then it is one group in the colour of its sum; expand it again
        header = point_of(points(page, T["headers"]), layer.id)
        click(page, header)
        page.wait_for_function(f"() => Array.from(document.querySelector('.dx-graph').data[{T['groups']}].customdata || []).includes({layer.id})",
                               timeout=5_000)
        settled(page, ".dx-graph")
        group = point_of(points(page, T["groups"]), layer.id)
        assert group["fill"] == hex_to_rgb(band(want[layer.id][0]))
        hover = hover_text(page, group)
        assert f"lat: {want[layer.id][0]:g} us (sum of {want[layer.id][1]} entries)" in hover, hover
        assert "sum" in page.locator(".dx-details").inner_text()  # the group's details: its row and the rule
        page.screenshot(path=str(ARTIFACTS / "overlay_report_collapsed.png"))
        click(page, group)
        page.wait_for_function(f"() => !Array.from(document.querySelector('.dx-graph').data[{T['groups']}].customdata || []).includes({layer.id})",
                               timeout=5_000)
        settled(page, ".dx-graph")
        ops = [p for p in points(page, T["ops"]) if p["w"] > 0]
        assert len(ops) == len(ov.instr) and all(p["fill"] == hex_to_rgb(band(ov.instr[p["id"]])) for p in ops)
        # layers.12 carries the module's own number on each of its instructions
        l9 = next(g for g in G.groups if g.label == "layers.12")
        inside = [p for p in ops if l9.start <= p["id"] < l9.stop]
        assert inside and all(p["fill"] == hex_to_rgb("#CF222E") for p in inside)
        # back to the device colours
        picker.select_option("")
        settled(page, ".dx-graph")
        assert {p["id"]: p["fill"] for p in points(page, T["tensors"])} == before
        assert page.locator(".dx-ov-legend").is_hidden()
        assert not page.locator(".dx-details .dx-kv tr").first.is_visible() or "lat" not in page.locator(".dx-details").inner_text()
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_widget_overlay_from_python_and_the_pick_back(tmp_path):
    notebook = tmp_path / "overlay.ipynb"
    write_notebook(notebook, [
        f"import explorer\nex = explorer.Explorer({str(MLP)!r})\nex",
        f"ex.overlay('lat', {{f'@{{i}}': float(i * 30) for i in range(20)}}, thresholds={BANDS!r})",
        "print('shown:', repr(ex.shown_overlay))",
    ])
    ex = Explorer(MLP)
    ex.overlay("lat", {f"@{i}": float(i * 30) for i in range(20)}, thresholds=BANDS)
    ov = ex.overlay_data("lat")
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1400, 1000)) as (page, messages), \
            screenshot_on_failure(page, "overlay_lab_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        page.wait_for_function("() => { const s = document.querySelector('.dx-explorer select.dx-ov-pick');"
                               " return s && s.value === 'lat'; }", timeout=90_000)
        page.locator(".dx-explorer").first.scroll_into_view_if_needed()
        settled(page, ".dx-explorer .dx-graph")  # drawn in the overlay; the notebook may re-lay out after the scroll
        ops = [p for p in points(page, T["ops"]) if p["w"] > 0]
        assert len(ops) == 20 and all(p["fill"] == hex_to_rgb(band(ov.instr[p["id"]])) for p in ops)
        assert "lat" in page.locator(".dx-explorer .dx-ov-legend").inner_text()
        assert {p["fill"] for p in points(page, T["tensors"]) if p["w"] > 0} == {hex_to_rgb(GREY)}  # lat: no tensor has one
        page.screenshot(path=str(ARTIFACTS / "overlay_lab_widget.png"))
        # the page's pick reaches Python
        page.locator(".dx-explorer select.dx-ov-pick").select_option("size")
        settled(page, ".dx-explorer .dx-graph")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(2)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "([sel, text]) => Array.from(document.querySelectorAll(sel)).some(o => o.textContent.includes(text))",
            arg=[".jp-Notebook .jp-Cell .jp-OutputArea-output", "shown: 'size'"], timeout=15_000)
        def run_in_cell(code: str) -> None:
            page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-InputArea-editor").click()
            page.keyboard.press("Control+a")
            page.keyboard.type(code)
            page.keyboard.press("Shift+Enter")

        # Python's show_overlay(name) draws it in the page: tensors by their lifetime, the legend says so
        run_in_cell("ex.show_overlay('lifetime')")
        page.wait_for_function("() => document.querySelector('.dx-explorer select.dx-ov-pick').value === 'lifetime'",
                               timeout=15_000)
        settled(page, ".dx-explorer .dx-graph")
        assert "lifetime" in page.locator(".dx-explorer .dx-ov-legend").inner_text()
        fills = {p["fill"] for p in points(page, T["tensors"]) if p["w"] > 0}
        assert len(fills) >= 3, fills  # a scale of colours (two devices, or lat's grey, would be at most two)
        # ... and show_overlay(None) brings the device colours back
        run_in_cell("ex.show_overlay(None)")
        page.wait_for_function("() => document.querySelector('.dx-explorer select.dx-ov-pick').value === ''", timeout=15_000)
        assert page.locator(".dx-explorer .dx-ov-legend").is_hidden()
        settled(page, ".dx-explorer .dx-graph")
        assert {p["fill"] for p in points(page, T["ops"]) if p["w"] > 0} == {hex_to_rgb("#F6F8FA")}  # the ops' own fill
        assert not [m for m in messages if m.startswith("pageerror")], messages


def test_report_overlay_follows_plan_switches(tmp_path):
    """An overlay shown stays picked across plans: a plan that has it is drawn in it, one that has not in device
    colours (with "device" in its picker), and coming back draws it again."""
    ex = Explorer(Path(__file__).parent / "fixtures" / "two_methods.pte")
    ex.overlay("w", {"@0": 1.0, "@1": 50.0}, plan="forward", thresholds=BANDS)
    ex.overlay("w", {"@1": 500.0}, plan="encode", thresholds=BANDS)
    ex.overlay("only_encode", {"@2": 5.0}, plan="encode", show=False)
    ex.show_overlay("w")
    report = ex.save_html(tmp_path / "two.html")
    want = {p: ex.overlay_data("w", p).instr for p in ("forward", "encode")}
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "overlay_plans_failure.png"):
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        settled(page, ".dx-graph")
        for plan in ("forward", "encode", "forward"):
            if page.locator(".dx-plan").input_value() != plan:
                page.locator(".dx-plan").select_option(plan)
                settled(page, ".dx-graph")
            assert page.locator(".dx-ov-pick").input_value() == "w"
            ops = [p for p in points(page, T["ops"]) if p["w"] > 0]
            assert ops and all(p["fill"] == hex_to_rgb(band(want[plan][p["id"]])) for p in ops), plan
        options = page.eval_on_selector(".dx-ov-pick", "s => Array.from(s.options).map(o => o.value)")
        assert "only_encode" not in options  # forward's picker lists forward's overlays
        page.locator(".dx-plan").select_option("encode")
        page.locator(".dx-ov-pick").select_option("only_encode")
        page.locator(".dx-plan").select_option("forward")
        settled(page, ".dx-graph")
        assert page.locator(".dx-ov-pick").input_value() == ""  # forward has no such overlay: device colours
        assert page.locator(".dx-ov-legend").is_hidden()
        assert {p["fill"] for p in points(page, T["ops"]) if p["w"] > 0} == {hex_to_rgb("#F6F8FA")}
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_report_link_carries_the_overlay(tmp_path):
    """``report.html?overlay=NAME#@1`` opens coloured by that overlay with instruction 1 selected, and a pick writes
    the overlay back into the address beside the selection's hash (none when it is the one the report opens with)."""
    ex = Explorer(Path(__file__).parent / "fixtures" / "two_methods.pte")
    ex.overlay("w", {"@0": 1.0, "@1": 50.0}, plan="forward", thresholds=BANDS, show=False)
    report = ex.save_html(tmp_path / "r.html")
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "overlay_link_failure.png"):
        page.goto(report.as_uri() + "?overlay=w#forward/@1")
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        assert page.locator(".dx-ov-pick").input_value() == "w"
        assert page.evaluate("() => window.dxReport.state.instructions") == [1]
        page.locator(".dx-ov-pick").select_option("")  # the report's own opening colours: no parameter
        page.wait_for_function("() => !location.search.includes('overlay')")
        page.locator(".dx-ov-pick").select_option("w")
        page.wait_for_function("() => location.search === '?overlay=w'")
        assert page.evaluate("() => location.hash") in ("#@1", "#forward/@1")
        page.goto("about:blank")
        page.goto(report.as_uri())  # no parameter: as the report was saved
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
        assert page.locator(".dx-ov-pick").input_value() == ""
