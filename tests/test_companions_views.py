"""Companions in the views: the payload a delegate expansion draws from, details rows (external tensor's
data file and key, delegate payloads), external bytes per device, the .ptd page, and in Chromium: a click on
a delegate opens its XNNPACK inside in place, coloured by device and joined to the outer tensors."""

from __future__ import annotations

import io
import json

import pytest

import explorer
from explorer.cli import main
from explorer.views.payload.companions import add_to_plan_payload, companion_view, subgraph_layout
from explorer.views.html.data_file import data_file_html
from explorer.views.state.overview import TRACE
from explorer.views.palette import device_style
from explorer.views.payload.app import app_payload
from explorer.views.payload.embed import unpack

from browser_helpers import (
    ARTIFACTS,
    TRACE_POINTS_JS,
    chromium,
    click_point,
    label_draws,
    point_of,
    require_browser,
    settled,
)
from companion_helpers import COMPANIONS, build_ptd


def _doc(program, plan):
    return {"totals": "<div>totals</div>"}


def _rows(doc, kind: str, key) -> str:
    """The companion rows the app appends to a tensor's ("v") or an instruction's ("i") details."""
    return doc["companions"]["rows"][kind].get(str(key), "")


def test_delegate_payload_for_the_expansion():
    p = explorer.load(COMPANIONS / "xnnpack_multi.pte")
    plan = p.plans[0]
    doc = add_to_plan_payload(_doc(p, plan), p, plan)
    delegates = doc["companions"]["delegates"]
    assert [d["instruction"] for d in delegates] == [0, 2, 4]
    conv = delegates[0]
    assert conv["graph"]["op"] == ["XNNStaticTranspose", "XNNConv2d", "XNNStaticTranspose"]
    assert conv["graph"]["depth"] == [0, 1, 2] and conv["graph"]["width"] == 1
    assert conv["color"] == device_style(explorer.Device.parse("cpu")).color
    call = plan.instructions[0]
    assert [outer for _, outer in conv["graph"]["bindIn"] + conv["graph"]["bindOut"]] == list(call.args)
    assert "inside" in _rows(doc, "i", 0) and "XNNConv2d" in _rows(doc, "i", 0)
    assert "delegate input" in _rows(doc, "v", call.args[0])
    json.dumps(doc)


def test_subgraph_layout_layers_by_longest_producer_chain():
    p = explorer.load(COMPANIONS / "xnnpack_int8.pte")
    cv = companion_view(p, p.plans[0])
    depth, col, width = subgraph_layout(cv.insides[2].graph)  # convert, convert, add, convert
    assert depth == [0, 0, 1, 2] and col == [0, 1, 0, 0] and width == 2


def test_external_tensor_details_and_bytes_per_device():
    ptd = COMPANIONS / "external.ptd"
    p = explorer.load(COMPANIONS / "external.pte", data=[ptd])
    plan = p.plans[0]
    doc = add_to_plan_payload(_doc(p, plan), p, plan)
    assert "external.ptd</span> · key <span class='dx-code'>fc1.weight</span> · 128 B at byte 512" in _rows(doc, "v", 0)
    assert doc["companions"]["external"]["2"] == ["external.ptd", "fc2.weight"]
    assert doc["companions"]["externalBytes"] == [["cpu", 268, 4]]
    assert "dx-external" in doc["totals"] and "268 B" in doc["totals"]
    unlinked = explorer.load(COMPANIONS / "external.pte")
    doc = add_to_plan_payload(_doc(unlinked, plan), unlinked, unlinked.plans[0])
    assert "--data FILE" in _rows(doc, "v", 0) and doc["companions"]["external"] == {}
    missing = explorer.load(COMPANIONS / "external.pte", data=[COMPANIONS / "device_external.ptd"])
    doc = add_to_plan_payload(_doc(missing, plan), missing, missing.plans[0])
    assert "in none of the data files given" in _rows(doc, "v", 0)


def test_the_app_payload_carries_companions_and_the_report_shows_them(tmp_path):
    p = explorer.load(COMPANIONS / "external.pte", data=[COMPANIONS / "external.ptd"])
    payload = app_payload(p, findings=explorer.check(p))
    assert payload["plans"][0]["companions"]["external"]["0"] == ["external.ptd", "fc1.weight"]
    out = tmp_path / "r.html"
    assert main(["show", str(COMPANIONS / "external.pte"), "--data", str(COMPANIONS / "external.ptd"), "-o", str(out)],
                stdout=io.StringIO()) == 0


def test_data_file_page_escapes_keys(tmp_path):
    evil = "<script>alert(1)</script>\u202e"
    page = data_file_html(explorer.load(build_ptd([(evil, 6, [2], b"\0" * 8), ("ok", None, [], b"x")])), "x.ptd")
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;\\u202e" in page
    out = tmp_path / "d.html"
    assert main(["show", str(COMPANIONS / "external.ptd"), "-o", str(out)], stdout=io.StringIO()) == 0
    html = out.read_text()
    assert "fc2.weight" in html and "float32[3,8]" in html and "<script" not in html


@pytest.mark.browser
def test_a_click_opens_a_delegate_in_place(tmp_path):
    require_browser()
    ARTIFACTS.mkdir(exist_ok=True)
    report = tmp_path / "xnnpack.html"
    assert main(["show", str(COMPANIONS / "xnnpack_int8.pte"), "-o", str(report)], stdout=io.StringIO()) == 0
    with chromium((1280, 1100)) as (page, messages):
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1' && "
                               "document.querySelectorAll('.dx-graph .point').length > 0", timeout=30_000)
        base = page.evaluate("() => document.querySelector('.dx-graph').data.length")
        before = page.evaluate(f"() => {{ const y = document.querySelector('.dx-graph').data[{TRACE['tensors']}].y; return Array.from(y._inputArray || y); }}")
        ops = page.evaluate(f"([sel, i]) => ({TRACE_POINTS_JS})([document.querySelector(sel), i])",
                            [".dx-graph", TRACE["ops"]])
        first = point_of(ops, 0)  # instruction 0: the conv delegate
        drawn = label_draws(page, ".dx-graph")
        click_point(page, ".dx-graph", first)
        page.wait_for_function("() => window.dxReport.delegates().expanded().length === 1", timeout=5_000)
        data = page.evaluate("() => document.querySelector('.dx-graph').data.slice(%d).map(t => "
                             "({name: t.name, n: (t.x || []).length, color: t.marker && t.marker.color}))" % base)
        assert [t["name"] for t in data] == ["inside edges", "inside joins", "inside 0"]
        assert data[2]["n"] == 5 and data[2]["color"] == device_style(explorer.Device.parse("cpu")).color
        after = page.evaluate(f"() => {{ const y = document.querySelector('.dx-graph').data[{TRACE['tensors']}].y; return Array.from(y._inputArray || y); }}")
        assert sum(1 for a, b in zip(before, after) if b < a) >= 4, "the graph below the delegate moved down"
        assert "XNNConv2d" in page.inner_text(".dx-details")
        page.mouse.move(5, 5)  # no hover label in the screenshot
        settled(page, ".dx-graph", after=drawn)  # the label layer placed the inside's labels
        page.screenshot(path=str(ARTIFACTS / "delegate_open.png"), full_page=True)
        # issue 21: the inside had room, every inner node carries its label (the first one sat under the diamond)
        labels = page.evaluate("() => Array.from(document.querySelectorAll('.dx-graph .dx-labels text')).map(t => t.textContent)")
        inner = ["Convert", "StaticTranspose", "Conv2d", "StaticTranspose", "Convert"]
        assert sorted(x for x in labels if x in set(inner)) == sorted(inner), labels
        # and the selection's bold edge leaves from the box's bottom, not through the inside
        box = page.evaluate("() => { const gd = document.querySelector('.dx-graph'), s = gd.layout.shapes.find(x => x.name === 'inside of #0');"
                            " const ya = gd._fullLayout.yaxis; return [ya._offset + ya.l2p(s.y1), ya._offset + ya.l2p(s.y0)]; }")
        through = page.evaluate(r"""([top, bottom]) => { const gd = document.querySelector('.dx-graph'), r = gd.getBoundingClientRect();
          const pts = []; for (const p of gd.querySelectorAll('.dx-overlay path.dx-edge')) {
            for (const m of p.getAttribute('d').matchAll(/[ML]\s*([-\d.]+)[ ,]([-\d.]+)/g)) pts.push(Number(m[2])); }
          return [pts.length, pts.filter((y) => y > top + 2 && y < bottom - 2)]; }""", box)
        assert through[0] >= 4 and not through[1], f"a selected edge's point inside the open delegate's box: {through}"
        inner = page.evaluate(f"([sel, i]) => ({TRACE_POINTS_JS})([document.querySelector(sel), i])",
                              [".dx-graph", base + 2])
        conv = inner[2]
        click_point(page, ".dx-graph", conv)
        page.wait_for_function("() => document.querySelector('.dx-details').textContent.includes('node 2 inside #0')",
                               timeout=5_000)
        assert "qint8[4,3,3,3] (constant)" in page.inner_text(".dx-details")
        settled(page, ".dx-graph")  # the selection is drawn: the ops are where they will be clicked
        ops = page.evaluate(f"([sel, i]) => ({TRACE_POINTS_JS})([document.querySelector(sel), i])",
                            [".dx-graph", TRACE["ops"]])
        first = point_of(ops, 0)
        click_point(page, ".dx-graph", first)  # a second click closes it
        page.wait_for_function("() => window.dxReport.delegates().expanded().length === 0", timeout=5_000)
        assert page.evaluate("() => document.querySelector('.dx-graph').data.length") == base
        restored = page.evaluate(f"() => {{ const y = document.querySelector('.dx-graph').data[{TRACE['tensors']}].y; return Array.from(y._inputArray || y); }}")
        assert restored == before
        assert not [m for m in messages if m.startswith(("pageerror", "error"))], messages


def _unpack(widget) -> dict:

    return unpack(widget._payload)


def test_widget_on_a_data_file_and_on_a_program_with_data():
    from explorer.widget.explorer import Explorer

    w = Explorer(COMPANIONS / "external.ptd")
    payload = _unpack(w)
    assert payload["mode"] == "data" and "fc2.weight" in payload["html"] and w.findings == []
    w = Explorer(COMPANIONS / "external.pte", data=[COMPANIONS / "external.ptd"])
    assert w.findings == [] and _unpack(w)["plans"][0]["companions"]["external"]["1"] == ["external.ptd", "fc1.bias"]
    w = Explorer(COMPANIONS / "external.pte", data=[COMPANIONS / "device_external.ptd"])
    assert {f.code for f in w.findings} == {"missing-external"}
    w = Explorer(COMPANIONS / "bundled.bpte")
    assert w.plan == "forward" and w.program.bundle.suites[0].method_name == "forward"


def test_companion_rows_travel_with_every_plan():
    """Details are made in the browser from the tables: the companion rows (payloads, data files) travel with
    the plan, for every delegate call."""
    p = explorer.load(COMPANIONS / "xnnpack_multi.pte")
    payload = app_payload(p, findings=[])
    rows = payload["plans"][0]["companions"]["rows"]
    assert set(rows["i"]) == {"0", "2", "4"} and "XNNConv2d" in rows["i"]["0"]
    assert "a click on the delegate in the graph opens or closes it" in rows["i"]["0"]
    assert "delegate input" in rows["v"]["0"]
