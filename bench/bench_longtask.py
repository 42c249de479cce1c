"""How long the page's main thread is blocked while a big plan opens, is expanded and is panned and zoomed (issue
21: "layout of a 20k-node expanded view never blocks the page for more than 100 ms at a time").

    python bench/bench_longtask.py [--values 12000] [--pte tests/fixtures/named/transformer3k.pte] [--steps 8] [--profile]

Writes our HTML report of a synthetic plan (``writers.synth.synthetic_program``, ~1.7 graph nodes per
value: 12k values ≈ 20k nodes) or of a given ``.pte``, opens it in headless Chromium (Debian's) and records
every long task (``PerformanceObserver`` ``longtask`` entries: main-thread tasks over 50 ms) with
``buffered: true``, so the page's load counts too (printed, not judged). Then it expands the plan's groups the
way the group tree opens, a whole level at a time (every group the folded view shows is added to the expanded
set through ``window.dxReport.lod().setExpanded``, each call run from a page ``setTimeout`` so it is an ordinary
task, not a DevTools one), until the app has to collapse a group to stay within its visible-node limit or
nothing is left folded. A step ends when its layout (in the Web Worker, frontend/layout/worker.js, or on the
main thread for a small fold) is drawn, plus two frames and 200 ms. Per step it prints the fold's nodes, the
nodes drawn (those near the view), where the layout ran, the call's own duration, the time until drawn and the
longest task. Then the expanded view is shown whole (a double click: autorange), zoomed in to the readable
scale, panned down the graph twice and shown whole again, each with its longest task. Last, three tensors of
the expanded view are selected (what a click calls) and the time to the next frame with the details filled is
printed (-1: details not filled). The last line says PASS or FAIL: whether any task while expanding, panning or
zooming was over 100 ms. No peer: Netron lays out in a Web Worker, so its main thread has no such task; the
100 ms bound is the issue's. Timings on a machine shared with other jobs vary by 2-3x: run it a few times.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
BOUND_MS = 100

# every long task of the page from its start, before any page script runs
OBSERVE = """(() => { window.__dxLong = [];
  new PerformanceObserver(list => { for (const e of list.getEntries())
    window.__dxLong.push({start: e.startTime, ms: e.duration}); }).observe({type: 'longtask', buffered: true}); })();"""

STEP = """(want) => new Promise(resolve => { const lod = window.dxReport.lod();
  window.__dxLong = [];
  const before = lod.layout();
  setTimeout(() => { const t0 = performance.now(); lod.setExpanded(want); const call = performance.now() - t0;
    // the step ends when its layout (in the worker or not) is drawn, then two frames: the plot's own paint work
    // after the draw, and the labels placed in their own task, are part of it
    const wait = () => { const s = lod.layout();
      if (s.running || s.draws === before.draws) { setTimeout(wait, 5); return; }
      const drawn = performance.now() - t0;
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve({call, drawn, s, before}), 200))); };
    wait(); }, 0); })"""

# a pan or zoom of the expanded view, as plotly's own pan/zoom/double click send it (Plotly.relayout): what=
# "whole" (double click: autorange), "pan" (one view height down the graph, centred on a node there), "zoom" (in to the readable scale around the
# fold's middle node); the step ends when the app has redrawn (or 400 ms passed: nothing to redraw)
VIEW = """(what) => new Promise(resolve => { const gd = document.querySelector('.dx-graph'), lod = window.dxReport.lod();
  window.__dxLong = [];
  const d0 = lod.layout().draws, xr = gd.layout.xaxis.range.slice(), yr = gd.layout.yaxis.range.slice();
  const w = xr[1] - xr[0], h = yr[1] - yr[0], cx = (xr[0] + xr[1]) / 2, cy = (yr[0] + yr[1]) / 2;
  const upd = what === 'whole' ? {'xaxis.autorange': true, 'yaxis.autorange': true}
    : what === 'pan' ? down()
    : readable();
  function down() {  // one view height down the graph, centred on the node there nearest the view's centre line
    const f = lod.folded();
    let best = -1, score = Infinity;
    f.x.forEach((x, p) => { const d = Math.abs(-f.y[p] - (cy - h)) * 1000 + Math.abs(x - cx); if (d < score) { score = d; best = p; } });
    return {'xaxis.range': [f.x[best] - w / 2, f.x[best] + w / 2], 'yaxis.range': [-f.y[best] - h / 2, -f.y[best] + h / 2]}; }
  function readable() {  // the middle node of the fold at the scale a group opens at (panels/nav.js READABLE: 44 x 20 px)
    const f = lod.folded(), p = Math.floor(f.nodes.length / 2), sz = gd._fullLayout._size;
    const hw = sz.w / 44 / 2, hh = sz.h / 20 / 2;
    return {'xaxis.range': [f.x[p] - hw, f.x[p] + hw], 'yaxis.range': [-f.y[p] - hh, -f.y[p] + hh]}; }
  setTimeout(() => { const t0 = performance.now(); Plotly.relayout(gd, upd);
    const wait = () => { const s = lod.layout();
      if (s.draws === d0 && performance.now() - t0 < 400) { setTimeout(wait, 5); return; }
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve({ms: performance.now() - t0, s}), 200))); };
    wait(); }, 0); })"""

STATE = """() => { const lod = window.dxReport.lod(), f = lod.folded(), s = lod.state();
  return {drawn: f.nodes.length, folded: f.nodes.filter(nd => nd[0] === 'g').map(nd => nd[1]),
          expanded: s.expanded, note: s.note}; }"""


def measure(report: Path, steps: int, profile: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    out: dict = {"steps": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
            ctx.add_init_script(OBSERVE)
            page = ctx.new_page()
            page.goto(report.as_uri())
            page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=300_000)
            page.wait_for_timeout(1000)
            load = page.evaluate("() => window.__dxLong")
            out["load"] = {"long_tasks": len(load), "max_ms": round(max((t["ms"] for t in load), default=0), 1)}
            print("load", out["load"], flush=True)
            for k in range(steps):
                st = page.evaluate(STATE)
                if not st["folded"] or st["note"]:
                    break
                want = st["expanded"] + [g for g in st["folded"] if g not in st["expanded"]]
                t0 = time.monotonic()
                if profile:
                    cdp = ctx.new_cdp_session(page)
                    cdp.send("Profiler.enable")
                    cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
                    cdp.send("Profiler.start")
                res = page.evaluate(STEP, want)
                prof = cdp.send("Profiler.stop")["profile"] if profile else None
                top = _self_times(prof) if profile else None
                tasks = page.evaluate("() => window.__dxLong")
                after = page.evaluate(STATE)
                lay, lay0 = res["s"], res["before"]
                row = {"step": k + 1, "asked_groups": len(want), "expanded": len(after["expanded"]),
                       "fold_nodes": after["drawn"], "drawn_nodes": lay["drawnNodes"], "call_ms": round(res["call"], 1),
                       "to_drawn_ms": round(res["drawn"], 1),
                       "laid_out_in": "worker" if lay["worker"] > lay0["worker"] else "main thread",
                       "long_tasks": len(tasks), "max_task_ms": round(max((t["ms"] for t in tasks), default=0), 1),
                       "wall_s": round(time.monotonic() - t0, 2), "note": after["note"]}
                if profile:
                    row["inclusive_ms"] = _inclusive(prof)
                out["steps"].append(row)
                print(row, flush=True)
                if top:
                    print("  where the step's time goes (self ms, by function and file):", flush=True)
                    for (fn, url), ms in top:
                        print(f"    {ms:8.1f}  {fn or '(anonymous)'}  {url}", flush=True)
            out["views"] = []
            for what in ("whole", "zoom", "pan", "pan", "whole"):
                res = page.evaluate(VIEW, what)
                tasks = page.evaluate("() => window.__dxLong")
                lay = res["s"]
                row = {"view": what, "drawn_nodes": lay["drawnNodes"], "dots": lay["dots"],
                       "long_tasks": len(tasks), "max_task_ms": round(max((t["ms"] for t in tasks), default=0), 1)}
                out["views"].append(row)
                print(row, flush=True)
            # a click on a drawn tensor of the expanded view (what a click calls): to the next frame, details filled
            clicks = page.evaluate("""async () => { const app = window.dxReport, f = app.lod().folded();
              const vs = f.nodes.filter(nd => nd[0] === 'v').map(nd => nd[1]), out = [];
              for (const v of [vs[0], vs[Math.floor(vs.length / 2)], vs[vs.length - 1]]) {
                window.__dxLong = []; const t0 = performance.now(); app.select({values: [v]});
                await new Promise(r => requestAnimationFrame(() => r()));
                const ok = document.querySelector('.dx-details').textContent.includes('%' + v);
                out.push({v, ms: ok ? performance.now() - t0 : -1});
                await new Promise(r => setTimeout(r, 300)); app.select({values: []});
                await new Promise(r => setTimeout(r, 300)); }
              return out; }""")
            out["click_in_expanded_view_ms"] = [round(c["ms"], 1) for c in clicks]
            print("click in the expanded view", out["click_in_expanded_view_ms"], flush=True)
            ctx.close()
        finally:
            browser.close()
    expand_max = max((r["max_task_ms"] for r in out["steps"]), default=0)
    out["max_task_panning_zooming_ms"] = max((r["max_task_ms"] for r in out.get("views", [])), default=0)
    out["max_task_while_expanding_ms"] = expand_max
    out["max_drawn_nodes"] = max((r["drawn_nodes"] for r in out["steps"]), default=0)
    out["over_bound"] = max(expand_max, out["max_task_panning_zooming_ms"]) > BOUND_MS
    return out


def _self_times(profile: dict, top: int = 15) -> list:
    """The DevTools CPU profile's samples summed by function (self time), largest first."""
    nodes = {nd["id"]: nd for nd in profile["nodes"]}
    acc: dict = {}
    for sid, dt in zip(profile.get("samples", []), profile.get("timeDeltas", [])):
        frame = nodes[sid]["callFrame"]
        key = (frame["functionName"], frame["url"].rsplit("/", 1)[-1][:60])
        acc[key] = acc.get(key, 0.0) + dt / 1000
    return sorted(acc.items(), key=lambda kv: -kv[1])[:top]


# our functions a step runs through (not minified: the report inlines our modules as written): their
# inclusive time splits a step into the fold with its layout (lod/base.js fold -> layout/layout.js layered) and the
# drawing (lod/graph.js draw, which builds the traces and ends in plotly's react, minified: not named here)
PARTS = ("foldPlan", "foldFinish", "layered", "draw", "foldTraces")


def _inclusive(profile: dict) -> dict:
    """ms of samples with each of PARTS anywhere on the stack (counted once per sample)."""
    nodes = {nd["id"]: nd for nd in profile["nodes"]}
    parent = {c: nd["id"] for nd in profile["nodes"] for c in nd.get("children", [])}
    acc = dict.fromkeys(PARTS, 0.0)
    for sid, dt in zip(profile.get("samples", []), profile.get("timeDeltas", [])):
        seen, q = set(), sid
        while q is not None:
            name = nodes[q]["callFrame"]["functionName"]
            if name in acc and name not in seen:
                seen.add(name)
                acc[name] += dt / 1000
            q = parent.get(q)
    return {k: round(v, 1) for k, v in acc.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=12_000, help="values of the synthetic plan")
    parser.add_argument("--pte", type=Path, help="a .pte to open instead of the synthetic plan")
    parser.add_argument("--steps", type=int, default=8, help="expansion steps at most")
    parser.add_argument("--profile", action="store_true",
                        help="also sample each step with the DevTools profiler and print where its time goes")
    args = parser.parse_args(argv)
    from explorer import load
    from writers.synth import synthetic_program
    from explorer.views.html.report import write_report

    program = load(args.pte) if args.pte else synthetic_program(values=args.values)
    plan = program.plans[0]
    report = Path(tempfile.mkdtemp(prefix="bench_longtask_")) / "plan.html"
    write_report(program, report)
    result = {"plan": str(args.pte) if args.pte else f"synthetic, {args.values} values",
              "graph_nodes": len(plan.tensors) + len(plan.instructions), **measure(report, args.steps, args.profile),
              "bound_ms": BOUND_MS}
    print(json.dumps(result, indent=1))
    verdict = "FAIL" if result["over_bound"] else "PASS"
    print(f"{verdict}: longest task expanding {result['max_task_while_expanding_ms']} ms, panning/zooming "
          f"{result['max_task_panning_zooming_ms']} ms (bound {BOUND_MS} ms; the page's load is not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
