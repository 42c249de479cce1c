"""The first view of a big plan: how long the page's main thread is blocked from navigation until the graph is
first drawn (issue 21: no task over 100 ms; ``bench_longtask.py`` measures expanding, panning and zooming after it).

    python bench/bench_firstview.py [--runs 5] [--values 12000] [--pte tests/fixtures/named/transformer3k.pte]
                                    [--hundred-k] [--whatif] [--profile]

Without ``--values``/``--pte``/``--hundred-k``/``--whatif`` it measures four pages: the synthetic 12k-value plan (~20k
graph nodes), ``tests/fixtures/named/transformer3k.pte``, a 100k-value synthetic plan (``bench_view.py``'s 100k report)
and the what-if report of transformer3k with its adds moved to cuda:0 (``device-explorer whatif
tests/fixtures/named/transformer3k.pte --move op:aten::add=cuda:0 -o FILE``: two programs side by side, original and
predicted). ``--hundred-k --whatif`` puts the what-if beside the 100k report in one run (issue 32: the what-if was
slower to be ready, ``ready_ms``, than the 100k report).
For each it writes our HTML report and opens it ``--runs`` times in headless Chromium (Debian's), a fresh browser
context each time, recording:

* every long task (``PerformanceObserver`` ``longtask`` entries, main-thread tasks over 50 ms, ``buffered: true``
  from an init script, so the page's load counts) until the first view is done: the page says it is drawn
  (``body[data-ready="1"]``), then no long task and no change under the graph for two frames and 300 ms (a draw
  split into later tasks counts until it is done);
* the longest of them, the longest one that starts at or after the app's own start (``performance.mark
  "dx:start"``, page.js: parsing plotly.js and our modules comes before), how many there are and their sum;
* the renderer's main-thread time over the same span (CDP ``Performance.getMetrics`` ``TaskDuration``; it
  includes the parse of plotly.js, ~4.6 MB);
* the marks the page sets (``dx:start`` → ``dx:data``: payload decode; ``dx:data`` → ``dx:drawn``: the app drawn;
  ``ready_ms``: ``dx:drawn`` from navigation, when the page says it is ready).

Medians over the runs are printed in one table. ``--profile`` adds one more run sampled with the DevTools
profiler (``Profiler.start`` before navigation) and prints where the first view's time goes: self time by function
and inclusive time of the app's stages (see STAGES). The bound (100 ms) is the issue's; no peer is run here
(``bench_view.py`` times the first view against Netron). On a machine shared with other jobs timings vary by
2-3x: note ``uptime``'s load with the numbers.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_longtask import ARGS, BOUND_MS, CHROMIUM, OBSERVE  # noqa: E402  (same browser, same observer)

# the what-if report measured: a 3k-op program and its prediction with every add on cuda:0 (258 copies each way)
WHATIF = (ROOT / "tests" / "fixtures" / "named" / "transformer3k.pte", "op:aten::add=cuda:0")

# the first view is done: the page said it is drawn, then two frames and 300 ms with no long task and no change
# under the graph (tasks the app schedules after "ready" are part of the first view until they are all run)
SETTLE = """() => new Promise(resolve => {
  const gd = document.querySelector('.dx-graph') || document.body;
  let last = performance.now(); const seen = () => window.__dxLong.length;
  let n = seen();
  const watch = new MutationObserver(() => { last = performance.now(); });
  watch.observe(gd, {subtree: true, childList: true, attributes: true, characterData: true});
  const tick = () => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    if (seen() !== n) { n = seen(); last = performance.now(); }
    if (performance.now() - last >= 300) { watch.disconnect(); resolve(performance.now()); } else tick(); }, 50)));
  tick(); })"""

MARKS = """() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"""

# the app's stages, by the function names the report inlines as written (our modules are not minified):
# inclusive time of every sample with the name anywhere on its stack
STAGES = ("decodePayload", "startPage", "mount", "createShell", "show", "planFigures", "react", "lodPlan", "foldPlan",
          "foldFinish", "layered", "draw", "foldTraces", "drawMemory", "labels", "minimap", "memoryStrip", "place")
# stages whose callees are listed too
SPLIT = ("show", "lodPlan", "draw", "drawMemory")


def one_view(browser, report: Path, profile: bool = False) -> dict:
    """Open the report once in a fresh context; the first view's tasks, main-thread time and marks."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    ctx.add_init_script(OBSERVE)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    try:
        cdp.send("Performance.enable")
        if profile:
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 500})
            cdp.send("Profiler.start")
        page.goto(report.as_uri())
        page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=600_000)
        end = page.evaluate(SETTLE)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        prof = cdp.send("Profiler.stop")["profile"] if profile else None
        tasks = page.evaluate("() => window.__dxLong")
        marks = page.evaluate(MARKS)
    finally:
        ctx.close()
    start = marks.get("dx:start", 0.0)
    app = [t for t in tasks if t["start"] + t["ms"] > start and t["start"] <= end]
    row = {"max_task_ms": max((t["ms"] for t in tasks), default=0.0),
           "max_app_task_ms": max((t["ms"] for t in app), default=0.0),
           "long_tasks": len(tasks), "long_ms": sum(t["ms"] for t in tasks),
           "main_thread_ms": metrics.get("TaskDuration", 0.0) * 1000,
           "script_ms": metrics.get("ScriptDuration", 0.0) * 1000,
           "decode_ms": marks.get("dx:data", 0.0) - start,
           "app_ms": marks.get("dx:drawn", 0.0) - marks.get("dx:data", 0.0),
           "ready_ms": marks.get("dx:drawn", 0.0), "done_ms": end - 300,
           "tasks": [(round(t["start"]), round(t["ms"])) for t in tasks],
           "marks": _steps(marks)}
    if prof is not None:
        row["profile"] = prof
    return row


def _steps(marks: dict) -> list:
    """The page's performance marks in time order, each with the ms since the mark before it."""
    out, before = [], None
    for name, at in sorted(marks.items(), key=lambda kv: kv[1]):
        out.append((name, round(at), round(at - before, 1) if before is not None else None))
        before = at
    return out


def measure(browser, reports: dict[str, Path], runs: int) -> dict[str, dict]:
    """Each report opened `runs` times, in turns (one of each, then again): pages compared side by side see the
    same load on a shared machine, not one its quiet minute and the other its busy one. Medians per report."""
    rows: dict[str, list] = {name: [] for name in reports}
    for _ in range(runs):
        for name, report in reports.items():
            rows[name].append(one_view(browser, report))
    out = {}
    for name, got in rows.items():
        med = {k: round(statistics.median(r[k] for r in got), 1) for k in got[0] if k not in ("tasks", "marks")}
        med["runs"] = runs
        med["last_run_tasks"] = got[-1]["tasks"]
        med["last_run_marks"] = got[-1]["marks"]
        out[name] = med
    return out


def where(profile: dict, top: int = 25) -> tuple[list, dict, dict]:
    """Self time by function (largest first), the inclusive time of STAGES, and for each of SPLIT the inclusive
    time of what it calls (the frame just under it, by name and line), from a DevTools CPU profile."""
    nodes = {nd["id"]: nd for nd in profile["nodes"]}
    parent = {c: nd["id"] for nd in profile["nodes"] for c in nd.get("children", [])}
    own: dict = {}
    incl = dict.fromkeys(STAGES, 0.0)
    split: dict = {name: {} for name in SPLIT}

    def named(frame: dict) -> str:
        return f"{frame['functionName'] or '(anonymous)'}:{frame['lineNumber'] + 1}"

    for sid, dt in zip(profile.get("samples", []), profile.get("timeDeltas", [])):
        frame = nodes[sid]["callFrame"]
        key = (frame["functionName"] or "(anonymous)", frame["url"].rsplit("/", 1)[-1][:40], frame["lineNumber"] + 1)
        own[key] = own.get(key, 0.0) + dt / 1000
        seen, q, below = set(), sid, None
        while q is not None:
            name = nodes[q]["callFrame"]["functionName"]
            if name in incl and name not in seen:
                seen.add(name)
                incl[name] += dt / 1000
            if name in split and below is not None:
                callee = named(nodes[below]["callFrame"])
                split[name][callee] = split[name].get(callee, 0.0) + dt / 1000
            below, q = q, parent.get(q)
    return (sorted(own.items(), key=lambda kv: -kv[1])[:top], {k: round(v, 1) for k, v in incl.items()},
            {k: {c: round(ms, 1) for c, ms in sorted(v.items(), key=lambda kv: -kv[1]) if ms >= 2} for k, v in split.items()})


def reports(args, work: Path) -> dict[str, Path]:
    from explorer import load
    from writers.synth import synthetic_program
    from writers.pte import write
    from explorer.views.html.report import write_report

    out: dict[str, Path] = {}
    plans = []
    if args.values:
        plans.append(("values", args.values))
    if args.pte:
        plans.append(("pte", args.pte))
    if args.hundred_k:
        plans.append(("values", 100_000))
    if args.whatif:
        plans.append(("whatif", WHATIF))
    if not plans:
        plans = [("values", 12_000), ("pte", ROOT / "tests" / "fixtures" / "named" / "transformer3k.pte"),
                 ("values", 100_000), ("whatif", WHATIF)]
    for kind, what in plans:
        if kind == "whatif":  # the CLI's what-if report, as a user writes it
            from explorer.cli import main as cli

            name, report = f"what-if {Path(what[0]).stem}", work / "whatif.html"
            assert cli(["whatif", str(what[0]), "--move", what[1], "-o", str(report)], stdout=io.StringIO()) == 0
            print(f"{name} ({what[1]}): report {report.stat().st_size / 1e6:.1f} MB", flush=True)
            out[name] = report
            continue
        if kind == "pte":
            name, program = Path(what).name, load(Path(what))
        else:  # written and read back, as bench_view.py builds its 100k report
            name = f"synthetic {what // 1000}k values"
            pte = work / f"values_{what}.pte"
            pte.write_bytes(write(synthetic_program(values=what)))
            program = load(pte)
        plan = program.plans[0]
        report = work / (name.replace(" ", "_") + ".html")
        write_report(program, report)
        print(f"{name}: {len(plan.tensors) + len(plan.instructions)} graph nodes, "
              f"report {report.stat().st_size / 1e6:.1f} MB", flush=True)
        out[name] = report
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--values", type=int, help="a synthetic plan of this many values")
    parser.add_argument("--pte", type=Path, help="a .pte to open")
    parser.add_argument("--hundred-k", action="store_true", help="the 100k-value synthetic plan")
    parser.add_argument("--whatif", action="store_true", help="the what-if report of transformer3k (adds on cuda:0)")
    parser.add_argument("--profile", action="store_true", help="one more run per plan under the DevTools profiler")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="bench_firstview_"))
    pages = reports(args, work)
    load = os.getloadavg()
    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            results = measure(browser, pages, args.runs)
            for name, report in pages.items():
                print(name, {k: v for k, v in results[name].items() if not k.startswith("last_run")}, flush=True)
                print("   long tasks of the last run (start ms, duration ms):", results[name]["last_run_tasks"], flush=True)
                print("   the page's marks in the last run (name, at ms, ms since the mark before):",
                      results[name]["last_run_marks"], flush=True)
                if args.profile:
                    prof = one_view(browser, report, profile=True)["profile"]
                    top, stages, split = where(prof)
                    print("   inclusive ms by stage:", stages, flush=True)
                    for name, callees in split.items():
                        print(f"   {name} calls (inclusive ms):", callees, flush=True)
                    print("   self ms by function:", flush=True)
                    for (fn, url, line), ms in top:
                        print(f"     {ms:8.1f}  {fn}  {url}:{line}", flush=True)
        finally:
            browser.close()
    cols = ("max_task_ms", "max_app_task_ms", "long_tasks", "long_ms", "main_thread_ms", "decode_ms", "app_ms",
            "ready_ms", "done_ms")
    print(f"\nfirst view, medians of {args.runs} runs (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}); "
          f"bound {BOUND_MS} ms per task")
    print(f"{'plan':28s}" + "".join(f"{c:>17s}" for c in cols))
    for name, row in results.items():
        print(f"{name:28s}" + "".join(f"{row[c]:>17}" for c in cols))
    print(json.dumps({k: {c: v[c] for c in cols} for k, v in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
