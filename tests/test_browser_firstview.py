"""The first view a reviewer trusts (issue 32, items 1, 2, 8, 9), measured in headless Chromium on real reports.

* The memory map beside the graph in the first view of a wide window (1600 and 1400 px), under it in a narrower one
  (1280 px, a notebook cell of 1000 px), where a click on a tensor scrolls its block into view; in the diff each
  side's memory map under its graph, its top in the first view.
* Every ring, badge and outline drawn over a plot (and every plotly marker not clipped by plotly) sits inside its plot
  area: on a what-if report of a program with 85 delegate calls and on the diff of two 60-delegate programs.
* The wheel over a plot scrolls the page unless the plot was clicked or Ctrl is held (then it zooms), and a hint says
  so on hover: over the graph and the memory map.
* The details box grows with what it says: no scrollbar of its own, no line cut, in the one-program app and the diff.

Each page is loaded once (module-scoped) and resized or scrolled between checks. Screenshots go to
``artifacts/firstview_*.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS, require_browser, shared_browser, screenshot_on_failure, settled, trace_points

import explorer
from explorer.views.html.diff import write_diff_report
from explorer.views.html.report import write_report
from explorer.views.html.whatif import write_whatif_report
from explorer.views.state.overview import TRACE
from writers.pte import write
from writers.synth import synthetic_program

pytestmark = pytest.mark.browser

SAMPLE = Path(explorer.__file__).parent / "data" / "sample.pte"

# an element's box in the viewport
RECT_JS = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom} }"

# what is drawn over or in each plot outside its plot area (plotly's _size: the area its axes span), page pixels:
# our layers' rings, badges and outlines (panels/rings.js) and plotly's markers where no clip path holds them in
OUTSIDE_JS = """() => {
  const out = [], seen = {};
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const L = gd._fullLayout;
    if (!L || !L._size) continue;
    const b = gd.getBoundingClientRect(), s = L._size, name = Array.from(gd.classList).find((c) => /^dx-(graph|memory)/.test(c));
    const area = [b.left + s.l, b.top + s.t, b.left + s.l + s.w, b.top + s.t + s.h];
    const drawn = Array.from(gd.querySelectorAll('.dx-overlay .dx-mark, .dx-overlay .dx-ring, .dx-overlay .dx-mark-text, .dx-overlay .dx-outline'))
      .concat(Array.from(gd.querySelectorAll('.scatterlayer path.point')).filter((p) => !p.closest('[clip-path]')));
    seen[name] = drawn.length;
    for (const e of drawn) {
      const r = e.getBoundingClientRect();
      if (!r.width && !r.height) continue;  // not drawn (plotly hides a point off its axes so)
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      if (x < area[0] - 1 || x > area[2] + 1 || y < area[1] - 1 || y > area[3] + 1)
        out.push(name + ' ' + e.getAttribute('class') + ' at ' + Math.round(x) + ',' + Math.round(y));
    }
  }
  return {out, seen};
}"""

# lines of the details box cut by a box that scrolls or clips (the details or one around them), and inner scrollbars
DETAILS_CUT_JS = """() => {
  const box = document.querySelector('.dx-details'), out = [];
  const clips = [];
  for (let e = box; e && e !== document.body; e = e.parentElement) {
    const st = getComputedStyle(e);
    if (st.overflowY !== 'visible' || st.overflowX !== 'visible') {
      clips.push(e);
      if (e.scrollHeight > e.clientHeight + 1) out.push('scrolls inside: ' + e.className + ' ' + e.scrollHeight + ' > ' + e.clientHeight);
    }
  }
  for (const line of box.querySelectorAll('h4, tr, li, p, summary')) {
    const r = line.getBoundingClientRect();
    if (!r.height) continue;
    for (const c of clips) {
      const k = c.getBoundingClientRect();
      if (r.bottom > k.bottom + 1 || r.top < k.top - 1) { out.push('cut: ' + line.textContent.slice(0, 40)); break; }
    }
  }
  return {out, height: box.scrollHeight, lines: box.querySelectorAll('tr, li').length};
}"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The bundled sample; a what-if of a 600-value CPU program with every add moved to cuda:0 (85 delegate calls);
    the diff of two 600-value programs of 59 delegate calls each, on cuda:0 and on cuda:1."""
    require_browser()
    work = tmp_path_factory.mktemp("firstview")
    cpu = explorer.load(write(synthetic_program(values=600, devices=())))
    a = explorer.load(write(synthetic_program(values=600)))
    b = explorer.load(write(synthetic_program(values=600, devices=("cuda:1",))))
    return {"sample": write_report(explorer.load(SAMPLE), work / "sample.html"),
            "whatif": write_whatif_report(cpu, explorer.what_if(cpu, ["op:aten::add=cuda:0"]), work / "whatif.html"),
            "diff": write_diff_report(a, b, work / "diff.html")}


@pytest.fixture(scope="module")
def browser():
    require_browser()
    return shared_browser()


def open_page(browser, report, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    messages = []
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.goto(report.as_uri())
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
    page.dx_messages = messages
    return page


@pytest.fixture(scope="module")
def sample_page(browser, reports):
    page = open_page(browser, reports["sample"], (1600, 1000))
    yield page
    assert not page.dx_messages, page.dx_messages
    page.close()


@pytest.fixture(scope="module")
def whatif_page(browser, reports):
    page = open_page(browser, reports["whatif"], (1600, 1000))
    yield page
    assert not page.dx_messages, page.dx_messages
    page.close()


def resize(page, width, height):
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("(w) => { const g = document.querySelector('.dx-graph, .dx-graph-a'); "
                           "return Math.abs(g._fullLayout.width - g.clientWidth) <= 1 }", arg=width)
    settled(page, ".dx-app")


def rect(page, sel):
    return page.evaluate(RECT_JS, sel)


def test_memory_map_beside_the_graph_when_wide_under_it_when_narrow(sample_page):
    page = sample_page
    with screenshot_on_failure(page, "firstview_layout_failed.png"):
        for width in (1600, 1400):
            resize(page, width, 1000)
            graph, memory = rect(page, ".dx-graph-card"), rect(page, ".dx-memory")
            assert memory["b"] <= 1000, f"{width} px: the memory map ends at {memory['b']:.0f}, past the first view"
            assert memory["l"] >= graph["r"] and memory["t"] < graph["b"], f"{width} px: not beside the graph: {graph} {memory}"
            page.screenshot(path=str(ARTIFACTS / f"firstview_{width}.png"))
        for width in (1280, 1000):  # a narrow window, a notebook cell: the memory map under the graph
            resize(page, width, 900)
            graph, memory, side = rect(page, ".dx-graph-card"), rect(page, ".dx-memory"), rect(page, ".dx-side")
            assert memory["t"] >= graph["b"] and memory["l"] < graph["r"], f"{width} px: not under the graph: {graph} {memory}"
            assert side["l"] >= graph["r"] and side["t"] < graph["b"], f"{width} px: the details not beside the graph"
        # a real click on tensor %3 (top of the graph): its block, below the first view, is scrolled into view
        point = next(p for p in trace_points(page, ".dx-graph", TRACE["tensors"]) if p["id"] == 3)
        page.mouse.click(point["x"], point["y"])
        page.wait_for_function("() => window.dxReport.state.values.join() === '3'")
        page.wait_for_function("""() => { const o = document.querySelector('.dx-memory .dx-overlay .dx-outline');
          if (!o) return false; const r = o.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight }""",
                               timeout=5_000)
        assert page.evaluate("() => window.scrollY") > 0
        page.screenshot(path=str(ARTIFACTS / "firstview_1000_block_shown.png"))
        page.evaluate("() => window.dxReport.select({values: [], instructions: []})")
    resize(page, 1600, 1000)


def test_diff_memory_maps_under_their_graphs_in_the_first_view(whatif_page):
    page = whatif_page
    with screenshot_on_failure(page, "firstview_diff_layout_failed.png"):
        resize(page, 1600, 1000)
        ga, gb = rect(page, ".dx-graph-a"), rect(page, ".dx-graph-b")
        assert gb["l"] >= ga["r"] and abs(gb["t"] - ga["t"]) < 2, "the graphs side by side"
        for s, g in (("a", ga), ("b", gb)):
            memory = rect(page, f".dx-memory-{s}")
            assert memory["t"] >= g["b"] and abs(memory["l"] - g["l"]) < 2, f"{s}'s memory map not under its graph"
            # its heading and the lanes' legend in the first view (a click on a node scrolls its block into view)
            assert memory["t"] < 1000 - 40, f"{s}'s memory map starts at {memory['t']:.0f}: below the first view"
        page.screenshot(path=str(ARTIFACTS / "firstview_whatif_1600.png"))


def assert_marks_inside(page, where):
    """Every mark over the first view's plots inside its plot area; then B's graph panned so that half of it lies above
    its top, and the same (the view panned back after)."""
    settled(page, ".dx-app")
    got = page.evaluate(OUTSIDE_JS)
    assert got["seen"]["dx-graph-a"] >= 4 and got["seen"]["dx-graph-b"] >= 4, got["seen"]  # a moved call ringed
    assert not got["out"], f"{where}: {len(got['out'])} drawn outside the plot: {got['out'][:8]}"
    shift = """(k) => { const gd = document.querySelector('.dx-graph-b'), r = gd._fullLayout.yaxis.range, h = (r[1] - r[0]) / 2;
      return Plotly.relayout(gd, {'yaxis.range': [r[0] - k * h, r[1] - k * h]}) }"""
    page.evaluate(shift, 1)
    settled(page, ".dx-graph-b")
    got = page.evaluate(OUTSIDE_JS)
    assert not got["out"], f"{where}, after a pan: {len(got['out'])} drawn outside the plot: {got['out'][:8]}"
    page.evaluate(shift, -1)
    settled(page, ".dx-graph-b")


def test_marks_stay_inside_their_plot_area(browser, reports, whatif_page):
    with screenshot_on_failure(whatif_page, "firstview_marks_whatif_failed.png"):
        resize(whatif_page, 1600, 1000)
        assert_marks_inside(whatif_page, "what-if")
    page = open_page(browser, reports["diff"], (1600, 1000))
    try:
        with screenshot_on_failure(page, "firstview_marks_diff_failed.png"):
            assert_marks_inside(page, "diff")
            page.screenshot(path=str(ARTIFACTS / "firstview_diff60.png"))
        assert not page.dx_messages, page.dx_messages
    finally:
        page.close()


def axis_range(page, sel):
    return page.evaluate("(sel) => document.querySelector(sel)._fullLayout.xaxis.range.slice()", sel)


def wheel_at(page, sel, dy, ctrl=False):
    box = rect(page, sel)  # (the middle of its part in the window)
    page.mouse.move((box["l"] + box["r"]) / 2, (max(box["t"], 0) + min(box["b"], page.viewport_size["height"])) / 2)
    if ctrl:
        page.keyboard.down("Control")
    page.mouse.wheel(0, dy)
    if ctrl:
        page.keyboard.up("Control")


def test_the_wheel_scrolls_the_page_unless_the_plot_was_clicked_or_ctrl_held(sample_page):
    page = sample_page
    with screenshot_on_failure(page, "firstview_wheel_failed.png"):
        resize(page, 1600, 700)
        page.mouse.click(5, 5)  # no plot clicked (the test before clicked the graph)
        for sel in (".dx-graph", ".dx-memory"):
            before = axis_range(page, sel)
            wheel_at(page, sel, 120)
            page.wait_for_function("() => window.scrollY > 0", timeout=5_000)
            assert axis_range(page, sel) == before, f"{sel}: the wheel zoomed an unclicked plot"
            hint = page.locator(f"{sel} .dx-wheel-hint")
            assert hint.is_visible() and "scroll to zoom, or click the plot first" in hint.inner_text()
            page.evaluate("() => window.scrollTo(0, 0)")
            wheel_at(page, sel, -240, ctrl=True)  # Ctrl held: it zooms, the page stays
            page.wait_for_function("([sel, r]) => document.querySelector(sel)._fullLayout.xaxis.range.join() !== r.join()",
                                   arg=[sel, before], timeout=5_000)
            assert page.evaluate("() => window.scrollY") == 0
            settled(page, sel)
            box = rect(page, sel)  # clicked (an empty corner of the plot): the wheel is the plot's until a press elsewhere
            page.mouse.click(box["l"] + 30, min(box["b"], 700) - 60)
            assert not hint.is_visible()
            zoomed = axis_range(page, sel)
            wheel_at(page, sel, -240)
            page.wait_for_function("([sel, r]) => document.querySelector(sel)._fullLayout.xaxis.range.join() !== r.join()",
                                   arg=[sel, zoomed], timeout=5_000)
            assert page.evaluate("() => window.scrollY") == 0
            settled(page, sel)
            page.mouse.click(5, 5)  # a press elsewhere: the page's again
            wheel_at(page, sel, 120)
            page.wait_for_function("() => window.scrollY > 0", timeout=5_000)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.evaluate("(sel) => Plotly.relayout(document.querySelector(sel), {'xaxis.autorange': true})", sel)
            settled(page, sel)
    resize(page, 1600, 1000)


def test_details_grow_with_what_they_say(sample_page, whatif_page):
    page = sample_page
    with screenshot_on_failure(page, "firstview_details_failed.png"):
        resize(page, 1600, 1000)
        page.evaluate("() => window.dxReport.select({values: [5]})")  # a tensor sharing bytes with five others
        got = page.evaluate(DETAILS_CUT_JS)
        assert got["height"] > 420 and got["lines"] > 10, got  # more than the box held before
        assert not got["out"], got["out"]
        page.screenshot(path=str(ARTIFACTS / "firstview_details.png"))
        page.evaluate("() => window.dxReport.select({values: [], instructions: []})")
    page = whatif_page
    with screenshot_on_failure(page, "firstview_diff_details_failed.png"):
        resize(page, 1000, 900)  # a notebook cell: both sides' details in narrow columns
        page.evaluate("() => window.dxDiff.select({side: 'a', values: [7], instructions: []}, ['a', 'b'])")  # a moved tensor
        got = page.evaluate(DETAILS_CUT_JS)
        assert got["height"] > 420, got
        assert not got["out"], got["out"]
        page.evaluate("() => window.dxDiff.select({side: '', values: [], instructions: []})")
    resize(page, 1600, 1000)
