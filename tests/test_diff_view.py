"""The diff view without a browser: ``explorer.Diff`` (widget) and the diff report (``--html``).

On the real pairs in tests/fixtures/diff/: exactly the tensors (and ops) the diff calls changed are
ringed, in their status colour, over each side's graph (the app's drawing modules run under node,
tests/app_js.py); a click on either side selects the tensor and its counterpart (both graphs, both memory
lanes, the details table); the runtime needs of both sides are compared; the report is self-contained and
escapes what the files say.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder

import explorer
from explorer.analysis.diff.compare import diff
from explorer.cli import main
from writers.pte import write
from explorer import frontend
from explorer.views.html.diff import diff_report_html
from explorer.views.payload.embed import DATA_TYPE, page_payload, unpack
from explorer.views.diff_style import OP_STATUS_STYLES, STATUS_STYLES
from explorer.views.fragments.requirements import requirement_changes, requirements_html
from app_js import run_diff_js

PAIRS = Path(__file__).parent / "fixtures" / "diff"
REAL = [("cpu_only.pte", "device_cuda0.pte"), ("device_cuda0.pte", "device_cuda1.pte"),
        ("partition_add.pte", "partition_add_sin.pte")]
HOSTILE = "<img src=x onerror=alert(1)>"
BREAKOUT = "</script><script>window.__pwned=1</script>"


@pytest.fixture(scope="module")
def widgets():
    return {pair: explorer.Diff(PAIRS / pair[0], PAIRS / pair[1]) for pair in REAL}


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """Run the diff's drawing on a widget's current plan: ``js(widget, commands)`` (tests/app_js.py)."""
    root, runs = tmp_path_factory.mktemp("diff_js"), [0]

    def run(widget, commands):
        runs[0] += 1
        return run_diff_js(root / str(runs[0]), plan_data(widget), commands)
    return run


def payload(html: str) -> dict:
    return page_payload(html)


def widget_payload(widget) -> dict:
    return unpack(widget._payload)


def plan_data(widget) -> dict:
    return next(p for p in widget_payload(widget)["plans"] if p["name"] == widget.plan)


def click(widget, side: str, kind: str, value: int) -> None:
    """What a click on a graph point does in the page (explorer/frontend/diff/diff.js): select it on its side,
    its counterpart through the payload's pairing columns, and send the selection to the ``selected`` trait."""
    P = plan_data(widget)
    o = "b" if side == "a" else "a"
    pair = dict(zip(P["pairs"][side], P["pairs"][o]))
    ipair = dict(zip(P["ipairs"][side]["i"], P["ipairs"][side]["o"]))
    values = [value] if kind == "tensors" else []
    instructions = [value] if kind == "ops" else []
    other_v = [pair[v] for v in values if v in pair]
    other_i = [ipair[i] for i in instructions if i in ipair]
    widget.set_state({"selected": {"plan": widget.plan, "side": side, "values": {side: values, o: other_v},
                                   "instructions": {side: instructions, o: other_i}}})


def details(widget, js) -> str:
    """The details panel for the current selection, as the page writes it (diff/sides.js)."""
    sel = widget.selected
    if not sel:
        return widget_payload(widget)["empty"]
    got = js(widget, [{"op": "details", "side": sel.side, "va": list(sel.values_a), "vb": list(sel.values_b),
                       "ia": list(sel.instructions_a), "ib": list(sel.instructions_b)}])[0]
    return got if got is not None else "selection"


def ringed(widget, side: str, js) -> set[tuple[str, int, str]]:
    """The rings the page draws over a side's graph (diff/sides.js markItems, drawn by panels/rings.js), as
    (node kind, id, colour) of the node each one circles."""
    drawn = js(widget, [{"op": "drawn"}])[0][side]
    at = {(round(x, 6), round(-y, 6)): tuple(nd) for nd, x, y in zip(drawn["nodes"], drawn["x"], drawn["y"])}
    return {(*at[(round(m["x"], 6), round(m["y"], 6))], m["color"]) for m in drawn["marks"]}


# -- the widget ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", REAL, ids=lambda p: f"{p[0]}->{p[1]}")
def test_exactly_the_changed_tensors_and_ops_are_ringed(widgets, js, pair):
    w = widgets[pair]
    p = w.plan_diff
    drawn = js(w, [{"op": "drawn"}])[0]
    for side, status, ops in (("a", p.status_a, p.instruction_status_a), ("b", p.status_b, p.instruction_status_b)):
        nodes = {tuple(nd) for nd in drawn[side]["nodes"]}
        assert not any(k == "g" for k, _ in nodes), "a small pair opens with every group expanded"
        expected = {("v", v, STATUS_STYLES[s].color) for v, s in status.items() if s != "same" and ("v", v) in nodes}
        expected |= {("i", i, OP_STATUS_STYLES[s].color) for i, s in ops.items()}
        assert ringed(w, side, js) == expected
        changed = {v for v, s in status.items() if s != "same"}
        assert changed == {v for c in p.values for v in ([c.a.index] if side == "a" and c.a else
                                                         [c.b.index] if side == "b" and c.b else [])}


def test_cpu_to_cuda0_rings_the_four_moved_adds_in_magenta(widgets, js):
    w = widgets[REAL[0]]
    magenta = STATUS_STYLES["device"].color
    assert {i for k, i, c in ringed(w, "b", js) if k == "v" and c == magenta} == {11, 18, 23, 28}
    added = {v for v, s in w.plan_diff.status_b.items() if s == "added"}
    assert len(added) == 11  # the copies partitioning introduced, ringed green


def test_memory_blocks_are_outlined_in_their_status_colour(widgets, js):
    w = widgets[REAL[0]]
    P, drawn = plan_data(w), js(w, [{"op": "drawn"}])[0]
    for side, status in (("a", w.plan_diff.status_a), ("b", w.plan_diff.status_b)):
        arenas = P["sides"][side]["lod"]["arenas"]
        assert [a["id"] for a in arenas] == ([1] if side == "a" else [1, 2])
        for k in range(len(arenas)):
            trace = drawn[side]["memory"][2 * k]
            for v, color in zip(trace["customdata"], trace["marker"]["line"]["color"]):
                s = status[int(v)]
                assert color == (STATUS_STYLES[s].color if s != "same" else "white"), (side, v, s)
    header = P["header"]
    assert "arena changes <b>2 (added, resized)</b>" in header


def test_click_on_a_tensor_in_a_selects_its_pair_in_b(widgets, js):
    w = widgets[REAL[0]]
    click(w, "a", "tensors", 5)
    assert (w.selected.values_a, w.selected.values_b, w.selected.side) == ((5,), (11,), "a")
    assert w.selected == w.view.linked("a", (5,)), "the page pairs as Python does"
    details = globals()["details"](w, js)
    assert "moved device" in details and "%5" in details and "%11" in details
    assert "aten::add.out" in details and "BackendWithCompilerDemo" in details
    assert re.search(r"<tr class='dx-changed'><td>device →</td>.*cpu.*cuda:0", details)
    assert "copies of it that changed" in details  # its new d2h copy


def test_click_on_b_and_on_ops_and_memory_blocks(widgets, js):
    w = widgets[REAL[0]]
    click(w, "b", "tensors", 28)
    assert (w.selected.values_a, w.selected.values_b, w.selected.side) == ((21,), (28,), "b")
    click(w, "b", "ops", 3)  # the delegate call that now computes A's first add
    assert (w.selected.instructions_a, w.selected.instructions_b) == ((0,), (3,))
    assert "aten::add.out" in details(w, js) and "BackendWithCompilerDemo" in details(w, js)
    click(w, "b", "tensors", 9)  # an h2d copy only B has
    assert (w.selected.values_a, w.selected.values_b) == ((), (9,))
    assert "not in A (added in B)" in details(w, js)
    arenas = plan_data(w)["sides"]["b"]["lod"]["arenas"]
    k = next(k for k, a in enumerate(arenas) if a["id"] == 2)
    assert 23 in js(w, [{"op": "drawn"}])[0]["b"]["memory"][2 * k]["customdata"]
    click(w, "b", "tensors", 23)  # a block of B's cuda:0 lane selects its tensor on B
    assert (w.selected.values_a, w.selected.values_b) == ((18,), (23,))


def test_every_count_of_moved_tensors_agrees(widgets, js):
    """Issue 21: the CLI said "11 moved", its section "moved between devices (4)", the header chip 4, while 11
    were ringed. Now the headline, the section, the chip and the rings all count 11, and say the same split."""
    w = widgets[REAL[1]]  # cuda:0 -> cuda:1: 4 computed tensors moved, and the 7 copies writing them retargeted
    out = io.StringIO()
    assert main(["diff", str(PAIRS / REAL[1][0]), str(PAIRS / REAL[1][1])], stdout=out) == 0
    text = out.getvalue()
    assert "11 tensors moved (11 cuda:0 -> cuda:1; 4 computed, 7 copy targets)" in text
    assert "moved between devices (11: 4 computed, listed here; 7 copy targets, under copies changed):" in text
    header = plan_data(w)["header"]
    assert "moved between devices <b>11 (11 cuda:0 → cuda:1; 4 computed, 7 copy targets)</b>" in header
    magenta = STATUS_STYLES["device"].color
    for side in "ab":
        assert sum(1 for kind, _, c in ringed(w, side, js) if kind == "v" and c == magenta) == 11


def test_an_unnamed_pair_is_headed_by_its_two_ids_once(widgets, js):
    """Issue 21: the details of an unnamed, unchanged pair read "%14 %14 → %16": its label is its id."""
    w = widgets[REAL[0]]
    click(w, "a", "tensors", 14)
    assert (w.selected.values_a, w.selected.values_b) == ((14,), (16,))
    head = re.search(r"<h4>(.*?)</h4>", details(w, js), re.S).group(1)
    text = re.sub(r"<[^>]+>", "", head)
    assert text.endswith("%14 → %16") and "%14 %14" not in text, text


def test_an_int_is_said_not_compared_never_unchanged_and_without_counterpart(widgets, js):
    """Issue 32: an Int of A read "unchanged" in its header and "no counterpart in B (removed)" beside it: the
    diff pairs tensors only, and says so once."""
    w = widgets[REAL[0]]
    P = plan_data(w)
    L = P["sides"]["a"]["lod"]
    v = next(v for v, k in enumerate(L["valueKind"]) if L["valueKinds"][k] == "Int" and v not in set(P["pairs"]["a"]))
    click(w, "a", "tensors", v)
    html = details(w, js)
    text = re.sub(r"<[^>]+>", "", html)
    assert "unchanged" not in text and "removed" not in text and "no counterpart in B" not in text, text
    assert "not compared" in text and "an Int of A: the diff matches tensors between A and B" in text, text
    assert "not matched: the diff pairs tensors only" in text
    click(w, "a", "tensors", 14)  # a paired tensor still reads unchanged
    assert "unchanged" in re.sub(r"<[^>]+>", "", details(w, js))


def test_select_from_code(widgets, js):
    w = widgets[REAL[2]]
    sel = w.select("steps")  # the named mutable buffer, paired by name
    assert sel.values_a and sel.values_b and sel.side == "a"
    removed = next(c for c in w.plan_diff.values if c.status == "removed" and c.kind == "value")
    sel = w.select(removed)
    assert (sel.values_a, sel.values_b) == ((removed.a.index,), ())
    assert "not in B (removed)" in details(w, js)
    sel = w.select("%16", side="b")
    assert sel.values_a == (17,) and "moved device" in details(w, js)
    assert w.get_state("selected")["selected"] == {"plan": "forward", "side": "b", "values": {"a": [17], "b": [16]},
                                                   "instructions": {"a": [], "b": []}}
    assert not w.select() and "Click a tensor" in details(w, js)
    with pytest.raises(IndexError):
        w.select(10_000)
    with pytest.raises(ValueError):
        w.select(1, side="c")
    assert "Diff('partition_add.pte', 'partition_add_sin.pte'" in repr(w)


def test_header_counts_and_runtime_needs(widgets):
    header = plan_data(widgets[REAL[0]])["header"]
    assert "moved between devices <b>4 (4 cpu → cuda:0)</b>" in header
    assert "copies <b>+11 −0 (+352 B per run)</b>" in header
    assert "arena changes <b>2 (added, resized)</b>" in header
    assert "runtime-needs changes <b>6</b>" in header
    req = plan_data(widgets[REAL[1]])["requirements"]
    assert ("-", "cuda:0") in requirement_changes(widgets[REAL[1]].plan_diff.requirements_a,
                                                  widgets[REAL[1]].plan_diff.requirements_b)
    assert req.count("class='dx-minus'") == 1 and req.count("class='dx-plus'") == 1  # cuda:0 gone, cuda:1 new
    assert "class='dx-tilde'" in req and "index 1" in req  # the allocator is now called with index 1
    same = plan_data(widgets[REAL[2]])["requirements"]
    assert "1 change" in same and "96 B" in same and "128 B" in same


def test_plan_argument_and_save_html(widgets, tmp_path):
    with pytest.raises(KeyError):
        explorer.Diff(PAIRS / REAL[0][0], PAIRS / REAL[0][1], plan="nope")
    w = widgets[REAL[0]]
    w.select(5)
    data = payload(w.save_html(tmp_path / "d.html").read_text(encoding="utf-8"))
    assert data["selected"] == {"plan": "forward", "side": "a", "values": {"a": [5], "b": [11]},
                                "instructions": {"a": [], "b": []}}


# -- the report ------------------------------------------------------------------------------------

def test_report_is_self_contained_with_both_sides(tmp_path):
    out = io.StringIO()
    target = tmp_path / "diff.html"
    assert main(["diff", str(PAIRS / REAL[0][0]), str(PAIRS / REAL[0][1]), "--html", str(target)], stdout=out) == 0
    assert f"wrote {target}" in out.getvalue() and "4 tensors moved" in out.getvalue()
    html = target.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I) and not re.search(r"<link[^>]*\bhref", html, re.I)
    plotly_js = frontend.plotly_js()
    assert html.count(plotly_js[:200]) == 1 and plotly_js[-200:] in html
    data = payload(html)
    (plan,) = data["plans"]
    assert set(plan["sides"]) == {"a", "b"} and dict(zip(plan["pairs"]["a"], plan["pairs"]["b"]))[5] == 11
    assert dict(zip(plan["ipairs"]["b"]["i"], plan["ipairs"]["b"]["o"]))[3] == 0
    text = {s: dict(zip(plan["vd"][s]["v"], plan["vd"][s]["t"])) for s in "ab"}
    assert text["a"][5] == text["b"][11]  # one details text per changed pair, found from either side
    assert data["mode"] == "diff" and data["nameA"] == "cpu_only.pte"
    for anchor in ('"dx-graph-a"', '"dx-graph-b"', '"dx-memory-a"', '"dx-details"', '"dx-req"'):
        assert anchor in frontend.source("diff/diff.js")
    # --json stays pure JSON when --html is asked for too
    out = io.StringIO()
    assert main(["diff", str(PAIRS / REAL[1][0]), str(PAIRS / REAL[1][1]), "--json", "--html",
                 str(tmp_path / "j.html")], stdout=out) == 0
    assert json.loads(out.getvalue())["format"] == "device-explorer-diff/1" and (tmp_path / "j.html").exists()


def _hostile_pair():
    a = PlanBuilder(arenas=[(64, "cpu")])
    x = a.tensor(arena=1, offset=0, name=BREAKOUT)
    y = a.tensor(arena=1, offset=16, name=HOSTILE)
    a.kernel(HOSTILE + ".out", x, y, y)
    a.inputs(x)
    a.outputs(y)
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name=BREAKOUT)
    d = b.tensor(arena=2, offset=0, device="cuda:0", name="d\u202egnp.exe")
    y = b.tensor(arena=2, offset=16, device="cuda:0", name=HOSTILE)
    b.h2d(x, d)
    b.delegate(HOSTILE, d, y, target_device="cuda:0")
    b.inputs(x)
    b.outputs(y)
    return explorer.load(write(a.program())), explorer.load(write(b.program()))


def test_report_escapes_what_the_files_say():
    pa, pb = _hostile_pair()
    html = diff_report_html(pa, pb)
    head, rest = html.split(f'<script type="{DATA_TYPE}" id="dx-data">', 1)
    data_block, tail = rest.split("</script>", 1)
    assert HOSTILE not in head + tail and "__pwned" not in head + tail
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", data_block)
    assert len(re.findall(r"<script\b", head + tail)) == 2  # plotly.js and the app
    data = payload(html)
    texts = "".join(data["plans"][0]["texts"]) + data["plans"][0]["header"] + data["plans"][0]["requirements"]
    assert HOSTILE not in texts and "&lt;img src=x onerror=alert(1)&gt;" in texts
    assert "d\\u202egnp.exe" in texts  # the bidi override shown, not obeyed
    assert "moved device" in texts  # the hostile output still moved to cuda:0, and says so


def test_single_program_runtime_needs_block():
    p = diff(PAIRS / REAL[0][0], PAIRS / REAL[0][1]).plan("forward")
    html = requirements_html(p.requirements_b, open_=True)
    assert html.startswith("<div class='dx-root dx-req'><details open><summary>Runtime needs")
    assert "1 device besides the CPU" in html and "DeviceAllocator (type 1, cuda, index 0)" in html
    assert "et_copy::_h2d_copy.out" in html and "BackendWithCompilerDemo" in html
    assert "CPU only" in requirements_html(p.requirements_a)


def test_several_plans_and_a_program_against_itself(js):
    path = PAIRS.parent / "two_methods.pte"
    w = explorer.Diff(path, path, plan="encode")
    assert w.plan == "encode" and [p["name"] for p in widget_payload(w)["plans"]] == ["encode", "forward"]
    assert (w.view.name_a, w.view.name_b) == ("A: two_methods.pte", "B: two_methods.pte")
    assert not any(s != "same" for s in w.plan_diff.status_a.values())
    assert not ringed(w, "a", js)  # nothing ringed
    assert "moved between devices <b>0</b>" in plan_data(w)["header"]
    assert "the runtime needs exactly the same" in plan_data(w)["requirements"]
    w.plan = "forward"
    assert w.plan_diff.plan == "forward" and "plan forward" in plan_data(w)["header"]
    tensor = w.view.a.plan.tensors[0].index
    sel = w.select(tensor)
    assert sel.values_a == sel.values_b == (tensor,) and "unchanged" in details(w, js)
    data = payload(diff_report_html(path, path, plan="encode"))
    assert [p["name"] for p in data["plans"]] == ["encode", "forward"] and data["plan"] == "encode"
