"""The Explorer widget without a browser: traits, linked selection, clicks, filters, plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import PlanBuilder

from explorer import Explorer, load
from explorer.format.writer import write
from explorer.views.graph import TRACE
from explorer.views.selection import Selection

FIXTURES = Path(__file__).parent / "fixtures"


def click(figure, trace_index: int, point_index: int) -> None:
    """Deliver a plotly click the way the front end does (``_js2py_pointsCallback``)."""
    trace = figure.data[trace_index]
    figure._handler_js2py_pointsCallback({"new": {
        "event_type": "plotly_click",
        "points": {"trace_indexes": [trace_index], "point_indexes": [point_index],
                   "xs": [float(trace.x[point_index])], "ys": [float(trace.y[point_index])]},
        "device_state": {"alt": False, "ctrl": False, "meta": False, "shift": False, "button": 0, "buttons": 1},
    }})


@pytest.fixture(scope="module")
def sample():
    return Explorer()


@pytest.fixture
def ex():
    return Explorer(FIXTURES / "device_add.pte")


def planted_program():
    """A cpu tensor planned in the cuda:0 arena (device-mismatch) — the tour's kind of bug."""
    b = PlanBuilder(arenas=[(32, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name="x")
    d = b.tensor(arena=2, offset=0, device="cuda:0", name="x_cuda")
    wrong = b.tensor(arena=2, offset=16, device="cpu", name="wrong")
    b.h2d(x, d)
    b.kernel("aten::relu.out", d, wrong, wrong)
    b.inputs(x)
    b.outputs(wrong)
    return load(write(b.program()))


def test_opens_the_bundled_sample(sample):
    assert Path(sample.program.source).name == "sample.pte"
    assert sample.plan == "forward" and sample.selected == Selection("forward")
    assert "cuda:0" in sample.devices and "cpu" in sample.devices
    assert "sample.pte" in sample._header.value and "cuda:0 11" in sample._header.value
    assert "Click a tensor" in sample._details.value


def test_accepts_path_bytes_and_program():
    data = (FIXTURES / "device_add.pte").read_bytes()
    assert Explorer(data).program.plans[0].name == "forward"
    program = load(FIXTURES / "device_add.pte")
    assert Explorer(program).program is program
    assert Explorer(str(FIXTURES / "device_add.pte")).plan == "forward"


def test_select_from_code_updates_every_panel(ex):
    plan = ex.view.plan
    cuda = next(t for t in plan.tensors if not t.device.is_cpu)
    sel = ex.select(cuda.index)
    assert ex.selected == sel == Selection("forward", (cuda.index,))
    assert sel.tensors(plan) == [cuda]
    hl = ex._graph.data[TRACE["hl_nodes"]]
    assert list(hl.x) == [ex.view.geometry.pos[("v", cuda.index)][0]]
    lanes = [ex._memory.data[2 * k + 1] for k in range(len(ex.analysis.memory.arenas))]
    assert [list(lane.customdata) for lane in lanes] == [[], [cuda.index]]
    assert "cuda:0" in ex._details.value and f"arena {cuda.memory_id}" in ex._details.value
    # by label, by object; instructions; clearing
    assert ex.select(cuda.label).values == (cuda.index,)
    assert ex.select(cuda).values == (cuda.index,)
    ex.select(instructions=[2])
    assert ex.selected.instructions == (2,)
    assert any(s.name == "selected instruction" and s.x0 == 2 for s in ex._memory.layout.shapes)
    assert ex.view.plan.instructions[2].label in ex._details.value
    ex.select()
    assert not ex.selected and len(ex._graph.data[TRACE["hl_nodes"]].x) == 0
    assert not any(s.name == "selected instruction" for s in ex._memory.layout.shapes)


def test_selection_edits_reach_the_browser(ex):
    """Every panel edit must become a message to the front end, not only a Python-side change."""
    sent = {"graph": [], "memory": []}
    for name, fig in (("graph", ex._graph), ("memory", ex._memory)):
        fig.observe(lambda change, name=name: sent[name].append(change["new"]), names=["_py2js_update"])
    ex.select(2, instructions=[1])
    graph_keys = {k for msg in sent["graph"] if msg for k in msg["style_data"]}
    memory_keys = {k for msg in sent["memory"] if msg for k in msg["style_data"]}
    memory_layout = {k for msg in sent["memory"] if msg for k in msg["layout_data"]}
    assert {"x", "y", "marker.symbol"} <= graph_keys
    assert {"x", "base", "y", "customdata"} <= memory_keys and "shapes" in memory_layout
    sent["graph"].clear()
    ex.devices = ("cpu",)
    assert any(msg and "marker.opacity" in msg["style_data"] for msg in sent["graph"])


def test_select_rejects_what_the_plan_does_not_have(ex):
    with pytest.raises(KeyError):
        ex.select("no-such-tensor")
    with pytest.raises(IndexError):
        ex.select(10_000)
    with pytest.raises(KeyError, match="no plan named"):
        ex.select(0, plan="nope")


def test_clicks_on_graph_and_memory_select(ex):
    tensors = ex._graph.data[TRACE["tensors"]]
    click(ex._graph, TRACE["tensors"], 2)
    assert ex.selected.values == (int(tensors.customdata[2]),)
    ops = ex._graph.data[TRACE["ops"]]
    click(ex._graph, TRACE["ops"], 1)
    assert ex.selected.instructions == (int(ops.customdata[1]),) and ex.selected.values == ()
    cuda_lane = ex._memory.data[2]
    click(ex._memory, 2, 0)
    assert ex.selected.values == (int(cuda_lane.customdata[0]),)
    assert "written by" in ex._details.value or "read by" in ex._details.value


def test_findings_list_selects_values_and_instructions():
    ex = Explorer(planted_program())
    mismatch = [f for f in ex.findings if f.code == "device-mismatch"]
    assert mismatch, ex.findings
    k = ex.findings.index(mismatch[0])
    button = ex._findings.children[k]
    assert "device-mismatch" in button.description and "dx-error-finding" in button._dom_classes
    button.click()  # what clicking the entry does
    assert ex.selected.finding == mismatch[0]
    assert ex.selected.values == mismatch[0].values and ex.selected.instructions == mismatch[0].instructions
    assert "device-mismatch" in ex._details.value
    assert "dx-current" in button._dom_classes
    ex.select(0)
    assert "dx-current" not in button._dom_classes  # the list follows the selection
    ex.select(mismatch[0])
    assert "dx-current" in button._dom_classes


def test_plan_switch_rebuilds_panels_and_select_follows_plans():
    ex = Explorer(FIXTURES / "two_methods.pte")
    assert ex.plan == "forward" and not ex._plan_box.disabled
    forward_graph = ex._graph
    ex.select(0)
    ex._plan_box.value = "encode"  # what the dropdown does
    assert ex.plan == "encode" and ex._graph is not forward_graph
    encode = ex.program.plan("encode")
    assert len(ex._graph.data[TRACE["tensors"]].x) == len(encode.tensors)
    assert ex.selected == Selection("encode")
    sel = ex.select(1, plan="forward")
    assert ex.plan == "forward" and ex.selected == sel == Selection("forward", (1,))
    assert len(ex._graph.data[TRACE["hl_nodes"]].x) == 1


def test_device_filter_fades_other_devices(ex):
    ex.devices = ("cpu",)
    geometry = ex.view.geometry
    opacity = dict(zip(geometry.tensors.tolist(), ex._graph.data[TRACE["tensors"]].marker.opacity))
    for index, device in zip(geometry.tensors.tolist(), geometry.tensor_devices):
        assert (opacity[index] == 1.0) == device.is_cpu
    assert list(ex._memory.data[2].marker.opacity) == [0.15] * len(ex.analysis.memory.arenas[1].blocks)
    assert [t.value for t in ex._device_box.children[1:]] == [True, False]
    ex._device_box.children[2].value = True  # the cuda:0 toggle
    assert ex.devices == ("cpu", "cuda:0")
    assert set(ex._graph.data[TRACE["tensors"]].marker.opacity) == {1.0}


def test_search_box_selects_matches(ex):
    ex._search.value = "h2d"
    copies = [i.index for i in ex.view.plan.instructions if "h2d" in i.label]
    assert ex.selected.instructions == tuple(copies) and ex.selected.query == "h2d"
    assert "search" in ex._details.value
    ex._search.value = ""
    assert not ex.selected


def test_figures_follow_the_measured_box_widths(ex):
    ex._probe.widths = [512, 900]
    assert ex._graph.layout.width == 512 and ex._memory.layout.width == 900
    ex.select(0)
    ex.plan = ex.plan  # no change: nothing rebuilt
    assert ex._graph.layout.width == 512


def test_save_html(ex, tmp_path):
    ex.select(0)
    path = ex.save_html(tmp_path / "r.html")
    html = path.read_text(encoding="utf-8")
    assert html.count("plotly.js v") >= 1 and '"selected":{"plan":"forward","values":[0]' in html
