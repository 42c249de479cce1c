"""A binned memory lane in Chromium (explorer/frontend/cells.js): the cells are one image per lane, not an
SVG bar each, and what the image shows is what the cells' hover points say.

The 1k-op wide device program (two arenas of ~1,400 one-step tensors, all under 3 px wide at the first
view) is the case that made ~6,000 bars and cost ~1 s of its first view. Here: one layout image per binned
lane and no bar per cell; every non-empty cell's pixel has the opacity its share in use says and every
other pixel is clear; a real mouse over a cell shows that cell's hover; a click on it zooms the lanes in
until its tensors are blocks. Screenshot: ``artifacts/cells_wide1k.png``.
"""

from __future__ import annotations

import pytest
from browser_helpers import ARTIFACTS, chromium, require_browser, screenshot_on_failure

from explorer import load
from explorer.format.synth import synthetic_program
from explorer.format.writer import write
from explorer.views.memory_lod import BINS
from explorer.views.report import write_report

pytestmark = pytest.mark.browser

# per binned lane: its image's pixels read back through a canvas, and its hover points
READ_CELLS = """async () => {
  const md = document.querySelector('.dx-memory'), out = [];
  const images = (md.layout.images || []).filter((im) => im.name === 'cells');
  const lanes = md.data.map((t, q) => [t, q]).filter(([t]) => (t.name || '').endsWith('(aggregated)') && t.visible !== false);
  for (let k = 0; k < lanes.length; k++) {
    const [t, q] = lanes[k], im = images[k], img = new Image();
    img.src = im.source;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    out.push({trace: q, xref: im.xref, x: im.x, sizex: im.sizex, sizey: im.sizey, width: img.width, height: img.height,
              alpha: Array.from(ctx.getImageData(0, 0, img.width, img.height).data).filter((_, i) => i % 4 === 3),
              px: t.x, py: t.y, share: t.customdata.map((d) => d[1]), hover: t.hovertext});
  }
  return {lanes: out, images: images.length, svgImages: md.querySelectorAll('image').length,
          bars: md.querySelectorAll('.trace.bars .point').length};
}"""


@pytest.fixture(scope="module")
def wide_report(tmp_path_factory):
    require_browser()
    work = tmp_path_factory.mktemp("cells")
    pte = work / "wide_device_1k.pte"
    pte.write_bytes(write(synthetic_program(values=1_400)))
    return write_report(load(pte), work / "wide.html")


def test_binned_lanes_are_one_image_each_and_hover_what_they_show(wide_report):
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "cells_failure.png"):
        page.goto(wide_report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
        page.locator(".dx-memory").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        r = page.evaluate(READ_CELLS)
        assert len(r["lanes"]) == 2 and r["images"] == 2 and r["svgImages"] == 2, "one image per binned lane"
        assert r["bars"] < 600, f"{r['bars']} SVG bars: cells are drawn as bars again"
        for lane in r["lanes"]:
            assert (lane["width"], lane["height"]) == BINS, "one pixel per cell"
            step, rise = lane["sizex"] / BINS[0], lane["sizey"] / BINS[1]
            expected = [0] * (BINS[0] * BINS[1])
            for x, y, share in zip(lane["px"], lane["py"], lane["share"]):
                i, j = round((x - lane["x"]) / step - 0.5), round(y / rise - 0.5)
                expected[(BINS[1] - 1 - j) * BINS[0] + i] = round(255 * (0.12 + 0.88 * share))
            assert lane["alpha"] == expected, "the image shows exactly the cells the hover points describe"
        page.locator(".dx-memory").screenshot(path=str(ARTIFACTS / "cells_wide1k.png"))

        # a real mouse over one cell of the first lane: its own hover
        lane = r["lanes"][0]
        pick = max(range(len(lane["px"])), key=lambda q: (lane["share"][q], -abs(lane["px"][q] - lane["x"] - lane["sizex"] / 2)))
        at = page.evaluate("""([q, x, y]) => { const md = document.querySelector('.dx-memory'), L = md._fullLayout;
          const t = md._fullData[q], xa = L[t.xaxis.replace('x', 'xaxis')], ya = L[t.yaxis.replace('y', 'yaxis')];
          const r = md.querySelector('.main-svg').getBoundingClientRect();
          return [r.left + xa._offset + xa.l2p(x), r.top + ya._offset + ya.l2p(y)]; }""",
                           [lane["trace"], lane["px"][pick], lane["py"][pick]])
        page.mouse.move(at[0] - 40, at[1] - 40)
        page.mouse.move(*at, steps=4)
        page.wait_for_function("() => document.querySelectorAll('.dx-memory .hoverlayer .hovertext').length > 0", timeout=5_000)
        shown = page.locator(".dx-memory .hoverlayer .hovertext").first.text_content()
        head = lane["hover"][pick].split("<br>")[0]
        assert head.replace("\u00b7", "·") in shown and "% in use" in shown, (shown, head)

        # a click on it zooms in around it; a few more and its tensors are blocks
        before = page.evaluate("() => document.querySelector('.dx-memory').layout.xaxis.range.slice()")
        page.mouse.click(*at)
        page.wait_for_function("(b) => { const r = document.querySelector('.dx-memory').layout.xaxis.range;"
                               " return r[1] - r[0] < (b[1] - b[0]) / 10; }", arg=before, timeout=10_000)
        page.wait_for_function("() => Array.from(document.querySelectorAll('.dx-memory .annotation-text'))"
                               ".some(a => a.textContent.startsWith('showing '))", timeout=10_000)
        assert page.evaluate("() => (document.querySelector('.dx-memory').layout.images || []).length") == 0, \
            "zoomed in: blocks, no cells"
        errors = [m for m in messages if m.startswith(("pageerror", "error"))]
        assert not errors, errors
