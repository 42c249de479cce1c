"""Layered coordinates for the dataflow graph (tensors and instructions), fast and deterministic.

Layering is by dataflow depth from the inputs, computed in one pass in run order (instructions are
stored in an order that respects their dataflow, so no topological sort is needed):

* plan inputs sit on layer 0;
* an instruction sits one layer below the deepest tensor it reads that is already placed;
* a tensor it writes for the first time sits one layer below it;
* a tensor read before anything placed it (a constant, a weight, state carried over from the last
  call) sits just above its first reader, not on layer 0, so weights don't draw long edges.

Tensors and instructions therefore alternate layers. Edges to a value that is already placed (a
mutable buffer written back, an in-place re-write) point up or sideways; they are drawn but ignored
for layering and ordering, which is how cycles through state are broken.

Within a layer, nodes start in run order and then go through a few barycenter sweeps (down: by the
mean position of their predecessors, up: of their successors), Gauss-Seidel style layer by layer, with
ties broken by current position then node number. Cost is O((N + E) log N) per sweep in plain
Python; 10k nodes take well under a second (about 0.1 s here). ``x`` is the rank within the layer,
centred on 0, so every node gets a distinct (x, y). Only tensors are nodes; scalars and lists are left
out (lists are looked through to their items, as in :mod:`.graph`).

This is our own implementation rather than igraph's Sugiyama: it needs no C dependency, and igraph can
put several nodes on one coordinate (docs/layout.md has the measurements against graphviz dot).
"""

from __future__ import annotations

from ..columns import value_columns
from ..model import Plan
from .graph import dataflow
from .types import Dataflow, Layout

__all__ = ["layout", "crossings"]


def layout(plan: Plan, flow: Dataflow | None = None, *, sweeps: int = 4) -> Layout:
    """Layered layout of ``plan``'s dataflow graph; nodes are ``("v", value)`` and ``("i", instruction)``,
    listed layer by layer, left to right."""
    flow = flow if flow is not None else dataflow(plan)
    tensor = (value_columns(plan).kind == 5).tolist()  # no Tensor objects needed
    n = len(tensor)
    kinds: list[str] = []
    ids: list[int] = []
    layer: list[int] = []
    node_of = [-1] * n
    edges: list[tuple[int, int]] = []

    def add(kind: str, ident: int, at: int) -> int:
        kinds.append(kind)
        ids.append(ident)
        layer.append(at)
        return len(kinds) - 1

    def is_tensor(v: int) -> bool:
        return tensor[v]

    for v in plan.inputs:
        if 0 <= v < n and is_tensor(v) and node_of[v] < 0:
            node_of[v] = add("v", v, 0)
    for instr, reads, writes in zip(plan.instructions, flow.reads, flow.writes):
        r = [v for v in reads if is_tensor(v)]
        w = [v for v in writes if is_tensor(v)]
        depth = max((layer[node_of[v]] for v in r if node_of[v] >= 0), default=0) + 1
        me = add("i", instr.index, depth)
        for v in r:
            if node_of[v] < 0:
                node_of[v] = add("v", v, depth - 1)
            edges.append((node_of[v], me))
        for v in w:
            if node_of[v] < 0:
                node_of[v] = add("v", v, depth + 1)
            edges.append((me, node_of[v]))
    for v in plan.outputs:
        if 0 <= v < n and is_tensor(v) and node_of[v] < 0:
            node_of[v] = add("v", v, 0)

    x = _order(layer, edges, sweeps)
    # List nodes layer by layer, left to right, and renumber edges accordingly.
    order = sorted(range(len(kinds)), key=lambda k: (layer[k], x[k]))
    new = [0] * len(order)
    for pos, k in enumerate(order):
        new[k] = pos
    return Layout(
        nodes=tuple((kinds[k], ids[k]) for k in order),
        x=tuple(float(x[k]) for k in order),
        y=tuple(float(layer[k]) for k in order),
        edges=tuple((new[a], new[b]) for a, b in edges),
    )


def crossings(result: Layout) -> int:
    """Edge crossings between adjacent layers (edges spanning more layers are not counted): a measure
    for tests and tuning, O(E log E)."""
    groups: dict[float, list[tuple[float, float]]] = {}
    for a, b in result.edges:
        ya, yb = result.y[a], result.y[b]
        if abs(ya - yb) != 1:
            continue
        top, bottom = (a, b) if ya < yb else (b, a)
        groups.setdefault(min(ya, yb), []).append((result.x[top], result.x[bottom]))
    total = 0
    for pairs in groups.values():
        pairs.sort()
        # Count inversions of the bottom ends (strict), with a Fenwick tree over their ranks.
        ranks = {v: k + 1 for k, v in enumerate(sorted({b for _, b in pairs}))}
        tree = [0] * (len(ranks) + 1)
        seen = 0
        i = 0
        while i < len(pairs):
            j = i
            while j < len(pairs) and pairs[j][0] == pairs[i][0]:
                j += 1
            for _, b in pairs[i:j]:  # edges sharing a top node never cross each other
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


# PRIVATE

def _order(layer: list[int], edges: list[tuple[int, int]], sweeps: int) -> list[float]:
    """Centred in-layer positions after barycenter sweeps (forward edges only)."""
    count = len(layer)
    if not count:
        return []
    depth = max(layer) + 1
    layers: list[list[int]] = [[] for _ in range(depth)]
    for k, at in enumerate(layer):
        layers[at].append(k)
    preds: list[list[int]] = [[] for _ in range(count)]
    succs: list[list[int]] = [[] for _ in range(count)]
    for a, b in edges:
        if layer[a] < layer[b]:
            preds[b].append(a)
            succs[a].append(b)
    x = [0.0] * count
    for members in layers:
        _place(members, x)
    wide = [members for members in layers if len(members) > 1]
    for _ in range(sweeps):
        for neighbours, seq in ((preds, wide), (succs, wide[::-1])):
            for members in seq:
                key = {}
                for k in members:
                    nb = neighbours[k]
                    bary = sum(x[m] for m in nb) / len(nb) if nb else x[k]
                    key[k] = (bary, x[k], k)
                members.sort(key=key.__getitem__)
                _place(members, x)
    return x


def _place(members: list[int], x: list[float]) -> None:
    centre = (len(members) - 1) / 2
    for rank, k in enumerate(members):
        x[k] = rank - centre
