"""The diff view's payload without a browser: each side as one program's plan, the diff as columns; a big
pair opens as overviews, a small one with every group expanded.

The pair is the one ``bench/bench_view.py`` measures (``diff_helpers.big_pair``): 600 tensors moved to
another device, 300 shifted in their arena, 600 ops changed. Each side must
be sent exactly as the one-program report sends a big plan (the LOD tables), the marks must be the diff's own
statuses, the pairing both ways, and the page must stay under the issue's 5 MB.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from diff_helpers import big_pair

from explorer.analysis.diff.compare import STATUSES
from explorer.views.state.diff import diff_plan_view, open_diff
from explorer.views.html.diff import diff_report_html
from explorer.views.diff_style import OP_STATUS_STYLES
from explorer.views.payload.embed import page_payload, unpack
from explorer.views.state.overview import FIRST_VIEW, visible_nodes
from explorer.views.payload.app import plan_entry

PAIRS = Path(__file__).parent / "fixtures" / "diff"


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    a, b = big_pair(tmp_path_factory.mktemp("pair"))
    pa, pb, result = open_diff(a, b)
    dv = diff_plan_view(result, pa, pb, "forward")
    html = diff_report_html(pa, pb, result=result, programs=(pa, pb))
    return {"dv": dv, "html": html, "P": page_payload(html)["plans"][0]}


def test_a_big_pair_is_drawn_at_a_level_of_detail_under_5_mb(big):
    dv, P = big["dv"], big["P"]
    for side in (dv.a, dv.b):  # a big pair opens as overviews (their first view: a few dozen nodes)
        assert visible_nodes(side.overview.groups, set(side.overview.expanded)) <= FIRST_VIEW
    assert P["lod"] is True and "graphs" not in P and "texts" in P
    assert len(big["html"].encode()) < 5_000_000, "the issue's budget for a 5k-value diff report"
    for s in "ab":  # each side exactly as the one-program report sends a big plan
        side = P["sides"][s]
        assert side["lod"]["m"] == len(dv.side(s).plan.instructions)
        assert side["lod"]["n"] == len(dv.side(s).plan.values)
        expected = plan_entry(dv.side(s), [], [])
        assert side["lod"]["groups"]["label"] == expected["lod"]["groups"]["label"]
        assert side["lod"]["tensors"]["index"] == expected["lod"]["tensors"]["index"].tolist()  # sent as binary


def test_marks_are_the_diffs_statuses(big):
    dv, P = big["dv"], big["P"]
    ops = list(OP_STATUS_STYLES)
    assert [s["name"] for s in P["statuses"]["tensor"]] == list(STATUSES)
    assert [s["name"] for s in P["statuses"]["op"]] == ops
    for s in "ab":
        marks = P["marks"][s]
        got = {v: STATUSES[c] for v, c in zip(marks["v"], marks["vs"])}
        assert got == {v: x for v, x in dv.status(s).items() if x != "same"}
        assert {i: ops[c] for i, c in zip(marks["i"], marks["is"])} == dv.op_status(s)
        assert Counter(got.values()) == {"device": 600, "offset": 300}
        assert len(marks["i"]) == 600
        # every changed tensor has its before -> after table; unchanged ones are written in the browser
        assert sorted(P["vd"][s]["v"]) == sorted(got)
        for v, t in zip(P["vd"][s]["v"], P["vd"][s]["t"]):
            assert f"%{v}" in P["texts"][t]
    assert len(P["texts"]) == 900, "one table per pair, shared by both sides"
    assert all(c["color"] for c in P["statuses"]["tensor"] if c["name"] != "same")


def test_pairing_columns(big):
    dv, P = big["dv"], big["P"]
    assert dict(zip(P["pairs"]["a"], P["pairs"]["b"])) == dv.diff.pairs
    for s in "ab":
        ip = dict(zip(P["ipairs"][s]["i"], P["ipairs"][s]["o"]))
        assert ip == {i: dv.instruction_pair(s, i) for i in range(len(dv.side(s).plan.instructions))
                      if dv.instruction_pair(s, i) is not None}
        assert len(ip) > 4000


def test_header_explains_the_overview_marks(big):
    header = big["P"]["header"]
    assert "dx-delta" in header and "cuda:1" in header and "moved between devices" in header
    assert "a folded group holding 12 changes" in header  # the big pair opens folded: the badge is explained


def test_a_small_pair_is_the_same_payload_with_every_group_open():
    pa, pb, result = open_diff(PAIRS / "cpu_only.pte", PAIRS / "device_cuda0.pte")
    dv = diff_plan_view(result, pa, pb, "forward")
    P = page_payload(diff_report_html(pa, pb, result=result, programs=(pa, pb)))["plans"][0]
    assert P["lod"] and set(P["sides"]) == {"a", "b"} and "graphs" not in P
    for s in "ab":
        groups = dv.side(s).overview.groups
        assert P["sides"][s]["lod"]["expanded"] == list(range(1, len(groups.groups)))
    moved = [v for v, s in dv.status("b").items() if s == "device"]
    assert sorted(v for v, c in zip(P["marks"]["b"]["v"], P["marks"]["b"]["vs"]) if STATUSES[c] == "device") == sorted(moved)
    # nothing is folded, so the header does not explain the folded groups' badge (it did: "Δ12 a folded group...")
    assert "dx-delta" not in P["header"] and "folded group" not in P["header"]


def test_the_widget_sends_the_same_lod_payload_and_selects_across(tmp_path):
    import json

    import explorer

    a, b = big_pair(tmp_path)
    d = explorer.Diff(a, b)
    P = unpack(d._payload)["plans"][0]
    assert P["lod"] and set(P["sides"]) == {"a", "b"}
    moved = next(v for v, s in d.plan_diff.status_a.items() if s == "device")
    sel = d.select(f"%{moved}")
    assert sel.values_a == (moved,) and sel.values_b == (d.plan_diff.pairs[moved],)
    writer = d.view.a.analysis.dataflow.producers[moved][0]
    sel = d.select(instructions=[writer])
    assert sel.instructions_a == (writer,) and len(sel.instructions_b) == 1
    assert P["ipairs"]["a"]["o"][P["ipairs"]["a"]["i"].index(writer)] == sel.instructions_b[0]
    page = page_payload(d.save_html(tmp_path / "saved.html").read_text(encoding="utf-8"))
    assert page["plans"][0]["lod"] and page["selected"]["instructions"]["a"] == [writer]
