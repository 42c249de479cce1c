"""Our layered layout (``explorer.analysis.layout``) against graphviz ``dot`` on the same graphs.

For each graph — the top-level fixtures, the real 3k-op named transformer, and a wide 1k-op device program
(our writer: ~200 steps offloaded to cuda:0, each between an h2d and a d2h copy) — it lays out the dataflow
graph (tensors and instructions) with our code and with ``dot`` and measures both the same way:

* **crossings**: every edge is cut into one piece per pair of adjacent layers it passes (our long edges
  are straight lines, dot's follow its spline); the pieces between two layers are sorted by their upper
  end and the inversions of their lower ends counted (pieces sharing an end never count);
* **edge length**: the sum of the edges' drawn lengths, in units of one layer (vertically) and one node
  slot (horizontally): dot runs with point nodes, ``nodesep``/``ranksep`` so that a slot is 1 in both
  directions, as ours;
* **time** to lay out (ours in process; dot as a subprocess, ``-Tplain``).

Then our layout time alone at 600 and 10k nodes (synthetic chains). Ratios are ours / dot: > 1 means
ours is worse. ``dot`` comes from the Debian ``graphviz`` package (apt) — a bench/test tool only, never
needed at run time.

    python bench/bench_layout.py [--dot-timeout S]     # numbers and what they show: docs/layout.md
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer import load  # noqa: E402
from explorer.analysis.layout import layout as layered_layout  # noqa: E402
from explorer.analysis.graph import dataflow  # noqa: E402
from explorer.format.synth import synthetic_program  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


# -- the common measure -------------------------------------------------------------------------

def pieces(polylines: list[list[tuple[float, float]]], levels: list[float]) -> dict[int, list[tuple[float, float, int, int]]]:
    """Cut each edge's polyline at every layer level it crosses: {layer k: [(x at level k, x at level k+1,
    edge, ...)]}. A polyline is its points from source to target (y grows downward)."""
    out: dict[int, list] = {}
    for e, pts in enumerate(polylines):
        if pts[0][1] > pts[-1][1]:
            pts = pts[::-1]
        ys = [p[1] for p in pts]
        lo, hi = ys[0], ys[-1]
        ks = [k for k, lv in enumerate(levels) if lo - 1e-6 <= lv <= hi + 1e-6]
        xs = [_x_at(pts, levels[k]) for k in ks]
        for (k, xa), xb in zip(zip(ks, xs), xs[1:]):
            out.setdefault(k, []).append((xa, xb, e))
    return out


def _x_at(pts: list[tuple[float, float]], y: float) -> float:
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if min(y0, y1) - 1e-6 <= y <= max(y0, y1) + 1e-6:
            return x0 if abs(y1 - y0) < 1e-9 else x0 + (x1 - x0) * (y - y0) / (y1 - y0)
    return pts[-1][0] if abs(y - pts[-1][1]) < abs(y - pts[0][1]) else pts[0][0]


def crossings(polylines: list[list[tuple[float, float]]], levels: list[float]) -> int:
    """Strict inversions between the pieces of each pair of adjacent levels (Fenwick tree, O(n log n));
    pieces sharing an upper or a lower end never count."""
    total = 0
    for segs in pieces(polylines, levels).values():
        segs.sort()
        ranks = {v: k + 1 for k, v in enumerate(sorted({round(xb, 6) for _, xb, _ in segs}))}
        tree = [0] * (len(ranks) + 1)
        seen, i = 0, 0
        while i < len(segs):
            j = i
            while j < len(segs) and abs(segs[j][0] - segs[i][0]) <= 1e-6:
                j += 1
            for _, xb, _ in segs[i:j]:
                r, upto = ranks[round(xb, 6)], 0
                while r > 0:
                    upto += tree[r]
                    r -= r & -r
                total += seen - upto  # earlier pieces (left above) ending strictly right below
            for _, xb, _ in segs[i:j]:
                r = ranks[round(xb, 6)]
                while r < len(tree):
                    tree[r] += 1
                    r += r & -r
                seen += 1
            i = j
    return total


def length(polylines: list[list[tuple[float, float]]]) -> float:
    return sum(math.dist(a, b) for pts in polylines for a, b in zip(pts, pts[1:]))


# -- the two layouts ----------------------------------------------------------------------------

def ours(plan) -> tuple[dict, list[tuple[int, int]], float, list[tuple[str, int]]]:
    flow = dataflow(plan)
    start = time.perf_counter()
    lay = layered_layout(plan, flow)
    took = time.perf_counter() - start
    pos = {k: (lay.x[k], lay.y[k]) for k in range(len(lay.nodes))}
    return pos, list(lay.edges), took, list(lay.nodes)


def ours_measure(pos, edges) -> tuple[int, float]:
    lines = [[pos[a], pos[b]] for a, b in edges]
    levels = sorted({y for _, y in pos.values()})
    return crossings(lines, levels), length(lines)


def dot_measure(nodes, edges, timeout: float) -> tuple[int, float, float] | None:
    src = ["digraph G {", "nodesep=0.9; ranksep=0.9; splines=true;",
           "node [shape=point width=0.1 height=0.1 fixedsize=true];"]
    src += [f"n{k};" for k in range(len(nodes))]
    src += [f"n{a} -> n{b};" for a, b in edges]
    src.append("}")
    start = time.perf_counter()
    try:
        done = subprocess.run(["dot", "-Tplain"], input="\n".join(src), capture_output=True, text=True,
                              timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    took = time.perf_counter() - start
    node_y: dict[str, float] = {}
    lines = []
    for row in done.stdout.splitlines():
        f = row.split()
        if f[0] == "node":
            node_y[f[1]] = -float(f[3])
        elif f[0] == "edge":
            n = int(f[3])
            pts = [(float(f[4 + 2 * i]), -float(f[5 + 2 * i])) for i in range(n)]
            lines.append(pts)
    levels = sorted(set(node_y.values()))
    # one unit = one slot (node width + nodesep = 1 inch) / one layer (ranksep + height = 1 inch)
    return crossings(lines, levels), length(lines), took


# -- the graphs ---------------------------------------------------------------------------------

def graphs() -> list[tuple[str, object]]:
    out = []
    for path in sorted(FIXTURES.glob("*.pte")):
        program = load(path)
        for plan in program.plans:
            out.append((f"{path.name}:{plan.name}", plan))
    out.append(("named/transformer3k.pte (3,018 ops)", load(FIXTURES / "named" / "transformer3k.pte").plans[0]))
    wide = synthetic_program(values=1_400, devices=("cuda:0",), device_every=3).plans[0]
    offloaded = sum(i.kind == "DelegateCall" for i in wide.instructions)
    out.append((f"wide device ({len(wide.instructions)} ops, {offloaded} on cuda:0)", wide))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dot-timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    if not shutil.which("dot"):
        print("needs graphviz's dot (apt-get install graphviz)", file=sys.stderr)
        return 2
    print(f"{'graph':44} {'nodes':>6} {'edges':>6} | {'cross ours':>10} {'dot':>6} {'ratio':>6} | "
          f"{'length ours':>11} {'dot':>8} {'ratio':>6} | {'time ours':>9} {'dot':>7}")
    for name, plan in graphs():
        pos, edges, took, nodes = ours(plan)
        c, ln = ours_measure(pos, edges)
        d = dot_measure(nodes, edges, args.dot_timeout)
        if d is None:
            print(f"{name:44} {len(nodes):6} {len(edges):6} | {c:10} {'-':>6} {'-':>6} | {ln:11.0f} "
                  f"{'-':>8} {'-':>6} | {took:8.3f}s  dot > {args.dot_timeout:.0f}s")
            continue
        dc, dl, dt = d
        cr = f"{c / dc:6.2f}" if dc else ("  same" if c == 0 else "   inf")
        print(f"{name:44} {len(nodes):6} {len(edges):6} | {c:10} {dc:6} {cr} | {ln:11.0f} {dl:8.0f} "
              f"{ln / dl if dl else 0:6.2f} | {took:8.3f}s {dt:6.2f}s")
    print()
    for values, label in ((357, "~600 nodes"), (5_890, "~10k nodes")):
        plan = synthetic_program(values=values, devices=("cuda:0",)).plans[0]
        flow = dataflow(plan)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            lay = layered_layout(plan, flow)
            times.append(time.perf_counter() - start)
        print(f"our layout, {label}: {len(lay.nodes):,} nodes, {len(lay.edges):,} edges: "
              f"median {statistics.median(times) * 1000:.0f} ms of 5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
