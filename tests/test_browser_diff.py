"""The diff report in a real browser (headless Chromium): ``device-explorer diff A B --html``.

For cpu_only.pte -> device_cuda0.pte, checked from the page itself: both graphs draw one marker per
tensor, the four tensors that moved to cuda:0 carry a magenta ring in B (and their A counterparts
one in A; rings are drawn over the graph, so node labels still find room beside them), and a real mouse click on a tensor of A rings its counterpart in B, outlines both memory
blocks and fills the details panel with the before -> after table. For the big pair (tests/diff_helpers.py,
over the overview threshold): both sides open as overviews of groups drawn by the one-program LOD modules,
every group holding changes carries a "Δn" badge, and a click on a changed tensor of A (inside a group
expanded by a click) rings its counterpart on B, whose group opens by itself — in the report and in the
widget in JupyterLab. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    CONTRAST_JS,
    chromium,
    click_point,
    label_draws,
    require_browser,
    screenshot_on_failure,
    settled,
    trace_points,
)

from diff_helpers import big_pair

from explorer.cli import main
from explorer.views.state.diff import diff_plan_view, open_diff
from explorer.views.diff_style import STATUS_STYLES
from explorer.views.state.overview import TRACE
from explorer.views.palette import ERROR

pytestmark = pytest.mark.browser

PAIRS = Path(__file__).parent / "fixtures" / "diff"
A, B = PAIRS / "cpu_only.pte", PAIRS / "device_cuda0.pte"

# drawn points of data trace `index` of a graph div: centre (page coordinates), fill and stroke
POINTS_JS = """
([sel, index]) => {
  const gd = document.querySelector(sel);
  const group = Array.from(gd.querySelectorAll('.scatterlayer .trace')).find(g => {
    const d = g.__data__; const t = d && (d[0] ? d[0].trace : d.trace); return t && t.index === index; });
  if (!group) return [];
  return Array.from(group.querySelectorAll('path.point')).map(p => {
    const r = p.getBoundingClientRect();
    return {x: r.x + r.width / 2, y: r.y + r.height / 2, w: r.width, fill: p.style.fill, stroke: p.style.stroke,
            opacity: p.style.opacity};
  });
}
"""


# the change rings drawn over a graph (panels/rings.js marks): centre (page coordinates) and stroke colour
MARKS_JS = """(sel) => Array.from(document.querySelectorAll(sel + ' .dx-overlay .dx-mark')).map(r => {
  const b = r.getBoundingClientRect(); return {x: b.x + b.width / 2, y: b.y + b.height / 2, stroke: r.getAttribute('stroke')} })"""

# labels (panels/labels.js) whose box reaches into a change ring (panels/rings.js marks) drawn around another point or its own
LABELS_UNDER_RINGS_JS = """(sel) => {
  const gd = document.querySelector(sel), out = [];
  const rings = Array.from(gd.querySelectorAll('.dx-overlay .dx-mark')).map(r => r.getBoundingClientRect());
  for (const t of gd.querySelectorAll('.dx-labels text')) {
    const b = t.getBoundingClientRect();
    for (const r of rings) {
      const cx = r.x + r.width / 2, cy = r.y + r.height / 2, rad = r.width / 2 - 1;
      const nx = Math.max(b.left, Math.min(cx, b.right)), ny = Math.max(b.top, Math.min(cy, b.bottom));
      if ((nx - cx) ** 2 + (ny - cy) ** 2 < rad * rad) out.push([t.textContent, Math.round(cx), Math.round(cy)]);
    }
  }
  return out;
}"""

# centres of the selection rings drawn over a graph (explorer/frontend/panels/rings.js), page coordinates
RINGS_JS = """(sel) => Array.from(document.querySelectorAll(sel + ' .dx-overlay .dx-ring'))
  .map(r => { const b = r.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2] })"""

def _drawn_tensors(view) -> list[int]:
    """The tensors a side's graph draws: every tensor an instruction reads or writes."""
    flow, plan = view.analysis.dataflow, view.plan
    return sorted({v for i in range(len(plan.instructions)) for v in (*flow.reads[i], *flow.writes[i])
                   if getattr(plan.values[v], "type", None) == "Tensor"})


def _at(points: list[dict], ident) -> dict:
    found = [p for p in points if p["id"] == ident]
    assert found, f"{ident} is not drawn"
    return found[0]


@pytest.fixture(scope="module")
def expected():
    pa, pb, result = open_diff(A, B)
    dv = diff_plan_view(result, pa, pb, "forward")
    return {
        "tensors": {s: _drawn_tensors(dv.side(s)) for s in "ab"},
        "moved": {"a": [v for v, s in dv.diff.status_a.items() if s == "device"],
                  "b": [v for v, s in dv.diff.status_b.items() if s == "device"]},
        "click": (5, dv.pair("a", 5)),
    }


# the strokes of the SVG glyphs under `sel` against the page's background: their contrast (WCAG relative luminance);
# `faint`: those under 3:1 (the least for graphics); `all`: every one [tag, stroke, ratio]
GLYPHS_JS = """(sel) => {
  const rgb = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c); return m ? m[1].split(/[\\s,\\/]+/).filter(Boolean).slice(0, 3).map(Number) : null; };
  const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const bg = rgb(getComputedStyle(document.body).backgroundColor), out = [];
  document.querySelectorAll(sel).forEach((svg) => svg.querySelectorAll('line, rect, polygon, path').forEach((g) => {
    const st = rgb(getComputedStyle(g).stroke); if (!st) return;
    const [a, b] = [lum(st), lum(bg)].sort((x, y) => y - x);
    out.push([g.tagName, getComputedStyle(g).stroke, Math.round(100 * (a + 0.05) / (b + 0.05)) / 100]); }));
  return {all: out, faint: out.filter((g) => g[2] < 3)}; }"""


@pytest.fixture(scope="module", autouse=True)
def _browser_available():
    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)


def test_diff_report_links_both_sides(tmp_path, expected):
    report = tmp_path / "diff.html"
    assert main(["diff", str(A), str(B), "--html", str(report)], stdout=io.StringIO()) == 0
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "diff_report_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => ['.dx-graph-a', '.dx-graph-b', '.dx-memory-a'].every(s =>"
                               " document.querySelectorAll(s + ' .point').length > 0)", timeout=30_000)
        rings = {}
        for side in "ab":
            sel = f".dx-graph-{side}"
            tensors = trace_points(page, sel, TRACE["tensors"])
            assert sorted(t["id"] for t in tensors) == expected["tensors"][side], f"one marker per tensor in {side}"
            rings[side] = page.evaluate(MARKS_JS, sel)
            # every moved tensor has a magenta ring drawn around its marker
            magenta = STATUS_STYLES["device"].color
            for v in expected["moved"][side]:
                p = _at(tensors, v)
                assert any(r["stroke"] == magenta and abs(r["x"] - p["x"]) < 2 and abs(r["y"] - p["y"]) < 2
                           for r in rings[side]), f"%{v} ringed in {side}"
        assert len(rings["a"]) >= 4 and len(rings["b"]) >= 4 + 11
        # node labels keep clear of the change rings (issue 21: rings were drawn over labels)
        for side in "ab":
            clash = page.evaluate(LABELS_UNDER_RINGS_JS, f".dx-graph-{side}")
            assert not clash, (side, clash[:5])
        # the search box's placeholder fits (issue 21: it was cut)
        fits = page.evaluate("""() => { const i = document.querySelector('.dx-search'), cs = getComputedStyle(i);
          const c = document.createElement('canvas').getContext('2d'); c.font = cs.font;
          return c.measureText(i.placeholder).width <= i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight); }""")
        assert fits, "the search box's placeholder is cut"
        # before anything is selected the details say what the diff changed and how to select, in a card as tall as
        # that (issue 32's screenshots: a titled card stretched empty beside the runtime needs)
        first = page.locator(".dx-details").inner_text()
        assert "What changed in forward" in first and "4 tensors: moved to another device" in first, first
        assert "Click a tensor or an op in either graph" in first, first
        slack = page.evaluate("""() => { const d = document.querySelector('.dx-details'), card = d.closest('.dx-card');
          return card.getBoundingClientRect().bottom - d.getBoundingClientRect().bottom; }""")
        assert slack < 24, f"{slack} px of empty card under the details"
        # the header's legend glyphs (op outlines, copy lines) stand out from the page in the dark scheme too (they were
        # drawn in the light scheme's ink: invisible on the dark page)
        # and the runtime needs' "not needed" / "none" read on their changed rows' light backgrounds (2.8:1 before)
        nones = {}
        for scheme in ("dark", "light"):
            page.emulate_media(color_scheme=scheme)
            nones[scheme] = [page.locator(".dx-req .dx-none").nth(k).evaluate(CONTRAST_JS)
                             for k in range(page.locator(".dx-req .dx-none").count())]
        assert len(nones["light"]) >= 3 and min(nones["light"] + nones["dark"]) >= 4.5, nones
        page.emulate_media(color_scheme="dark")
        faint = page.evaluate(GLYPHS_JS, ".dx-header .dx-legend svg")
        page.emulate_media(color_scheme="light")
        assert len(faint["all"]) >= 5 and not faint["faint"], faint
        page.locator(".dx-header").screenshot(path=str(ARTIFACTS / "diff_report_header.png"))
        page.screenshot(path=str(ARTIFACTS / "diff_report.png"), full_page=True)

        # a real click on %5 in A selects %11 in B as well
        a_value, b_value = expected["click"]
        target = _at(trace_points(page, ".dx-graph-a", TRACE["tensors"]), a_value)
        click_point(page, ".dx-graph-a", target)
        page.wait_for_function("() => window.dxDiff.state.values.b.length === 1", timeout=5_000)
        state = page.evaluate("() => ({a: window.dxDiff.state.values.a, b: window.dxDiff.state.values.b})")
        assert state == {"a": [a_value], "b": [b_value]}
        settled(page, ".dx-graph-b")  # (its box stops moving: the page's scroll to A's block, under A's graph, is over)
        pair = _at(trace_points(page, ".dx-graph-b", TRACE["tensors"]), b_value)
        selected_b = page.evaluate(RINGS_JS, ".dx-graph-b")
        assert len(selected_b) == 1 and abs(selected_b[0][0] - pair["x"]) < 3 and abs(selected_b[0][1] - pair["y"]) < 3
        assert len(page.evaluate(RINGS_JS, ".dx-graph-a")) == 1
        outlined = page.evaluate("() => ['a', 'b'].map(s => document.querySelectorAll("
                                 "'.dx-memory-' + s + ' .dx-overlay .dx-outline').length)")
        assert outlined == [1, 1], "both memory blocks outlined"
        details = page.locator(".dx-details").inner_text()
        assert "moved device" in details and f"%{a_value}" in details and f"%{b_value}" in details
        assert "aten::add.out" in details and "BackendWithCompilerDemo" in details and "cuda:0" in details
        page.screenshot(path=str(ARTIFACTS / "diff_report_clicked.png"), full_page=True)
        # side by side at 1280 px too, both memory maps start at one height: each heading is one line, cut, whole in
        # its title (B's longer summary wrapped and moved its lanes down)
        page.set_viewport_size({"width": 1280, "height": 1000})
        page.wait_for_timeout(200)
        tops = page.evaluate("""() => ['a', 'b'].map(s => { const m = document.querySelector('.dx-memory-' + s),
            h = m.parentElement.querySelector('h3'); return [m.getBoundingClientRect().top, m.getBoundingClientRect().left,
            h.getBoundingClientRect().height, h.title]; })""")
        assert tops[1][1] > tops[0][1] and abs(tops[0][0] - tops[1][0]) < 1, tops  # side by side, level
        assert max(t[2] for t in tops) < 24 and all("memory map" in t[3] for t in tops), tops  # one line each
        page.set_viewport_size({"width": 1400, "height": 1000})
        # the search box: each side's own matches, ringed on both graphs
        page.fill(".dx-search", "add")
        page.wait_for_function("() => ['a', 'b'].every(s => window.dxDiff.state.instructions[s].length > 0)",
                               timeout=5_000)
        assert "search “add”" in page.locator(".dx-details").inner_text()
        assert len(page.evaluate(RINGS_JS, ".dx-graph-b")) == len(page.evaluate("() => window.dxDiff.state.instructions.b"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_diff_widget_in_jupyterlab(tmp_path, expected):
    from browser_helpers import jupyter_lab, lab_browser, open_notebook, run_all, write_notebook

    notebook = tmp_path / "diff.ipynb"
    write_notebook(notebook, [f"import explorer\nd = explorer.Diff({str(A)!r}, {str(B)!r})\nd",
                              "print('selected:', d.selected)"])
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1400, 1000)) as (page, messages), \
            screenshot_on_failure(page, "diff_lab_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        graph = {s: f".dx-explorer .dx-graph-{s}" for s in "ab"}
        page.wait_for_function(
            "(sels) => sels.every(s => { const g = document.querySelector(s);"
            " return g && g._fullLayout && g.querySelectorAll('.point').length > 0 })",
            arg=[graph["a"], graph["b"], ".dx-explorer .dx-memory-a"], timeout=90_000)
        # both graphs fill their half of the cell
        page.wait_for_function(
            "(sel) => { const g = document.querySelector(sel);"
            " return g.clientWidth > 300 && Math.abs(g._fullLayout.width - g.clientWidth) < 6 }", arg=graph["a"],
            timeout=15_000)
        page.locator(".dx-explorer").first.scroll_into_view_if_needed()
        settled(page, graph["a"])  # the notebook may re-lay out its cells after the scroll
        a_value, b_value = expected["click"]
        points = trace_points(page, graph["a"], TRACE["tensors"])
        assert sorted(p["id"] for p in points) == expected["tensors"]["a"]
        target = _at(points, a_value)
        click_point(page, graph["a"], target)
        page.wait_for_function(
            "(label) => { const d = document.querySelector('.dx-explorer .dx-details');"
            " return d && d.textContent.includes('moved device') && d.textContent.includes(label) }",
            arg=f"%{b_value}", timeout=10_000)
        page.wait_for_function(
            "(sel) => document.querySelectorAll(sel + ' .dx-overlay .dx-ring').length === 1", arg=graph["b"],
            timeout=10_000)
        page.screenshot(path=str(ARTIFACTS / "diff_widget.png"))
        page.locator(".dx-explorer .dx-details").scroll_into_view_if_needed()
        settled(page, ".dx-explorer .dx-details")
        page.screenshot(path=str(ARTIFACTS / "diff_widget_details.png"))
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "(text) => Array.from(document.querySelectorAll('.jp-OutputArea-output')).some(o => o.textContent.includes(text))",
            arg=f"values_a=({a_value},), values_b=({b_value},)", timeout=15_000)
        assert not [m for m in messages if m.startswith("pageerror")], messages


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    from explorer.views.state.overview import OVERVIEW_TRACE

    a, b = big_pair(tmp_path_factory.mktemp("big"))
    pa, pb, result = open_diff(a, b)
    dv = diff_plan_view(result, pa, pb, "forward")
    from explorer.views.state.overview import FIRST_VIEW, visible_nodes
    assert visible_nodes(dv.a.overview.groups, set(dv.a.overview.expanded)) <= FIRST_VIEW, "a big pair opens as overviews"
    return {"a": a, "b": b, "T": OVERVIEW_TRACE, "pairs": dict(dv.diff.pairs),
            "moved": {v for v, s in dv.diff.status_a.items() if s == "device"},
            "status_b": {v: s for v, s in dv.diff.status_b.items() if s != "same"},
            "values": {s: len(dv.side(s).plan.values) for s in "ab"}}


# a window tall enough that the big pair's graphs keep their full 720 px (diff/diff.js graphRoom caps a graph so that its
# memory map's heading shows under it in the first view; at 1000 px the middle group and the moved tensor these tests
# pick from the drawn graph fall past the plot's edge, where nothing takes a hover)
TALL = (1600, 1200)


def _overviews_drawn(page, prefix: str, T: dict) -> dict:
    """Both graphs drawn as overviews: group nodes, no more than a few single nodes; the Δ badges."""
    sels = [f"{prefix}.dx-graph-{s}" for s in "ab"]
    page.wait_for_function("(sels) => sels.every(s => document.querySelectorAll(s + ' .dx-mark-text').length > 0)",
                           arg=sels, timeout=90_000)
    out = {}
    for side, sel in zip("ab", sels):
        groups = trace_points(page, sel, T["groups"])
        singles = len(trace_points(page, sel, T["tensors"])) + len(trace_points(page, sel, T["ops"]))
        badges = page.evaluate(f"() => Array.from(document.querySelectorAll('{sel} .dx-mark-text')).map(t => t.textContent)")
        assert 5 <= len(groups) <= 60 and singles < 50, (side, len(groups), singles)
        assert badges and all(b.startswith("\u0394") and int(b[1:].replace(",", "")) > 0 for b in badges)
        out[side] = groups
    return out


def _open_and_pick(page, prefix: str, T: dict, groups: list, moved: set):
    """Expand a group of A by a click on it; a moved tensor of A drawn now (its point)."""
    sel = f"{prefix}.dx-graph-a"
    before = len(trace_points(page, sel, T["tensors"]))
    drawn = label_draws(page, sel)
    click_point(page, sel, groups[len(groups) // 2])
    page.wait_for_function("([sel, i, n]) => { const gd = document.querySelector(sel);"
                           " return gd.data[i].customdata && gd.data[i].customdata.length > n }",
                           arg=[sel, T["tensors"], before], timeout=15_000)
    settled(page, sel, after=drawn)  # the view moves to the opened group: positions are read after it
    tensors = trace_points(page, sel, T["tensors"])
    pick = next(p for p in tensors if p["id"] in moved)
    return pick


def test_big_diff_report_is_two_overviews_with_the_changes_marked(tmp_path, big):
    report = tmp_path / "diff_5k.html"
    assert main(["diff", str(big["a"]), str(big["b"]), "--html", str(report)], stdout=io.StringIO()) == 0
    assert report.stat().st_size < 5_000_000
    T = big["T"]
    with chromium(TALL) as (page, messages), screenshot_on_failure(page, "diff_5k_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        groups = _overviews_drawn(page, "", T)
        settled(page, ".dx-graph-a")
        settled(page, ".dx-graph-b")
        page.screenshot(path=str(ARTIFACTS / "diff_5k_report.png"), full_page=True)
        pick = _open_and_pick(page, "", T, groups["a"], big["moved"])
        # the group's counterpart on B opened with it
        expanded = page.evaluate("() => ['a', 'b'].map(s => window.dxDiff.lod().side(s).state().expanded)")
        assert expanded[0] and expanded[1], expanded
        assert "changes in" in page.locator(".dx-details").inner_text(), "the group's changes listed under its details"
        click_point(page, ".dx-graph-a", pick)
        want = big["pairs"][pick["id"]]
        page.wait_for_function("(v) => window.dxDiff.state.values.b.length === 1 && window.dxDiff.state.values.b[0] === v",
                               arg=want, timeout=10_000)
        # B opened the group holding the counterpart and rings it there
        page.wait_for_function("(v) => document.querySelector('.dx-graph-b').data[4].customdata.indexOf(v) >= 0",
                               arg=want, timeout=10_000)
        settled(page, ".dx-graph-b")
        drawn_b = next(p for p in trace_points(page, ".dx-graph-b", T["tensors"]) if p["id"] == want)
        rings_b = page.evaluate(RINGS_JS, ".dx-graph-b")
        assert any(abs(x - drawn_b["x"]) < 3 and abs(y - drawn_b["y"]) < 3 for x, y in rings_b), (rings_b, drawn_b)
        assert page.evaluate(RINGS_JS, ".dx-graph-a"), "the clicked tensor ringed on A"
        magenta = STATUS_STYLES["device"].color
        assert page.evaluate("(c) => Array.from(document.querySelectorAll('.dx-graph-b .dx-mark'))"
                             ".filter(m => m.getAttribute('stroke') === c).length", magenta) > 0
        details = page.locator(".dx-details").inner_text()
        assert "moved device" in details and f"%{pick['id']}" in details and "cuda:1" in details
        page.screenshot(path=str(ARTIFACTS / "diff_5k_clicked.png"))
        # the search box finds on both sides
        page.fill(".dx-search", "act71")
        page.wait_for_function("() => window.dxDiff.state.values.a.length > 0 && window.dxDiff.state.values.b.length > 0",
                               timeout=10_000)
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


# side B's first binned cell holding changed tensors: how many, and its centre on the page
FLAGGED_CELL = """() => { const L = window.dxDiff.lod().side('b'), n = L.laneProfiles().length;
  for (let k = 0; k < n; k++) { const g = L.lane(k).heat; if (!g) continue;
    for (let c = 0; c < g.count.length; c++) if (g.flagged[c]) {
      const md = document.querySelector('.dx-memory-b'), F = md._fullLayout, s = k ? String(k + 1) : '';
      const xa = F['xaxis' + s], ya = F['yaxis' + s], r = md.getBoundingClientRect();
      const x = g.w[0] + (c % g.nx + 0.5) * g.step, y = (Math.floor(c / g.nx) + 0.5) * g.rise;
      return {n: g.flagged[c], px: [r.left + xa._offset + xa.l2p(x), r.top + ya._offset + ya.l2p(y)]}; } }
  return null; }"""


def test_big_diff_memory_lanes_mark_the_changes(tmp_path, big):
    """Each side's binned lanes say under the mouse how many changed tensors a cell holds; zoomed in until the
    tensors are blocks, a changed block is outlined in its status colour (as on a small pair), others are not."""
    report = tmp_path / "diff_5k.html"
    assert main(["diff", str(big["a"]), str(big["b"]), "--html", str(report)], stdout=io.StringIO()) == 0
    colors = {name: st.color for name, st in STATUS_STYLES.items()}
    with chromium((1600, 1000)) as (page, messages), screenshot_on_failure(page, "diff_5k_memory_failure.png"):
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        _overviews_drawn(page, "", big["T"])
        # a binned cell holding changed tensors says so under the mouse (panels/cells.js): find one, point at it
        page.locator(".dx-memory-b").scroll_into_view_if_needed()
        settled(page, ".dx-memory-b")
        cell = page.evaluate(FLAGGED_CELL)
        assert cell, "no binned cell holds a changed tensor"
        px = cell["px"]
        page.mouse.move(px[0] - 20, px[1] - 20)
        page.mouse.move(*px, steps=3)
        page.wait_for_function("() => { const t = document.querySelector('.dx-memory-b .dx-celltip'); return t && !t.hidden; }",
                               timeout=5_000)
        assert f"({cell['n']:,} changed)" in page.locator(".dx-memory-b .dx-celltip").text_content()
        m = page.evaluate("() => window.dxDiff.lod().side('b').folded().instUnit.length")
        page.evaluate("(w) => Plotly.relayout(document.querySelector('.dx-memory-b'), {'xaxis.range': w})", [m // 2, m // 2 + 40])
        page.wait_for_function("() => Array.from(document.querySelectorAll('.dx-memory-b .annotation-text'))"
                               ".some(a => a.textContent.startsWith('showing '))", timeout=15_000)
        assert page.evaluate("() => document.querySelector('.dx-memory-b .dx-celltip').hidden"), \
            "the cell's label goes with the cells (the mouse has not moved)"
        lanes = page.evaluate("""() => { const gd = document.querySelector('.dx-memory-b'), out = [];
          gd.data.forEach((t, q) => { if (q % 2 === 0 && t.type === 'bar' && t.customdata && t.marker && t.marker.line)
            out.push({ids: Array.from(t.customdata), line: Array.from(t.marker.line.color || [])}); });
          return out; }""")
        seen = {"marked": 0, "plain": 0}
        for lane in lanes:
            for v, line in zip(lane["ids"], lane["line"]):
                status = big["status_b"].get(v)
                if status is None:
                    assert line in ("white", ERROR), (v, line)  # an error finding's red comes first
                    seen["plain"] += 1
                else:
                    assert line in (colors[status], ERROR), (v, status, line)
                    seen["marked"] += line == colors[status]
        assert seen["marked"] > 0 and seen["plain"] > 0, seen
        page.locator(".dx-memory-b").screenshot(path=str(ARTIFACTS / "diff_5k_memory_b_zoomed.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_big_diff_widget_in_jupyterlab(tmp_path, big):
    from browser_helpers import jupyter_lab, lab_browser, open_notebook, run_all, write_notebook

    T = big["T"]
    notebook = tmp_path / "diff5k.ipynb"
    far = max(big["moved"])  # in the last group: folded until selected from Python
    write_notebook(notebook, [f"import explorer\nd = explorer.Diff({str(big['a'])!r}, {str(big['b'])!r})\nd",
                              "print('selected:', d.selected)",
                              f"if d.selected:  # run again after the click (Run All leaves it alone)\n"
                              f"    d.select({far}, side='a')"])
    with jupyter_lab(tmp_path) as (base, token), lab_browser(TALL) as (page, messages), \
            screenshot_on_failure(page, "diff_5k_lab_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        groups = _overviews_drawn(page, ".dx-explorer ", T)
        page.locator(".dx-explorer").first.scroll_into_view_if_needed()
        settled(page, ".dx-explorer .dx-graph-a")  # the notebook may re-lay out its cells after the scroll
        groups = _overviews_drawn(page, ".dx-explorer ", T)
        pick = _open_and_pick(page, ".dx-explorer ", T, groups["a"], big["moved"])
        click_point(page, ".dx-explorer .dx-graph-a", pick)
        want = big["pairs"][pick["id"]]
        page.wait_for_function(
            "(label) => { const d = document.querySelector('.dx-explorer .dx-details');"
            " return d && d.textContent.includes('moved device') && d.textContent.includes(label) }",
            arg=f"%{want}", timeout=10_000)
        page.screenshot(path=str(ARTIFACTS / "diff_5k_widget.png"))
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "(text) => Array.from(document.querySelectorAll('.jp-OutputArea-output')).some(o => o.textContent.includes(text))",
            arg=f"values_a=({pick['id']},), values_b=({want},)", timeout=15_000)
        # select() from Python: both sides open the groups holding the tensor and its counterpart, and ring them
        cell = page.locator(".jp-Notebook .jp-Cell").nth(2)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "([v, w]) => { const app = document.querySelector('.dx-explorer').dxApp;"
            " return app.state.values.a[0] === v && app.state.values.b[0] === w &&"
            " document.querySelector('.dx-explorer .dx-graph-a').data[4].customdata.indexOf(v) >= 0 &&"
            " document.querySelector('.dx-explorer .dx-graph-b').data[4].customdata.indexOf(w) >= 0 }",
            arg=[far, big["pairs"][far]], timeout=15_000)
        for side in "ab":
            assert len(page.evaluate(RINGS_JS, f".dx-explorer .dx-graph-{side}")) == 1
        assert not [m for m in messages if m.startswith("pageerror")], messages


def test_hostile_names_in_a_big_pair_stay_text(tmp_path):
    """A pair drawn at a level of detail (forced, so the hostile fixture of tests/test_injection.py serves): names
    from the files reach the page as text in the details of a pair, of an op pair, of a group and in search lists."""
    import dataclasses

    from test_injection import PLAN_NAMES, assert_clean, hostile_program

    from explorer import load
    from writers.pte import write
    from explorer.model.program import Device, Tensor
    from explorer.views.html.diff import write_diff_report

    cuda1 = Device.parse("cuda:1")
    pa = hostile_program()
    plans = []
    for plan in pa.plans:  # the cuda:0 tensors and arenas of B on cuda:1: a change on every offloaded step
        values = tuple(dataclasses.replace(v, device=cuda1) if isinstance(v, Tensor) and str(v.device) == "cuda:0" else v
                       for v in plan.values)
        devices = tuple(dataclasses.replace(d, device=cuda1) if str(d.device) == "cuda:0" else d for d in plan.buffer_devices)
        plans.append(dataclasses.replace(plan, values=values, buffer_devices=devices))
    pb = load(write(dataclasses.replace(pa, plans=tuple(plans))))
    _, _, result = open_diff(pa, pb)
    views = {p.plan: diff_plan_view(result, pa, pb, p.plan) for p in result.plans}
    moved = [v for v, s in views[PLAN_NAMES[0]].diff.status_a.items() if s == "device"]
    assert moved
    report = write_diff_report(pa, pb, tmp_path / "hostile_diff.html", result=result, programs=(pa, pb), views=views)
    with chromium((1600, 1000)) as (page, messages):
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.route("**/*", lambda r: r.abort() if not r.request.url.startswith("file:") else r.continue_())
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1' && window.dxDiff.lod()", timeout=30_000)
        assert_clean(page)
        view = views[PLAN_NAMES[0]]
        page.evaluate("(v) => window.dxDiff.select({side: 'a', values: [v]})", moved[0])
        details = page.locator(".dx-details").inner_text()
        assert "moved device" in details and "img src=x" in details
        # the counterpart is selected on side b too, and ringed there (its group opens by itself)
        state = page.evaluate("() => window.dxDiff.state")
        assert (state["values"], state["instructions"]) == ({"a": [moved[0]], "b": [view.pair("a", moved[0])]},
                                                            {"a": [], "b": []}), state
        page.wait_for_function("() => ['a', 'b'].every(s => document.querySelectorAll("
                               "'.dx-graph-' + s + ' .dx-overlay .dx-ring').length === 1)", timeout=15_000)
        assert_clean(page)
        page.evaluate("() => window.dxDiff.select({side: 'b', instructions: [0]})")
        # an instruction selected on side b selects its counterpart on side a (Python's pairing), rings it on both
        # sides, and the details name the pair
        counterpart = view.instruction_pair("b", 0)
        assert counterpart is not None
        state = page.evaluate("() => window.dxDiff.state")
        assert (state["side"], state["values"], state["instructions"]) == (
            "b", {"a": [], "b": []}, {"a": [counterpart], "b": [0]}), state
        page.wait_for_function("() => ['a', 'b'].every(s => document.querySelectorAll("
                               "'.dx-graph-' + s + ' .dx-overlay .dx-ring').length === 1)", timeout=15_000)
        assert f"#{counterpart} \u2192 #0" in page.locator(".dx-details").inner_text()
        assert_clean(page)
        page.fill(".dx-search", "img")
        assert page.evaluate("() => window.dxDiff.state.values.a.length") > 0
        assert "img src=x" in page.locator(".dx-details").inner_text()
        assert_clean(page)
        assert dialogs == [] and not [m for m in messages if m.startswith(("pageerror", "error"))], messages
