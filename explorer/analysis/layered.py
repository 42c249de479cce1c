"""Layered drawing of a directed graph: the method of graphviz ``dot``, the same code as the browser's.

This is ``explorer/frontend/layout.js`` line for line (tests/test_analysis_layout.py runs both on the same
graphs and requires equal ranks, orders and x), so a small plan drawn by Python and a big plan's overview
drawn by the browser are laid out alike. The steps (Gansner, Koutsofios, North, Vo: "A Technique for Drawing
Directed Graphs", 1993):

1. cycles: an edge pointing backward in the given node order (state written back) is reversed;
2. ranks: network simplex — minimise sum(weight * length) with every edge at least ``minlen`` long — from a
   feasible tight tree over longest-path ranks, cut values kept up to date on the changed tree paths only
   (low/lim postorder numbers), as dot does;
3. long edges: one virtual node per layer they pass;
4. order within layers: weighted-median sweeps down and up plus dot's transpose step, keeping the best
   order by crossings; a per-node key (the device) keeps equal keys together when crossings allow;
5. x: Brandes-Koepf (as dagre): four median alignments balanced; long edges and chains run straight.

Every loop is iterative (no recursion). Measured against ``dot`` in docs/layout.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["Layered", "layered"]

SEARCH = 30  # negative cut values looked at before choosing the most negative (dot's Search_size)
ORDER_SWEEPS = 24  # median sweeps at most (dot's MaxIter)
ORDER_PATIENCE = 8  # ... stopping after this many without fewer crossings (dot's MinQuit)
TRANSPOSE_PASSES = 8


@dataclass(frozen=True)
class Layered:
    """Where :func:`layered` put each node and edge."""

    rank: list[int]  # layer per node, 0 at the top
    x: list[float]  # per node, in slots (min 0)
    order: list[int]  # position within its layer, virtual nodes counted
    layers: int
    paths: list[list[float] | None]  # per edge: [x0, y0, x1, y1, ...] from src to dst (y = rank); None: a loop
    virtual: int  # virtual nodes added for long edges


def layered(count: int, src: Sequence[int], dst: Sequence[int], *, weight: Sequence[float] | None = None,
            minlen: Sequence[int] | None = None, key: Sequence[int] | None = None,
            width: Sequence[float] | None = None, virtual_width: float = 0.5) -> Layered:
    """Lay out ``count`` nodes and the edges ``src[q] -> dst[q]``. ``key`` (an int per node, -1 none) keeps
    equal keys together; ``width`` is a node's width in slots (default 1, virtual nodes ``virtual_width``)."""
    g = _merge(count, list(src), list(dst), weight, minlen)
    rank, comp, comp_nodes = _network_simplex(count, g)
    vg = _add_virtual(count, g, rank, key, width, virtual_width)
    # each weakly connected component is ordered and placed on its own, then they sit side by side
    members = [sorted(nodes, key=lambda v: (rank[v], v)) for nodes in comp_nodes]
    for e in range(g.m):
        members[comp[g.a[e]]].extend(vg.chain[e][1:-1])
    x = [0.0] * vg.count
    rows: list[int] = []
    offset = 0.0
    for nodes in members:
        layers = _order_layers(vg, nodes)
        _place_x(vg, layers, x)
        lo, hi = min(x[v] for v in nodes), max(x[v] for v in nodes)
        for v in nodes:
            x[v] += offset - lo
        offset += hi - lo + 1
        for r, layer in enumerate(layers):
            if len(rows) <= r:
                rows.append(0)
            for v in layer:
                vg.pos[v] = rows[r]
                rows[r] += 1
    paths: list[list[float] | None] = [None] * len(g.of)
    for q, e in enumerate(g.of):
        if e < 0:
            continue
        pts: list[float] = []
        for v in vg.chain[e]:
            pts += (x[v], float(vg.rank[v]))
        if g.flipped[q]:
            pts = [c for k in range(len(pts) - 2, -1, -2) for c in (pts[k], pts[k + 1])]
        paths[q] = pts
    return Layered(rank=rank, x=x[:count], order=vg.pos[:count], layers=len(rows), paths=paths,
                   virtual=vg.count - count)


# PRIVATE

@dataclass
class _Graph:
    m: int
    a: list[int]
    b: list[int]
    w: list[float]
    ml: list[int]
    start: list[int]
    inc: list[int]
    of: list[int]
    flipped: list[int]


def _merge(count, src, dst, weight, minlen) -> _Graph:
    """Every edge from the lower to the higher node number (a backward one reversed), loops dropped,
    parallel edges merged (weights summed, the longest minlen kept); incidence lists in CSR form."""
    of, flipped, seen = [-1] * len(src), [0] * len(src), {}
    a: list[int] = []
    b: list[int] = []
    w: list[float] = []
    ml: list[int] = []
    for q, (s, d) in enumerate(zip(src, dst)):
        if s == d:
            continue
        if s > d:
            flipped[q] = 1
            s, d = d, s
        wq = float(weight[q]) if weight is not None else 1.0
        mq = int(minlen[q]) if minlen is not None else 1
        e = seen.get((s, d))
        if e is None:
            e = seen[(s, d)] = len(a)
            a.append(s)
            b.append(d)
            w.append(wq)
            ml.append(mq)
        else:
            w[e] += wq
            ml[e] = max(ml[e], mq)
        of[q] = e
    m = len(a)
    start = [0] * (count + 1)
    for e in range(m):
        start[a[e] + 1] += 1
        start[b[e] + 1] += 1
    for v in range(count):
        start[v + 1] += start[v]
    fill = start[:count]
    inc = [0] * (2 * m)
    for e in range(m):
        inc[fill[a[e]]] = e
        fill[a[e]] += 1
        inc[fill[b[e]]] = e
        fill[b[e]] += 1
    return _Graph(m, a, b, w, ml, start, inc, of, flipped)


def _network_simplex(count: int, g: _Graph) -> tuple[list[int], list[int], list[list[int]]]:
    """Ranks, and the weakly connected components (component per node, nodes per component)."""
    a, b, w, ml, start, inc = g.a, g.b, g.w, g.ml, g.start, g.inc
    rank = [0] * count
    # longest path from the sinks: every edge goes to a higher node number, so descending order is topological
    for v in range(count - 1, -1, -1):
        r, any_ = 0, False
        for k in range(start[v], start[v + 1]):
            e = inc[k]
            if a[e] != v:
                continue
            c = rank[b[e]] - ml[e]
            if not any_ or c < r:
                r, any_ = c, True
        rank[v] = r

    def slack(e: int) -> int:
        return rank[b[e]] - rank[a[e]] - ml[e]

    comp = [-1] * count
    comp_nodes: list[list[int]] = []
    for s in range(count):  # weakly connected components, each gets its own tree
        if comp[s] >= 0:
            continue
        c, nodes, stack = len(comp_nodes), [], [s]
        comp[s] = c
        while stack:
            v = stack.pop()
            nodes.append(v)
            for k in range(start[v], start[v + 1]):
                e = inc[k]
                o = b[e] if a[e] == v else a[e]
                if comp[o] < 0:
                    comp[o] = c
                    stack.append(o)
        comp_nodes.append(nodes)
    comp_edges: list[list[int]] = [[] for _ in comp_nodes]
    for e in range(g.m):
        comp_edges[comp[a[e]]].append(e)
    in_tree, is_tree = [0] * count, [0] * g.m

    def tight(v0: int, members: list[int]) -> None:  # grow the tree from v0 along tight edges
        stack = [v0]
        while stack:
            v = stack.pop()
            for k in range(start[v], start[v + 1]):
                e = inc[k]
                o = b[e] if a[e] == v else a[e]
                if not in_tree[o] and slack(e) == 0:
                    in_tree[o] = is_tree[e] = 1
                    members.append(o)
                    stack.append(o)

    # feasible tree: tight edges first; then the incident edge of least slack, made tight by shifting the tree
    for nodes, edges in zip(comp_nodes, comp_edges):
        members = [nodes[0]]
        in_tree[nodes[0]] = 1
        tight(nodes[0], members)
        while len(members) < len(nodes):
            best, best_slack, added = -1, 0, False
            for e in edges:
                if in_tree[a[e]] == in_tree[b[e]]:
                    continue
                s = slack(e)
                if s == 0:
                    o = b[e] if in_tree[a[e]] else a[e]
                    in_tree[o] = is_tree[e] = 1
                    members.append(o)
                    tight(o, members)
                    added = True
                elif best < 0 or s < best_slack:
                    best, best_slack = e, s
            if added:
                continue
            delta = best_slack if in_tree[a[best]] else -best_slack
            for v in members:
                rank[v] += delta
            o = b[best] if in_tree[a[best]] else a[best]
            in_tree[o] = is_tree[best] = 1
            members.append(o)
            tight(o, members)

    # rooted trees: parent, low/lim postorder numbers (one global numbering, a range per tree), cut values
    parent, pedge = [-1] * count, [-1] * count
    low, lim, at_lim = [0] * count, [0] * count, [0] * count
    cut = [0.0] * count
    it_ = [0] * count

    def dfs_range(root: int, first: int) -> int:  # renumber root's subtree (its parent edge kept) from `first`
        nxt = first
        path = [root]
        it_[root] = start[root]
        low[root] = nxt
        while path:
            v = path[-1]
            pushed = False
            while it_[v] < start[v + 1]:
                e = inc[it_[v]]
                it_[v] += 1
                if not is_tree[e] or e == pedge[v]:
                    continue
                o = b[e] if a[e] == v else a[e]
                if parent[o] == v and pedge[o] == e and low[o] == nxt:  # unchanged subtree
                    nxt = lim[o] + 1
                    continue
                parent[o], pedge[o], low[o], it_[o] = v, e, nxt, start[o]
                path.append(o)
                pushed = True
                break
            if not pushed:
                lim[v] = nxt
                at_lim[nxt] = v
                nxt += 1
                path.pop()
        return nxt

    def calc_cut(v: int) -> None:  # cut value of the tree edge v - parent[v] (dagre's calcCutValue)
        pe, p = pedge[v], parent[v]
        v_is_tail = a[pe] == v
        value = w[pe]
        for k in range(start[v], start[v + 1]):
            e = inc[k]
            out = a[e] == v
            o = b[e] if out else a[e]
            if o == p:
                continue
            to_head = out == v_is_tail
            value += w[e] if to_head else -w[e]
            if is_tree[e]:
                value += -cut[o] if to_head else cut[o]
        cut[v] = value

    comp_low = [0] * len(comp_nodes)
    nxt = 0
    for c, nodes in enumerate(comp_nodes):
        root = nodes[0]
        comp_low[c] = nxt
        nxt = dfs_range(root, nxt)
        for ll in range(comp_low[c], nxt):
            if at_lim[ll] != root:
                calc_cut(at_lim[ll])

    # pivots: a tree edge of negative cut value leaves, the least-slack edge across its cut enters
    cursor = 0
    for _ in range(20 * count + 100):
        leave, found = -1, 0
        for k in range(count):
            if found >= SEARCH:
                break
            v = (cursor + k) % count
            if pedge[v] >= 0 and cut[v] < 0:
                found += 1
                if leave < 0 or cut[v] < cut[leave]:
                    leave = v
        if leave < 0:
            break
        cursor = (leave + 1) % count
        cv = leave
        p, f, lo, hi = parent[cv], pedge[cv], low[cv], lim[cv]
        tail_in = a[f] == cv  # tail side = cv's subtree: enter from outside into it; else out of it
        c = comp[cv]
        c_lo = comp_low[c]
        c_hi = c_lo + len(comp_nodes[c]) - 1
        enter, best = -1, 0

        def scan(l0: int, l1: int) -> None:
            nonlocal enter, best
            for ll in range(l0, l1 + 1):
                v = at_lim[ll]
                for k in range(start[v], start[v + 1]):
                    e = inc[k]
                    if is_tree[e]:
                        continue
                    a_in = lo <= lim[a[e]] <= hi
                    b_in = lo <= lim[b[e]] <= hi
                    if a_in == b_in or a_in == tail_in:
                        continue
                    s = slack(e)
                    if enter < 0 or s < best:
                        enter, best = e, s

        if hi - lo + 1 <= (c_hi - c_lo + 1) / 2:
            scan(lo, hi)
        else:
            scan(c_lo, lo - 1)
            scan(hi + 1, c_hi)
        # rerank the subtree so the entering edge is tight, then swap the edges in the tree
        delta = -best if tail_in else best
        for ll in range(lo, hi + 1):
            rank[at_lim[ll]] += delta
        x_in = lo <= lim[a[enter]] <= hi
        x, y = (a[enter], b[enter]) if x_in else (b[enter], a[enter])
        top = y  # lowest common ancestor of y and the subtree (= of y and p)
        while not (low[top] <= lim[cv] <= lim[top]):
            top = parent[top]
        is_tree[f], is_tree[enter] = 0, 1
        u, up, ue = x, y, enter  # re-hang the subtree: reverse the parent links on the path cv .. x, x under y
        while True:
            old_p, old_e = parent[u], pedge[u]
            parent[u], pedge[u] = up, ue
            if u == cv:
                break
            up, ue, u = u, old_e, old_p
        # only the two paths up to top changed: renumber them (other subtrees keep their numbers), then their cuts
        for u0 in (cv, p):
            u = u0
            while u != top:
                low[u] = -1
                u = parent[u]
        dfs_range(top, low[top])
        for u0 in (cv, p):
            u = u0
            while u != top:
                calc_cut(u)
                u = parent[u]

    for nodes in comp_nodes:  # normalise: each component starts at rank 0
        lowest = min(rank[v] for v in nodes)
        for v in nodes:
            rank[v] -= lowest
    return rank, comp, comp_nodes


@dataclass
class _VGraph:
    count: int
    real: int
    rank: list[int]
    key: list[int]
    width: list[float]
    chain: list[list[int]]
    pos: list[int]
    up: list[list[int]]  # neighbours in the layer above, per node
    up_w: list[list[float]]
    down: list[list[int]]
    down_w: list[list[float]]
    seen: list[int]
    stamp: int = 0


def _add_virtual(count, g: _Graph, rank, key, width, virtual_width) -> _VGraph:
    """The layered graph: real nodes, then one virtual node per layer each long edge passes."""
    vr = list(rank)
    keys = [int(k) for k in key] if key is not None else [-1] * count
    widths = [float(x) for x in width] if width is not None else [1.0] * count
    chain: list[list[int]] = []
    up: list[list[int]] = [[] for _ in range(count)]
    up_w: list[list[float]] = [[] for _ in range(count)]
    down: list[list[int]] = [[] for _ in range(count)]
    down_w: list[list[float]] = [[] for _ in range(count)]
    for e in range(g.m):
        nodes = [g.a[e]]
        for r in range(rank[g.a[e]] + 1, rank[g.b[e]]):
            nodes.append(len(vr))
            vr.append(r)
            keys.append(-1)
            widths.append(float(virtual_width))
            for lst in (up, up_w, down, down_w):
                lst.append([])
        nodes.append(g.b[e])
        chain.append(nodes)
        for s, t in zip(nodes, nodes[1:]):
            down[s].append(t)
            down_w[s].append(g.w[e])
            up[t].append(s)
            up_w[t].append(g.w[e])
    return _VGraph(len(vr), count, vr, keys, widths, chain, [0] * len(vr), up, up_w, down, down_w,
                   [0] * len(vr))


def _order_layers(vg: _VGraph, members: list[int]) -> list[list[int]]:
    """One component's layers in order; ``members``: its nodes, the real ones first by (rank, number). As
    dot, two first orders (depth-first from the top, following edges down; from the bottom, following edges
    up), each improved by sweeps; the one with fewer crossings is kept."""
    depth = max(vg.rank[v] for v in members) + 1
    best: list[list[int]] = []
    best_score: tuple[int, int] | None = None
    for start in (0, 1):
        if best_score is not None and best_score == (0, 0):
            break
        layers = _first_order(vg, members, depth, start == 1)
        score = _improve(vg, layers)
        if best_score is None or score < best_score:  # fewer crossings, then key changes
            best_score, best = score, layers
    for layer in best:
        for k, v in enumerate(layer):
            vg.pos[v] = k
    _transpose(vg, best, False)
    return best


def _first_order(vg: _VGraph, members: list[int], depth: int, from_bottom: bool) -> list[list[int]]:
    """Each node at the end of its layer, depth-first."""
    rank, pos, seen = vg.rank, vg.pos, vg.seen
    vg.stamp += 1
    stamp = vg.stamp
    nb = vg.up if from_bottom else vg.down
    layers: list[list[int]] = [[] for _ in range(depth)]
    reals = [v for v in members if v < vg.real]
    for s in (reversed(reals) if from_bottom else reals):
        if seen[s] == stamp:
            continue
        stack = [s]
        while stack:
            v = stack.pop()
            if seen[v] == stamp:
                continue
            seen[v] = stamp
            pos[v] = len(layers[rank[v]])
            layers[rank[v]].append(v)
            stack.extend(d for d in reversed(nb[v]) if seen[d] != stamp)
    return layers


def _improve(vg: _VGraph, layers: list[list[int]]) -> tuple[int, int]:
    """Median sweeps down and up with transposes; ``layers`` left in the best order (fewest crossings, then
    fewest key changes along the layers); returns (crossings, key changes)."""
    depth = len(layers)
    best = [list(layer) for layer in layers]
    best_score = (_crossings(vg, layers), _key_changes(vg, layers))
    calm = it = 0
    while it < ORDER_SWEEPS and best_score != (0, 0) and calm < ORDER_PATIENCE:
        reverse = it % 4 >= 2  # as dot: every other pair of sweeps lets equal nodes trade places
        if it % 2 == 0:
            for r in range(1, depth):
                _median_sort(vg, layers[r], vg.up, reverse)
        else:
            for r in range(depth - 2, -1, -1):
                _median_sort(vg, layers[r], vg.down, reverse)
        _transpose(vg, layers, reverse)
        score = (_crossings(vg, layers), _key_changes(vg, layers))
        if score < best_score:
            best_score, best, calm = score, [list(layer) for layer in layers], 0
        else:
            calm += 1
        it += 1
    for r in range(depth):
        layers[r] = best[r]
        for k, v in enumerate(best[r]):
            vg.pos[v] = k
    return best_score


def _key_changes(vg: _VGraph, layers: list[list[int]]) -> int:
    """Neighbours in a layer with different keys (nodes without a key skipped)."""
    total = 0
    for layer in layers:
        last = -1
        for v in layer:
            k = vg.key[v]
            if k < 0:
                continue
            if last >= 0 and k != last:
                total += 1
            last = k
    return total


def _median(vg: _VGraph, v: int, nb: list[list[int]]) -> float:
    """dot's weighted median of the neighbours' positions; -1: no neighbours."""
    P = sorted(vg.pos[u] for u in nb[v])
    n = len(P)
    if not n:
        return -1
    h = n >> 1
    if n % 2 == 1:
        return P[h]
    if n == 2:
        return (P[0] + P[1]) / 2
    left, right = P[h - 1] - P[0], P[n - 1] - P[h]
    if left + right == 0:
        return (P[h - 1] + P[h]) / 2
    return (P[h - 1] * right + P[h] * left) / (left + right)


def _median_sort(vg: _VGraph, layer: list[int], nb: list[list[int]], reverse: bool) -> None:
    """Nodes without neighbours keep their place; the others fill the remaining places by median, then key."""
    med = [_median(vg, v, nb) for v in layer]
    movable = [k for k in range(len(layer)) if med[k] >= 0]
    key = vg.key

    def order(k: int):
        kk = key[layer[k]]
        return (med[k], kk < 0, kk, -k if reverse else k)

    old = list(layer)
    for slot, k in zip(movable, sorted(movable, key=order)):
        layer[slot] = old[k]
    for k, v in enumerate(layer):
        vg.pos[v] = k


def _pair_cross(pos: list[int], nu: list[int], nv: list[int]) -> int:
    """Crossings between u's and v's edges to one side, u left of v."""
    return sum(1 for pu in (pos[x] for x in nu) for y in nv if pos[y] < pu)


def _breaks(key: list[int], nodes: tuple[int, ...]) -> int:
    """Key changes along ``nodes`` (-1: no node, or no key)."""
    return sum(1 for p, q in zip(nodes, nodes[1:])
               if p >= 0 and q >= 0 and key[p] >= 0 and key[q] >= 0 and key[p] != key[q])


def _transpose(vg: _VGraph, layers: list[list[int]], reverse: bool) -> None:
    """Swap neighbours while that removes crossings (or, at equal crossings, key changes); ``reverse``: also
    swap at equal crossings and keys (dot's way out of a plateau; such swaps don't count as progress)."""
    up, down, pos, key = vg.up, vg.down, vg.pos, vg.key
    for _ in range(TRANSPOSE_PASSES):
        improved = False
        for layer in layers:
            for k in range(len(layer) - 1):
                u, v = layer[k], layer[k + 1]
                now = _pair_cross(pos, up[u], up[v]) + _pair_cross(pos, down[u], down[v])
                swapped = _pair_cross(pos, up[v], up[u]) + _pair_cross(pos, down[v], down[u])
                if swapped > now:
                    continue
                left = layer[k - 1] if k > 0 else -1
                right = layer[k + 2] if k + 2 < len(layer) else -1
                b0 = _breaks(key, (left, u, v, right)) if swapped == now else 0
                b1 = _breaks(key, (left, v, u, right)) if swapped == now else 0
                if swapped < now or b1 < b0 or (reverse and now > 0 and b1 == b0):
                    layer[k], layer[k + 1] = v, u
                    pos[v], pos[u] = k, k + 1
                    if swapped < now or b1 < b0:
                        improved = True
        if not improved:
            break


def _crossings(vg: _VGraph, layers: list[list[int]]) -> int:
    """All crossings between neighbouring layers (accumulator tree, O(E log V))."""
    pos, total = vg.pos, 0
    for r in range(len(layers) - 1):
        size = 1
        while size < len(layers[r + 1]):
            size *= 2
        tree = [0] * (2 * size)
        for u in layers[r]:
            for e in sorted(pos[d] for d in vg.down[u]):
                i = e + size
                tree[i] += 1
                while i > 1:
                    if i % 2 == 0:
                        total += tree[i + 1]
                    i >>= 1
                    tree[i] += 1
    return total


def _place_x(vg: _VGraph, layers: list[list[int]], x: list[float]) -> None:
    """Brandes & Koepf ("Fast and Simple Horizontal Coordinate Assignment", 2001), as dagre: four alignments
    of each node with a median neighbour among its heaviest edges (up/down x left/right), blocks compacted, the alignments lined up
    with the narrowest and each node put at the mean of its two middle candidates; then one order-keeping
    least-squares pass per layer restores the minimal separation the balancing may break, and a second moves
    the nodes at an end of the dataflow (weights, outputs) beside their neighbours. Long edges (inner segments
    between virtual nodes) win conflicts, so they run straight."""
    real, width, pos = vg.real, vg.width, vg.pos
    R = len(layers)
    at = [0] * (R + 1)  # the component's nodes flat, layer r at at[r] .. at[r+1]
    for r in range(R):
        at[r + 1] = at[r] + len(layers[r])
    nodes = [v for layer in layers for v in layer]
    n = len(nodes)
    if n == R:  # one column: nothing to place
        for v in nodes:
            x[v] = 0.0
        return
    loc = {v: k for k, v in enumerate(nodes)}
    conflict: set[tuple[int, int]] = set()  # (upper, lower) pairs of a segment crossing an inner segment
    for r in range(1, R):
        layer = layers[r]
        k0 = scan = 0
        for i, v in enumerate(layer):
            w = -1
            if v >= real:
                for u in vg.up[v]:
                    if u >= real:
                        w = u
            k1 = pos[w] if w >= 0 else len(layers[r - 1])
            if w >= 0 or i == len(layer) - 1:
                for sn in layer[scan:i + 1]:
                    for u in vg.up[sn]:
                        if (pos[u] < k0 or k1 < pos[u]) and not (u >= real and sn >= real):
                            conflict.add((u, sn))
                scan, k0 = i + 1, k1
    cands: list[list[float]] = []
    spans: list[float] = []
    for vert in (0, 1):
        for horiz in (0, 1):
            nb, nb_w = (vg.down, vg.down_w) if vert else (vg.up, vg.up_w)
            root = list(range(n))
            align = list(range(n))
            p = [0] * n
            for r in range(R):
                for ll in range(at[r], at[r + 1]):
                    p[ll] = at[r + 1] - 1 - ll if horiz else ll - at[r]
            for j in range(R):  # vertical alignment, layers in the direction, each in the direction
                r = R - 1 - j if vert else j
                prev_idx = -1
                for i in range(at[r + 1] - at[r]):
                    lv = at[r + 1] - 1 - i if horiz else at[r] + i
                    v = nodes[lv]
                    if not nb[v]:
                        continue
                    heaviest = max(nb_w[v])  # the median of the heaviest edges: the main dataflow, not a weight
                    ws = sorted((loc[u] for u, wu in zip(nb[v], nb_w[v]) if wu == heaviest), key=p.__getitem__)
                    mp = (len(ws) - 1) / 2
                    for h in range(int(mp), -int(-mp // 1) + 1):  # floor(mp) .. ceil(mp)
                        w = ws[h]
                        crossed = (v, nodes[w]) in conflict if vert else (nodes[w], v) in conflict
                        if align[lv] == lv and prev_idx < p[w] and not crossed:
                            align[w] = lv
                            align[lv] = root[lv] = root[w]
                            prev_idx = p[w]
            # horizontal compaction: blocks (by root) ordered by "left of" edges between neighbours in a layer,
            # placed by longest path, then each pulled right as far as its right neighbours allow
            outs: list[list[tuple[int, float]]] = [[] for _ in range(n)]
            indeg = [0] * n
            for r in range(R):
                for ll in range(at[r] + 1, at[r + 1]):
                    a, b = (ll, ll - 1) if horiz else (ll - 1, ll)  # a left of b in the direction
                    outs[root[a]].append((root[b], (width[nodes[a]] + width[nodes[b]]) / 2))
                    indeg[root[b]] += 1
            topo = [ll for ll in range(n) if root[ll] == ll and not indeg[ll]]
            h = 0
            while h < len(topo):
                for t, _ in outs[topo[h]]:
                    indeg[t] -= 1
                    if indeg[t] == 0:
                        topo.append(t)
                h += 1
            xs = [0.0] * n
            for b in topo:
                for t, sep in outs[b]:
                    if xs[b] + sep > xs[t]:
                        xs[t] = xs[b] + sep
            for b in reversed(topo):
                if outs[b]:
                    lim = min(xs[t] - sep for t, sep in outs[b])
                    if lim > xs[b]:
                        xs[b] = lim
            c = [-xs[root[ll]] if horiz else xs[root[ll]] for ll in range(n)]
            lo = min(c[ll] - width[nodes[ll]] / 2 for ll in range(n))
            hi = max(c[ll] + width[nodes[ll]] / 2 for ll in range(n))
            cands.append(c)
            spans.append(hi - lo)
    narrow = 0
    for j in range(1, 4):
        if spans[j] < spans[narrow]:
            narrow = j
    to_lo, to_hi = min(cands[narrow]), max(cands[narrow])
    for j in range(4):
        delta = to_hi - max(cands[j]) if j % 2 else to_lo - min(cands[j])
        cands[j] = [v + delta for v in cands[j]]
    target = []
    for ll in range(n):
        four = sorted(c[ll] for c in cands)
        target.append((four[1] + four[2]) / 2)
    pull = [1.0] * n
    pinned = [False] * n
    for r in range(R):
        _isotonic(nodes, at[r], at[r + 1], target, pull, pinned, width, x)
    # then a node at one end of the dataflow (a source such as a weight, or a sink) moves next to the median of
    # its neighbours, the others staying where they are: a weight sits beside the op reading it
    for ll, v in enumerate(nodes):
        ups, downs = len(vg.up[v]), len(vg.down[v])
        target[ll] = x[v]
        pinned[ll] = v >= real or (ups > 0 and downs > 0) or ups + downs == 0
        if not pinned[ll]:
            nb, nb_w = (vg.up[v], vg.up_w[v]) if ups else (vg.down[v], vg.down_w[v])
            target[ll] = _weighted_median([x[u] for u in nb], nb_w)
    for r in range(R):
        _isotonic(nodes, at[r], at[r + 1], target, pull, pinned, width, x)


def _weighted_median(xs: list[float], ws: list[float]) -> float:
    """The lower weighted median; halfway to the next value at an exact half."""
    idx = sorted(range(len(xs)), key=lambda k: (xs[k], k))
    total = 0.0
    for w in ws:
        total += w
    cum = 0.0
    for j, k in enumerate(idx):
        cum += ws[k]
        if 2 * cum == total and j + 1 < len(idx):
            return (xs[k] + xs[idx[j + 1]]) / 2
        if 2 * cum >= total:
            return xs[k]
    return xs[idx[-1]]


def _isotonic(nodes, lo, hi, target, pull, pinned, width, x) -> None:
    """x[nodes[k]] for k in lo .. hi (one layer, in order) closest to target[k] (weights pull[k]; a pinned
    node stays at its target) keeping each node (w_k + w_k+1) / 2 right of the one before: with c_k the
    packed offsets, y_k = x_k - c_k must not decrease — pool adjacent violators."""
    c: dict[int, float] = {}
    blocks: list[list] = []  # [weight, weighted sum, first k, pinned, pinned y]

    def value(b: list) -> float:
        return b[4] if b[3] else b[1] / b[0]

    for k in range(lo, hi):
        c[k] = 0.0 if k == lo else c[k - 1] + (width[nodes[k - 1]] + width[nodes[k]]) / 2
        blocks.append([pull[k], pull[k] * (target[k] - c[k]), k, bool(pinned[k]), target[k] - c[k]])
        while len(blocks) > 1 and value(blocks[-2]) >= value(blocks[-1]):
            last = blocks.pop()
            b = blocks[-1]
            if not b[3] and last[3]:
                b[3], b[4] = True, last[4]
            b[0] += last[0]
            b[1] += last[1]
    for j, b in enumerate(blocks):
        y = value(b)
        end = blocks[j + 1][2] if j + 1 < len(blocks) else hi
        for k in range(b[2], end):
            x[nodes[k]] = y + c[k]
