"""The browser's layered layout (``explorer/frontend/layout/layout.js``: network simplex, as dot), run under node on
real exports' and built graphs: ranks respect edges, sources sit just above their reader, distinct
coordinates, polylines through the layers, crossing reduction, straight chains."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis_helpers import PlanBuilder, fixture_paths, reader
from explorer.analysis.types import Layout
from layout_graphs import crossings, graph_of, layout


def _coords(result: Layout) -> dict:
    return {node: (x, y) for node, x, y in zip(result.nodes, result.x, result.y)}


def _check_invariants(plan, result: Layout) -> None:
    assert len(result.nodes) == len(set(result.nodes)) == len(result.x) == len(result.y)
    assert len(set(zip(result.x, result.y))) == len(result.nodes), "two nodes share a coordinate"
    assert {n for n in result.nodes if n[0] == "i"} == {("i", i) for i in range(len(plan.instructions))}
    # Listed layer by layer, left to right.
    assert list(zip(result.y, result.x)) == sorted(zip(result.y, result.x))
    assert len(result.paths) == len(result.edges)
    readers: dict[int, list[float]] = {}
    for (a, b), path in zip(result.edges, result.paths):
        if a == b:
            continue
        # a polyline from source to target with one point per layer passed
        assert path[0] == (result.x[a], result.y[a]) and path[-1] == (result.x[b], result.y[b])
        assert [abs(q[1] - p[1]) for p, q in zip(path, path[1:])] == [1.0] * (len(path) - 1)
        readers.setdefault(a, []).append(result.y[b])
    targets = {b for _, b in result.edges}
    for a, ys in readers.items():  # a source (a node nothing writes) sits just above its first reader
        if a not in targets and result.nodes[a][0] == "v":
            assert result.y[a] == min(ys) - 1


def test_device_add_layers_by_hand():
    plan = reader()(next(p for p in fixture_paths() if p.name == "device_add.pte")).plan("forward")
    result = layout(plan)
    c = _coords(result)
    # inputs %0 %1 -> h2d 0, 1 -> %2 %3 -> delegate 2 -> %4 -> d2h 3 -> %5
    assert {n: y for n, (x, y) in c.items()} == {
        ("v", 0): 0, ("v", 1): 0, ("i", 0): 1, ("i", 1): 1, ("v", 2): 2, ("v", 3): 2,
        ("i", 2): 3, ("v", 4): 4, ("i", 3): 5, ("v", 5): 6}
    assert c[("v", 0)][0] < c[("v", 1)][0] and c[("i", 0)][0] < c[("i", 1)][0]  # no crossing
    assert c[("i", 2)][0] == c[("v", 4)][0] == c[("v", 5)][0]  # the chain below the delegate is straight
    assert c[("v", 2)][0] < c[("i", 2)][0] < c[("v", 3)][0]  # ... and between its two inputs
    pos = {n: k for k, n in enumerate(result.nodes)}
    assert sorted((result.nodes[a], result.nodes[b]) for a, b in result.edges) == sorted([
        (("v", 0), ("i", 0)), (("i", 0), ("v", 2)), (("v", 1), ("i", 1)), (("i", 1), ("v", 3)),
        (("v", 2), ("i", 2)), (("v", 3), ("i", 2)), (("i", 2), ("v", 4)), (("v", 4), ("i", 3)),
        (("i", 3), ("v", 5))])
    assert crossings(result) == 0 and len(pos) == 10


@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: p.name)
def test_real_fixtures_layout_invariants(path):
    program = reader()(path)
    for plan in program.plans:
        result = layout(plan)
        _check_invariants(plan, result)
        assert layout(plan) == result  # deterministic


def test_constants_sit_just_above_their_reader_and_state_edges_point_back():
    b = PlanBuilder(arenas=[(128, "cpu")])
    x = b.tensor(arena=1, offset=0)
    h = b.tensor(arena=1, offset=16)
    h2 = b.tensor(arena=1, offset=32)
    w = b.constant()
    buf = b.tensor(arena=1, offset=48)
    b.kernel("aten::relu.out", x, h, h)                      # 0: layer 1
    b.kernel("aten::relu.out", h, h2, h2)                    # 1: layer 3
    b.kernel("aten::add.out", h2, w, buf, b.scalar(1), h, h)  # 2: layer 5 (re-writes h: a back edge)
    b.kernel("aten::copy_", buf, h2, b.scalar(False, "Bool"), buf)  # 3: writes buf back
    b.inputs(x)
    plan = b.build()
    result = layout(plan)
    c = _coords(result)
    assert c[("i", 2)][1] == 5 and c[("v", w)][1] == 4 and c[("v", buf)][1] == 4
    back = [(result.nodes[a], result.nodes[b_]) for a, b_ in result.edges
            if result.y[b_] <= result.y[a]]
    assert set(back) == {(("i", 2), ("v", h)), (("i", 3), ("v", buf))}
    _check_invariants(plan, result)


def test_median_sweeps_untangle_swapped_branches():
    b = PlanBuilder(arenas=[(256, "cpu")])
    a, c = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    outs = [b.tensor(arena=1, offset=32 + 16 * k) for k in range(2)]
    b.kernel("aten::relu.out", c, outs[0], outs[0])  # reads the *right* input first
    b.kernel("aten::relu.out", a, outs[1], outs[1])
    b.inputs(a, c)
    plan = b.build()
    assert crossings(layout(plan)) == 0


def test_crossings_counts_strict_inversions_between_adjacent_layers():
    # Two edges a->d and b->c with a left of b and d right of c cross once; shared ends never cross.
    lay = Layout(nodes=(("v", 0), ("v", 1), ("i", 0), ("i", 1)), x=(0.0, 1.0, 0.0, 1.0), y=(0.0, 0.0, 1.0, 1.0),
                 edges=((0, 3), (1, 2)))
    assert crossings(lay) == 1
    fan = Layout(nodes=(("v", 0), ("i", 0), ("i", 1)), x=(0.0, 0.0, 1.0), y=(0.0, 1.0, 1.0), edges=((0, 1), (0, 2)))
    assert crossings(fan) == 0
    # a long edge counts where its polyline passes
    bent = Layout(nodes=(("v", 0), ("v", 1), ("i", 0), ("i", 1)), x=(0.0, 1.0, 0.0, 1.0), y=(0.0, 0.0, 1.0, 2.0),
                  edges=((0, 3), (1, 2)), paths=(((0.0, 0.0), (-1.0, 1.0), (1.0, 2.0)), ((1.0, 0.0), (0.0, 1.0))))
    assert crossings(bent) == 0


def _random_dag(n_instr: int, seed: int = 0):
    rnd = random.Random(seed)
    b = PlanBuilder(arenas=[(1 << 40, "cpu")])
    made = [b.tensor(arena=1, offset=0) for _ in range(4)]
    b.inputs(*made)
    for k in range(n_instr):
        srcs = rnd.sample(made[-8:], 2)
        out = b.tensor(arena=1, offset=16 * (k + 4))
        b.kernel("aten::add.out", *srcs, b.scalar(1), out, out)
        made.append(out)
    b.outputs(made[-1])
    return b.build()


def _chain(n: int):
    b = PlanBuilder(arenas=[(64, "cpu")])
    prev = b.tensor(arena=1, offset=0)
    b.inputs(prev)
    for k in range(n):
        out = b.tensor(arena=1, offset=16 * (k % 2 + 1))
        b.kernel("aten::relu.out", prev, out, out)
        prev = out
    b.outputs(prev)
    return b.build()


def _fan(n: int):
    b = PlanBuilder(arenas=[(16 * (n + 1), "cpu")])
    x = b.tensor(arena=1, offset=0)
    b.inputs(x)
    outs = []
    for k in range(n):
        out = b.tensor(arena=1, offset=16 * (k + 1))
        b.kernel("aten::relu.out", x, out, out)
        outs.append(out)
    b.outputs(*outs)
    return b.build()


def test_a_chain_is_one_straight_column():
    plan = _chain(500)
    result = layout(plan)
    _check_invariants(plan, result)
    assert len(set(result.x)) == 1 and sorted(result.y) == [float(k) for k in range(1001)]
    assert crossings(result) == 0


def test_a_fan_has_no_crossings():
    plan = _fan(300)
    result = layout(plan)
    _check_invariants(plan, result)
    assert crossings(result) == 0 and set(result.y) == {0.0, 1.0, 2.0}


def test_random_dag_invariants_and_sweeps_halve_the_crossings_of_the_first_order():
    plan = _random_dag(600)
    result = layout(plan)
    _check_invariants(plan, result)
    assert layout(plan) == result  # deterministic
    # the sweeps untangle: far fewer crossings than the layers in run order (each layer's nodes as they come)
    run = {node: k for k, node in enumerate(graph_of(plan).nodes)}  # the graph's node order: run order
    slot: dict = {}
    xs = []
    for node, y in sorted(zip(result.nodes, result.y), key=lambda p: run[p[0]]):
        slot[y] = slot.get(y, -1) + 1
        xs.append((node, float(slot[y])))
    naive_x = dict(xs)
    naive = Layout(nodes=result.nodes, x=tuple(naive_x[n] for n in result.nodes), y=result.y, edges=result.edges,
                   paths=())
    # compared on the same pieces: edges between adjacent layers (the polylines of long edges left out of both)
    assert crossings(dataclasses.replace(result, paths=())) < 0.5 * crossings(naive)
