"""Figures and HTML fragments, checked as data (no browser): what each panel would draw."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from analysis_helpers import PlanBuilder

from explorer import load
from explorer.model import Device
from explorer.views.details import (
    device_table,
    instruction_details,
    value_details,
)
from explorer.views.escape import html_text, plotly_text, script_json
from explorer.views.graph import TRACE, build_graph_figure
from explorer.views.memory import build_memory_figure
from explorer.views.palette import (
    CPU_COLOR,
    CUDA_COLORS,
    ERROR,
    UNKNOWN_COLOR,
    device_style,
    ordered_devices,
)
from explorer.views.prepare import plan_view, program_summary
from explorer.views.selection import resolve

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = "<img src=x onerror=alert(1)>"


def view_of(name: str, plan: str = "forward"):
    program = load(FIXTURES / name)
    return plan_view(program.plan(plan), program)


def view_of_builder(b: PlanBuilder):
    program = b.program()
    return plan_view(program.plans[0], program)


def lane_titles(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations if not a.name]  # named ones: arena end, overflow


# -- palette ------------------------------------------------------------------------------------

def test_palette_is_fixed_per_device_and_distinct():
    devices = [Device.parse(d) for d in ("cpu", "cuda:0", "cuda:1", "cuda:2", "cuda:3", "cuda:4", "cuda:5")]
    colors = [device_style(d).color for d in devices]
    assert colors[0] == CPU_COLOR and colors[1:] == list(CUDA_COLORS)
    assert len(set(colors)) == len(colors)
    # a 7th CUDA device repeats a hue but not the marker
    assert device_style(Device.parse("cuda:6")).symbol != device_style(Device.parse("cuda:0")).symbol
    unknown = device_style(Device.parse("unknown(7):0"))
    assert unknown.color == UNKNOWN_COLOR and unknown.symbol == "circle-x" and unknown.pattern
    assert [str(d) for d in ordered_devices([Device.parse("unknown(7):0"), Device.parse("cuda:1"), Device.parse("cpu")])] \
        == ["cpu", "cuda:1", "unknown(7):0"]


# -- graph --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["device_add.pte", "device_mlp.pte", "device_cuda1.pte", "mlp.pte", "xnnpack_mlp.pte"])
def test_graph_has_one_marker_per_tensor_in_its_device_colour(name):
    view = view_of(name)
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    tensors = fig.data[TRACE["tensors"]]
    assert tensors.name == "tensors"
    indices = [int(i) for i in tensors.customdata]
    assert sorted(indices) == sorted(t.index for t in view.plan.tensors)
    assert len(tensors.x) == len(indices)
    assert list(tensors.marker.color) == [device_style(view.plan.values[i].device).color for i in indices]
    ops = fig.data[TRACE["ops"]]
    assert sorted(int(i) for i in ops.customdata) == list(range(len(view.plan.instructions)))
    # every node on its own coordinate
    xy = set(zip(np.concatenate([tensors.x, ops.x]), np.concatenate([tensors.y, ops.y])))
    assert len(xy) == len(indices) + len(ops.x)


def test_cuda1_is_not_drawn_as_cuda0():
    view = view_of("device_cuda1.pte")
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    colors = set(fig.data[TRACE["tensors"]].marker.color)
    assert colors == {CPU_COLOR, CUDA_COLORS[1]}
    assert {e.name for e in fig.data if e.legendgroup == "devices"} == {"cpu", "cuda:1"}


def test_edges_are_styled_by_what_they_carry():
    view = view_of("device_add.pte")
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    same, h2d, d2h, d2d = fig.data[:4]
    n_h2d = sum(1 for t in view.analysis.transfers if t.kind == "h2d")
    n_d2h = sum(1 for t in view.analysis.transfers if t.kind == "d2h")
    assert n_h2d and n_d2h
    # each transfer styles its read edge and its write edge; three points per segment
    assert len(h2d.x) >= 3 * 2 * sum(1 for t in view.analysis.transfers if t.kind == "h2d" and "copy" in t.op)
    assert len(d2h.x) > 0 and len(d2d.x) == 0 and len(same.x) > 0
    assert h2d.line.dash == "dash" and d2h.line.dash == "dot" and same.line.dash == "solid"


def test_ops_are_marked_by_kind():
    view = view_of("device_add.pte")
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    ops = fig.data[TRACE["ops"]]
    by_instr = dict(zip((int(i) for i in ops.customdata), ops.marker.symbol))
    for ins in view.plan.instructions:
        expected = {"DelegateCall": "diamond"}.get(ins.kind, "triangle-down" if "copy" in (ins.op or "") else "square")
        assert by_instr[ins.index] == expected, ins.label


def test_hover_shows_where_the_tensor_lives():
    view = view_of("device_add.pte")
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    tensors = fig.data[TRACE["tensors"]]
    for index, hover in zip(tensors.customdata, tensors.hovertext):
        t = view.plan.values[int(index)]
        for part in (t.dtype, str(t.device), f"arena {t.memory_id}", f"offset {t.offset}", f"bytes {t.nbytes}"):
            assert part in hover


def hostile_builder() -> PlanBuilder:
    b = PlanBuilder(arenas=[(64, "cpu"), (64, "cuda:0")])
    x = b.tensor(arena=1, offset=0, name=HOSTILE)
    d = b.tensor(arena=2, offset=0, device="cuda:0", name="a&b</script>")
    y = b.tensor(arena=2, offset=16, device="cuda:0")
    b.h2d(x, d)
    b.kernel(HOSTILE + ".out", d, y, y)
    b.delegate(HOSTILE, y, target_device="cuda:0")
    b.inputs(x)
    b.outputs(y)
    return b


def test_text_from_the_file_is_escaped_in_every_figure():
    view = view_of_builder(hostile_builder())
    graph = build_graph_figure(view.plan, view.analysis, geometry=view.geometry, labels=True)
    memory = build_memory_figure(view.plan, view.analysis)
    texts = []
    for fig in (graph, memory):
        for trace in fig.data:
            for attr in ("hovertext", "text", "name"):
                value = getattr(trace, attr, None)
                texts.extend([value] if isinstance(value, str) else list(value or ()))
        texts.extend(a.text for a in fig.layout.annotations)
    joined = "\n".join(texts)
    assert "&lt;img src=x onerror=alert(1)&gt;" in joined
    assert "<img" not in joined and "</script>" not in joined and "a&amp;b" in joined


def test_overlays_start_empty_and_every_tensor_at_full_strength():
    """Selection rings and the device filter are the browser app's (frontend/highlight.js, app.js)."""
    view = view_of("device_add.pte")
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    assert len(fig.data[TRACE["hl_edges"]].x) == 0 and len(fig.data[TRACE["hl_nodes"]].x) == 0
    assert fig.data[TRACE["tensors"]].marker.opacity == 1.0
    memory = build_memory_figure(view.plan, view.analysis)
    assert all(len(t.x) == 0 for t in memory.data if t.name == "selected")


def test_unknown_devices_are_grey_with_their_own_marker():
    b = PlanBuilder(arenas=[(16, "unknown(7):0")])
    u = b.tensor(arena=1, device="unknown(7):0")
    c = b.tensor(device="cpu")
    b.kernel("aten::abs.out", u, c, c)
    b.inputs(u)
    view = view_of_builder(b)
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    tensors = fig.data[TRACE["tensors"]]
    style = dict(zip((int(i) for i in tensors.customdata), zip(tensors.marker.color, tensors.marker.symbol)))
    assert style[u] == (UNKNOWN_COLOR, "circle-x") and style[c] == (CPU_COLOR, "circle")
    memory = build_memory_figure(view.plan, view.analysis)
    assert list(memory.data[0].marker.pattern.shape) == ["x"]


def test_large_programs_draw_markers_only_and_without_webgl():
    from explorer.format.synth import synthetic_program

    program = synthetic_program(values=3000)
    view = plan_view(program.plans[0], program)
    fig = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    assert {t.type for t in fig.data} == {"scatter"}, "the vendored plotly.js has no WebGL traces"
    tensors = fig.data[TRACE["tensors"]]
    assert len(tensors.x) == len(view.plan.tensors)
    # plotly draws no text: the labels ride along for the app's label layer (frontend/labels.js), which
    # shows only those that fit at the zoom
    assert tensors.mode == fig.data[TRACE["ops"]].mode == "markers"
    assert len(tensors.text) == len(tensors.x)


# -- memory map ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["device_add.pte", "device_mlp.pte", "device_cuda1.pte", "two_methods.pte"])
def test_memory_map_has_a_lane_per_arena_labelled_with_its_device(name):
    view = view_of(name)
    fig = build_memory_figure(view.plan, view.analysis)
    arenas = view.analysis.memory.arenas
    titles = lane_titles(fig)
    assert len(titles) == len(arenas)
    for arena, title in zip(arenas, titles):
        assert f"arena {arena.memory_id}" in title and str(arena.device) in title
        assert "peak live" in title and f"{arena.utilisation:.0%}" in title
    for k, arena in enumerate(arenas):
        blocks = fig.data[2 * k]
        assert [int(v) for v in blocks.customdata] == [b.value for b in arena.blocks]
        assert list(blocks.marker.color) == [device_style(b.device).color for b in arena.blocks]
        assert list(blocks.base) == [b.offset for b in arena.blocks]
        assert list(blocks.y) == [b.nbytes for b in arena.blocks]
        axis = fig.layout["yaxis" if k == 0 else f"yaxis{k + 1}"]
        assert axis.range[1] >= arena.size
        assert fig.data[2 * k + 1].name == "selected" and len(fig.data[2 * k + 1].x) == 0


def test_memory_rectangles_span_the_lifetime():
    view = view_of("device_add.pte")
    fig = build_memory_figure(view.plan, view.analysis)
    for k, arena in enumerate(view.analysis.memory.arenas):
        bars = fig.data[2 * k]
        for b, x, w in zip(arena.blocks, bars.x, bars.width):
            assert x - w / 2 == pytest.approx(b.first - 0.5) and x + w / 2 == pytest.approx(b.last + 0.5)


def test_planted_device_mismatch_is_outlined():
    b = PlanBuilder(arenas=[(32, "cpu"), (32, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    wrong = b.tensor(arena=2, offset=0, device="cpu")  # a cpu tensor planned in the cuda arena
    b.kernel("aten::relu.out", x, wrong, wrong)
    b.inputs(x)
    b.outputs(wrong)
    view = view_of_builder(b)
    assert any(f.code == "device-mismatch" for f in view.analysis.findings)
    graph = build_graph_figure(view.plan, view.analysis, geometry=view.geometry)
    tensors = graph.data[TRACE["tensors"]]
    outline = dict(zip((int(i) for i in tensors.customdata), tensors.marker.line.color))
    assert outline[wrong] == ERROR and outline[x] != ERROR
    memory = build_memory_figure(view.plan, view.analysis)
    cuda_lane = memory.data[2]
    assert list(cuda_lane.marker.color) == [CPU_COLOR]  # the tensor's own colour in the cuda lane shows it
    assert list(cuda_lane.marker.line.color) == [ERROR]


def test_memory_map_without_arenas_says_so():
    b = PlanBuilder()
    x = b.tensor()
    y = b.tensor()
    b.kernel("aten::abs.out", x, y, y)
    view = view_of_builder(b)
    fig = build_memory_figure(view.plan, view.analysis)
    assert "no memory-planned arenas" in lane_titles(fig)[0]


# -- details, selection, escaping ---------------------------------------------------------------

def test_details_are_escaped_and_complete():
    view = view_of_builder(hostile_builder())
    html = value_details(view.plan, view.analysis, 0)
    assert HOSTILE not in html and html_text(HOSTILE) in html
    assert "cpu" in html and "arena 1" in html and "read by" in html
    html = instruction_details(view.plan, view.analysis, 1)
    assert HOSTILE not in html and html_text(HOSTILE) in html
    html = instruction_details(view.plan, view.analysis, 2)
    assert "target_device = cuda:0" in html
    table = device_table(view.plan, view.analysis)
    assert "cuda:0" in table and "cpu" in table


def test_escape_helpers():
    assert plotly_text("a<b>&c") == "a&lt;b&gt;&amp;c"
    assert html_text('"<x>\'') == "&quot;&lt;x&gt;&#x27;"
    encoded = script_json({"s": "</SCRIPT></script><!--\u2028<b>"})
    assert "</" not in encoded and "<!" not in encoded and "\u2028" not in encoded
    assert json.loads(encoded) == {"s": "</SCRIPT></script><!--\u2028<b>"}


def test_selection_rules():
    b = PlanBuilder(arenas=[(32, "cpu")])
    x = b.tensor(arena=1, name="mod.x")
    y = b.tensor(arena=1, offset=16)
    b.kernel("aten::relu.out", x, y, y)
    plan = b.build()
    assert resolve(plan, ["mod.x"]).values == (x,)
    assert resolve(plan, [f"%{y}", y]).values == (y,)
    assert resolve(plan, [plan.values[y]], instructions=[0]).instructions == (0,)
    with pytest.raises(KeyError, match="no tensor named 'nope'"):
        resolve(plan, ["nope"])
    with pytest.raises(IndexError):
        resolve(plan, [99])
    with pytest.raises(IndexError):
        resolve(plan, instructions=[5])


def test_summary_names_devices_and_findings():
    view = view_of("device_mlp.pte")
    assert program_summary(view, []) == \
        "forward: 25 tensors (cpu 14, cuda:0 11) · 20 instructions · 2 arenas · no findings"


def _figures_to_validate():
    for name in ("device_add.pte", "device_mlp.pte", "two_methods.pte"):
        view = view_of(name)
        yield name, view
    yield "hostile", view_of_builder(hostile_builder())
    b = PlanBuilder(arenas=[(16, "unknown(7):0")])
    u = b.tensor(arena=1, device="unknown(7):0")
    b.kernel("aten::abs.out", u, u)
    yield "unknown", view_of_builder(b)
    from explorer.format.synth import synthetic_program
    program = synthetic_program(values=2000)
    yield "webgl", plan_view(program.plans[0], program)


@pytest.mark.parametrize("name,view", list(_figures_to_validate()), ids=lambda v: v if isinstance(v, str) else "")
def test_figures_are_valid_plotly(name, view):
    """The builders skip plotly's per-point validation for speed; every property must still be valid."""
    import plotly.graph_objects as go

    for fig in (build_graph_figure(view.plan, view.analysis, geometry=view.geometry),
                build_graph_figure(view.plan, view.analysis, geometry=view.geometry, labels=True),
                build_memory_figure(view.plan, view.analysis)):
        go.Figure(fig.to_dict())  # raises ValueError naming any invalid property


def test_memory_lanes_mark_the_arena_end_the_bytes_past_it_and_name_blocks():
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor((2, 4), arena=1, offset=0, name="inside")  # 32 B at 0: fits
    y = b.tensor((2, 4), arena=1, offset=48, name="spills")  # 32 B at 48: 16 B past the 64 B arena
    b.kernel("aten::relu.out", x, y, y)
    view = view_of_builder(b)
    fig = build_memory_figure(view.plan, view.analysis)
    shapes = {s.name: s for s in fig.layout.shapes}
    assert shapes["arena end"].y0 == shapes["arena end"].y1 == 64
    band = shapes["past the end"]
    assert (band.y0, band.y1) == (64, 80), "a red band from the end to the high water"
    notes = [a.text for a in fig.layout.annotations if a.name == "overflow"]
    assert notes == ["⚠ 1 tensor past the arena's end: up to 16 B beyond 64 B"]
    blocks = fig.data[0]
    order = list(blocks.customdata)
    assert blocks.marker.line.color[order.index(y)] == ERROR and blocks.marker.line.color[order.index(x)] == "white"
    assert list(blocks.text) == ["inside", "spills"] and blocks.textposition == "inside"
    assert fig.layout.uniformtext.mode == "hide", "names that do not fit are hidden, not shrunk to dust"
    assert fig.layout.yaxis.range[1] > 80, "the band is in view"


def test_a_lane_within_its_arena_still_shows_where_it_ends():
    fig = build_memory_figure(*(lambda v: (v.plan, v.analysis))(view_of("device_mlp.pte")))
    ends = [s for s in fig.layout.shapes if s.name == "arena end"]
    assert len(ends) == 2 and not [s for s in fig.layout.shapes if s.name == "past the end"]


def test_high_water_tick_only_when_it_clears_the_arena_end():
    """Ticks at the arena's end and at a high-water mark a few bytes past it would print over each other; the
    band's note still says how far past the end the plan reaches."""
    def ticks(past_end_offset: int) -> list:
        b = PlanBuilder(arenas=[(1280, "cpu")])
        x = b.tensor((2, 8), arena=1, offset=0, name="x")
        y = b.tensor((2, 8), arena=1, offset=past_end_offset, name="spill")  # 64 bytes, past the end
        b.kernel("aten::relu.out", x, y, y)
        view = view_of_builder(b)
        return list(build_memory_figure(view.plan, view.analysis).layout.yaxis.tickvals)

    assert ticks(1280 - 32) == [0, 640, 1280]  # high water 1,312: 2.4% past the end, one tick
    assert ticks(2048) == [0, 640, 1280, 2112]
