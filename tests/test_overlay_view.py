"""Overlays as the app draws them (explorer/frontend/overlay/view.js over lod/graph.js's traces), under node with
the stand-in Plotly of ``app_js``: every drawn op, tensor and folded group is coloured by the overlay's number (a
folded group by its rule, checked against brute force over the group tree), the hover gets one line and the details
one row, and the colours are made again at every draw (expand, collapse). The payloads are the widget's own:
``Explorer._payload`` and ``Explorer._overlay_data``."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from app_js import NODE, run_payload_js
from lod_helpers import llm_program
from test_overlays import BIG_LAYERS, MLP, brute

from explorer import Explorer
from explorer.views.payload.embed import unpack

BANDS = [(None, "#1A7F37", "low"), (10, "#BF8700", "mid"), (100, "#CF222E", "high")]


def band(x: float) -> str:
    """The colour thresholds ``BANDS`` give a number (the no-data grey for none)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "#D0D7DE"
    pick = [c for bound, c, _ in BANDS if bound is None or x >= bound]
    return pick[-1]


def plan_with(ex: Explorer, name: str) -> dict:
    """The widget's first plan payload with overlay ``name`` attached as the harness reads it."""
    P = unpack(ex._payload)["plans"][0]
    P["testOverlay"] = next(o for o in unpack(ex._overlay_data)["plans"][P["name"]] if o["name"] == name)
    return P


def drawn_nodes(fig: dict, T: dict) -> dict:
    """kind -> list of (index, colour, hover) of the markers drawn in the tensor, op and group traces."""
    out = {}
    for kind, key in (("value", "tensors"), ("instr", "ops"), ("group", "groups")):
        t = fig["data"][T[key]]
        out[kind] = list(zip(t.get("customdata") or [], t["marker"].get("color") or [], t.get("hovertext") or []))
    return out


def test_the_50_node_plan_drawn_in_the_overlays_colours_with_a_hover_line_and_a_details_row(tmp_path):
    assert NODE
    ex = Explorer(MLP)
    plan = ex.program.plan("forward")
    assert len(plan.instructions) + len(plan.values) == 50
    tensors = [t.index for t in plan.tensors]
    keys = {f"@{i}": float(i * 7) for i in range(0, 20, 3)} | {f"%{v}": float(v * 5) for v in tensors[::2]}
    ex.overlay("lat", keys, thresholds=BANDS, unit="ms")
    ov = ex.overlay_data("lat")
    P = plan_with(ex, "lat")
    T = P["lod"]["trace"]
    first, = run_payload_js(tmp_path, P, [{"op": "noop", "figures": True, "detail": tensors[0], "instr": 3}])
    nodes = drawn_nodes(first["figures"]["graph"], T)
    assert len(nodes["instr"]) == 20 and len(nodes["value"]) == len(tensors)  # every node drawn as itself
    for i, color, hover in nodes["instr"]:
        assert color == band(ov.instr[i]), i
        want = "no data" if math.isnan(ov.instr[i]) else f"{ov.instr[i]:g} ms"
        assert hover.endswith(f"<br>lat: {want}"), hover
    for v, color, hover in nodes["value"]:
        assert color == band(ov.value[v]), v
        assert hover.count("<br>lat: ") == 1
    assert {c for _, c, _ in nodes["instr"] + nodes["value"]} == {"#1A7F37", "#BF8700", "#CF222E", "#D0D7DE"}
    # the details: the overlay's row first, with the number
    value_rows, instr_rows = first["details"]
    assert re.search(r"<tr><td>lat</td><td>0 ms</td></tr>", value_rows)  # tensors[0] * 5 == 0
    assert "<tr><td>lat</td><td>21 ms</td></tr>" in instr_rows and instr_rows.index("lat") < instr_rows.index("kind")
    # thresholds: no scale to span
    assert first["domain"] == [min(keys.values()), max(keys.values())]


def test_a_continuous_scale_spans_the_nodes_drawn_and_ops_are_drawn_larger(tmp_path):
    ex = Explorer(MLP)
    keys = {f"@{i}": float(i) for i in range(20)}
    ex.overlay("lat", keys)
    P = plan_with(ex, "lat")
    T = P["lod"]["trace"]
    plain = P.copy()
    plain.pop("testOverlay")
    coloured, = run_payload_js(tmp_path / "a", P, [{"op": "noop", "figures": True}])
    base, = run_payload_js(tmp_path / "b", plain, [{"op": "noop", "figures": True}])
    ops = drawn_nodes(coloured["figures"]["graph"], T)["instr"]
    by_index = {i: c for i, c, _ in ops}
    assert by_index[0] == "#440154" and by_index[19] == "#FDE725"  # viridis's ends on the smallest and largest
    assert len(set(by_index.values())) == 20  # 20 different numbers, 20 different colours
    assert coloured["domain"] == [0, 19]
    size = coloured["figures"]["graph"]["data"][T["ops"]]["marker"]["size"]
    size0 = base["figures"]["graph"]["data"][T["ops"]]["marker"]["size"]
    assert all(s == round(s0 * 1.35) for s, s0 in zip(size, size0))
    # without an overlay the app's device colours stay (tensors by device, ops' fill the skeleton's)
    tv = base["figures"]["graph"]["data"][T["tensors"]]
    assert "#D0D7DE" not in tv["marker"]["color"] and "lat:" not in " ".join(tv["hovertext"])


def test_folded_groups_of_a_20k_node_plan_take_the_rule_and_keep_it_through_expand_and_collapse(tmp_path):
    program = llm_program(BIG_LAYERS)
    plan = program.plan("forward")
    assert len(plan.instructions) + len(plan.values) > 20_000
    ex = Explorer(program)
    rng = np.random.default_rng(11)
    G = ex._overlay_set.groups("forward")
    layer3 = next(g for g in G.groups if g.label == "layers.3")
    free = [i for i in range(len(plan.instructions)) if not layer3.start <= i < layer3.stop]
    keys = {f"@{i}": float(rng.integers(0, 60)) for i in rng.choice(free, 3000, replace=False)}
    keys |= {"layers.3": 500.0}
    for rule in ("sum", "max", "mean"):
        name = f"r_{rule}"
        ex.overlay(name, keys, thresholds=BANDS, aggregate=rule)
        ov = ex.overlay_data(name)
        want = brute(ov, G)  # per group id: (number, count, module) by the rule, item by item
        P = plan_with(ex, name)
        T = P["lod"]["trace"]
        layer = layer3.id
        other = next(g.id for g in G.groups if g.label == "layers.5")
        runs = run_payload_js(tmp_path / rule, P, [
            {"op": "noop", "figures": True, "group": other},
            {"op": "expand", "arg": other, "figures": True},
            {"op": "collapse", "arg": other, "figures": True},
        ])
        opened, expanded, closed = (drawn_nodes(r["figures"]["graph"], T) for r in runs)
        assert not opened["instr"] and any(want[g][1] > 20 for g, _, _ in opened["group"])  # folded: groups of many numbers
        for state in (opened, expanded, closed):
            for g, color, hover in state["group"]:
                number = want[g][0]
                assert color == band(number), (rule, g, number)
                if not math.isnan(number) and want[g][2] < 0:
                    assert f"({rule} of {want[g][1]:,} " in hover, hover
            for i, color, _ in state["instr"]:
                assert color == band(ov.instr[i])
        # expanding drew the group's members coloured as themselves; collapsing drew the group again
        assert expanded["instr"] and other not in [g for g, _, _ in expanded["group"]]
        assert other in [g for g, _, _ in closed["group"]]
        colours = {g: c for g, c, _ in opened["group"] + expanded["group"]}
        assert colours[layer] == "#CF222E"  # the module's own 500 (high), whatever the rule (drawn beside layers.5)
        # the group's details say its number and the rule
        details = runs[0]["details"][2]
        assert re.search(rf"<tr><td>{name}</td><td>[^<]*\({rule} of ", details)
        assert ov.rule_text in details
