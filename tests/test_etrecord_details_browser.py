"""An ETRecord's context in the exported report, in headless Chromium (docs/etrecord.md "Where it shows"):
real exports of tests/fixtures/etrecord/ drawn by the app's modules (as every plan is). A hover on an op shows its module and line; a click opens its details with the module breadcrumb, the
model's source line, the folded stack and the nodes before lowering (a delegate call: every node it holds);
the search box and a ``#layers.0.lin`` link select by module path. A planted ``<img onerror>`` in a module name,
class and source file is shown as text, never run. Screenshots: ``artifacts/etrecord_details*.png``."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from browser_helpers import (
    ARTIFACTS,
    HANDLERS_JS,
    TRACE_POINTS_JS,
    chromium,
    require_browser,
    screenshot_on_failure,
    settled,
)

import explorer
from explorer.views.state.overview import OVERVIEW_TRACE as T
from explorer.views.html.report import write_report

pytestmark = pytest.mark.browser

D = Path(__file__).parent / "fixtures" / "etrecord"
READY = "() => document.body.dataset.ready === '1'"
GRAPH, DETAILS = ".dx-graph", ".dx-details"


def joined(name: str, etrecord=None):
    return explorer.load(D / f"{name}.pte", etrecord=etrecord if etrecord is not None else D / f"{name}.etrecord")


def op_point(page, i: int) -> dict:
    """Where op node #i is drawn on the page."""
    ids = page.evaluate("([s, t]) => Array.from(document.querySelector(s).data[t].customdata || [])", [GRAPH, T["ops"]])
    pts = page.evaluate(f"([s, t]) => ({TRACE_POINTS_JS})([document.querySelector(s), t]) || []", [GRAPH, T["ops"]])
    assert len(ids) == len(pts) and i in ids, (ids, len(pts))
    return pts[ids.index(i)]


def hover_and_click(page, i: int) -> str:
    """Hover op #i (returns the hover label's text), then click it and wait for its details."""
    page.locator(GRAPH).scroll_into_view_if_needed()
    p = op_point(page, i)
    page.mouse.move(p["x"], p["y"])
    page.wait_for_function("() => (document.querySelector('.dx-graph .hoverlayer') || {}).textContent", timeout=10_000)
    hover = page.evaluate("() => document.querySelector('.dx-graph .hoverlayer').textContent")
    page.mouse.click(p["x"], p["y"])
    page.wait_for_function(f"(s) => document.querySelector(s).textContent.includes('#{i} ')", arg=DETAILS, timeout=10_000)
    return hover


def rows(page) -> dict[str, str]:
    """The details' rows as the page shows them: {label: innerText}."""
    return page.evaluate("(s) => Object.fromEntries(Array.from(document.querySelectorAll(s + ' table.dx-kv tr'))"
                         ".map(tr => [tr.cells[0].innerText, tr.cells[1].innerText]))", DETAILS)


def test_a_click_on_an_op_shows_where_in_the_model_it_comes_from(tmp_path):
    require_browser()
    path = write_report(joined("net"), tmp_path / "net.html")
    with chromium((1280, 1000)) as (page, messages), screenshot_on_failure(page, "etrecord_details_failure.png"):
        page.goto(path.as_uri())
        page.wait_for_function(READY)
        hover = hover_and_click(page, 1)  # addmm of layers.0.lin
        assert "layers.0.lin (Linear)" in hover and "make_etrecord_fixtures.py:62" in hover, hover
        r = rows(page)
        assert r["module"] == "Net \u203a layers.0 (Block) \u203a layers.0.lin (Linear)"
        assert r["source"] == "scripts/make_etrecord_fixtures.py:62 in forward"
        assert "aten.addmm.default" in r["before lowering"] and "aten.permute_copy.default" in r["before lowering"]
        assert r["model stack"] == "3 frames", "the stack starts folded"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "etrecord_details.png"))
        page.locator(DETAILS + " .dx-ctx-stack summary").click()
        stack = rows(page)["model stack"]
        assert "x = layer(x)" in stack and "return self.act(self.lin(x))" in stack and "linear.py:134" in stack
        # a tensor: the module and line of the op writing it
        page.evaluate("() => window.dxReport.select({values: [12], instructions: []})")  # addmm's output
        page.wait_for_function("(s) => document.querySelector(s).textContent.includes('made in')", arg=DETAILS)
        assert rows(page)["made in"] == "layers.0.lin (Linear) \u00b7 scripts/make_etrecord_fixtures.py:62 in forward (#1)"
        page.evaluate("() => window.dxReport.select({values: [0], instructions: []})")  # layers.0.lin's weight
        page.wait_for_function("(s) => document.querySelector(s).textContent.includes('used in')", arg=DETAILS)
        assert rows(page)["used in"] == "layers.0.lin (Linear) \u00b7 scripts/make_etrecord_fixtures.py:62 in forward (#0)"
        # the search box: a module path selects its instructions
        page.fill(".dx-search", "layers.1")
        page.wait_for_function("() => window.dxReport.state.instructions.length === 3")
        assert page.evaluate("() => window.dxReport.state.instructions") == [3, 4, 5]
        # a link: report.html#layers.0.lin
        page.goto("about:blank")
        page.goto(path.as_uri() + "#layers.0.lin")
        page.wait_for_function(READY)
        assert page.evaluate("() => window.dxReport.state.instructions") == [0, 1]  # permute_copy, addmm
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_a_delegate_lists_the_nodes_it_holds(tmp_path):
    require_browser()
    path = write_report(joined("net_xnnpack"), tmp_path / "x.html")
    with chromium((1280, 1000)) as (page, messages), screenshot_on_failure(page, "etrecord_delegate_failure.png"):
        page.goto(path.as_uri())
        page.wait_for_function(READY)
        hover = hover_and_click(page, 1)
        assert "Net" in hover and "make_etrecord_fixtures.py:62" in hover, hover
        r = rows(page)
        assert r["module"] == "Net"
        held = r["holds"]
        assert held.startswith("XnnpackBackend holds 8 nodes of the model")
        for text in ("aten.linear.default", "layers.0.lin (Linear)", "layers.0.act (ReLU)", "layers.1.lin (Linear)",
                     "head (Linear)", "aten._softmax.default"):
            assert text in held, text
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "etrecord_details_delegate.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


EVIL_PATH = "<img src=x onerror=__pwned=1>"
EVIL_CLASS = "<img src=x onerror=__pwned=2>Lin"
EVIL_FILE = "<img src=x onerror=__pwned=3>"


def hostile_etrecord() -> bytes:
    """net.etrecord with a module path, a class and the model's source file replaced by markup."""
    out = io.BytesIO()
    with zipfile.ZipFile(D / "net.etrecord") as z, zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            data = z.read(name)
            if name == "edge_dialect_exported_program/forward":  # JSON (the other members are pickles)
                text = data.decode()
                assert "layers.0.lin" in text and "torch.nn.modules.linear.Linear" in text
                text = text.replace("layers.0.lin", EVIL_PATH).replace("torch.nn.modules.linear.Linear", "m." + EVIL_CLASS)
                text = text.replace("scripts/make_etrecord_fixtures.py", "scripts/" + EVIL_FILE)
                data = text.encode()
            w.writestr(name, data)
    return out.getvalue()


def test_markup_in_an_etrecord_is_shown_as_text(tmp_path):
    require_browser()
    program = joined("net", hostile_etrecord())
    assert program.etrecord.plan("forward").at(1).module[-1].path == EVIL_PATH
    path = write_report(program, tmp_path / "evil.html")
    with chromium((1280, 1000)) as (page, messages), screenshot_on_failure(page, "etrecord_injection_failure.png"):
        page.goto(path.as_uri())
        page.wait_for_function(READY)
        hover = hover_and_click(page, 1)
        assert EVIL_PATH in hover and EVIL_FILE in hover, hover  # plotly shows it as text
        page.locator(DETAILS + " .dx-ctx-stack summary").click()
        r = rows(page)
        assert r["module"] == f"Net \u203a layers.0 (Block) \u203a {EVIL_PATH} ({EVIL_CLASS})"
        assert EVIL_FILE in r["source"] and EVIL_FILE in r["model stack"]
        page.evaluate("() => window.dxReport.select({values: [12], instructions: []})")
        page.wait_for_function("(s) => document.querySelector(s).textContent.includes('made in')", arg=DETAILS)
        assert EVIL_PATH in rows(page)["made in"]
        page.fill(".dx-search", EVIL_PATH)
        page.wait_for_function("() => window.dxReport.state.instructions.length === 2")
        settled(page, DETAILS)
        assert page.evaluate("() => document.querySelectorAll('img').length") == 0
        assert page.evaluate(HANDLERS_JS) == []  # nothing that could run later (an injected onerror)
        assert page.evaluate("() => window.__pwned") is None
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_each_side_of_a_diff_shows_its_own_context_side_by_side(tmp_path):
    """net (portable kernels) -> net_xnnpack (one delegate): selecting B's delegate shows its held nodes, and its
    counterpart in A (the last op) its module and line, in two columns of equal width however long the names."""
    require_browser()
    from explorer.analysis.diff.compare import diff
    from explorer.views.state.diff import diff_plan_view
    from explorer.views.html.diff import write_diff_report

    pa, pb = joined("net"), joined("net_xnnpack")
    result = diff(pa, pb)
    views = {p.plan: diff_plan_view(result, pa, pb, p.plan) for p in result.plans}
    path = write_diff_report(pa, pb, tmp_path / "d.html", result=result, programs=(pa, pb), views=views)
    with chromium((1400, 1000)) as (page, messages), screenshot_on_failure(page, "etrecord_diff_failure.png"):
        page.goto(path.as_uri() + "#b:@1")
        page.wait_for_function(READY)
        page.wait_for_function("(s) => document.querySelector(s).textContent.includes('holds')", arg=DETAILS)
        cols = page.evaluate("(s) => Array.from(document.querySelectorAll(s + ' .dx-cols > tbody > tr > td')).map(td => "
                             "({w: td.getBoundingClientRect().width, rows: Object.fromEntries(Array.from("
                             "td.querySelectorAll('table.dx-kv tr')).map(tr => [tr.cells[0].innerText, tr.cells[1].innerText]))}))",
                             DETAILS)
        a, b = cols
        assert b["rows"]["holds"].startswith("XnnpackBackend holds 8 nodes") and "layers.1.lin (Linear)" in b["rows"]["holds"]
        assert a["rows"]["module"] == "Net" and a["rows"]["source"] == "scripts/make_etrecord_fixtures.py:75 in forward"
        assert "aten.add.Tensor" in a["rows"]["before lowering"] and "holds" not in a["rows"]
        assert abs(a["w"] - b["w"]) < 2, (a["w"], b["w"])
        page.locator(DETAILS).scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "etrecord_details_diff.png"))
        page.fill(".dx-search", "layers.1.lin")  # each side's own matches: A's permute + addmm, B's delegate
        page.wait_for_function("() => window.dxDiff.state.instructions.b.length === 1")
        assert page.evaluate("() => window.dxDiff.state.instructions") == {"a": [3, 4], "b": [1]}
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def test_the_header_names_the_etrecord_and_what_does_not_line_up(tmp_path):
    """A report with an ETRecord says so beside the plan's summary; one whose ETRecord disagrees with the program
    in a few places (here instruction 2's node says sigmoid, the program runs relu) shows those warnings there,
    not only on the CLI's stderr."""
    import json

    from test_etrecord import members, rezip

    require_browser()
    raw = members("net")
    graph = json.loads(raw["edge_dialect_exported_program/forward"])
    for node in graph["graph_module"]["graph"]["nodes"]:
        if node["name"] == "aten_relu_default":
            node["target"] = "executorch.exir.dialects.edge.ops.aten.sigmoid.default"
    raw["edge_dialect_exported_program/forward"] = json.dumps(graph).encode()
    clean = write_report(joined("net"), tmp_path / "clean.html")
    warned = write_report(joined("net", rezip(raw)), tmp_path / "warned.html")
    with chromium((1280, 1000)) as (page, messages), screenshot_on_failure(page, "etrecord_warning_failure.png"):
        page.goto(clean.as_uri())
        page.wait_for_function(READY)
        note = page.locator(".dx-context-note")
        assert note.is_visible() and note.inner_text().startswith("· ETRecord net.etrecord")
        assert "dx-muted" in note.get_attribute("class")
        page.goto(warned.as_uri())
        page.wait_for_function(READY)
        text = page.locator(".dx-context-note").inner_text()
        assert "instruction 2 runs aten::relu.out" in text, text
        assert "dx-sev-warning" in page.locator(".dx-context-note").get_attribute("class")
        page.locator(".dx-head").screenshot(path=str(ARTIFACTS / "etrecord_warning_header.png"))
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages
