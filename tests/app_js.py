"""The app's drawing modules (``explorer/frontend/lod/*.js``: every plan, at every size) run by node against a
stand-in Plotly that keeps data and layout as plain objects — what the page would draw, as JSON, for tests that
check the figures themselves (markers, colours, hover texts, memory lanes) without a browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from explorer import frontend
from explorer.views.payload.embed import to_json
from explorer.views.payload.app import plan_entry

NODE = shutil.which("node")
FRONTEND = Path(frontend.__file__).parent

def with_plotly(script: str) -> str:
    """A node script with the stand-in Plotly in place of its ``STAND_IN_PLOTLY`` line."""
    return script.replace("STAND_IN_PLOTLY\n", STAND_IN_PLOTLY)


# A Plotly that keeps data and layout as plain objects (dotted keys, per-trace arrays, undefined = keep): what the
# page would draw, as JSON. Shared by every harness that runs the app's modules under node (with_plotly).
STAND_IN_PLOTLY = r"""function setPath(o, dotted, v) {
  const ks = dotted.split(".");
  for (let q = 0; q < ks.length - 1; q++) { if (typeof o[ks[q]] !== "object" || o[ks[q]] === null) o[ks[q]] = {}; o = o[ks[q]]; }
  o[ks[ks.length - 1]] = v;
}
function restyle(gd, upd, idx) {
  idx = idx === undefined ? gd.data.map((_, q) => q) : [].concat(idx);
  for (const key of Object.keys(upd)) idx.forEach((q, j) => {
    const v = Array.isArray(upd[key]) ? upd[key][j % upd[key].length] : upd[key];
    if (v !== undefined) setPath(gd.data[q], key, v);
  });
}
function relayout(gd, upd) { for (const key of Object.keys(upd || {})) setPath(gd.layout, key, upd[key]); }
global.Plotly = {react: (gd, d, l) => { gd.data = d; gd.layout = l; }, restyle: restyle, relayout: relayout,
                 update: (gd, t, l, idx) => { restyle(gd, t, idx); relayout(gd, l); }};
"""

# A Plotly that keeps data and layout as plain objects (dotted keys, per-trace arrays, undefined = keep).
HARNESS = r"""
import fs from "node:fs";
import {lodPlan} from "LOD_MODULE";
import {planFigures} from "FIGURES_MODULE";
STAND_IN_PLOTLY
const P = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const commands = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const clone = (o) => JSON.parse(JSON.stringify(o));
const FIG = planFigures(P.lod);  // the skeletons the app draws first (app/app.js), built from the tables
const graph = {data: clone(FIG.graph.data), layout: clone(FIG.graph.layout)};
const memory = {data: clone(FIG.memory.data), layout: clone(FIG.memory.layout)};
const state = {values: [], instructions: []}, shown = {};
let html = "";
const host = {graph, memory, state, config: {}, shown: () => shown, html: (h) => { html = h; },
              select: (s) => { state.values = s.values || []; state.instructions = s.instructions || []; },
              findings: () => []};
host.expanded = () => {};
let rings = {rings: []}, outlines = {rects: []};
host.rings = (items) => { rings = items; };
host.outlines = (items) => { outlines = items; };
// P.testPlot [w, h]: a plot area of that size, as plotly lays one out (lod/graph.js draws a big fold near the view
// only where there is a plot); without it every node is drawn
if (P.testPlot) graph._fullLayout = {_size: {w: P.testPlot[0], h: P.testPlot[1]}, height: P.testPlot[1] + 96};
let painted = null;  // an overlay (P.testOverlay): the graph coloured by it (overlay/view.js), as the app does
if (P.testOverlay) {
  const OV = await import("OVERLAY_MODULE");
  host.paint = (traces) => { painted = OV.paintTraces(P.testOverlay, traces, P.lod.trace); };
  host.detailRows = (kind, index) => [OV.detailRow(P.testOverlay, kind, index)];
}
// P.testStaged: the first state drawn when a command says (drawFirst), as the app's staged first view does
const L = lodPlan(P, host, P.testStaged ? {draw: false} : undefined);
const out = [];
for (const c of commands) {
  if (c.op === "redraw") L.redraw();
  else if (c.op === "drawFirst") { L.drawFirst(); L.drawMemory(); }
  else if (c.op === "expand") L.expand(c.arg);
  else if (c.op === "collapse") L.collapse(c.arg);
  else if (c.op === "select") { state.values = c.values || []; state.instructions = c.instructions || []; L.highlight(state.values, state.instructions); }
  else if (c.op === "hide") { shown[c.arg] = false; L.devices(); }
  else if (c.op === "zoom") L.onRelayout({"xaxis.range[0]": c.arg[0], "xaxis.range[1]": c.arg[1]});
  else if (c.op === "autorange") L.onRelayout({"xaxis.autorange": true});
  else if (c.op === "click") L.clickGraph({curveNumber: c.trace, customdata: c.customdata});
  else if (c.op === "reveal") { state.values = c.values; L.reveal(c.values, []); }
  else if (c.op === "set") L.setExpanded(c.arg);
  const f = L.folded(), grid = P.lod.arenas.length ? L.lane(0).heat : null;  // lane 0's cells (panels/cells.js), as drawn now
  out.push({state: L.state(), nodes: f.nodes, x: f.x, y: f.y, edges: f.edges, paths: f.paths, html: html,
            edgeTensors: f.tensors, edgeBytes: f.bytes, instUnit: Array.from(f.instUnit), valueUnit: Array.from(f.valueUnit),
            status: graph.layout.annotations[0].text, headers: graph.data[P.lod.trace.headers].x.length,
            shapes: (graph.layout.shapes || []).map((sh) => sh.name), ranges: [graph.layout.xaxis.range, graph.layout.yaxis.range],
            groupLine: graph.data[P.lod.trace.groups].marker.line.color,
            heat: grid ? {nx: grid.nx, ny: grid.ny, w: grid.w, height: grid.height, share: Array.from(grid.share),
                          count: Array.from(grid.count), top: Array.from(grid.top)} : null,
            lane0: memory.data.length ? memory.data[0].customdata : [], lane0text: memory.data.length ? memory.data[0].text : [],
            lane0line: memory.data.length && memory.data[0].marker.line ? memory.data[0].marker.line.color : [],
            overflow: (memory.layout.annotations || []).filter((a) => a.name === "overflow").map((a) => a.text),
            ringed: rings.rings.length, outlined: outlines.rects.length, stubs: f.stubs,
            bold: (rings.edges || []).reduce((k, e) => k + e.xs.filter((x) => x === null).length, 0),
            drawnEdges: [0, 1, 2, 3].reduce((k, q) => k + (graph.data[q].x || []).filter((x) => x === null).length, 0),
            stubDots: (graph.data[P.lod.trace.crossings].hovertext || []).filter((h) => / drawn as a stub /.test(h)).length,
            groups: graph.data[P.lod.trace.groups].customdata, tensors: graph.data[P.lod.trace.tensors].x.length,
            groupOpacity: graph.data[P.lod.trace.groups].marker.opacity,
            memory: memory.data.map((t) => ({type: t.type, n: t.x ? t.x.length : 0, visible: t.visible})),
            notes: (memory.layout.annotations || []).filter((a) => a.name === "aggregated").map((a) => a.text),
            noteAt: (memory.layout.annotations || []).filter((a) => a.name === "aggregated")
              .map((a) => ({yref: a.yref, yanchor: a.yanchor, yshift: a.yshift})),
            memshapes: (memory.layout.shapes || []).map((sh) => sh.name),
            details: [L.valueDetails(c.detail || 0), L.instrDetails(c.instr === undefined ? c.detail || 0 : c.instr)]
              .concat(c.group === undefined ? [] : [L.groupDetails(c.group)]),
            domain: painted,
            figures: c.figures ? {graph: clone(graph), memory: clone(memory)} : null});
}
process.stdout.write(JSON.stringify(out));
"""


def run_payload_js(tmp_path, plan_payload: dict, commands) -> list[dict]:
    """:func:`run_js` on a plan's payload as the app receives it (``app_payload(...)["plans"][k]``). With
    ``plan_payload["testOverlay"]`` (one overlay of :mod:`explorer.views.payload.overlays`) the graph is coloured by it
    as the app colours it (overlay/view.js ``paintTraces``, ``detailRow``); ``domain`` is then the scale's span."""
    assert NODE, "node is needed for the app's tests (CI installs it)"
    harness = with_plotly(HARNESS).replace("LOD_MODULE", (FRONTEND / "lod/plan.js").as_uri()).replace(
        "OVERLAY_MODULE", (FRONTEND / "overlay/view.js").as_uri()).replace("FIGURES_MODULE", (FRONTEND / "lod/figures.js").as_uri())
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "harness.mjs").write_text(harness, encoding="utf-8")
    (tmp_path / "plan.json").write_text(to_json(plan_payload), encoding="utf-8")
    (tmp_path / "commands.json").write_text(json.dumps(commands))
    done = subprocess.run([NODE, str(tmp_path / "harness.mjs"), "-", str(tmp_path / "plan.json"),
                           str(tmp_path / "commands.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def run_js(tmp_path, view, commands) -> list[dict]:
    """Run the app's drawing modules on ``view``'s payload under node, then ``commands`` (expand, select, click,
    zoom, ...); per command what is drawn then (``figures: True`` in a command adds both figures whole)."""
    return run_payload_js(tmp_path, plan_entry(view, [], []), commands)


def drawn(tmp_path, view) -> tuple[dict, dict]:
    """(graph, memory): both figures as the app first draws ``view`` (every group of a small plan open)."""
    out = run_js(tmp_path, view, [{"op": "noop", "figures": True}])[0]["figures"]
    return out["graph"], out["memory"]


# The diff (explorer/frontend/diff/sides.js) over a diff plan's payload, with the same stand-in Plotly: per command
# the details of a selection, the counterpart of a node, or what is drawn (each side's nodes, the marks over them).
DIFF_HARNESS = r"""
import fs from "node:fs";
import {diffLod} from "DIFF_MODULE";
STAND_IN_PLOTLY
const P = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const commands = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const fig = () => ({data: [], layout: {}, style: {}});  // a div: plotly keeps its figure in it
const graphs = {a: fig(), b: fig()}, memories = {a: fig(), b: fig()}, painted = {a: null, b: null};
const overlays = {a: {set: (x) => { painted.a = x; }}, b: {set: (x) => { painted.b = x; }}};
const quiet = {a: {set: () => {}}, b: {set: () => {}}}, details = {innerHTML: ""};
const D = diffLod(P, {graphs, memories, overlays, memoryOverlays: quiet, config: {}, details, names: {a: "A", b: "B"},
                      select: () => {}});
const out = [];
for (const c of commands) {
  const state = {side: c.side || "", values: {a: c.va || [], b: c.vb || []}, instructions: {a: c.ia || [], b: c.ib || []}};
  if (c.op === "details") out.push(D.details(state));
  else if (c.op === "counterpart") out.push(D.counterpart(c.side, c.kind, c.x) ?? null);
  else if (c.op === "drawn") {
    const side = (s) => { const f = D.side(s).folded();
      return {nodes: f.nodes, x: f.x, y: f.y, marks: painted[s].marks, texts: painted[s].texts, memory: memories[s].data}; };
    out.push({a: side("a"), b: side("b")});
  }
}
process.stdout.write(JSON.stringify(out));
"""


def run_diff_js(tmp_path, plan_payload: dict, commands) -> list:
    """Run the diff's drawing (diff/sides.js) on one plan of a diff payload under node, then ``commands``:
    ``{"op": "details", "side", "va", "vb", "ia", "ib"}`` (the details of that selection), ``{"op": "counterpart",
    "side", "kind": "v"|"i", "x"}``, ``{"op": "drawn"}`` (each side's nodes, the marks over them, its lanes)."""
    assert NODE, "node is needed for the app's tests (CI installs it)"
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "diff.mjs").write_text(with_plotly(DIFF_HARNESS).replace("DIFF_MODULE", (FRONTEND / "diff/sides.js").as_uri()),
                                       encoding="utf-8")
    (tmp_path / "pair.json").write_text(to_json(plan_payload), encoding="utf-8")
    (tmp_path / "commands.json").write_text(json.dumps(commands))
    done = subprocess.run([NODE, str(tmp_path / "diff.mjs"), str(tmp_path / "pair.json"), str(tmp_path / "commands.json")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
