"""Links that select (issue 21), in the exported report in headless Chromium: the address's hash selects a
value (``#%3``), an instruction (``#@5``), a plan's instruction (``#forward/@5``) or a search (``#relu``),
at any size (a plan drawn in full and one drawn by the level-of-detail modules), and every selection writes
its link back into the address."""

from __future__ import annotations

import pytest
from browser_helpers import chromium, require_browser

from explorer import load
from explorer.views.html.report import write_report

pytestmark = pytest.mark.browser

READY = "() => document.body.dataset.ready === '1'"
STATE = "() => ({values: window.dxReport.state.values, instructions: window.dxReport.state.instructions, hash: location.hash})"


def test_the_hash_selects_and_selecting_writes_the_hash(tmp_path):
    require_browser()
    program = load("explorer/data/sample.pte")
    plan = program.plans[0]
    relu = [i.index for i in plan.instructions if "relu" in i.label]
    path = write_report(program, tmp_path / "r.html")
    url = path.as_uri()
    with chromium() as (page, messages):
        for hash_, values, instructions in [("#%3", [3], []), ("#@5", [], [5]), (f"#{plan.name}/@5", [], [5]),
                                            ("#relu", [], relu)]:
            page.goto("about:blank")
            page.goto(url + hash_)
            page.wait_for_function(READY)
            got = page.evaluate(STATE)
            assert (got["values"], got["instructions"]) == (values, instructions), (hash_, got)
        assert relu
        page.evaluate("() => { location.hash = '%12'; }")  # a link followed within the page
        page.wait_for_function("() => window.dxReport.state.values[0] === 12")
        page.evaluate("() => window.dxReport.select({values: [], instructions: [7]})")  # as a click does
        assert page.evaluate(STATE)["hash"] == "#@7"
        page.evaluate("() => window.dxReport.select({values: [4]})")
        assert page.evaluate(STATE)["hash"] == "#%4"
        page.evaluate("() => window.dxReport.select({values: []})")
        assert page.evaluate(STATE)["hash"] == ""
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


# centres of the selection rings drawn over a graph (explorer/frontend/overlay.js), page coordinates
RINGS_JS = """(sel) => Array.from(document.querySelectorAll(sel + ' .dx-overlay .dx-ring'))
  .map(r => { const b = r.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2] })"""


def _ringed(page, graph: str, trace: int, ident: int) -> None:
    """Exactly one selection ring on ``graph``, around the drawn node ``ident`` of data trace ``trace``."""
    from browser_helpers import point_of, trace_points

    node = point_of(trace_points(page, graph, trace), ident)
    page.wait_for_function(f"() => document.querySelectorAll('{graph} .dx-overlay .dx-ring').length === 1",
                           timeout=10_000)
    (x, y), = page.evaluate(RINGS_JS, graph)
    assert abs(x - node["x"]) < 3 and abs(y - node["y"]) < 3, (graph, ident, (x, y), node)


def test_the_diff_reports_hash_selects_a_side_or_searches_both(tmp_path):
    require_browser()
    from explorer.views.html.diff import write_diff_report
    from explorer.views.state.diff import diff_plan_view, open_diff
    from explorer.views.state.overview import TRACE

    fixtures = "tests/fixtures/diff/"
    path = write_diff_report(fixtures + "cpu_only.pte", fixtures + "device_cuda0.pte", tmp_path / "d.html")
    pa, pb, result = open_diff(fixtures + "cpu_only.pte", fixtures + "device_cuda0.pte")
    dv = diff_plan_view(result, pa, pb, pa.plans[0].name)
    # the counterparts the page must select on the other side (Python's pairing, not the page's)
    b_of_a1, a_of_b3 = dv.instruction_pair("a", 1), dv.pair("b", 3)
    assert b_of_a1 == 0 and a_of_b3 is not None  # A's permute_copy #1 is B's #0: a pairing that is no identity
    STATE_D = "() => ({side: window.dxDiff.state.side, values: window.dxDiff.state.values, " \
              "instructions: window.dxDiff.state.instructions, hash: location.hash})"
    with chromium() as (page, messages):
        page.goto(path.as_uri() + "#b:%3")
        page.wait_for_function(READY)
        got = page.evaluate(STATE_D)
        assert got["side"] == "b" and got["values"]["b"] == [3] and got["hash"] == "#b:%3"
        assert got["values"]["a"] == [a_of_b3], got  # ... and its counterpart on side a, ringed there
        _ringed(page, ".dx-graph-a", TRACE["tensors"], a_of_b3)
        _ringed(page, ".dx-graph-b", TRACE["tensors"], 3)
        page.goto("about:blank")
        page.goto(path.as_uri() + "#a:@1")
        page.wait_for_function(READY)
        got = page.evaluate(STATE_D)
        assert got["side"] == "a" and got["instructions"]["a"] == [1]
        # side b selects the counterpart of A's #1 (B's #0) and rings it, and nothing else
        assert got["instructions"]["b"] == [b_of_a1] and got["values"] == {"a": [], "b": []}, got
        _ringed(page, ".dx-graph-b", TRACE["ops"], b_of_a1)
        _ringed(page, ".dx-graph-a", TRACE["ops"], 1)
        assert f"#1 \u2192 #{b_of_a1}" in page.locator(".dx-details").inner_text()
        page.goto("about:blank")
        page.goto(path.as_uri() + "#%2")  # a search: value 2 on each side
        page.wait_for_function(READY)
        got = page.evaluate(STATE_D)
        assert got["values"] == {"a": [2], "b": [2]} and got["hash"] == "#%2"
        page.evaluate("() => window.dxDiff.select({side: 'a', values: [4]})")  # as a click does
        assert page.evaluate(STATE_D)["hash"] == "#a:%4"
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_a_report_of_another_payload_version_says_so(tmp_path):
    """A page whose payload was packed for another contract (embed.PAYLOAD_VERSION) shows why it cannot draw it
    and what to do, instead of a blank page or a wrong drawing."""
    import base64
    import gzip
    import re

    from explorer.views.payload.embed import DATA_TYPE, MAGIC, PAYLOAD_VERSION

    require_browser()
    html = write_report(load("explorer/data/sample.pte"), tmp_path / "r.html").read_text(encoding="utf-8")
    text = b'{"mode":"data","title":"t","html":"","$v":%d}' % (PAYLOAD_VERSION + 1)
    other = base64.b64encode(gzip.compress(MAGIC + len(text).to_bytes(4, "little") + text)).decode("ascii")
    page_html = re.sub(rf'(<script type="{re.escape(DATA_TYPE)}" id="dx-data">)[A-Za-z0-9+/=]*', rf"\g<1>{other}", html)
    assert other in page_html
    (tmp_path / "old.html").write_text(page_html, encoding="utf-8")
    with chromium() as (page, messages):
        page.goto((tmp_path / "old.html").as_uri())
        page.wait_for_function("() => document.body.dataset.ready === 'error'")
        shown = page.inner_text("#dx-app")
        assert f"payload version {PAYLOAD_VERSION + 1}, this app reads version {PAYLOAD_VERSION}" in shown
        assert "make it again" in shown


def test_keys_search_clear_and_step_plans_in_a_report_and_a_diff(tmp_path):
    """The frame's keyboard (host/keys.js), the same in the one-program report and the diff report: "/" focuses the search
    box, Escape empties it and clears the selection (also a clicked one), "]" / "[" step through the plans."""
    from explorer.views.html.diff import write_diff_report

    require_browser()
    two = write_report(load("tests/fixtures/two_methods.pte"), tmp_path / "two.html")
    diff = write_diff_report("tests/fixtures/diff/cpu_only.pte", "tests/fixtures/diff/device_cuda0.pte", tmp_path / "d.html")
    with chromium() as (page, messages):
        page.goto(two.as_uri())
        page.wait_for_function(READY)
        names = page.evaluate("() => Array.from(document.querySelectorAll('.dx-plan option')).map(o => o.value)")
        assert len(names) == 2
        assert "[ ] previous / next plan" in page.inner_text(".dx-keys")
        shown = page.evaluate("() => window.dxReport.state.plan")  # "forward" opens first, wherever it is listed
        step, other = ("[", "]") if names.index(shown) == 1 else ("]", "[")
        page.keyboard.press(other)  # past the end of the list: stays
        assert page.evaluate("() => window.dxReport.state.plan") == shown
        page.keyboard.press(step)
        page.wait_for_function(f"() => window.dxReport.state.plan === {[n for n in names if n != shown][0]!r}")
        page.keyboard.press(other)
        page.wait_for_function(f"() => window.dxReport.state.plan === {shown!r}")
        page.keyboard.press("/")
        assert page.evaluate("() => document.activeElement.classList.contains('dx-search')")
        page.keyboard.type("%1")  # typed into the box: "%1" selects value 1; "[" typed there would be text
        page.wait_for_function("() => window.dxReport.state.values[0] === 1")
        page.keyboard.press("Escape")
        page.wait_for_function("() => window.dxReport.state.values.length === 0")
        assert page.evaluate("() => document.querySelector('.dx-search').value") == ""
        page.evaluate("() => window.dxReport.select({values: [2], instructions: []})")  # as a click does
        page.keyboard.press("Escape")
        page.wait_for_function("() => window.dxReport.state.values.length === 0")

        page.goto(diff.as_uri())
        page.wait_for_function(READY)
        page.keyboard.press("/")
        page.keyboard.type("%3")
        page.wait_for_function("() => (window.dxDiff.state.values.a || []).length + (window.dxDiff.state.values.b || []).length > 0")
        page.keyboard.press("Escape")
        page.wait_for_function("() => (window.dxDiff.state.values.a || []).length + (window.dxDiff.state.values.b || []).length === 0")
