"""The app's level-of-detail modules (explorer/frontend/lod/*.js) run by Node against a stand-in Plotly:
every function runs (no reference errors); the app folds every instruction and tensor exactly once,
draws a big plan's first state itself, and bins memory lanes exactly. Node is required (CI installs it); tests/test_browser_scale.py runs the same
modules in Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lod_helpers import llm_program, synthetic

from app_js import run_js
from layout_graphs import layout
from explorer.views.state.memory import BINS
from explorer.views.state.overview import Overview, visible_nodes
from explorer.views.state.plan import plan_view
from explorer.views.payload.app import plan_entry

def python_state(view, sequence) -> Overview:
    """Python's expansion state (Explorer.expand / collapse) after the same clicks."""
    ov = Overview(view.plan, view.analysis, view.overview.groups)
    for op, arg in sequence:
        (ov.expand if op == "expand" else ov.collapse)(arg)
    return ov


def expected_edges(view, inst_unit, value_unit) -> dict:
    """Brute force: every dataflow edge between two different drawn units, its distinct tensors."""
    lazy = view.analysis
    f, e = lazy.facts, lazy.edges
    t = f.is_tensor[e.value]
    out: dict = {}
    for i, v, w in zip(e.instr[t].tolist(), e.value[t].tolist(), e.write[t].tolist()):
        if value_unit[v] < 0:
            continue
        a, b = (inst_unit[i], value_unit[v]) if w else (value_unit[v], inst_unit[i])
        if a != b:
            out.setdefault((a, b), set()).add(v)
    return out


@pytest.mark.parametrize("which", ["synthetic", "llm"])
def test_app_folds_every_instruction_and_tensor_once_and_merges_edges(tmp_path, which):
    """Random expansions and collapses in the app: the expansion state follows Python's rules (the
    notebook API keeps the same state without a browser); the folded graph draws each instruction and
    each tensor at home exactly once, and carries every dataflow edge between two drawn units once,
    with its distinct tensors and their bytes."""
    program = synthetic(10_000) if which == "synthetic" else llm_program(120)
    view = plan_view(program.plans[0], program)
    G = view.overview.groups
    G.build_all()
    f = view.analysis.facts
    rng = np.random.default_rng(7)
    commands, sequence = [], []
    for step in range(14):  # expand groups at random depths (the limit collapses some), collapse some
        if step % 5 == 4 and sequence:
            target = next((arg for op, arg in reversed(sequence) if op == "expand"), None)
            commands.append({"op": "collapse", "arg": target})
            sequence.append(("collapse", target))
            continue
        gid = int(rng.integers(1, len(G.groups)))
        commands.append({"op": "expand", "arg": gid})
        sequence.append(("expand", gid))
    results = run_js(tmp_path, view, commands)
    homed = int((G.home >= 0).sum())
    for k, r in enumerate(results):
        ov = python_state(view, sequence[:k + 1])
        assert r["state"]["expanded"] == ov.expanded and r["state"]["note"] == ov.note, k
        nodes = [tuple(n) for n in r["nodes"]]
        assert len(nodes) == len(set(nodes)) == visible_nodes(G, set(ov.expanded) | {0}), k
        assert sum(1 for n in nodes if n[0] == "i") + sum(G.groups[n[1]].size for n in nodes if n[0] == "g") == G.m
        tensors = sum(1 for n in nodes if n[0] == "v") + sum(G.nodes(n[1]) - G.groups[n[1]].size for n in nodes if n[0] == "g")
        assert tensors == homed
        for i in range(0, G.m, 97):  # an instruction is drawn by itself exactly when no collapsed group holds it
            assert (nodes[r["instUnit"][i]] == ("i", i)) == (not ov.folded_away(i)), (k, i)
        expect = expected_edges(view, r["instUnit"], r["valueUnit"])
        got = {(a, b): (c, nb) for (a, b), c, nb in zip(r["edges"], r["edgeTensors"], r["edgeBytes"])}
        assert {pair: c for pair, (c, _) in got.items()} == {pair: len(v) for pair, v in expect.items()}, k
        assert all(nb == sum(int(f.nbytes[v]) for v in expect[pair]) for pair, (_, nb) in got.items())
        assert len(r["x"]) == len(r["y"]) == len(nodes)
        assert len(set(zip(r["x"], r["y"]))) == len(nodes), "two nodes drawn on one spot"
        for (a, b), p in zip(r["edges"], r["paths"], strict=True):  # polylines from node to node, bending per layer
            assert p[:2] == [r["x"][a], r["y"][a]] and p[-2:] == [r["x"][b], r["y"][b]]
            ys = p[1::2]
            assert ys == sorted(ys) or ys == sorted(ys, reverse=True)
        assert r["groups"] == [n[1] for n in nodes if n[0] == "g"]
        assert r["state"]["status"].startswith(f"overview of {G.m:,} instructions")


def test_fully_expanded_fold_is_the_full_graph(tmp_path):
    program = llm_program(12)
    view = plan_view(program.plans[0], program)
    G = view.overview.groups
    G.build_all()
    every = [g.id for g in G.groups if g.id]
    [r] = run_js(tmp_path, view, [{"op": "set", "arg": every}])
    nodes = [tuple(n) for n in r["nodes"]]
    full = layout(program.plans[0], view.analysis.dataflow)
    drawn = set(full.nodes) - {("v", v) for v in program.plans[0].inputs + program.plans[0].outputs if G.home[v] < 0}
    assert set(nodes) == drawn and not any(n[0] == "g" for n in nodes)
    assert {(nodes[a], nodes[b]) for a, b in r["edges"]} == {(full.nodes[a], full.nodes[b]) for a, b in full.edges}


def test_the_first_state_is_drawn_by_the_app(tmp_path):
    """Python sends tables, no figure; the app builds the skeletons (lod/figures.js), draws the overview and the lanes."""
    program = synthetic(10_000)
    view = plan_view(program.plans[0], program)
    payload = plan_entry(view, [], [])
    assert "graph" not in payload and "memory" not in payload
    G = view.overview.groups
    first, expanded = run_js(tmp_path, view, [{"op": "none"}, {"op": "expand", "arg": G.children(0)[2]}])
    assert first["groups"] == list(G.children(0)) and first["tensors"] == 0 and first["headers"] == 0
    assert "overview of 6,997 instructions and 9,998 tensors" in first["status"] and "groups drawn" in first["status"]
    (x0, x1), (y0, y1) = first["ranges"]
    assert x0 <= min(first["x"]) and max(first["x"]) <= x1 and y1 >= 0 >= y0
    assert expanded["tensors"] > 0 and expanded["headers"] == 1
    assert any(name and name.startswith("group ") for name in expanded["shapes"])


def test_the_overview_says_which_tensors_it_does_not_draw(tmp_path):
    from analysis_helpers import PlanBuilder

    from explorer import load
    from writers.pte import write

    b = PlanBuilder()
    x, y = b.tensor(), b.tensor()
    b.tensor(name="unused")
    b.kernel("aten::abs.out", x, y, y)
    program = load(write(b.program()))
    view = plan_view(program.plans[0], program)
    [r] = run_js(tmp_path, view, [{"op": "none"}])
    assert r["status"] == "1 tensor that no instruction names is not drawn"  # all else drawn: nothing more to say


def test_memory_lanes_aggregate_exactly_and_refine_on_zoom(tmp_path):
    program = synthetic(10_000)
    view = plan_view(program.plans[0], program)
    lod = plan_entry(view, [], [])["lod"]
    first, zoomed, back = run_js(tmp_path, view, [{"op": "none"}, {"op": "zoom", "arg": [1000, 1400]},
                                                   {"op": "autorange"}])
    assert first["notes"][0] == f"aggregated: 5,000 tensors in {BINS[0]}×{BINS[1]} bins — zoom in to see tensors"
    # the cuda lanes' ~1,000 tensors each live a step or two: under 3 px wide at this zoom, so binned too (drawn as
    # 2-px bars they only make a pale wash)
    assert all(n.startswith("aggregated: ") and n.endswith(" bins — zoom in to see tensors") for n in first["notes"][1:])
    assert first["memory"][0]["n"] == 0 and first["memory"][2]["n"] == 0
    heat = first["heat"]
    assert (heat["nx"], heat["ny"]) == BINS
    share = np.asarray(heat["share"]).reshape(BINS[1], BINS[0])
    count = np.asarray(heat["count"]).reshape(BINS[1], BINS[0])
    top = np.asarray(heat["top"]).reshape(BINS[1], BINS[0])
    # exact coverage, by brute force, in every cell
    T = lod["tensors"]
    row_of = {v: r for r, v in enumerate(T["index"])}
    values = np.asarray(lod["arenas"][0]["rows"])
    rows = [row_of[v] for v in values.tolist()]
    first_, last = np.asarray(T["first"])[rows], np.asarray(T["last"])[rows]
    none = first_ < 0
    m = lod["m"]
    x0 = np.where(none, 0, first_) - 0.5
    x1 = np.where(none, m - 1, last) + 0.5
    y0 = np.asarray(T["off"], dtype=float)[rows]
    y1 = y0 + np.maximum(np.asarray(T["nbytes"], dtype=float)[rows], 0)
    arena = lod["arenas"][0]
    height = max(arena["size"], arena["high"], 1)
    assert heat["height"] == height and heat["w"] == [-0.5, m - 0.5]
    step, rise = m / BINS[0], height / BINS[1]
    for j in range(BINS[1]):
        oy = np.clip(np.minimum(y1, (j + 1) * rise) - np.maximum(y0, j * rise), 0, None)
        for i in range(BINS[0]):
            lo, hi = -0.5 + i * step, -0.5 + (i + 1) * step
            ox = np.clip(np.minimum(x1, hi) - np.maximum(x0, lo), 0, None)
            touching = (ox > 0) & (oy > 0)
            occ = float((ox * oy).sum()) / (step * rise)
            assert share[j, i] == pytest.approx(min(occ, 1), abs=1e-9), (j, i, occ)
            assert count[j, i] == int(touching.sum()), (j, i)
            if touching.any():  # the largest touching it (bytes x lifetime), for its hover
                sizes = (y1 - y0) * (x1 - x0)
                assert sizes[values.tolist().index(top[j, i])] == sizes[touching].max()
    assert count.sum() > 0
    assert zoomed["notes"][0].startswith("showing ") and zoomed["heat"] is None and zoomed["memory"][0]["n"] > 0
    assert back["notes"][0] == first["notes"][0]


def test_error_blocks_stay_visible_in_aggregated_lanes(tmp_path):
    from test_lod import mismatch_program

    program, victim = mismatch_program()
    view = plan_view(program.plans[0], program)
    assert any(f.code == "device-mismatch" for f in view.analysis.findings)
    [r] = run_js(tmp_path, view, [{"op": "none"}])
    assert r["heat"] is not None and r["lane0"] == [victim.index]
    G = view.overview.groups
    home = int(G.home[victim.index])
    holding = [g for g in G.children(0) if G.groups[g].start <= home < G.groups[g].stop]
    outlined = [g for g, c in zip(r["groups"], r["groupLine"]) if c != "#1F2328"]
    assert outlined == holding


def test_report_script_panels_run(tmp_path):
    program = synthetic(10_000)
    view = plan_view(program.plans[0], program)
    G = view.overview.groups
    first = G.children(0)[3]
    value = int(np.flatnonzero(G.home == G.groups[first].start + 2)[0])
    commands = [
        {"op": "click", "trace": 8, "customdata": first},
        {"op": "select", "values": [value], "detail": value},
        {"op": "zoom", "arg": [1000, 1300]},
        {"op": "hide", "arg": "cuda:0"},
        {"op": "autorange"},
        {"op": "click", "trace": 9, "customdata": first},
        {"op": "reveal", "values": [9_000]},
    ]
    out = run_js(tmp_path, view, commands)
    expanded, selected, zoomed, hidden, reset, collapsed, revealed = out
    assert expanded["state"]["expanded"] == [first] and expanded["tensors"] > 0 and "group" in expanded["html"]
    assert selected["ringed"] == 1 and "written by" in selected["details"][0] and "#" in selected["details"][1]
    assert out[0]["heat"] is not None and out[0]["notes"][0].startswith("aggregated: 5,000")
    assert zoomed["notes"][0].startswith("showing ") and zoomed["memory"][0]["n"] > 0
    assert zoomed["heat"] is None
    assert zoomed["outlined"] == 1  # the selected block outlined
    assert min(hidden["groupOpacity"] or [1]) == 1  # cpu-led groups stay
    assert reset["notes"][0].startswith("aggregated: 5,000")
    assert collapsed["state"]["expanded"] == [] and collapsed["tensors"] == 0
    ov = python_state(view, [])
    ov.reveal([9_000])
    assert revealed["state"]["expanded"] == ov.expanded and ["v", 9_000] in revealed["nodes"]
    assert revealed["ringed"] == 1
    # the view is centred on the revealed tensor (deep in its group, not at the group's top)
    p = revealed["nodes"].index(["v", 9_000])
    (x0, x1), (y0, y1) = revealed["ranges"]
    assert (x0 + x1) / 2 == pytest.approx(revealed["x"][p]) and (y0 + y1) / 2 == pytest.approx(-revealed["y"][p])


def long_lived_chain(steps: int = 1_200, past_end: bool = False):
    """A chain of one-step activations cycling through four 64-byte slots of a cpu arena, beside one 1 KiB
    tensor alive the whole run (and, with ``past_end``, one more placed beyond the arena's end)."""
    from analysis_helpers import PlanBuilder

    b = PlanBuilder(arenas=[(256 + 1024, "cpu")])
    keep = b.tensor((16, 16), arena=1, offset=256, name="kv_cache")  # 1 KiB, read by every step
    x = b.tensor((2, 8), arena=1, offset=0, name="act0")
    b.kernel("aten::add.out", x, keep, x, x)
    for i in range(1, steps):
        y = b.tensor((2, 8), arena=1, offset=64 * (i % 4), name=f"act{i}")
        b.kernel("aten::add.out", x, keep, y, y)
        x = y
    if past_end:
        z = b.tensor((2, 8), arena=1, offset=256 + 1024 - 32, name="spill")  # 32 of its 64 bytes past the end
        b.kernel("aten::relu.out", x, z, z)
    program = b.program()
    return plan_view(program.plans[0], program), keep


def test_a_lane_of_thin_tensors_bins_them_and_draws_the_largest_as_named_blocks(tmp_path):
    view, keep = long_lived_chain()
    [first, zoomed] = run_js(tmp_path, view, [{"op": "none"}, {"op": "zoom", "arg": [100, 300]}])
    assert first["lane0"] == [keep], "the long-lived tensor is a block; the one-step ones are binned"
    assert first["lane0text"] == ["kv_cache"], "named inside its block"
    assert first["notes"][0] == f"aggregated: 1,200 tensors in {BINS[0]}×{BINS[1]} bins, the 1 largest drawn — zoom in to see tensors"
    share = np.asarray(first["heat"]["share"]).reshape(BINS[1], BINS[0])
    count = np.asarray(first["heat"]["count"]).reshape(BINS[1], BINS[0])
    rise = first["heat"]["height"] / BINS[1]
    used = np.flatnonzero(count.sum(axis=1))
    assert used.max() * rise < 256 and share.max() > 0.3, "the bins hold the chain's slots, not the drawn block"
    assert zoomed["notes"][0].startswith("showing ") and zoomed["heat"] is None, "zoomed in: every tensor a block"
    assert len(zoomed["lane0"]) > 200
    # named where a name can show: kv_cache's block; a 64-byte step is ~5 px tall in its lane, under the 9 px type
    # plotly shows (layout.uniformtext), so it gets no name to measure and hide (lod/memory.js roomy)
    names = dict(zip(zoomed["lane0"], zoomed["lane0text"]))
    assert names.pop(keep) == "kv_cache" and set(names.values()) == {""}, sorted(set(names.values()))[:5]


def test_tensors_past_the_arena_end_are_outlined_and_counted(tmp_path):
    view, _ = long_lived_chain(past_end=True)
    [r] = run_js(tmp_path, view, [{"op": "zoom", "arg": [1_150, 1_200]}])
    spill = len(view.plan.values) - 1
    assert r["overflow"] == ["⚠ 1 tensor past the arena's end: up to 32 B beyond 1.2 KiB"]
    line = dict(zip(r["lane0"], r["lane0line"]))
    named = {v for f in view.analysis.findings if f.severity == "error" for v in f.values}  # outlined anyway
    assert line[spill] == "#B31B1B" and {c for v, c in line.items() if v != spill and v not in named} == {"white"}


def test_a_lane_of_few_tensors_draws_every_block_however_thin(tmp_path):
    """Issue 32 item 4: a 17-tensor plan (at most 100: every block drawn) whose 16 small tensors are under 3 px tall beside a 1 MiB one was binned
    (their cells pale, the note over the bars); few tensors are drawn as blocks, every one, and the lane has no note."""
    from analysis_helpers import PlanBuilder

    b = PlanBuilder(arenas=[(1024 + (1 << 20), "cpu")])
    big = b.tensor((512, 512), arena=1, offset=1024, name="weights")  # 1 MiB
    x = b.tensor((2, 8), arena=1, offset=0, name="act0")  # 64 B: well under a pixel of the lane's height
    b.kernel("aten::add.out", x, big, x, x)
    for i in range(1, 16):
        y = b.tensor((2, 8), arena=1, offset=64 * (i % 4), name=f"act{i}")
        b.kernel("aten::add.out", x, big, y, y)
        x = y
    program = b.program()
    view = plan_view(program.plans[0], program)
    [first] = run_js(tmp_path, view, [{"op": "none"}])
    assert first["heat"] is None, "nothing binned"
    assert len(first["lane0"]) == 17 and first["notes"] == []


def equal_chain(sizes):
    """A chain of one-step activations, each live for two instructions (wide enough to draw at the lanes' default
    1,200 px over 500 instructions), ``sizes`` their bytes in run order (``[(count, bytes), ...]``), in a 4 KiB
    arena: 128 B and more are tall enough to draw as blocks, 64 B under 3 px (binned)."""
    from analysis_helpers import PlanBuilder

    b = PlanBuilder(arenas=[(4096, "cpu")])
    shapes = [(nbytes // 32, 8) for count, nbytes in sizes for _ in range(count)]
    x = b.tensor(shapes[0], arena=1, offset=0, name="act0")
    b.kernel("aten::relu.out", x, x)
    for i in range(1, len(shapes)):
        y = b.tensor(shapes[i], arena=1, offset=1024 * (i % 4), name=f"act{i}")
        b.kernel("aten::relu.out", x, y, y)
        x = y
    program = b.program()
    return plan_view(program.plans[0], program)


def test_equal_tensors_are_never_split_into_blocks_then_bins(tmp_path):
    """Issue 32 item 4: 400 equal tensors, each legible, beside 100 too thin to draw: the lane drew the first 300 equal
    ones as blocks up to #300 and pale bins after it — a change in the picture where the data has none. Equal
    tensors are kept together: the run is binned whole, and the note does not count it as drawn."""
    [first] = run_js(tmp_path, equal_chain([(400, 128), (100, 64)]), [{"op": "none"}])
    assert first["heat"] is not None
    assert len(first["lane0"]) <= 2, f"{len(first['lane0'])} of the equal tensors drawn as blocks"
    assert "300 largest" not in first["notes"][0]
    assert "bins start" not in first["memshapes"]


def test_where_blocks_stop_and_bins_start_is_marked(tmp_path):
    """The 300 largest tensors (256 B, #0-#299) drawn as blocks before the thin ones binned: the lane marks where
    blocks stop and bins start (a dashed line across the lane) and its note says at which instruction; the note is a
    line of its own above the lane's title, outside the plot, so it covers no bar."""
    [first] = run_js(tmp_path, equal_chain([(300, 256), (200, 64)]), [{"op": "none"}])
    assert len(first["lane0"]) == 300 and first["heat"] is not None
    assert first["memshapes"].count("bins start") == 1
    assert "the 300 largest drawn (blocks before #30" in first["notes"][0], first["notes"]
    [note] = first["noteAt"]
    assert note["yanchor"] == "bottom" and note["yref"] == "paper" and note["yshift"] > 0


def fan_out_program(readers: int = 30):
    """A chain of ``readers`` adds, every one reading the same constant ``w``."""
    from analysis_helpers import PlanBuilder

    b = PlanBuilder(arenas=[(64 * 4, "cpu")])
    w = b.constant((2, 8), name="w")
    x = b.tensor((2, 8), arena=1, offset=0, name="x0")
    b.kernel("aten::relu.out", x, x)
    for i in range(1, readers + 1):
        y = b.tensor((2, 8), arena=1, offset=64 * (i % 4), name=f"x{i}")
        b.kernel("aten::add.out", x, w, y, y)
        x = y
    return b.program(), w


def test_a_value_read_by_30_ops_is_drawn_as_stubs_highlighted_together(tmp_path):
    """Issue 32 item 6: a constant read by 30 operators drew 30 long edges across the plan. Past FANOUT_STUB readers
    it is drawn as Netron draws an initializer: one edge to its first reader, a short stub (with a dot naming it) at
    each other; selecting it draws every one of them bold."""
    program, w = fan_out_program(30)
    view = plan_view(program.plans[0], program)
    [plain, picked] = run_js(tmp_path, view, [{"op": "none"}, {"op": "select", "values": [w]}])
    unit = plain["valueUnit"][w]
    out = [q for q, e in enumerate(plain["edges"]) if e[0] == unit]
    assert len(out) == 30, "an edge to each reader"
    assert sorted(plain["stubs"]) == sorted(out[1:]), "every reader but the first gets a stub"
    for q in plain["stubs"]:
        p = plain["paths"][q]
        assert len(p) == 4 and abs(p[0] - p[2]) < 1 and abs(p[1] - p[3]) < 1, "a stub is short, at its reader"
        reader = plain["edges"][q][1]
        assert (p[2], p[3]) == (plain["x"][reader], plain["y"][reader])
    long_ = [plain["paths"][q] for q in out if q not in plain["stubs"]]
    assert len(long_) == 1
    assert plain["stubDots"] == 29
    assert picked["bold"] == 30, "selected: the edge and all 29 stubs bold"
