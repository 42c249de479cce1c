"""A value read by 30 operators in Chromium (issue 32, item 6): drawn as one edge and 29 stubs (lod/fold.js
FANOUT_STUB), each stub's dot named after the value; the pointer on a stub's dot draws the edge and every stub bold
at once, leaving it draws none, and a click on it selects the value (its details show). Under node,
tests/test_lod_js.py counts the edges and stubs and the bold edges of the selection."""

from __future__ import annotations

import pytest
from browser_helpers import ARTIFACTS, chromium, require_browser, screenshot_on_failure, settled
from test_lod_js import fan_out_program

from explorer.views.html.report import write_report

pytestmark = pytest.mark.browser

# the graph's stub dots (the crossings trace's points holding a value) in page px, with their labels
DOTS_JS = """() => { const gd = document.querySelector('.dx-graph'), L = gd._fullLayout, r = gd.getBoundingClientRect();
  const d = gd.data.find((t) => t.name === 'crossings'), out = [];
  (d.customdata || []).forEach((v, k) => { if (v >= 0) out.push({v, x: r.left + L._size.l + L.xaxis.l2p(d.x[k]),
    y: r.top + L._size.t + L.yaxis.l2p(d.y[k])}); });
  const labels = Array.from(gd.querySelectorAll('.dx-labels text')).map((t) => t.textContent);
  return {dots: out, labels}; }"""
# the bold edges drawn over the graph (panels/rings.js): one path of polylines, a move-to each
BOLD_JS = """() => Array.from(document.querySelectorAll('.dx-graph .dx-overlay path.dx-edge'))
  .map((p) => ((p.getAttribute('d') || '').match(/M/g) || []).length).reduce((a, b) => a + b, 0)"""


def test_a_fan_out_value_lights_up_whole_under_the_pointer(tmp_path):
    require_browser()
    program, w = fan_out_program(30)
    report = write_report(program, tmp_path / "fanout.html")
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "fanout_failure.png"):
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
        settled(page, ".dx-graph")
        got = page.evaluate(DOTS_JS)
        dots = [d for d in got["dots"] if d["v"] == w]
        assert len(dots) >= 10, f"{len(dots)} stub dots in view"
        assert got["labels"].count("w") >= len(dots) // 2, "stub dots are named after their value"
        assert page.evaluate(BOLD_JS) == 0
        page.mouse.move(dots[0]["x"], dots[0]["y"])
        page.wait_for_function(f"() => ({BOLD_JS})() === 30", timeout=10_000)  # the edge and all 29 stubs
        page.screenshot(path=str(ARTIFACTS / "fanout_hover.png"))
        page.mouse.move(5, 5)
        page.wait_for_function(f"() => ({BOLD_JS})() === 0", timeout=10_000)
        page.mouse.click(dots[0]["x"], dots[0]["y"])
        page.wait_for_function("() => /nothing in the plan writes it/.test(document.querySelector('.dx-details').textContent)",
                               timeout=10_000)
        assert page.evaluate(BOLD_JS) == 30, "selected: every stub bold"
        assert not [m for m in messages if m.startswith(("error", "pageerror"))], messages
