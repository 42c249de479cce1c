"""A plan's whole dataflow graph laid out by the browser's layout (``explorer/frontend/layout/layout.js``, under node):
the graphs the layout tests and ``bench/bench_layout.py`` measure. The app lays out what it draws from the
payload's tables (``lod/base.js`` folds them); this module makes the unfolded graph of a plan the same way for
tests, so the layout's properties are checked on real exports and on graphs built to stress it.

:func:`graph_of` makes the graph: nodes in run order (plan inputs; then per instruction the tensors it
reads that nothing placed yet, itself, the tensors it writes first), an edge per read and per write.
Edges to a tensor placed earlier (state written back, an in-place re-write) point backward in that
order; :func:`.layered.layered` reverses them, which is how cycles through state are broken. Edges
out of a source tensor (an input, a weight, a constant, state read before it is written) weigh 1, the
main dataflow 4, so the ranking keeps the dataflow short and straight; a source still lands just above
its first reader, never in a top row. Each node carries its device as a key, so a device's run stays
together where the order allows.

:func:`layout` lays that graph out with ``layout/layout.js`` (the network-simplex layering of graphviz ``dot``) and
returns a :class:`~explorer.analysis.types.Layout` with every edge's polyline through the layers it passes. Only tensors are
nodes; scalars and lists are left out (lists are looked through to their items, as in :mod:`.graph`).
docs/layout.md has the measurements against ``dot``.
"""

from __future__ import annotations

from dataclasses import dataclass

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from explorer import frontend
from explorer.analysis.graph import dataflow
from explorer.analysis.types import Dataflow, Layout
from explorer.model.columns import value_columns
from explorer.model.program import Plan

__all__ = ["layout", "crossings", "inversions", "graph_of", "LayoutGraph", "MAIN_WEIGHT", "SOURCE_WEIGHT"]

MAIN_WEIGHT = 4  # an edge of the main dataflow
SOURCE_WEIGHT = 1  # an edge out of a tensor nothing in the plan wrote before it is read


@dataclass(frozen=True)
class LayoutGraph:
    """The graph :func:`layout` lays out: nodes in run order, edges with weights, a device key per node."""

    nodes: tuple[tuple[str, int], ...]  # ("v", value) | ("i", instruction)
    src: tuple[int, ...]
    dst: tuple[int, ...]
    weight: tuple[int, ...]
    key: tuple[int, ...]  # device code per node (-1: none)


def graph_of(plan: Plan, flow: Dataflow | None = None) -> LayoutGraph:
    """The dataflow graph of ``plan`` as :func:`layout` lays it out."""
    flow = flow if flow is not None else dataflow(plan)
    cols = value_columns(plan)
    tensor = (cols.kind == 5).tolist()  # no Tensor objects needed
    device = (cols.device_type.astype(int) * 1024 + cols.device_index.astype(int) + 512).tolist()
    n = len(tensor)
    nodes: list[tuple[str, int]] = []
    key: list[int] = []
    node_of = [-1] * n
    written = [False] * n
    src: list[int] = []
    dst: list[int] = []
    weight: list[int] = []

    def add(kind: str, ident: int, k: int) -> int:
        nodes.append((kind, ident))
        key.append(k)
        return len(nodes) - 1

    for v in plan.inputs:
        if 0 <= v < n and tensor[v] and node_of[v] < 0:
            node_of[v] = add("v", v, device[v])
    for instr, reads, writes in zip(plan.instructions, flow.reads, flow.writes):
        r = [v for v in reads if 0 <= v < n and tensor[v]]
        w = [v for v in writes if 0 <= v < n and tensor[v]]
        for v in r:
            if node_of[v] < 0:
                node_of[v] = add("v", v, device[v])
        me = add("i", instr.index, device[w[0]] if w else -1)
        for v in r:
            src.append(node_of[v])
            dst.append(me)
            weight.append(MAIN_WEIGHT if written[v] else SOURCE_WEIGHT)
        for v in w:
            if node_of[v] < 0:
                node_of[v] = add("v", v, device[v])
            src.append(me)
            dst.append(node_of[v])
            weight.append(MAIN_WEIGHT)
            written[v] = True
    for v in plan.outputs:
        if 0 <= v < n and tensor[v] and node_of[v] < 0:
            node_of[v] = add("v", v, device[v])
    return LayoutGraph(tuple(nodes), tuple(src), tuple(dst), tuple(weight), tuple(key))


_RUN_JS = r"""
import fs from "node:fs";
import {layered} from "LAYOUT";
const graphs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
process.stdout.write(JSON.stringify(graphs.map((g) => {
  const L = layered(g.count, g.src, g.dst, {weight: g.weight, key: g.key});
  return {rank: Array.from(L.rank), order: Array.from(L.order), x: Array.from(L.x), paths: L.paths};
})));
"""


def run_layout_js(graphs: list[LayoutGraph]) -> list[dict]:
    """``layered(...)`` of ``layout/layout.js`` on each graph, in one node process: ``{rank, order, x, paths}`` each."""
    node = shutil.which("node")
    assert node, "node is needed (CI installs it)"
    with tempfile.TemporaryDirectory() as tmp:
        script, data = Path(tmp) / "run.mjs", Path(tmp) / "graphs.json"
        script.write_text(_RUN_JS.replace("LAYOUT", (Path(frontend.__file__).parent / "layout/layout.js").as_uri()))
        data.write_text(json.dumps([{"count": len(g.nodes), "src": g.src, "dst": g.dst, "weight": g.weight,
                                     "key": g.key} for g in graphs]))
        done = subprocess.run([node, str(script), str(data)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def layout(plan: Plan, flow: Dataflow | None = None) -> Layout:
    """``layout/layout.js``'s layout of ``plan``'s dataflow graph; nodes are ``("v", value)`` and ``("i", instruction)``,
    listed layer by layer, left to right; ``paths`` holds each edge's polyline."""
    g = graph_of(plan, flow)
    lay = run_layout_js([g])[0]
    order = sorted(range(len(g.nodes)), key=lambda k: (lay["rank"][k], lay["x"][k]))
    new = [0] * len(order)
    for pos, k in enumerate(order):
        new[k] = pos
    return Layout(
        nodes=tuple(g.nodes[k] for k in order),
        x=tuple(float(lay["x"][k]) for k in order),
        y=tuple(float(lay["rank"][k]) for k in order),
        edges=tuple((new[a], new[b]) for a, b in zip(g.src, g.dst)),
        paths=tuple(tuple((float(x), float(y)) for x, y in zip(p[0::2], p[1::2])) if p is not None else ()
                    for p in lay["paths"]),
    )


def crossings(result: Layout) -> int:
    """Edge crossings between adjacent layers, each edge cut into its pieces between adjacent layers (its
    polyline when the layout has one; else only edges between adjacent layers count): strict inversions,
    pieces sharing an end never cross. A measure for tests and tuning, O(E log E)."""
    groups: dict[float, list[tuple[float, float]]] = {}
    for q, (a, b) in enumerate(result.edges):
        pts = result.paths[q] if q < len(result.paths) and result.paths[q] else \
            ((result.x[a], result.y[a]), (result.x[b], result.y[b]))
        for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
            if abs(ya - yb) != 1:
                continue
            top, bottom = ((xa, ya), (xb, yb)) if ya < yb else ((xb, yb), (xa, ya))
            groups.setdefault(top[1], []).append((top[0], bottom[0]))
    return sum(inversions(pairs) for pairs in groups.values())


def inversions(pairs: list[tuple[float, float]]) -> int:
    """Edge pieces between two adjacent levels, as (upper x, lower x): how many pairs of them cross, i.e.
    strict inversions (one starts left of the other and ends strictly right of it); pieces sharing an upper
    or a lower end never cross. Fenwick tree over the lower ends, O(n log n). Shared with bench/bench_layout.py,
    so the tests and the comparison with dot count crossings the same way."""
    pairs = sorted(pairs)
    ranks = {v: k + 1 for k, v in enumerate(sorted({b for _, b in pairs}))}
    tree = [0] * (len(ranks) + 1)
    total = seen = i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        for _, b in pairs[i:j]:  # pieces sharing an upper end never cross each other
            r, below = ranks[b], 0
            while r > 0:
                below += tree[r]
                r -= r & -r
            total += seen - below
        for _, b in pairs[i:j]:
            r = ranks[b]
            while r < len(tree):
                tree[r] += 1
                r += r & -r
            seen += 1
        i = j
    return total
