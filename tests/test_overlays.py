"""Overlays: a user's numbers on a plan (explorer.analysis.overlays), as the app reads them
(explorer.views.payload.overlays), through the widget (explorer.widget.overlays), the report and
``device-explorer show --overlay``. Every folded group's number is checked against brute force over the
group tree's instruction ranges; the built-ins against the facts they come from."""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import traitlets
from lod_helpers import llm_program

from explorer import Explorer, frontend, load
from explorer.analysis.pipeline import analyze
from explorer.analysis.facts import Facts
from explorer.analysis.graph import edges
from explorer.analysis.groups import Groups
from explorer.analysis.overlays import (AGGREGATES, SCALES, OverlayError, builtin_overlays, group_aggregates,
                                        make_overlay)
from explorer.analysis.profile.join import join_profile
from explorer.cli import main
from explorer.format.companions.etdump import load_etdump
from explorer.views.payload.embed import page_payload, unpack
from explorer.views.payload.overlays import overlay_payload

FIXTURES = Path(__file__).parent / "fixtures"
MLP = FIXTURES / "device_mlp.pte"  # 20 instructions + 30 values: the 50-node plan
MLP_DUMP = FIXTURES / "etdump" / "synthetic_device_mlp.etdp"
BIG_LAYERS = 560  # llm_program(560): > 20k nodes (as test_details_parity)


def tree(plan, leaf_nodes: int = 600) -> Groups:
    f = Facts(plan)
    G = Groups(plan, f, edges(plan, f), leaf_nodes=leaf_nodes)
    G.build_all()
    return G


def brute(ov, G: Groups):
    """Per group: (number, count, module index) by the rule, item by item, no searchsorted, no prefix sums."""
    items = [(i, i + 1, ov.instr[i], -1) for i in range(len(ov.instr)) if ov.instr_from[i] < 0 and not math.isnan(ov.instr[i])]
    items += [(int(G.home[v]), int(G.home[v]) + 1, ov.value[v], -1) for v in range(len(ov.value))
              if not math.isnan(ov.value[v]) and G.home[v] >= 0]
    items += [(mi.start, mi.stop, mi.number, k) for k, mi in enumerate(ov.modules)]
    out = []
    for g in G.groups:
        inside = [it for it in items if g.start <= it[0] and it[1] <= g.stop]
        if inside:
            xs = [it[2] for it in inside]
            number = {"sum": sum(xs), "max": max(xs), "mean": sum(xs) / len(xs)}[ov.aggregate]
            whole = len(inside) == 1 and inside[0][3] >= 0 and (inside[0][0], inside[0][1]) == (g.start, g.stop)
            out.append((number, len(xs), inside[0][3] if whole else -1))
            continue
        holder = [k for k, mi in enumerate(ov.modules) if mi.start <= g.start and g.stop <= mi.stop]
        out.append((ov.modules[holder[0]].number, 0, holder[0]) if holder else (math.nan, 0, -1))
    return out


def assert_aggregates(ov, G: Groups) -> None:
    agg = group_aggregates(ov, np.array([g.start for g in G.groups]), np.array([g.stop for g in G.groups]), G.home)
    for g, (number, count, source) in zip(G.groups, brute(ov, G)):
        got = agg.value[g.id]
        assert (math.isnan(number) and math.isnan(got)) or got == pytest.approx(number, rel=1e-12), (g, got, number)
        assert (agg.count[g.id], agg.source[g.id]) == (count, source), g


# -- keys -------------------------------------------------------------------------------------------

def test_each_key_form_on_the_50_node_plan():
    plan = load(MLP).plan("forward")
    assert len(plan.instructions) + len(plan.values) == 50
    tensor = next(t.index for t in plan.tensors)
    ov = make_overlay(plan, "lat", {0: 1.5, "@3": 2, f"%{tensor}": 7, np.int64(5): None, "@6": float("nan")})
    assert ov.instr[0] == 1.5 and ov.instr[3] == 2 and ov.value[tensor] == 7
    assert np.isnan(ov.instr[5]) and np.isnan(ov.instr[6])  # None and NaN: no number
    assert int((~np.isnan(ov.instr)).sum()) == 2 and int((~np.isnan(ov.value)).sum()) == 1
    assert ov.instr.shape == (20,) and ov.value.shape == (30,) and (ov.instr_from == -1).all()
    # the same numbers by=instruction as a dense list, and by=value
    dense = make_overlay(plan, "d", list(range(20)), by="instruction")
    assert dense.instr.tolist() == list(range(20))
    per_value = make_overlay(plan, "v", {tensor: 3}, by="value")
    assert per_value.value[tensor] == 3
    # folded: the 50-node plan is one group (the root), its number made of the three items
    G = tree(plan)
    assert len(G.groups) == 1
    for rule, want in (("sum", 10.5), ("max", 7), ("mean", 3.5)):
        o = make_overlay(plan, "lat", {0: 1.5, "@3": 2, f"%{tensor}": 7}, aggregate=rule)
        agg = group_aggregates(o, np.array([0]), np.array([20]), G.home)
        assert agg.value[0] == pytest.approx(want) and agg.count[0] == 3
    # and with a finer tree, every group against brute force
    for rule in AGGREGATES:
        assert_aggregates(make_overlay(plan, "lat", {0: 1.5, "@3": 2, f"%{tensor}": 7, 12: -4}, aggregate=rule),
                          tree(plan, leaf_nodes=4))


def test_module_and_group_keys_resolve_through_the_group_tree():
    plan = llm_program(2).plan("forward")
    G = tree(plan, leaf_nodes=12)
    layer1 = next(g for g in G.groups if g.label == "layers.1")
    ov = make_overlay(plan, "err", {"layers.1": 0.25, "@0": 1, "norm": 3}, groups=G, aggregate="max")
    assert [mi.label for mi in ov.modules] == ["layers.1", "norm"]
    assert (ov.instr[layer1.start:layer1.stop] == 0.25).all()
    assert (ov.instr_from[layer1.start:layer1.stop] == 0).all()
    agg = group_aggregates(ov, np.array([g.start for g in G.groups]), np.array([g.stop for g in G.groups]), G.home)
    assert agg.value[layer1.id] == 0.25 and agg.source[layer1.id] == 0  # the module's own number
    inner = next(g for g in G.groups if g.label == "layers.1.attention")
    assert agg.value[inner.id] == 0.25 and agg.source[inner.id] == 0  # a part of it shows the module's number
    assert agg.value[0] == 3 and agg.count[0] == 3  # the root: @0, layers.1 once, norm
    assert_aggregates(ov, G)
    by_group = make_overlay(plan, "err", {layer1.id: 0.25}, by="group", groups=G)
    np.testing.assert_array_equal(by_group.instr, make_overlay(plan, "err", {"layers.1": 0.25}, groups=G).instr)
    assert (~np.isnan(by_group.instr)).sum() == layer1.size


def test_every_rule_matches_brute_force_on_random_data():
    plan = llm_program(2).plan("forward")
    G = tree(plan, leaf_nodes=12)
    rng = np.random.default_rng(7)
    tensors = [t.index for t in plan.tensors]
    for rule in AGGREGATES:
        for trial in range(5):
            keys = {f"@{i}": float(rng.normal()) for i in rng.choice(17, 8, replace=False)}  # layers.0 and before
            keys.update({f"%{v}": float(rng.integers(0, 100)) for v in rng.choice(tensors, 10, replace=False)})
            keys["layers.1.attention"] = float(rng.normal()) if trial % 2 else None
            assert_aggregates(make_overlay(plan, "r", keys, groups=G, aggregate=rule), G)


def test_a_module_crossing_a_groups_edge_counts_only_where_it_is_whole():
    """Items count in a group only when they lie inside it; a group inside a module shows the module's number;
    one that a module only crosses shows what lies wholly inside it (here: nothing)."""
    from dataclasses import replace

    from explorer.analysis.overlays import ModuleItem

    plan = load(MLP).plan("forward")
    base = make_overlay(plan, "x", {"@1": 1.0})
    ov = replace(base, modules=(ModuleItem("m", 3, 5, 10.0, -1),))
    starts, stops = np.array([0, 0, 4, 4, 3]), np.array([8, 4, 8, 5, 5])
    agg = group_aggregates(ov, starts, stops, np.full(len(plan.values), -1))
    assert agg.value.tolist()[:1] == [11.0] and agg.count.tolist() == [2, 1, 0, 0, 1]
    assert agg.value[1] == 1.0  # [0, 4): @1 only; the module reaches past its end
    assert np.isnan(agg.value[2])  # [4, 8): crossed, not held
    assert agg.value[3] == 10.0 and agg.source[3] == 0  # [4, 5): inside the module
    assert agg.value[4] == 10.0 and agg.source[4] == 0  # [3, 5): the module itself


# -- validation -------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, kwargs, message", [
    ({0: 1}, {"aggregate": "avg"}, "Invalid value of 'aggregate' for overlay 'x': 'avg'. Expected one of ['sum', 'max', 'mean']"),
    ({0: 1}, {"by": "op"}, "Invalid value of 'by' for overlay 'x': 'op'. Expected one of ['instruction', 'value', 'module', 'group']"),
    ({0: 1}, {"scale": "jet"}, "Invalid value of 'scale' for overlay 'x': 'jet'. Expected one of ['viridis', 'cividis', 'magma', 'plasma']"),
    ({0: 1}, {"scale": {"name": "viridis", "lo": 0}}, "Invalid key 'lo' in 'scale' of overlay 'x'. Expected keys among ['name', 'min', 'max', 'log']"),
    ({0: 1}, {"scale": {"min": 5, "max": 1}}, "min 5.0 is not below max 1.0"),
    ({0: 1}, {"scale": {"min": 2, "max": 2}}, "min 2.0 is not below max 2.0"),  # an empty range: no colour to map
    ({0: 1}, {"scale": {"log": True, "min": 0}}, "a log scale needs min and max above 0"),
    ({0: 1}, {"scale": "viridis", "thresholds": [(0, "#000")]}, "give 'scale' or 'thresholds', not both"),
    ({0: 1}, {"thresholds": [(5, "#000"), (1, "#fff")]}, "Invalid thresholds[1] of overlay 'x': bound 1.0 is not above the one before (5.0)"),
    ({0: 1}, {"thresholds": [(0, "red")]}, "Invalid colour 'red' in thresholds[0] of overlay 'x'. Expected '#RRGGBB' or '#RGB'"),
    ({0: 1}, {"thresholds": []}, "Invalid value of 'thresholds' for overlay 'x'"),
    ({0: 1}, {"thresholds": [(0,)]}, "Invalid thresholds[0] of overlay 'x': (0,). Expected (bound, colour) or (bound, colour, label)"),
    ({"@20": 1}, {}, "Invalid key '@20' of overlay 'x': no instruction @20 (the plan has @0–@19)"),
    ({-1: 1}, {}, "no instruction @-1"),
    ({"%99": 1}, {}, "no value %99 (the plan has %0–%29)"),
    ({"#3": 1}, {}, "Invalid key '#3' of overlay 'x': expected '@N' (instruction), '%N' (value) or a module path"),
    ({"layers.0": 1}, {}, "no module or group labelled 'layers.0'; this plan's groups have no module names"),
    ({0: "fast"}, {}, "Invalid number for key 0 of overlay 'x': 'fast' (str). Expected an int or a float"),
    ({0: True}, {}, "Invalid number for key 0 of overlay 'x': True (bool)"),
    ({0: float("inf")}, {}, "Expected a finite number"),
    ({0: 1, "@0": 2}, {}, "instruction @0 is given twice (also as 0)"),
    ({"%3": 1}, {"by": "instruction"}, "Invalid key '%3' of overlay 'x': expected instruction index as an int or '@N'"),
    ({"@3": 1}, {"by": "group"}, "by='group' takes group ids (int)"),
    ({7: 1}, {"by": "group"}, "no group 7 (ids 0–0)"),
    ([1, 2], {}, "a sequence of numbers needs by='instruction' or by='value'"),
    ([1, 2], {"by": "instruction"}, "2 numbers, but the plan has 20 instructions"),
    ("abc", {}, "Invalid 'values' for overlay 'x': str"),
    ({(1, 2): 3}, {}, "Invalid key (1, 2) of overlay 'x' (tuple)"),
])
def test_bad_arguments_are_named_with_the_valid_choices(values, kwargs, message):
    plan = load(MLP).plan("forward")
    with pytest.raises(OverlayError) as got:
        make_overlay(plan, "x", values, **kwargs)
    assert message in str(got.value)
    assert isinstance(got.value, ValueError)


def test_a_non_tensor_value_and_overlapping_items_are_refused():
    small = load(MLP).plan("forward")
    scalar = next(v for v in range(len(small.values)) if type(small.values[v]).__name__ != "Tensor")
    with pytest.raises(OverlayError, match=rf"value %{scalar} is not a tensor"):
        make_overlay(small, "x", {f"%{scalar}": 1})
    plan = llm_program(2).plan("forward")
    G = tree(plan, leaf_nodes=12)
    with pytest.raises(OverlayError, match=r"modules 'layers.1' and 'layers.1.attention' overlap"):
        make_overlay(plan, "x", {"layers.1": 1, "layers.1.attention": 2}, groups=G)
    layer1 = next(g for g in G.groups if g.label == "layers.1")
    with pytest.raises(OverlayError, match=rf"instruction @{layer1.start} \(key '@{layer1.start}'\) is inside module 'layers.1'"):
        make_overlay(plan, "x", {"layers.1": 1, f"@{layer1.start}": 2}, groups=G)
    with pytest.raises(OverlayError, match=r"no module or group labelled 'layers.9'; modules of this plan: tok_embeddings, layers, norm"):
        make_overlay(plan, "x", {"layers.9": 1}, groups=G)


def test_a_module_without_a_group_of_its_own_is_its_run_of_instructions():
    """A plan small enough to be one group (the widget's tree for it) still knows its modules' instructions."""
    plan = llm_program(2).plan("forward")
    one = tree(plan)
    assert len(one.groups) == 1
    fine = tree(plan, leaf_nodes=12)
    for path in ("layers.1", "layers.0.attention", "norm"):
        g = next(g for g in fine.groups if g.label == path)
        ov = make_overlay(plan, "x", {path: 2.5}, groups=one)
        assert [(mi.label, mi.start, mi.stop, mi.group) for mi in ov.modules] == [(path, g.start, g.stop, -1)]
        assert np.flatnonzero(~np.isnan(ov.instr)).tolist() == list(range(g.start, g.stop))
        assert_aggregates(ov, one)
    agg = group_aggregates(make_overlay(plan, "x", {"layers.1": 2.5, "layers.0": 1}, groups=one),
                           np.array([0]), np.array([len(plan.instructions)]), one.home)
    assert agg.value[0] == 3.5 and agg.count[0] == 2


# -- built-ins --------------------------------------------------------------------------------------

def test_builtins_match_the_profile_transfer_size_and_lifetime_facts():
    program = load(MLP)
    plan = program.plan("forward")
    pp = join_profile(program, load_etdump(MLP_DUMP)).plan("forward")
    got = builtin_overlays(plan, None, pp)
    assert list(got) == ["time", "copy_bytes", "size", "lifetime"]
    # time: the median of each instruction's runs, in ns
    stats = pp.stats
    for i in range(len(plan.instructions)):
        want = stats[i].median * pp.tick_ns if stats[i].n else math.nan
        assert (math.isnan(want) and math.isnan(got["time"].instr[i])) or got["time"].instr[i] == want
    assert got["time"].format == "time" and got["time"].aggregate == "sum" and "median of 5 runs" in got["time"].note
    # copy bytes: the transfers of the copy instructions, from the analysis records
    analysis = analyze(plan, program)
    copies = {}
    for t in analysis.transfers:
        if plan.instructions[t.instruction].label.startswith("et_copy::"):
            copies[t.instruction] = copies.get(t.instruction, 0) + t.nbytes
    assert copies and {i: got["copy_bytes"].instr[i] for i in np.flatnonzero(~np.isnan(got["copy_bytes"].instr))} == copies
    # size: each tensor's bytes; lifetime: last - first + 1 of the analysis's lifetimes
    assert {t.index: t.nbytes for t in plan.tensors} == {v: got["size"].value[v] for v in np.flatnonzero(~np.isnan(got["size"].value))}
    lives = {v: lt.last - lt.first + 1 for v, lt in analysis.lifetimes.items() if plan.values[v].__class__.__name__ == "Tensor"}
    assert lives == {v: got["lifetime"].value[v] for v in np.flatnonzero(~np.isnan(got["lifetime"].value))}
    assert got["lifetime"].aggregate == "max" and got["size"].format == "bytes"
    # without a profile: no time; a plan without copies: no copy_bytes
    plain = builtin_overlays(load(FIXTURES / "mlp.pte").plan("forward"))
    assert list(plain) == ["size", "lifetime"]


# -- the payload ------------------------------------------------------------------------------------

def test_payload_columns_are_aligned_with_the_plan_and_its_groups():
    plan = llm_program(2).plan("forward")
    G = tree(plan, leaf_nodes=12)
    ov = make_overlay(plan, "err", {"layers.1": 0.25, "@0": 1, "%3": 2}, groups=G, unit="ms",
                      thresholds=[(None, "#1A7F37", "ok"), (0.5, "#cf222e")])
    p = overlay_payload(ov, G)
    assert (p["m"], p["n"]) == (len(plan.instructions), len(plan.values))
    assert len(p["instr"]) == p["m"] and len(p["value"]) == p["n"] and len(p["instrFrom"]) == p["m"]
    assert len(p["group"]) == len(p["groupCount"]) == len(p["groupFrom"]) == len(G.groups)
    assert p["scale"] == {"kind": "thresholds", "bounds": [None, 0.5], "colors": ["#1A7F37", "#CF222E"], "labels": ["ok", "≥ 0.5"]}
    assert p["modules"] == [["layers.1", 17, 33, 0.25, next(g.id for g in G.groups if g.label == "layers.1")]]
    assert p["missing"] is None and p["range"] == [0.25, 2.0] and p["count"] == 3
    assert p["rule"] == "a folded group shows the sum of its entries"
    sizes = overlay_payload(builtin_overlays(plan)["size"], G)
    assert sizes["missing"] == -1 and sizes["instr"].dtype.kind == "i" and sizes["value"].dtype.kind == "i"
    assert sizes["scale"]["stops"][0] == [0.0, "#440154"]


def test_the_apps_default_scale_is_pythons_viridis():
    text = frontend.source("overlay/data.js")
    stops = re.search(r"export const VIRIDIS = \[([^\]]*)\]", text).group(1)
    assert re.findall(r'"(#[0-9A-F]{6})"', stops) == [c for _, c in SCALES["viridis"]]
    for entry in ("page.js", "index.js"):  # the report and the widget both ship the overlay modules
        assert {"overlay/data.js", "overlay/view.js"} <= set(frontend.modules(entry))


def test_the_app_reads_the_python_payload_as_documented(tmp_path):
    """Python's payload through pack/unpack, read by overlay/data.js under node: hover lines and colours."""
    node = shutil.which("node")
    assert node
    ex = Explorer(llm_program(2), profile=None)
    ex.overlay("err", {"layers.1": 0.25, "@0": 1, "%3": 2})
    data = unpack(ex._overlay_data)
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    module = (Path(frontend.__file__).parent / "overlay/data.js").as_uri()
    script = tmp_path / "read.mjs"
    script.write_text(f"""import {{findOverlay, hoverLine, nodeColors, legendModel}} from {json.dumps(module)};
import {{readFileSync}} from "node:fs";
const data = JSON.parse(readFileSync({json.dumps(str(path))}, "utf8"));
const O = findOverlay(data, "forward", data.shown), S = findOverlay(data, "forward", "size");
const groups = O.group.map((_, g) => O.m + O.n + g);
console.log(JSON.stringify({{root: hoverLine(O, "group", 0), at17: hoverLine(O, "instr", 17), size: hoverLine(S, "group", 0),
  colors: nodeColors(O, [0, 17, O.m + 3, O.m + 4]), legend: legendModel(O).rule, groups: groups.length}}));
""")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    G = ex._overlay_set.groups("forward")
    assert out["groups"] == len(G.groups)
    assert out["root"] == "err: 3.25 (sum of 3 entries)"
    assert out["at17"] == "err: 0.25 (layers.1's number)"
    total = sum(t.nbytes for t in llm_program(2).plan("forward").tensors if G.home[t.index] >= 0)
    assert out["size"] == f"size: {nbytes_text(total)} (sum of {int((G.home[[t.index for t in llm_program(2).plan('forward').tensors]] >= 0).sum())} tensors)"
    assert out["colors"][3] == "#D0D7DE"  # %4 has no number
    assert out["colors"][2] == "#FDE725" and out["colors"][1] == "#440154"  # 2 is the largest drawn, 0.25 the smallest
    assert out["legend"] == "a folded group shows the sum of its entries"


def nbytes_text(b: int) -> str:
    for name, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.1f} {name}"
    return f"{b} B"


# -- the widget, the report, the CLI ----------------------------------------------------------------

def test_widget_overlays_and_the_synced_trait():
    ex = Explorer(MLP, profile=MLP_DUMP)
    assert ex.overlays == ["time", "copy_bytes", "size", "lifetime"] and ex.shown_overlay == ""
    assert ex.overlay("lat", {0: 1.5, "@3": 2}, unit="ms") == "lat"
    assert ex.overlays[-1] == "lat" and ex.shown_overlay == "lat"
    data = unpack(ex._overlay_data)
    assert data["shown"] == "lat" and [o["name"] for o in data["plans"]["forward"]] == ex.overlays
    lat = data["plans"]["forward"][-1]
    assert lat["instr"][:4] == [1.5, None, None, 2.0] and lat["unit"] == "ms"
    # replacing keeps one overlay of that name
    ex.overlay("lat", {5: 9}, show=False)
    lat = unpack(ex._overlay_data)["plans"]["forward"][-1]
    assert lat["instr"][5] == 9 and lat["instr"][0] is None and ex.overlays.count("lat") == 1
    # the page picks one: the trait as the front end sends it, and back
    ex.set_state({"shown_overlay": "time"})
    assert ex.shown_overlay == "time" and ex.get_state()["shown_overlay"] == "time"
    ex.show_overlay(None)
    assert ex.shown_overlay == ""
    with pytest.raises(traitlets.TraitError, match=r"Invalid value of 'shown_overlay': 'nope'. Expected one of \['time', "):
        ex.show_overlay("nope")
    with pytest.raises(OverlayError, match="it is a built-in overlay"):
        ex.overlay("size", {0: 1})
    with pytest.raises(OverlayError, match="Cannot remove 'size': it is a built-in overlay"):
        ex.remove_overlay("size")
    ex.show_overlay("lat")
    ex.remove_overlay("lat")
    assert "lat" not in ex.overlays and ex.shown_overlay == ""
    assert [o["name"] for o in unpack(ex._overlay_data)["plans"]["forward"]] == ["time", "copy_bytes", "size", "lifetime"]
    with pytest.raises(KeyError):
        ex.remove_overlay("lat")
    with pytest.raises(OverlayError, match="Invalid value of 'aggregate'"):
        ex.overlay("bad", {0: 1}, aggregate="median")
    assert "bad" not in ex.overlays


def test_report_keeps_the_overlays_and_the_cli_writes_the_same(tmp_path):
    spec = {"name": "lat", "values": {"0": 1.5, "@3": 2, "%5": 7}, "unit": "ms", "aggregate": "max",
            "thresholds": [[None, "#1A7F37", "fast"], [2, "#CF222E", "slow"]]}
    (tmp_path / "lat.json").write_text(json.dumps(spec))
    (tmp_path / "plain.json").write_text(json.dumps({"@1": 4, "%9": 2}))
    ex = Explorer(MLP)
    assert ex.load_overlay(tmp_path / "lat.json") == "lat"
    assert ex.load_overlay(tmp_path / "plain.json", show=False) == "plain"
    html = ex.save_html(tmp_path / "py.html").read_text()
    from_python = page_payload(html)["overlays"]
    assert from_python == unpack(ex._overlay_data)  # the data the widget last sent, with the overlay shown
    assert from_python["shown"] == "lat"
    assert [o["name"] for o in from_python["plans"]["forward"]] == ["copy_bytes", "size", "lifetime", "lat", "plain"]
    lat = from_python["plans"]["forward"][3]
    assert lat["aggregate"] == "max" and lat["group"] == [7.0] and lat["scale"]["labels"] == ["fast", "slow"]
    status = main(["show", str(MLP), "-o", str(tmp_path / "cli.html"), "--overlay", str(tmp_path / "lat.json"),
                   "--overlay", str(tmp_path / "plain.json"), "--show-overlay", "lat"], stdout=io.StringIO())
    assert status == 0
    assert page_payload((tmp_path / "cli.html").read_text())["overlays"] == from_python


def test_cli_refuses_a_bad_overlay_file_with_its_reason(tmp_path, capsys):
    out = tmp_path / "r.html"
    for text, reason in (('{"@99": 1}', "no instruction @99"), ("[1, 2]", "expected a JSON object"),
                         ("{nope", "not JSON (Expecting property name"),
                         ('{"values": {"@1": 1}, "colour": "x"}', "invalid key 'colour'. Expected keys among ['name', 'values'")):
        (tmp_path / "o.json").write_text(text)
        assert main(["show", str(MLP), "-o", str(out), "--overlay", str(tmp_path / "o.json")], stdout=io.StringIO()) == 2
        assert reason in capsys.readouterr().err
        assert not out.exists()
    assert main(["show", str(MLP), "-o", str(out), "--show-overlay", "time"], stdout=io.StringIO()) == 2
    assert "no such overlay (there are: copy_bytes, size, lifetime)" in capsys.readouterr().err


# -- a 20k-node plan --------------------------------------------------------------------------------

def test_user_data_on_a_20k_node_plan_matches_brute_force_in_the_report():
    program = llm_program(BIG_LAYERS)
    plan = program.plan("forward")
    assert len(plan.instructions) + len(plan.values) > 20_000
    ex = Explorer(program)
    rng = np.random.default_rng(3)
    keys = {f"layers.{k}": float(rng.integers(1, 50)) for k in range(0, BIG_LAYERS, 7)}
    G = ex._overlay_set.groups("forward")
    holders = [g for g in G.groups if g.label.startswith("layers.") and g.kind == "prefix"]
    taken = [(G.groups[next(g.id for g in holders if g.label == k)].start, G.groups[next(g.id for g in holders if g.label == k)].stop)
             for k in keys]
    free = [i for i in range(len(plan.instructions)) if not any(s <= i < t for s, t in taken)]
    keys.update({f"@{i}": float(rng.normal()) for i in rng.choice(free, 500, replace=False)})
    tensors = np.flatnonzero(ex.view.analysis.facts.is_tensor)
    keys.update({f"%{v}": float(rng.integers(0, 1000)) for v in rng.choice(tensors, 500, replace=False)})
    lod = unpack(ex._payload)["plans"][0]["lod"]
    for rule in AGGREGATES:
        ex.overlay(f"r_{rule}", keys, aggregate=rule)
        ov = ex.overlay_data(f"r_{rule}")
        assert len(ov.modules) == len(range(0, BIG_LAYERS, 7))
        assert_aggregates(ov, G)
        sent = unpack(ex._overlay_data)["plans"]["forward"][-1]
        # aligned with the groups the app draws: the same ids, ranges and tensor homes
        assert len(sent["group"]) == len(lod["groups"]["start"])
        assert [(g.start, g.stop) for g in G.groups] == list(zip(lod["groups"]["start"], lod["groups"]["stop"]))
        home = dict(zip(lod["tensors"]["index"], lod["tensors"]["home"]))
        assert all(home[v] == G.home[v] for v in tensors[:2000].tolist())
        # the root against brute force over the keys themselves
        inside = [x for k, x in keys.items()]
        want = {"sum": sum(inside), "max": max(inside), "mean": sum(inside) / len(inside)}[rule]
        assert sent["group"][0] == pytest.approx(want) and sent["groupCount"][0] == len(keys)
    page = page_payload(frontend_report(ex))
    assert [o["name"] for o in page["overlays"]["plans"]["forward"]][-3:] == ["r_sum", "r_max", "r_mean"]
    assert page["overlays"]["plans"]["forward"][-1]["group"] == unpack(ex._overlay_data)["plans"]["forward"][-1]["group"]


def frontend_report(ex) -> str:
    from explorer.views.html.overlay import overlay_report_html

    return overlay_report_html(ex.program, overlays=ex._overlay_set, shown=ex.shown_overlay or None,
                               findings=ex.findings, views=ex._views)


def test_overlays_belong_to_a_plan_and_a_data_file_has_none():
    ex = Explorer(FIXTURES / "two_methods.pte")
    assert ex.plan == "forward"
    ex.overlay("enc", {"@1": 5.0}, plan="encode", show=False)
    assert "enc" not in ex.overlays  # the plan shown is forward
    sent = unpack(ex._overlay_data)["plans"]
    assert [o["name"] for o in sent["encode"]][-1] == "enc" and "enc" not in [o["name"] for o in sent["forward"]]
    assert sent["encode"][-1]["m"] == 3 and sent["encode"][-1]["instr"] == [None, 5.0, None]
    ex.plan = "encode"
    assert ex.overlays[-1] == "enc"
    with pytest.raises(OverlayError, match=r"Invalid key '@3' of overlay 'enc': no instruction @3 \(the plan has @0–@2\)"):
        ex.overlay("enc", {"@3": 1.0})
    with pytest.raises(OverlayError, match=r"Invalid value of 'plan' for overlay 'x': 'decode'. Expected one of \['encode', 'forward'\]"):
        ex.overlay("x", {0: 1}, plan="decode")
    ptd = Explorer(FIXTURES / "companions" / "external.ptd")
    assert ptd.overlays == []
    with pytest.raises(traitlets.TraitError):
        ptd.show_overlay("size")
