"""A binned memory lane in Chromium (explorer/frontend/panels/cells.js): the cells are one image per lane, not an
SVG bar each; what the image shows is what the cells say; the pointer finds a cell by a hit test, and a
named block drawn over the cells keeps its own hover and click.

The 1k-op wide device program (two arenas of ~1,400 one-step tensors, all under 3 px wide at the first
view) is the case that made ~6,000 bars and cost ~1 s of its first view. Here: one layout image per binned
lane and no bar per cell; every non-empty cell's pixel has the opacity its share in use says and every
other pixel is clear; a real mouse over a cell shows that cell's text; a click on it zooms the lanes in
until its tensors are blocks. On a chain of one-step activations beside a long-lived cache (a named block
kept in a binned lane), the mouse inside the block near its edge, a few pixels from the cells, shows and
selects the block. Screenshots: ``artifacts/cells_wide1k.png``, ``artifacts/cells_block.png``.
"""

from __future__ import annotations

import pytest
from analysis_helpers import PlanBuilder
from browser_helpers import ARTIFACTS, chromium, require_browser, screenshot_on_failure, settled

from explorer import load
from writers.synth import synthetic_program
from writers.pte import write
from explorer.views.state.memory import BINS
from explorer.views.state.plan import plan_view
from explorer.views.html.report import write_report

pytestmark = pytest.mark.browser

# per binned lane: its image's pixels read back through a canvas, and its cells as the app holds them
READ_CELLS = """async () => {
  const md = document.querySelector('.dx-memory'), L = window.dxReport.lod(), out = [];
  const images = (md.layout.images || []).filter((im) => im.name === 'cells');
  for (let k = 0; k < images.length; k++) {
    const im = images[k], img = new Image();
    img.src = im.source;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const g = L.lane(k).heat;
    out.push({xref: im.xref, x: im.x, sizex: im.sizex, y: im.y, sizey: im.sizey, width: img.width, height: img.height,
              alpha: Array.from(ctx.getImageData(0, 0, img.width, img.height).data).filter((_, i) => i % 4 === 3),
              share: Array.from(g.share), count: Array.from(g.count), w: g.w, gh: g.height});
  }
  return {lanes: out, svgImages: md.querySelectorAll('image').length, bars: md.querySelectorAll('.trace.bars .point').length,
          arenas: L.state ? md.layout.images.length : 0};
}"""

# the page position of data point (x, y) on lane k's axes
TO_PAGE = """([k, x, y]) => { const md = document.querySelector('.dx-memory'), L = md._fullLayout, s = k ? String(k + 1) : '';
  const xa = L['xaxis' + s], ya = L['yaxis' + s], r = md.getBoundingClientRect();
  return [r.left + xa._offset + xa.l2p(x), r.top + ya._offset + ya.l2p(y)]; }"""


def _open(page, report) -> None:
    page.goto(report.as_uri())
    page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=60_000)
    page.locator(".dx-memory").scroll_into_view_if_needed()
    settled(page, ".dx-memory")


def _tip(page) -> str | None:
    return page.evaluate("() => { const t = document.querySelector('.dx-memory .dx-celltip');"
                         " return t && !t.hidden ? t.textContent : null; }")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    require_browser()
    work = tmp_path_factory.mktemp("cells")
    pte = work / "wide_device_1k.pte"
    pte.write_bytes(write(synthetic_program(values=1_400)))
    wide = write_report(load(pte), work / "wide.html")
    b = PlanBuilder(arenas=[(256 + 1024, "cpu")])  # four 64-byte slots cycled by a chain, a 1 KiB cache above them
    cache = b.tensor((16, 16), arena=1, offset=256, name="kv_cache")
    x = b.tensor((2, 8), arena=1, offset=0, name="act0")
    b.kernel("aten::add.out", x, cache, x, x)
    for i in range(1, 1_200):
        y = b.tensor((2, 8), arena=1, offset=64 * (i % 4), name=f"act{i}")
        b.kernel("aten::add.out", x, cache, y, y)
        x = y
    program = b.program()
    view = plan_view(program.plans[0], program)
    chain = write_report(program, work / "chain.html", views={view.plan.name: view})
    return {"wide": wide, "chain": chain, "cache": cache}


def test_binned_lanes_are_one_image_each_and_say_what_they_show(reports):
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "cells_failure.png"):
        _open(page, reports["wide"])
        r = page.evaluate(READ_CELLS)
        assert len(r["lanes"]) == 2 and r["svgImages"] == 2, "one image per binned lane"
        assert r["bars"] < 600, f"{r['bars']} SVG bars: cells are drawn as bars again"
        for lane in r["lanes"]:
            assert (lane["width"], lane["height"]) == BINS, "one pixel per cell"
            assert [lane["x"], lane["x"] + lane["sizex"]] == lane["w"] and lane["y"] == lane["sizey"] == lane["gh"]
            expected = [0] * (BINS[0] * BINS[1])
            for c, (share, n) in enumerate(zip(lane["share"], lane["count"])):
                if n:
                    i, j = c % BINS[0], c // BINS[0]
                    expected[(BINS[1] - 1 - j) * BINS[0] + i] = round(255 * (0.12 + 0.88 * share))
            assert lane["alpha"] == expected, "the image shows exactly the cells the app holds (top row: highest bytes)"
        page.locator(".dx-memory").screenshot(path=str(ARTIFACTS / "cells_wide1k.png"))

        # a real mouse over the fullest cell near the middle of lane 0: its own text
        lane = r["lanes"][0]
        step, rise = lane["sizex"] / BINS[0], lane["sizey"] / BINS[1]
        pick = max((c for c, n in enumerate(lane["count"]) if n),
                   key=lambda c: (lane["share"][c], -abs(c % BINS[0] - BINS[0] // 2)))
        i, j = pick % BINS[0], pick // BINS[0]
        at = page.evaluate(TO_PAGE, [0, lane["x"] + (i + 0.5) * step, (j + 0.5) * rise])
        page.mouse.move(at[0] - 40, at[1] - 40)
        page.mouse.move(*at, steps=4)
        page.wait_for_function("() => { const t = document.querySelector('.dx-memory .dx-celltip'); return t && !t.hidden; }",
                               timeout=5_000)
        text = _tip(page)
        assert f"{round(100 * lane['share'][pick])}% in use" in text and "largest: " in text and "click to zoom in" in text
        assert page.locator(".dx-memory .hoverlayer .hovertext").count() == 0, "no plotly label competes with it"
        page.mouse.move(at[0], at[1] - 400)  # off the figure: the text goes
        assert not _tip(page)

        # a click on it zooms in around it; its tensors become blocks
        page.mouse.move(*at)
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


def test_a_named_block_over_the_cells_keeps_its_hover_and_click(reports):
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "cells_block_failure.png"):
        _open(page, reports["chain"])
        assert page.evaluate("() => (document.querySelector('.dx-memory').layout.images || []).length") == 1
        block = page.evaluate("""() => { const t = document.querySelector('.dx-memory').data[0];
          return {id: t.customdata[0], x: t.x[0], base: t.base[0]}; }""")
        assert block["id"] == reports["cache"] and block["base"] == 256
        edge = page.evaluate(TO_PAGE, [0, block["x"], block["base"]])
        inside = [edge[0], edge[1] - 5]  # 5 px inside the block, just above the binned slots below it
        below = page.evaluate(TO_PAGE, [0, block["x"], 128])
        page.mouse.move(*below, steps=3)
        page.wait_for_function("() => { const t = document.querySelector('.dx-memory .dx-celltip');"
                               " return t && !t.hidden && t.textContent.includes('in use') }", timeout=10_000)  # the cells below answer
        page.mouse.move(*inside, steps=3)
        page.wait_for_function("() => document.querySelectorAll('.dx-memory .hoverlayer .hovertext').length > 0", timeout=5_000)
        assert "kv_cache" in page.locator(".dx-memory .hoverlayer .hovertext").first.text_content()
        assert not _tip(page), "no cell text over a block"
        page.locator(".dx-memory").screenshot(path=str(ARTIFACTS / "cells_block.png"))
        before = page.evaluate("() => document.querySelector('.dx-memory').layout.xaxis.range.slice()")
        page.mouse.click(*inside)
        page.wait_for_function("(v) => { const d = document.querySelector('.dx-details');"
                               " return d && d.textContent.includes('kv_cache'); }", arg=block["id"], timeout=10_000)
        assert page.evaluate("() => document.querySelector('.dx-memory').layout.xaxis.range.slice()") == before, \
            "a click on the block selects it; it does not zoom"
        errors = [m for m in messages if m.startswith(("pageerror", "error"))]
        assert not errors, errors
