"""Level of detail for big programs: groups, the overview's expansion state, the widget and the report on
10k- and 100k-value programs, without a browser. The app's folding, layout and binned memory lanes are
tested under node (tests/test_lod_js.py) and in Chromium (tests/test_browser_scale.py)."""

from __future__ import annotations

import json
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from lod_helpers import cached_program_path, llm_builder, llm_program, synthetic

from writers.pte import write
from explorer import Explorer, load
from explorer.analysis.groups import Groups
from explorer.analysis.pipeline import LazyAnalysis
from explorer.views.state.overview import VISIBLE_LIMIT, visible_nodes
from explorer.views.state.plan import plan_view

FIXTURES = Path(__file__).parent / "fixtures"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def groups_of(program, **kwargs) -> tuple[Groups, LazyAnalysis]:
    plan = program.plans[0]
    lazy = LazyAnalysis(plan, program)
    return Groups(plan, lazy.facts, lazy.edges, **kwargs), lazy


def check_tree(G: Groups) -> None:
    """Children partition their parent exactly; node counts add up; every instruction in one leaf."""
    G.build_all()
    owner = np.full(G.m, -1)
    for g in G.groups:
        kids = G.children(g.id)
        if not kids:
            assert (owner[g.start:g.stop] == -1).all(), "an instruction in two leaves"
            owner[g.start:g.stop] = g.id
            continue
        starts = [G.groups[k].start for k in kids]
        stops = [G.groups[k].stop for k in kids]
        assert starts[0] == g.start and stops[-1] == g.stop and starts[1:] == stops[:-1], g
        assert all(G.groups[k].parent == g.id and G.groups[k].depth == g.depth + 1 for k in kids)
        assert sum(G.nodes(k) for k in kids) == G.nodes(g.id)
        assert len(kids) >= 2 or g.id == 0
        assert len(kids) <= G.max_children or g.kind == "prefixes"
        assert all(G.groups[k].label for k in kids)
    assert (owner >= 0).all(), "an instruction in no leaf"
    homed = int((G.home >= 0).sum())
    assert G.nodes(0) == G.m + homed


def record(key: str, values: dict) -> None:
    """Merge measured numbers into artifacts/timings_scale.json."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "timings_scale.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[key] = values
    path.write_text(json.dumps(data, indent=1))


# -- grouping rules -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"leaf_nodes": 40, "max_children": 5}, {"names": False}])
def test_every_instruction_in_exactly_one_group_and_counts_add_up(kwargs):
    G, _ = groups_of(synthetic(10_000), **kwargs)
    check_tree(G)
    G2, _ = groups_of(llm_program(40), **kwargs)
    check_tree(G2)


def test_name_prefixes_make_the_hierarchy():
    G, _ = groups_of(llm_program(200))
    top = [G.groups[k] for k in G.children(0)]
    assert [g.label for g in top] == ["tok_embeddings", "layers", "norm", "output"]
    assert all(g.kind == "prefix" for g in top)
    chunks = [G.groups[k] for k in G.children(top[1].id)]
    assert len(chunks) <= G.max_children and chunks[0].label.startswith("layers.0 … layers.")
    assert all(g.kind == "prefixes" for g in chunks)
    layer = [G.groups[k] for k in G.children(chunks[0].id)]
    assert [g.label for g in layer[:3]] == ["layers.0", "layers.1", "layers.2"]
    small, _ = groups_of(llm_program(8), leaf_nodes=50)
    assert [small.groups[k].label for k in small.children(small.children(0)[1])] == [f"layers.{i}" for i in range(8)]


def test_a_real_transformer_opens_as_its_modules():
    """transformer3k.pte (scripts/make_transformer_fixture.py): 64 decoder layers exported by executorch,
    weights named by module path. Its overview is the model's modules, never equal chunks; every layer is
    one group holding all of its ops — its norm starts the group, though that norm reads its weight only
    at its last op — and each group opens."""
    program = load(FIXTURES / "named" / "transformer3k.pte")
    G, lazy = groups_of(program)
    assert G.m == 3018
    check_tree(G)
    top = [G.groups[k] for k in G.children(0)]
    assert [g.label for g in top] == ["tok_embeddings", "layers", "norm", "output"]
    layers = []
    for chunk in (G.groups[k] for k in G.children(top[1].id)):
        assert chunk.kind == "prefixes" and chunk.label.startswith("layers.") and " … layers." in chunk.label
        layers += [G.groups[k] for k in G.children(chunk.id)]
    assert [g.label for g in layers] == [f"layers.{i}" for i in range(64)]
    assert not any(g.kind == "chunk" for g in G.groups)
    assert {g.size for g in layers[1:]} == {45}
    f = lazy.facts
    assert all(f.label(g.start).startswith("aten::pow") for g in layers[1:]), "a layer starts with its norm"
    assert all(f.label(g.stop - 1) == "aten::add.out" for g in layers), "and ends with its residual add"
    # the output head reads the norm's result through an elided view, and the cache write-backs after it
    # copy what the layers computed: homed at the writer of their bytes, they connect instead of floating
    e, home = lazy.edges, G.home
    reads = ~e.write & f.is_tensor[e.value] & (e.instr >= top[3].start)
    sources = {g.label for g in top if np.isin(home[e.value[reads]], np.arange(g.start, g.stop)).any()}
    assert {"norm", "layers"} <= sources

    from explorer.views.state.overview import Overview

    for g in layers[:3] + [top[0], top[2], top[3]]:  # a leaf opens into its ops and their tensors
        ov = Overview(program.plans[0], lazy, G)
        ov.expand(g.id)
        assert not any(ov.folded_away(i) for i in range(g.start, g.stop))
        assert ov.folded_away(g.stop) or g.stop == G.m


def test_units_bundle_delegates_with_their_copies_and_runs_stay_on_one_device():
    program = load(write(llm_builder(30).program()))
    G, lazy = groups_of(program, names=False, leaf_nodes=20)
    G.build_all()
    bundles = [g for g in G.groups if g.kind == "delegate"]
    assert bundles, "delegate bundles"
    for g in bundles:
        kinds = [G.op_kind[i] for i in range(g.start, g.stop)]
        assert kinds == [2, 1, 2], (g, kinds)  # h2d copy, delegate call, d2h copy
        assert g.label == "CudaBackend on cuda:1 (+2 copies)" and str(g.device) == "cuda:1"
    runs = [g for g in G.groups if g.kind == "run"]
    assert runs
    for g in runs:
        devices = {int(G.op_device[i]) for i in range(g.start, g.stop)} - {-1}
        assert len(devices) == 1, g
        assert " on " in g.label


def test_names_over_budget_are_not_read(monkeypatch):
    import explorer.analysis.groups as groups_module

    monkeypatch.setattr(groups_module, "NAME_BUDGET", 100)
    G, _ = groups_of(synthetic(10_000))
    assert G.names_skipped > 100 and not any(g.kind.startswith("prefix") for g in (G.groups[k] for k in G.children(0)))
    check_tree(G)


@lru_cache(maxsize=1)
def mismatch_program():
    """A 10k-value synthetic program with one cpu-arena tensor claiming cuda:0 (device-mismatch)."""
    import dataclasses

    from explorer import Device
    from writers.synth import synthetic_program
    from writers.pte import write

    base = synthetic_program(10_000, devices=("cuda:0", "cuda:1"))
    plan = base.plans[0]
    values = list(plan.values)
    victim = next(v for v in values if getattr(v, "memory_id", None) == 1 and v.index > 100)
    values[victim.index] = dataclasses.replace(victim, device=Device.parse("cuda:0"))
    return load(write(dataclasses.replace(base, plans=(dataclasses.replace(plan, values=tuple(values)),)))), victim


# -- the widget ---------------------------------------------------------------------------------

def test_widget_expands_and_collapses_through_its_trait():
    """Expanding from Python sets ``expanded`` (the page redraws from it; a click in the page sets it)."""
    ex = Explorer(synthetic(10_000))
    ov = ex.overview
    assert ov is not None and ex.expanded == (), "a big plan opens as an overview"
    target = ov.groups.children(0)[4]
    assert ex.expand(target) == target and ex.expanded == (target,)
    assert ex.overview.expanded == [target]
    ex.collapse(target)
    assert ex.expanded == () and ex.overview.expanded == []
    gid = ex.expand(ov.groups.children(0)[7])
    ex.expanded = (gid, ov.groups.children(0)[2])  # as the page sends it after two clicks
    assert ex.overview.expanded == [gid, ov.groups.children(0)[2]]
    ex.collapse()
    assert ex.overview.expanded == [] and ex.expanded == ()
    with pytest.raises(IndexError):
        ex.expand(10**6)
    with pytest.raises(KeyError):
        ex.expand("no such group")


def test_widget_selection_reveal_and_visible_limit():
    ex = Explorer(synthetic(10_000))
    ov = ex.overview
    value = 5_000
    ex.select(value)
    home = int(ov.groups.home[value])
    assert ov.folded_away(home)  # a hidden value: a collapsed group holds it
    ex.reveal()
    ov = ex.overview
    assert not ov.folded_away(home)
    assert ex.expanded and list(ex.expanded) == ov.expanded
    for gid in ov.groups.children(0)[:8]:  # expanding many stays under the limit, saying what it closed
        ex.expand(gid)
        assert visible_nodes(ov.groups, set(ex.expanded)) <= VISIBLE_LIMIT
    assert "collapsed" in ex.overview.note


def test_a_finding_selects_and_reveals_its_values():
    program, victim = mismatch_program()
    ex = Explorer(program)
    finding = next(f for f in ex.findings if f.code == "device-mismatch")
    ov = ex.overview
    home = int(ov.groups.home[victim.index])
    assert ov.folded_away(home)
    ex.reveal(finding)
    assert ex.selected.values == (victim.index,) and ex.selected.finding is finding
    assert not ex.overview.folded_away(home)


def test_cli_show_opens_big_plans_folded_and_small_ones_expanded(tmp_path):
    from test_report import payload

    from explorer.cli import main
    from writers.synth import synthetic_program
    from writers.pte import write

    out = {}
    for name, n in (("big", 3_000), ("small", 600)):
        path = tmp_path / f"{name}.pte"
        path.write_bytes(write(synthetic_program(n)))
        target = tmp_path / f"{name}.html"
        assert main(["show", str(path), "-o", str(target)], stdout=__import__("io").StringIO()) == 0
        out[name] = payload(target.read_text(encoding="utf-8"))["plans"][0]["lod"]
    assert out["big"]["expanded"] == [] and len(out["big"]["groups"]["label"]) > 1
    assert out["small"]["expanded"] == list(range(1, len(out["small"]["groups"]["label"]))) != []
    # one drawing at every size: no option switches it
    with pytest.raises(SystemExit) as refused:  # argparse: an unknown option
        main(["show", str(tmp_path / "small.pte"), "-o", str(tmp_path / "x.html"), "--detail", "full"],
             stdout=__import__("io").StringIO())
    assert refused.value.code == 2


def test_small_programs_open_with_every_group_expanded():
    ex = Explorer(FIXTURES / "device_mlp.pte")
    ov = ex.overview
    assert visible_nodes(ov.groups, {0}) == 25 + len(ex.program.plans[0].instructions)  # a leaf root: all drawn
    mid = Explorer(synthetic(600))  # grouped (more than a leaf holds), yet small: every group open
    groups = mid.overview.groups
    assert len(groups.groups) > 1 and mid.expanded == tuple(range(1, len(groups.groups)))
    assert visible_nodes(groups, set(mid.expanded)) == groups.nodes(0)
    mid.collapse()
    assert mid.expanded == () and mid.overview.expanded == []
    with pytest.raises(TypeError, match="every plan is drawn the same way"):
        Explorer(FIXTURES / "device_mlp.pte", lod=True)  # no size switch


# -- scale --------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def program_100k(request):
    return cached_program_path(request.config, 100_000)


def fresh_interpreter(path) -> dict:
    """In a new Python (as in a fresh kernel): import, load and build the Explorer."""
    import subprocess
    import sys

    code = ("import time; t = time.monotonic(); import explorer; ex = explorer.Explorer(explorer.load(%r)); "
            "print(round(time.monotonic() - t, 3))" % str(path))
    whole = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                           cwd=Path(__file__).resolve().parent.parent)
    return {"fresh_import_load_explorer_total_s": float(whole.stdout.strip())}


def test_100k_values_widget_builds_with_a_small_payload(program_100k):
    """Sizes are asserted; times are only recorded (bench/bench_view.py measures them against a peer)."""
    start = time.monotonic()
    program = load(program_100k)
    loaded = time.monotonic()
    ex = Explorer(program)
    built = time.monotonic()
    ov = ex.overview
    t0 = time.monotonic()
    gid = ex.expand(ov.groups.children(0)[10])
    ex.expand(ex.overview.groups.children(gid)[3])
    expanded = time.monotonic() - t0
    t0 = time.monotonic()
    ex.select(50_001)
    selected = time.monotonic() - t0
    numbers = {"values": len(program.plans[0].values), "instructions": len(program.plans[0].instructions),
               "load_s": round(loaded - start, 3), "explorer_s": round(built - loaded, 3),
               "payload_mb": round(len(ex._payload) / 1e6, 3),
               "expand_two_levels_s": round(expanded, 3), "first_select_s": round(selected, 3),
               "drawn_nodes_after_expand": visible_nodes(ex.overview.groups, set(ex.expanded) | {0})}
    numbers.update(fresh_interpreter(program_100k))
    record("python_100k_widget", numbers)
    print(numbers)
    assert len(ex._payload) < 8_000_000, "the compressed payload the widget sends"


def test_report_of_a_big_plan_stores_tables_not_html(tmp_path):
    from test_report import payload

    from explorer.views.html.report import report_html

    program = synthetic(10_000)
    start = time.monotonic()
    html = report_html(program)
    took = time.monotonic() - start
    data = payload(html)
    plan = data["plans"][0]
    assert "details" not in plan and "lod" in plan
    lod = plan["lod"]
    assert len(lod["tensors"]["index"]) == 9_998 and len(lod["ops"]["kind"]) == 6_997
    assert sum(len(c) for c in [lod["groups"]["start"]]) == len(lod["groups"]["label"])
    assert "graph" not in plan and "memory" not in plan, "no figure: the app builds them from the tables (lod/figures.js)"
    assert len(lod["arenas"][0]["rows"]) == 5_000
    record("python_10k_report", {"build_s": round(took, 3), "html_mb": round(len(html.encode()) / 1e6, 2)})
    assert len(html.encode()) < 12_000_000


def test_stack_traces_scope_groups_when_nothing_is_named():
    """stacktrace.pte (a real export that kept its frames, no parameter names): the ops of each call in
    the model's forward form a group labelled by its frame, and the kernels between calls their own."""
    program = load(FIXTURES / "stacktrace.pte")
    G, _ = groups_of(program, leaf_nodes=4, max_children=8)
    check_tree(G)
    top = [G.groups[k] for k in G.children(0)]
    assert [(g.kind, g.label, g.start, g.stop) for g in top] == [
        ("prefix", "linear.py:134 in forward", 0, 2), ("prefix", "make_fixtures.py:64 in forward", 2, 3),
        ("prefix", "linear.py:134 in forward", 3, 5)]
    plain, _ = groups_of(program, leaf_nodes=4, max_children=8, names=False)
    assert not any(g.kind == "prefix" for g in (plain.groups[k] for k in plain.children(0)))


def test_a_short_plans_lanes_have_no_half_step_ticks(tmp_path):
    """Ticks print as integers (",d"): on a 5-instruction plan sixteen auto ticks fall on half steps and print
    as 0 0 1 1 2 2 ... (seen in a screenshot); a short plan has one tick on each instruction (frontend/lod/figures.js:
    plotly's own choice for 2 instructions was one tick)."""
    from app_js import drawn

    from explorer import load

    program = load("tests/fixtures/stacktrace.pte")
    view = plan_view(program.plans[0], program)
    layout = drawn(tmp_path, view)[1]["layout"]
    n = len(program.plans[0].instructions)
    axes = [v for k, v in layout.items() if k.startswith("xaxis") and isinstance(v, dict) and "tickformat" in v]
    assert n == 5 and axes and all(a["tickformat"] == ",d" and a.get("tick0") == 0 and a.get("dtick") == 1 for a in axes)


def test_a_big_plan_opens_on_its_structure_not_on_a_handful_of_markers():
    """Issue 21: the 3k-op transformer opened as 4 markers (tok_embeddings, layers, norm, output) in a corner of
    its card. Its first view opens the top of the tree a whole level at a time while at most FIRST_VIEW nodes are
    drawn: `layers` is open, its chunks drawn; every level evenly (no group open beside a closed twin)."""
    from explorer.views.state.overview import FIRST_VIEW

    program = load(FIXTURES / "named" / "transformer3k.pte")
    ex = Explorer(program)
    ov = ex.overview
    labels = [ov.groups.groups[g].label for g in ov.expanded]
    assert labels == ["layers"] and ex.expanded == tuple(ov.expanded)
    drawn = visible_nodes(ov.groups, set(ov.expanded))
    assert 10 < drawn <= FIRST_VIEW
    top = [g for g in ov.groups.children(0) if ov.groups.children(g)]
    assert top and set(top) <= set(ov.expanded), "the first level opened whole"
    nxt = [c for g in top for c in ov.groups.children(g) if ov.groups.children(c)]
    assert visible_nodes(ov.groups, set(ov.expanded) | set(nxt)) > FIRST_VIEW, "the next level would not fit"
    ex.collapse()
    assert ex.expanded == ()
