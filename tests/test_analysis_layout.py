"""Layered layout: layers by dataflow depth, distinct coordinates, crossing reduction, linear-ish time."""

from __future__ import annotations

import random
import time

import pytest

from analysis_helpers import PlanBuilder, fixture_paths, reader
from explorer.analysis import crossings, dataflow, layout
from explorer.analysis.types import Layout


def _coords(result: Layout) -> dict:
    return {node: (x, y) for node, x, y in zip(result.nodes, result.x, result.y)}


def _check_invariants(plan, result: Layout) -> None:
    assert len(result.nodes) == len(set(result.nodes)) == len(result.x) == len(result.y)
    assert len(set(zip(result.x, result.y))) == len(result.nodes), "two nodes share a coordinate"
    assert {n for n in result.nodes if n[0] == "i"} == {("i", i) for i in range(len(plan.instructions))}
    for v in plan.inputs:
        if ("v", v) in _coords(result):
            assert _coords(result)[("v", v)][1] == 0.0
    # Listed layer by layer, left to right.
    assert list(zip(result.y, result.x)) == sorted(zip(result.y, result.x))


def test_device_add_layers_by_hand():
    plan = reader()(next(p for p in fixture_paths() if p.name == "device_add.pte")).plan("forward")
    result = layout(plan)
    c = _coords(result)
    # inputs %0 %1 -> h2d 0, 1 -> %2 %3 -> delegate 2 -> %4 -> d2h 3 -> %5
    assert {n: y for n, (x, y) in c.items()} == {
        ("v", 0): 0, ("v", 1): 0, ("i", 0): 1, ("i", 1): 1, ("v", 2): 2, ("v", 3): 2,
        ("i", 2): 3, ("v", 4): 4, ("i", 3): 5, ("v", 5): 6}
    assert c[("v", 0)][0] < c[("v", 1)][0] and c[("i", 0)][0] < c[("i", 1)][0]  # no crossing
    assert c[("i", 2)][0] == c[("v", 4)][0] == c[("v", 5)][0] == 0.0  # single nodes centred
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


def test_barycenter_sweeps_untangle_swapped_branches():
    b = PlanBuilder(arenas=[(256, "cpu")])
    a, c = b.tensor(arena=1, offset=0), b.tensor(arena=1, offset=16)
    outs = [b.tensor(arena=1, offset=32 + 16 * k) for k in range(2)]
    b.kernel("aten::relu.out", c, outs[0], outs[0])  # reads the *right* input first
    b.kernel("aten::relu.out", a, outs[1], outs[1])
    b.inputs(a, c)
    plan = b.build()
    assert crossings(layout(plan, sweeps=0)) == 1
    assert crossings(layout(plan)) == 0


def test_crossings_counts_strict_inversions_between_adjacent_layers():
    # Two edges a->d and b->c with a left of b and d right of c cross once; shared ends never cross.
    lay = Layout(nodes=(("v", 0), ("v", 1), ("i", 0), ("i", 1)), x=(0.0, 1.0, 0.0, 1.0), y=(0.0, 0.0, 1.0, 1.0),
                 edges=((0, 3), (1, 2)))
    assert crossings(lay) == 1
    fan = Layout(nodes=(("v", 0), ("i", 0), ("i", 1)), x=(0.0, 0.0, 1.0), y=(0.0, 1.0, 1.0), edges=((0, 1), (0, 2)))
    assert crossings(fan) == 0


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


def test_sweeps_reduce_crossings_on_a_random_dag():
    plan = _random_dag(600)
    before, after = crossings(layout(plan, sweeps=0)), crossings(layout(plan))
    assert after < before * 0.6
    _check_invariants(plan, layout(plan))


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


@pytest.mark.parametrize("make", [_chain, _fan, _random_dag], ids=["chain", "fan", "random"])
def test_20k_nodes_finish_far_from_quadratic(make):
    plan = make(10_000)  # about 20k nodes
    flow = dataflow(plan)
    start = time.perf_counter()
    result = layout(plan, flow)
    elapsed = time.perf_counter() - start
    assert len(result.nodes) >= 15_000
    assert elapsed < 5.0, f"layout of {len(result.nodes)} nodes took {elapsed:.2f} s"
    assert len(set(zip(result.x, result.y))) == len(result.nodes)
