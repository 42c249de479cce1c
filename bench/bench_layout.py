"""Our layered layout against graphviz ``dot`` on the same graphs.

Ours is ``explorer/frontend/layout/layout.js`` (run under node: what the browser runs; there is no other copy).
For each graph — the top-level fixtures, the real 3k-op named transformer, and a wide 1k-op device
program (our writer: ~200 steps offloaded to cuda:0, each between an h2d and a d2h copy) — the dataflow graph
of ``tests/layout_graphs.py:graph_of`` (a plan's tensors and instructions, unfolded) is laid out by ours and by ``dot``
and both are measured the same way:

* **crossings**: every edge is cut into one piece per pair of adjacent layers it passes (ours follow their
  polylines, dot's its splines); the pieces between two layers are sorted by their upper end and the
  inversions of their lower ends counted (pieces sharing an end never count);
* **edge length**: the sum of the edges' drawn lengths from node centre to node centre, in units of one
  layer (vertically) and one node slot (horizontally): dot runs with point nodes, no arrowheads and
  ``nodesep``/``ranksep`` so that a slot is 1 in both directions, as ours;
* **time** to lay out: JS the median of 3 runs in one node process (wall, and in brackets the process's
  CPU time, steadier on a busy machine), dot as a subprocess (``-Tplain``).

Then our layout time alone at 600 and 10k nodes (synthetic device chains). Ratios are ours / dot: > 1
means ours is worse. ``dot`` comes from the Debian ``graphviz`` package (apt) — a bench tool only, never
needed at run time or by a test.

    python bench/bench_layout.py [--dot-timeout S]   # numbers and what they show: docs/layout.md
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the graphs the layout tests measure

from explorer import load  # noqa: E402
from layout_graphs import LayoutGraph, graph_of, inversions  # noqa: E402
from writers.synth import synthetic_program  # noqa: E402

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
    """Strict inversions between the pieces of each pair of adjacent levels (explorer.analysis.layout.inversions,
    the count the tests use), ends rounded to 1e-6 so that float noise in dot's output never makes two pieces
    sharing an end look crossed."""
    return sum(inversions([(round(xa, 6), round(xb, 6)) for xa, xb, _ in segs])
               for segs in pieces(polylines, levels).values())


def length(polylines: list[list[tuple[float, float]]]) -> float:
    return sum(math.dist(a, b) for pts in polylines for a, b in zip(pts, pts[1:]))


# -- the layouts ------------------------------------------------------------------------------

RUNNER = ROOT / "bench" / "layout_runner.mjs"


def run_js(graphs: list[LayoutGraph], repeat: int = 1) -> list[dict]:
    """explorer/frontend/layout/layout.js under node on each graph: rank, x, order, paths and per-run times (ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps([{"count": len(g.nodes), "src": g.src, "dst": g.dst, "weight": g.weight,
                                    "key": g.key} for g in graphs]))
        subprocess.run(["node", str(RUNNER), str(src), str(dst), str(repeat)], check=True)
        return json.loads(dst.read_text())


def ours_measure(paths: list[list[float]]) -> tuple[int, float]:
    lines = [list(zip(p[0::2], p[1::2])) for p in paths if p]
    levels = sorted({y for line in lines for _, y in line})
    return crossings(lines, levels), length(lines)


def dot_measure(count: int, src, dst, timeout: float) -> tuple[int, float, float] | None:
    lines_in = ["digraph G {", "nodesep=0.9; ranksep=0.9; splines=true; edge [arrowhead=none];",
                "node [shape=point width=0.1 height=0.1 fixedsize=true];"]
    lines_in += [f"n{k};" for k in range(count)]
    lines_in += [f"n{a} -> n{b};" for a, b in zip(src, dst) if a != b]
    lines_in.append("}")
    start = time.perf_counter()
    try:
        done = subprocess.run(["dot", "-Tplain"], input="\n".join(lines_in), capture_output=True, text=True,
                              timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    took = time.perf_counter() - start
    node: dict[str, tuple[float, float]] = {}
    lines = []
    for row in done.stdout.splitlines():
        f = row.split()
        if f[0] == "node":
            node[f[1]] = (float(f[2]), -float(f[3]))
        elif f[0] == "edge":  # its spline runs between the node borders: measured from centre to centre
            n = int(f[3])
            pts = [(float(f[4 + 2 * i]), -float(f[5 + 2 * i])) for i in range(n)]
            lines.append([node[f[1]], *pts, node[f[2]]])
    levels = sorted({y for _, y in node.values()})
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
    if not shutil.which("dot") or not shutil.which("node"):
        print("needs graphviz's dot (apt-get install graphviz) and node", file=sys.stderr)
        return 2
    named = graphs()
    laid = [graph_of(plan) for _, plan in named]
    js = run_js(laid, repeat=3)
    print(f"{'graph':44} {'nodes':>6} {'edges':>6} | {'cross ours':>10} {'dot':>6} | "
          f"{'length ours':>11} {'dot':>8} {'ratio':>6} | {'js (cpu)':>15} {'dot':>7}")
    for (name, _), g, out in zip(named, laid, js):
        c, ln = ours_measure(out["paths"])
        d = dot_measure(len(g.nodes), g.src, g.dst, args.dot_timeout)
        jt = f"{statistics.median(out['ms']) / 1000:6.3f}s ({statistics.median(out['cpu']) / 1000:5.3f})"
        if d is None:
            print(f"{name:44} {len(g.nodes):6} {len(g.src):6} | {c:10} {'-':>6} | {ln:11.0f} {'-':>8} {'-':>6} | "
                  f"{jt} > {args.dot_timeout:.0f}s")
            continue
        dc, dl, dt = d
        print(f"{name:44} {len(g.nodes):6} {len(g.src):6} | {c:10} {dc:6} | {ln:11.0f} {dl:8.0f} "
              f"{ln / dl if dl else 0:6.2f} | {jt} {dt:6.2f}s")
    print()
    sizes = [(357, "~600 nodes"), (5_890, "~10k nodes")]
    plans = [synthetic_program(values=values, devices=("cuda:0",)).plans[0] for values, _ in sizes]
    chains = [graph_of(plan) for plan in plans]
    timed = run_js(chains, repeat=5)
    for (_, label), g, out in zip(sizes, chains, timed):
        print(f"device chain, {label}: {len(g.nodes):,} nodes, {len(g.src):,} edges: JS median "
              f"{statistics.median(out['ms']):.0f} ms of 5, CPU {statistics.median(out['cpu']):.0f} ms "
              f"(first {out['ms'][0]:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
