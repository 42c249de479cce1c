"""Figures and HTML fragments, checked as data (no browser): what each panel would draw."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from analysis_helpers import PlanBuilder

from explorer import load
from explorer.model.program import Device
from explorer.analysis.pipeline import analyze
from explorer.views.fragments.tables import device_table
from explorer.views.escape import html_text, plotly_text, script_json
from explorer.views.state.overview import LOD_NODES, OVERVIEW_TRACE
from explorer.views.palette import (
    CPU_COLOR,
    CUDA_COLORS,
    ERROR,
    UNKNOWN_COLOR,
    device_style,
    ordered_devices,
)
from explorer.views.state.plan import plan_view, program_summary, totals_view
from app_js import drawn, run_js
from explorer.views.state.selection import resolve

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = "<img src=x onerror=alert(1)>"


def view_of(name: str, plan: str = "forward"):
    program = load(FIXTURES / name)
    return plan_view(program.plan(plan), program)


def view_of_builder(b: PlanBuilder):
    program = b.program()
    return plan_view(program.plans[0], program)


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


# -- graph (as the app draws it: tests/app_js.py runs the browser's modules under node) -------------------

TRACE = OVERVIEW_TRACE


def _tensor_style(graph) -> dict:
    t = graph["data"][TRACE["tensors"]]
    return {int(v): (c, s) for v, c, s in zip(t["customdata"], t["marker"]["color"], t["marker"]["symbol"])}


@pytest.mark.parametrize("name", ["device_add.pte", "device_mlp.pte", "device_cuda1.pte", "mlp.pte", "xnnpack_mlp.pte"])
def test_graph_has_one_marker_per_tensor_in_its_device_colour(tmp_path, name):
    view = view_of(name)
    graph, _ = drawn(tmp_path, view)
    tensors, ops = graph["data"][TRACE["tensors"]], graph["data"][TRACE["ops"]]
    assert tensors["name"] == "tensors"
    indices = [int(i) for i in tensors["customdata"]]
    named = {i for i in range(len(view.plan.values)) if view.plan.values[i] is not None}
    drawn_tensors = {t.index for t in view.plan.tensors} & named
    assert set(indices) <= drawn_tensors and len(indices) == len(set(indices))
    assert list(tensors["marker"]["color"]) == [device_style(view.plan.values[i].device).color for i in indices]
    assert sorted(int(i) for i in ops["customdata"]) == list(range(len(view.plan.instructions)))
    assert not graph["data"][TRACE["groups"]]["customdata"], "a small plan opens with every group expanded"
    xy = set(zip(tensors["x"] + ops["x"], tensors["y"] + ops["y"]))
    assert len(xy) == len(indices) + len(ops["x"]), "every node on its own coordinate"


def test_every_tensor_an_instruction_names_is_drawn(tmp_path):
    view = view_of("device_mlp.pte")
    graph, _ = drawn(tmp_path, view)
    e, f = view.analysis.edges, view.analysis.facts
    named = set(e.value[f.is_tensor[e.value]].tolist())
    assert {int(i) for i in graph["data"][TRACE["tensors"]]["customdata"]} == \
        {t.index for t in view.plan.tensors if t.index in named}


def test_cuda1_is_not_drawn_as_cuda0(tmp_path):
    graph, _ = drawn(tmp_path, view_of("device_cuda1.pte"))
    assert {c for c, _ in _tensor_style(graph).values()} == {CPU_COLOR, CUDA_COLORS[1]}
    assert {e["name"] for e in graph["data"] if e.get("legendgroup") == "devices"} == {"cpu", "cuda:1"}


def test_edges_are_styled_by_what_they_carry(tmp_path):
    view = view_of("device_add.pte")
    graph, _ = drawn(tmp_path, view)
    same, h2d, d2h, d2d = graph["data"][:4]
    assert sum(1 for t in view.analysis.transfers if t.kind == "h2d") and any(t.kind == "d2h" for t in view.analysis.transfers)
    pieces = lambda tr: sum(1 for k, x in enumerate(tr["x"]) if x is not None and (k == 0 or tr["x"][k - 1] is None))
    assert pieces(h2d) >= 2 * sum(1 for t in view.analysis.transfers if t.kind == "h2d")  # read and write edge each
    assert pieces(d2h) > 0 and pieces(d2d) == 0 and pieces(same) > 0
    assert h2d["line"]["dash"] == "dash" and d2h["line"]["dash"] == "dot" and same["line"]["dash"] == "solid"


def test_ops_are_marked_by_kind(tmp_path):
    view = view_of("device_add.pte")
    graph, _ = drawn(tmp_path, view)
    ops = graph["data"][TRACE["ops"]]
    by_instr = dict(zip((int(i) for i in ops["customdata"]), ops["marker"]["symbol"]))
    for ins in view.plan.instructions:
        expected = {"DelegateCall": "diamond"}.get(ins.kind, "triangle-down" if "copy" in (ins.op or "") else "square")
        assert by_instr[ins.index] == expected, ins.label


def test_hover_shows_where_the_tensor_lives(tmp_path):
    view = view_of("device_add.pte")
    graph, _ = drawn(tmp_path, view)
    tensors = graph["data"][TRACE["tensors"]]
    for index, hover in zip(tensors["customdata"], tensors["hovertext"]):
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


def _texts(fig) -> list[str]:
    out = []
    for trace in fig["data"]:
        for attr in ("hovertext", "text", "name"):
            value = trace.get(attr)
            out.extend([value] if isinstance(value, str) else [str(x) for x in (value or ())])
    out.extend(str(a.get("text", "")) for a in fig["layout"].get("annotations", []))
    return out


def test_text_from_the_file_is_escaped_in_every_figure(tmp_path):
    graph, memory = drawn(tmp_path, view_of_builder(hostile_builder()))
    joined = "\n".join(_texts(graph) + _texts(memory))
    assert "&lt;img src=x onerror=alert(1)&gt;" in joined
    assert "<img" not in joined and "</script>" not in joined and "a&amp;b" in joined


def test_overlays_start_empty_and_every_tensor_at_full_strength(tmp_path):
    """Selection rings and edges are drawn over the figures (frontend/panels/rings.js), not in them."""
    graph, memory = drawn(tmp_path, view_of("device_add.pte"))
    assert not graph["data"][TRACE["hl_edges"]]["x"] and not graph["data"][TRACE["hl_nodes"]]["x"]
    assert set(graph["data"][TRACE["tensors"]]["marker"]["opacity"]) == {1}
    assert all(not t.get("x") for t in memory["data"] if t.get("name") == "selected")


def test_unknown_devices_are_grey_with_their_own_marker(tmp_path):
    b = PlanBuilder(arenas=[(16, "unknown(7):0")])
    u = b.tensor(arena=1, device="unknown(7):0")
    c = b.tensor(device="cpu")
    b.kernel("aten::abs.out", u, c, c)
    b.inputs(u)
    graph, memory = drawn(tmp_path, view_of_builder(b))
    style = _tensor_style(graph)
    assert style[u] == (UNKNOWN_COLOR, "circle-x") and style[c] == (CPU_COLOR, "circle")
    assert list(memory["data"][0]["marker"]["pattern"]["shape"]) == ["x"]


def test_large_programs_draw_markers_only_and_without_webgl(tmp_path):
    from writers.synth import synthetic_program

    program = synthetic_program(values=1000)
    view = plan_view(program.plans[0], program)
    assert 1000 < view.overview.groups.nodes(0) <= LOD_NODES
    graph, _ = drawn(tmp_path, view)
    assert {t.get("type") for t in graph["data"]} == {"scatter"}, "the vendored plotly.js has no WebGL traces"
    tensors = graph["data"][TRACE["tensors"]]
    assert len(tensors["x"]) + len(graph["data"][TRACE["ops"]]["x"]) == view.overview.groups.nodes(0), \
        "opens with every group expanded"
    # plotly draws no text: the labels ride along for the app's label layer (frontend/panels/labels.js), which
    # shows only those that fit at the zoom
    assert tensors["mode"] == graph["data"][TRACE["ops"]]["mode"] == "markers"
    assert len(tensors["text"]) == len(tensors["x"])


# -- memory map ---------------------------------------------------------------------------------

def lane_titles(fig) -> list[str]:
    return [a["text"] for a in fig["layout"]["annotations"] if not a.get("name")]  # named: arena end, overflow


@pytest.mark.parametrize("name", ["device_add.pte", "device_mlp.pte", "device_cuda1.pte", "two_methods.pte"])
def test_memory_map_has_a_lane_per_arena_labelled_with_its_device(tmp_path, name):
    view = view_of(name)
    _, fig = drawn(tmp_path, view)
    arenas = analyze(view.plan).memory.arenas
    titles = lane_titles(fig)
    assert len(titles) == len(arenas)
    for arena, title in zip(arenas, titles):
        assert f"arena {arena.memory_id}" in title and str(arena.device) in title
        assert "peak live" in title and f"{arena.utilisation:.0%}" in title
    for k, arena in enumerate(arenas):
        blocks = fig["data"][2 * k]
        order = sorted(arena.blocks, key=lambda b: b.value)
        got = sorted(zip(blocks["customdata"], blocks["marker"]["color"], blocks["base"], blocks["y"]))
        assert got == [(b.value, device_style(b.device).color, b.offset, b.nbytes) for b in order]
        axis = fig["layout"]["yaxis" if k == 0 else f"yaxis{k + 1}"]
        assert axis["range"][1] >= arena.size
        assert fig["data"][2 * k + 1]["name"] == "selected"


def test_memory_rectangles_span_the_lifetime(tmp_path):
    view = view_of("device_add.pte")
    _, fig = drawn(tmp_path, view)
    for k, arena in enumerate(analyze(view.plan).memory.arenas):
        bars = fig["data"][2 * k]
        spans = {int(v): (x - w / 2, x + w / 2) for v, x, w in zip(bars["customdata"], bars["x"], bars["width"])}
        for b in arena.blocks:
            assert spans[b.value] == pytest.approx((b.first - 0.5, b.last + 0.5))


def test_planted_device_mismatch_is_outlined(tmp_path):
    b = PlanBuilder(arenas=[(32, "cpu"), (32, "cuda:0")])
    x = b.tensor(arena=1, offset=0)
    wrong = b.tensor(arena=2, offset=0, device="cpu")  # a cpu tensor planned in the cuda arena
    b.kernel("aten::relu.out", x, wrong, wrong)
    b.inputs(x)
    b.outputs(wrong)
    view = view_of_builder(b)
    assert any(f.code == "device-mismatch" for f in view.analysis.findings)
    graph, memory = drawn(tmp_path, view)
    tensors = graph["data"][TRACE["tensors"]]
    outline = dict(zip((int(i) for i in tensors["customdata"]), tensors["marker"]["line"]["color"]))
    assert outline[wrong] == ERROR and outline[x] != ERROR
    cuda_lane = memory["data"][2]
    assert list(cuda_lane["marker"]["color"]) == [CPU_COLOR]  # the tensor's own colour in the cuda lane shows it
    assert list(cuda_lane["marker"]["line"]["color"]) == [ERROR]


def test_memory_map_without_arenas_says_so(tmp_path):
    b = PlanBuilder()
    x = b.tensor()
    y = b.tensor()
    b.kernel("aten::abs.out", x, y, y)
    _, fig = drawn(tmp_path, view_of_builder(b))
    assert "no memory-planned arenas" in lane_titles(fig)[0]


# -- details, selection, escaping ---------------------------------------------------------------

def test_details_are_escaped_and_complete(tmp_path):
    view = view_of_builder(hostile_builder())
    out = run_js(tmp_path, view, [{"op": "noop", "detail": 0, "instr": 1}, {"op": "noop", "detail": 0, "instr": 2}])
    value, instr = out[0]["details"]
    assert HOSTILE not in value and html_text(HOSTILE) in value
    assert "cpu" in value and "arena 1" in value and "read by" in value
    assert HOSTILE not in instr and html_text(HOSTILE) in instr
    assert "target_device" in out[1]["details"][1] and "cuda:0" in out[1]["details"][1]
    table = device_table(view.plan, totals_view(view))
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
        yield name, view_of(name)
    yield "hostile", view_of_builder(hostile_builder())
    b = PlanBuilder(arenas=[(16, "unknown(7):0")])
    u = b.tensor(arena=1, device="unknown(7):0")
    b.kernel("aten::abs.out", u, u)
    yield "unknown", view_of_builder(b)


@pytest.mark.parametrize("name,view", list(_figures_to_validate()), ids=lambda v: v if isinstance(v, str) else "")
def test_figures_are_valid_plotly(tmp_path, name, view):
    """The app fills the figures' skeletons with per-point arrays; every property it sets must be valid plotly."""
    import plotly.graph_objects as go

    for fig in drawn(tmp_path, view):
        go.Figure({"data": fig["data"], "layout": fig["layout"]})  # raises ValueError naming any invalid property


def test_memory_lanes_mark_the_arena_end_the_bytes_past_it_and_name_blocks(tmp_path):
    b = PlanBuilder(arenas=[(64, "cpu")])
    x = b.tensor((2, 4), arena=1, offset=0, name="inside")  # 32 B at 0: fits
    y = b.tensor((2, 4), arena=1, offset=48, name="spills")  # 32 B at 48: 16 B past the 64 B arena
    b.kernel("aten::relu.out", x, y, y)
    _, fig = drawn(tmp_path, view_of_builder(b))
    shapes = {s["name"]: s for s in fig["layout"]["shapes"]}
    assert shapes["arena end"]["y0"] == shapes["arena end"]["y1"] == 64
    band = shapes["past the end"]
    assert (band["y0"], band["y1"]) == (64, 80), "a red band from the end to the high water"
    notes = [a["text"] for a in fig["layout"]["annotations"] if a.get("name") == "overflow"]
    assert notes == ["⚠ 1 tensor past the arena's end: up to 16 B beyond 64 B"]
    blocks = fig["data"][0]
    order = list(blocks["customdata"])
    line = blocks["marker"]["line"]["color"]
    assert line[order.index(y)] == ERROR and line[order.index(x)] == "white"
    assert sorted(blocks["text"]) == ["inside", "spills"] and blocks["textposition"] == "inside"
    assert fig["layout"]["uniformtext"]["mode"] == "hide", "names that do not fit are hidden, not shrunk to dust"
    assert fig["layout"]["yaxis"]["range"][1] > 80, "the band is in view"


def test_a_lane_within_its_arena_still_shows_where_it_ends(tmp_path):
    _, fig = drawn(tmp_path, view_of("device_mlp.pte"))
    ends = [s for s in fig["layout"]["shapes"] if s["name"] == "arena end"]
    assert len(ends) == 2 and not [s for s in fig["layout"]["shapes"] if s["name"] == "past the end"]


def test_high_water_tick_only_when_it_clears_the_arena_end(tmp_path):
    """Ticks at the arena's end and at a high-water mark a few bytes past it would print over each other; the
    band's note still says how far past the end the plan reaches."""
    def ticks(past_end_offset: int) -> list:
        b = PlanBuilder(arenas=[(1280, "cpu")])
        x = b.tensor((2, 8), arena=1, offset=0, name="x")
        y = b.tensor((2, 8), arena=1, offset=past_end_offset, name="spill")  # 64 bytes, past the end
        b.kernel("aten::relu.out", x, y, y)
        _, fig = drawn(tmp_path / str(past_end_offset), view_of_builder(b))
        return fig["layout"]["yaxis"]["tickvals"]

    assert ticks(1280 - 32) == [0, 640, 1280]  # high water 1,312: 2.4% past the end, one tick
    assert ticks(2048) == [0, 640, 1280, 2112]


def test_reports_and_widgets_are_made_without_the_plotly_package(tmp_path):
    """Python sends tables and the browser builds every figure (frontend/lod/figures.js): making a report, a diff report
    and both widgets' payloads never imports the Python plotly package."""
    import subprocess
    import sys

    script = f"""
import sys
from explorer import Diff, Explorer
from explorer.views.html.report import write_report
from explorer.views.html.diff import write_diff_report
from explorer import load
write_report(load({str(FIXTURES / "device_mlp.pte")!r}), {str(tmp_path / "r.html")!r})
write_diff_report({str(FIXTURES / "diff" / "cpu_only.pte")!r}, {str(FIXTURES / "diff" / "device_cuda0.pte")!r},
                  {str(tmp_path / "d.html")!r})
Explorer({str(FIXTURES / "device_mlp.pte")!r}).select(0)
Diff({str(FIXTURES / "diff" / "cpu_only.pte")!r}, {str(FIXTURES / "diff" / "device_cuda0.pte")!r})
print(sorted(m for m in sys.modules if m == "plotly" or m.startswith("plotly.")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "r.html").stat().st_size and (tmp_path / "d.html").stat().st_size


def test_the_graph_built_in_the_browser_has_its_traces_where_the_payload_says(tmp_path):
    """lod/figures.js builds the graph's traces in the order views/state/overview.py OVERVIEW_TRACE (sent as lod.trace) names;
    every module reads them by those indices."""
    graph, _ = drawn(tmp_path, view_of("device_mlp.pte"))
    names = {"edges": "same device", "tensors": "tensors", "ops": "ops", "hl_edges": "selected edges",
             "hl_nodes": "selected", "groups": "groups", "headers": "expanded", "crossings": "crossings"}
    assert {key: graph["data"][k]["name"] for key, k in OVERVIEW_TRACE.items()} == names
    legend = graph["data"][max(OVERVIEW_TRACE.values()) + 1:]
    assert [e["name"] for e in legend] == ["cpu", "cuda:0", "kernel", "delegate", "copy"]
    assert all(e["x"] == [None] for e in legend), "legend-only entries after the traces the app fills"
