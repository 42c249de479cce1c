"""Run profiles in the browser: the report of a device program with its (synthetic) ETDump, and a real
XNNPACK run, in headless Chromium — the time bar, ops sized by time with the legend's scale, time per run
of a selection, the memory map's x axis switched to measured time and back, and a switch of plans
(two_methods, real) restoring what the profile changed. Screenshots go to artifacts/.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS, chromium, label_draws, require_browser, screenshot_on_failure, settled

import explorer
from explorer.analysis.profile.join import join_profile
from explorer.cli import main
from explorer.views.state.overview import TRACE

pytestmark = pytest.mark.browser

FIX = Path(__file__).parent / "fixtures"
DUMPS = FIX / "etdump"


@pytest.fixture(autouse=True)
def _browser_available():
    require_browser()


def _open(page, report: Path, card: str = ".dx-prof", timeout_ms: int = 30_000) -> None:
    """Open a report offline and wait for its profile card (``.dx-prof-diff`` on a diff)."""
    page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_())
    page.goto(report.as_uri())
    page.wait_for_function("(card) => document.body.dataset.ready === '1' && document.querySelector(card)",
                           arg=card, timeout=timeout_ms)


# the contrast between the axis toggle's pressed and unpressed buttons' backgrounds (WCAG relative luminance)
PRESSED_JS = """() => { const bg = (b) => getComputedStyle(b).backgroundColor.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const on = document.querySelector('.dx-prof-axis button[aria-pressed="true"]'), off = document.querySelector('.dx-prof-axis button[aria-pressed="false"]');
  const [a, b] = [lum(bg(on)), lum(bg(off))].sort((x, y) => y - x);
  return Math.round(100 * (a + 0.05) / (b + 0.05)) / 100; }"""


def test_device_profile_in_the_report(tmp_path):
    report = tmp_path / "profile.html"
    code = main(["show", str(FIX / "device_mlp.pte"), "--profile", str(DUMPS / "synthetic_slow_copies.etdp"),
                 "-o", str(report)], stdout=io.StringIO())
    assert code == 0
    pp = join_profile(explorer.load(FIX / "device_mlp.pte"), explorer.load_etdump(DUMPS / "synthetic_slow_copies.etdp"))
    pp = pp.plans["forward"]
    with chromium((1300, 1000)) as (page, messages), screenshot_on_failure(page, "profile_failed.png"):
        _open(page, report)
        # the device bar: a segment per bucket with its share, then the executor's rest
        segs = page.evaluate("() => [...document.querySelectorAll('.dx-prof-seg')].map(s => [s.dataset.bucket, s.style.width])")
        assert [s[0] for s in segs] == ["cpu", "cuda:0", "copies", "executor"]
        want = {d.device: d.share for d in pp.devices}
        for name, width in segs[:3]:
            assert abs(float(width.rstrip("%")) - 100 * want[name]) < 0.01
        assert "88." in page.locator(".dx-prof-keys").inner_text()  # copies dominate this run
        # ops sized by median time: the slowest op is the largest, the legend shows the scale
        sizes = page.evaluate(f"() => {{ const t = document.querySelector('.dx-graph').data[{TRACE['ops']}];"
                              " const c = t.customdata; return [Array.from(c._inputArray || c), Array.from(t.marker.size)]; }")
        by_op = dict(zip(*sizes))
        slowest = max(range(len(pp.stats)), key=lambda i: pp.stats[i].median)
        fastest = min(range(len(pp.stats)), key=lambda i: pp.stats[i].median)
        assert by_op[slowest] == max(by_op.values()) and by_op[fastest] == min(by_op.values())
        assert page.locator(".dx-prof-legend circle").count() >= 2
        assert "median time per run" in page.locator(".dx-prof-legend").inner_text()
        page.screenshot(path=str(ARTIFACTS / "profile_report.png"), full_page=True)
        # the memory map's axis toggle stays one control where its heading wraps (the memory map beside the graph at
        # 1,600 px: "measured time" went to a line of its own, away from "instruction")
        page.set_viewport_size({"width": 1600, "height": 1000})
        page.wait_for_function("() => document.querySelector('.dx-memory-card').getBoundingClientRect().width < 800")
        tops = page.evaluate("() => [...document.querySelectorAll('.dx-prof-axis button')].map(b => b.getBoundingClientRect().top)")
        page.set_viewport_size({"width": 1300, "height": 1000})
        assert len(tops) == 2 and abs(tops[0] - tops[1]) < 2, tops
        # and the pressed one stands out in both schemes (in the dark one it was near-black beside near-black)
        for scheme in ("dark", "light"):
            page.emulate_media(color_scheme=scheme)
            ratio = page.evaluate(PRESSED_JS)
            assert ratio >= 3, (scheme, ratio)
        # a selected op shows its time per run
        page.evaluate(f"() => window.dxReport.select({{instructions: [{slowest}]}}, true)")
        details = page.locator(".dx-details").inner_text()
        assert "time per run" in details and "5 runs" in details
        assert page.locator(".dx-details .dx-prof-runs rect").count() == 5
        # the memory map on measured time: each block as wide as the time its instructions took
        page.locator(".dx-prof-axis button[data-axis=time]").click()
        state = page.evaluate("() => { const gd = document.querySelector('.dx-memory');"
                              " return [gd.layout.xaxis.range, gd.layout.xaxis2.title.text, Array.from(gd.data[0].width)]; }")
        total = float(page.evaluate("() => window.dxReport.profile().C.slice(-1)[0]"))
        assert state[0] == [0, total] and "measured time" in state[1]
        assert abs(total - sum(s.median for s in pp.stats if s.n)) / total < 0.01
        # the selected instruction's line follows the axis: drawn over the map at its time position
        line_x = page.evaluate("() => document.querySelector('.dx-memory').dxOverlay.items().lines.map(l => l.x)")
        outlined = len(line_x)
        page.screenshot(path=str(ARTIFACTS / "profile_time_axis.png"), full_page=True)
        # the overview strip above the lanes is on the same axis (issue 21): a double click on it shows the whole
        # run in time units, not in instructions
        page.evaluate("() => window.dxReport.select({values: [], instructions: []}, true)")
        page.evaluate("() => Plotly.relayout(document.querySelector('.dx-memory'), {'xaxis.range': [1, 2]})")
        page.locator(".dx-memstrip").dblclick()
        page.wait_for_function("(t) => { const r = document.querySelector('.dx-memory').layout.xaxis.range;"
                               " return Math.abs(r[0]) < 1e-6 && Math.abs(r[1] - t) < 1e-6; }", arg=total, timeout=5_000)
        page.locator(".dx-prof-axis button[data-axis=index]").click()
        back = page.evaluate("() => document.querySelector('.dx-memory').layout.xaxis.range")
        assert back[1] < 25 and outlined == 1
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_real_profiles_and_plan_switch(tmp_path):
    report = tmp_path / "two.html"
    assert main(["show", str(FIX / "two_methods.pte"), "--profile", str(DUMPS / "two_methods.etdp"), "-o", str(report)],
                stdout=io.StringIO()) == 0
    with chromium((1300, 1000)) as (page, messages), screenshot_on_failure(page, "profile_two_failed.png"):
        _open(page, report)
        first = page.evaluate("() => window.dxReport.state.plan")
        page.locator(".dx-prof-axis button[data-axis=time]").click()
        page.select_option(".dx-plan", "encode" if first == "forward" else "forward")
        # one time bar for the plan shown, the axis back to instructions, the hover text not doubled
        assert page.locator(".dx-prof").count() == 1
        page.select_option(".dx-plan", first)
        hover = page.evaluate(f"() => document.querySelector('.dx-graph').data[{TRACE['ops']}].hovertext[0]")
        assert hover.count("time:") == 1
        assert page.evaluate("() => document.querySelector('.dx-memory').layout.xaxis.range[1]") < 10
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages
    xnn = tmp_path / "xnn.html"
    assert main(["show", str(FIX / "xnnpack_mlp.pte"), "--profile", str(DUMPS / "xnnpack_mlp.etdp"), "-o", str(xnn)],
                stdout=io.StringIO()) == 0
    with chromium((1300, 900)) as (page, messages):
        _open(page, xnn)
        assert [s for s in page.evaluate("() => [...document.querySelectorAll('.dx-prof-seg')].map(s => s.dataset.bucket)")][0] == "cpu"
        page.evaluate("() => window.dxReport.select({instructions: [0]}, true)")
        assert page.locator(".dx-details .dx-prof-runs rect").count() == 5
        # the delegate opened in place: the edge through its box runs under its caption, not through the words
        # (the caption's background is the box's fill, opaque)
        assert page.evaluate("() => window.dxReport.delegates().toggle(0)")
        page.wait_for_function("() => [...document.querySelectorAll('.dx-graph .annotation')].some(a => /2 nodes/.test(a.textContent))")
        caption = page.evaluate("""() => { const a = [...document.querySelectorAll('.dx-graph .annotation')]
            .find(a => /2 nodes/.test(a.textContent)), bg = a.querySelector('rect.bg');
          return [bg.style.fill || bg.getAttribute('fill'), Number(bg.style.fillOpacity || bg.getAttribute('fill-opacity') || 1)]; }""")
        assert caption[0] not in ("", "none", "rgba(0, 0, 0, 0)", "transparent") and caption[1] >= 0.9, caption
        page.screenshot(path=str(ARTIFACTS / "profile_xnnpack.png"), full_page=True)
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_diff_view_with_two_profiles(tmp_path):
    page_file = tmp_path / "diff.html"
    assert main(["diff", str(FIX / "device_mlp.pte"), str(FIX / "device_mlp.pte"), "--html", str(page_file), "--profile",
                 str(DUMPS / "synthetic_device_mlp.etdp"), str(DUMPS / "synthetic_slow_copies.etdp")],
                stdout=io.StringIO()) == 0
    with chromium((1300, 1000)) as (page, messages), screenshot_on_failure(page, "profile_diff_failed.png"):
        _open(page, page_file, ".dx-prof-diff")
        widths = page.evaluate("() => [...document.querySelectorAll('.dx-prof-diffrow .dx-prof-bar')].map(b => parseFloat(b.style.width))")
        assert widths[1] == 100 and 35 < widths[0] < 50  # A's run (126 us) against B's (303 us), one scale
        # one op-size scale for both graphs: the same op is bigger where it is slower (the copies of B)
        sizes = page.evaluate(f"() => ['a', 'b'].map(s => Array.from(document.querySelector('.dx-graph-' + s).data[{TRACE['ops']}].marker.size))")
        assert max(sizes[1]) > max(sizes[0])
        first = page.locator(".dx-prof-change").first
        assert "copy" in first.inner_text() and "+" in first.inner_text()
        first.click()
        page.wait_for_function("() => window.dxDiff.state.instructions.a.length === 1 && window.dxDiff.state.instructions.b.length === 1")
        assert page.locator(".dx-details .dx-prof-runs").count() == 2  # A's and B's time per run
        page.screenshot(path=str(ARTIFACTS / "profile_diff.png"), full_page=True)
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_widget_with_profile_in_jupyterlab(tmp_path):
    """The notebook widget draws the profile as the report does, and the time axis switch works there too."""
    from browser_helpers import jupyter_lab, lab_browser, open_notebook, run_all, write_notebook

    notebook = tmp_path / "profile.ipynb"
    write_notebook(notebook, [f"import explorer\nex = explorer.Explorer({str(FIX / 'device_mlp.pte')!r}, "
                              f"profile={str(DUMPS / 'synthetic_device_mlp.etdp')!r})\nex"])
    with jupyter_lab(tmp_path) as (base, token), lab_browser((1300, 1000)) as (page, messages), \
            screenshot_on_failure(page, "lab_profile_failure.png", tmp_path / "jupyter.log"):
        open_notebook(page, base, token, notebook)
        run_all(page)
        page.wait_for_selector(".dx-explorer .dx-prof-seg", timeout=90_000)
        buckets = page.evaluate("() => [...document.querySelectorAll('.dx-explorer .dx-prof-seg')].map(s => s.dataset.bucket)")
        assert buckets == ["cpu", "cuda:0", "copies", "executor"]
        page.locator(".dx-explorer .dx-prof-axis button[data-axis=time]").click()
        page.wait_for_function("() => document.querySelector('.dx-explorer .dx-memory').layout.xaxis.range[1] > 1000")
        page.locator(".dx-explorer .dx-prof").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "lab_profile.png"))
        assert not [m for m in messages if m.startswith("pageerror")], messages


def test_big_diff_with_two_profiles(tmp_path):
    """A big pair (both sides drawn as overviews of groups) shows its two runs too: the run bars on one time
    scale, what changed most, and a click on a change selects it on both sides and opens the groups holding it."""
    import sys

    from diff_helpers import big_pair

    sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))
    from make_etdump_fixtures import synthesize

    a, b = big_pair(tmp_path)
    dumps = []
    for path, bandwidth, seed in ((a, 0.05, 1), (b, 0.002, 2)):  # B's copies ~25x slower
        dumps.append(tmp_path / (path.stem + ".etdp"))
        dumps[-1].write_bytes(synthesize(path, bandwidth, 0.05, seed))
    page_file = tmp_path / "diff.html"
    assert main(["diff", str(a), str(b), "--html", str(page_file), "--profile", *map(str, dumps)],
                stdout=io.StringIO()) == 0
    with chromium((1300, 1000)) as (page, messages), screenshot_on_failure(page, "profile_big_diff_failed.png"):
        _open(page, page_file, ".dx-prof-diff", 90_000)
        assert page.evaluate("() => !!window.dxDiff.lod()"), "the pair is drawn at a level of detail"
        widths = page.evaluate("() => [...document.querySelectorAll('.dx-prof-diffrow .dx-prof-bar')].map(b => parseFloat(b.style.width))")
        assert widths[1] == 100 and widths[0] < 100, widths  # B's slower copies: the longer run
        assert "one scale for A and B" in page.locator(".dx-prof-diff").inner_text()
        before = page.evaluate("() => ['a', 'b'].map(s => window.dxDiff.lod().side(s).state().expanded.length)")
        first = page.locator(".dx-prof-change").first
        assert "copy" in first.inner_text() and "+" in first.inner_text()
        drawn = {s: label_draws(page, f".dx-graph-{s}") for s in "ab"}
        first.click()
        page.wait_for_function("() => window.dxDiff.state.instructions.a.length === 1 && window.dxDiff.state.instructions.b.length === 1")
        for s in "ab":  # each side opens the groups holding it and redraws
            settled(page, f".dx-graph-{s}", after=drawn[s])
        after = page.evaluate("() => ['a', 'b'].map(s => window.dxDiff.lod().side(s).state().expanded.length)")
        assert all(x > y for x, y in zip(after, before)), (before, after)  # both sides opened the groups holding it
        # both sides show the selected instruction as a node, ringed
        shown = page.evaluate("""() => ['a', 'b'].map(s => { const L = window.dxDiff.lod().side(s),
            i = window.dxDiff.state.instructions[s][0]; return L.folded().nodes.some(n => n[0] === 'i' && n[1] === i); })""")
        assert shown == [True, True]
        assert page.locator(".dx-graph-a .dx-overlay .dx-ring").count() == 1
        assert page.locator(".dx-graph-b .dx-overlay .dx-ring").count() == 1
        assert page.locator(".dx-details .dx-prof-runs").count() == 2  # A's and B's time per run
        page.screenshot(path=str(ARTIFACTS / "profile_big_diff.png"), full_page=False)
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages
