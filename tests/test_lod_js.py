"""The app's level-of-detail modules (explorer/frontend/lod*.js) run by Node against a stand-in Plotly:
every function runs (no reference errors), and folding + layout agree exactly with Python for many
expansion sequences. Node is required (CI installs it); tests/test_browser_scale.py runs the same
modules in Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lod_helpers import llm_program, synthetic

from explorer import frontend
from explorer.views.embed import to_json
from explorer.views.overview import Overview
from explorer.views.prepare import plan_view
from explorer.views.report import _plan_payload

NODE = shutil.which("node")
FRONTEND = Path(frontend.__file__).parent

# A Plotly that keeps data and layout as plain objects (dotted keys, per-trace arrays, undefined = keep).
HARNESS = r"""
import fs from "node:fs";
import {lodPlan} from "LOD_MODULE";
function setPath(o, dotted, v) {
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
const P = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const commands = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const clone = (o) => JSON.parse(JSON.stringify(o));
const graph = {data: clone(P.graph.data), layout: clone(P.graph.layout)};
const memory = {data: clone(P.memory.data), layout: clone(P.memory.layout)};
const state = {values: [], instructions: []}, shown = {};
let html = "";
const host = {graph, memory, state, config: {}, shown: () => shown, html: (h) => { html = h; },
              select: (s) => { state.values = s.values || []; state.instructions = s.instructions || []; },
              findings: () => []};
host.expanded = () => {};
let rings = {rings: []}, outlines = {rects: []};
host.rings = (items) => { rings = items; };
host.outlines = (items) => { outlines = items; };
const L = lodPlan(P, host);
const out = [];
for (const c of commands) {
  if (c.op === "expand") L.expand(c.arg);
  else if (c.op === "collapse") L.collapse(c.arg);
  else if (c.op === "select") { state.values = c.values || []; state.instructions = c.instructions || []; L.highlight(state.values, state.instructions); }
  else if (c.op === "hide") { shown[c.arg] = false; L.devices(); }
  else if (c.op === "zoom") L.onRelayout({"xaxis.range[0]": c.arg[0], "xaxis.range[1]": c.arg[1]});
  else if (c.op === "autorange") L.onRelayout({"xaxis.autorange": true});
  else if (c.op === "click") L.clickGraph({curveNumber: c.trace, customdata: c.customdata});
  else if (c.op === "reveal") { state.values = c.values; L.reveal(c.values, []); }
  const f = L.folded();
  out.push({state: L.state(), nodes: f.nodes, x: f.x, y: f.y, edges: f.edges, html: html,
            ringed: rings.rings.length, outlined: outlines.rects.length,
            groups: graph.data[P.lod.trace.groups].customdata, tensors: graph.data[P.lod.trace.tensors].x.length,
            groupOpacity: graph.data[P.lod.trace.groups].marker.opacity,
            memory: memory.data.map((t) => ({type: t.type, n: t.x ? t.x.length : 0, visible: t.visible})),
            notes: (memory.layout.annotations || []).filter((a) => a.name === "aggregated").map((a) => a.text),
            details: [L.valueDetails(c.detail || 0), L.instrDetails(c.detail || 0)]});
}
process.stdout.write(JSON.stringify(out));
"""


def run_js(tmp_path, view, commands) -> list[dict]:
    assert NODE, "node is needed for the app's tests (CI installs it)"
    harness = HARNESS.replace("LOD_MODULE", (FRONTEND / "lod.js").as_uri())
    (tmp_path / "harness.mjs").write_text(harness, encoding="utf-8")
    (tmp_path / "plan.json").write_text(to_json(_plan_payload(view, [], [])), encoding="utf-8")
    (tmp_path / "commands.json").write_text(json.dumps(commands))
    done = subprocess.run([NODE, str(tmp_path / "harness.mjs"), "-", str(tmp_path / "plan.json"),
                           str(tmp_path / "commands.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def python_fold(view, expanded_sequence) -> Overview:
    ov = Overview(view.plan, view.analysis, view.overview.groups)
    for op, arg in expanded_sequence:
        (ov.expand if op == "expand" else ov.collapse)(arg)
    return ov


@pytest.mark.parametrize("which", ["synthetic", "llm"])
def test_report_script_folds_exactly_as_python(tmp_path, which):
    program = synthetic(10_000) if which == "synthetic" else llm_program(120)
    view = plan_view(program.plans[0], program, lod=True)
    G = view.overview.groups
    G.build_all()
    rng = np.random.default_rng(7)
    commands, sequence = [], []
    for step in range(14):  # expand groups at random depths (the limit collapses some), collapse some
        if step % 5 == 4 and sequence:
            target = next((arg for op, arg in reversed(sequence) if op == "expand"), None)
            commands.append({"op": "collapse", "arg": target})
            sequence.append(("collapse", target))
            continue
        gid = int(rng.integers(1, len(G.groups)))
        commands.append({"op": "expand", "arg": gid})
        sequence.append(("expand", gid))
    results = run_js(tmp_path, view, commands)
    for k, result in enumerate(results):
        ov = python_fold(view, sequence[:k + 1])
        F = ov.folded
        assert result["state"]["expanded"] == ov.expanded, k
        assert result["state"]["note"] == ov.note
        assert [tuple(n) for n in result["nodes"]] == list(F.nodes), k
        assert result["x"] == F.x.tolist() and result["y"] == F.y.tolist(), k
        assert result["edges"] == F.edges.tolist(), k
        assert [int(g) for g in result["groups"]] == [n[1] for n in F.nodes if n[0] == "g"]
        assert result["state"]["status"] == ov.status()


def test_report_script_panels_run(tmp_path):
    program = synthetic(10_000)
    view = plan_view(program.plans[0], program, lod=True)
    G = view.overview.groups
    first = G.children(0)[3]
    value = int(np.flatnonzero(G.home == G.groups[first].start + 2)[0])
    commands = [
        {"op": "click", "trace": 8, "customdata": first},
        {"op": "select", "values": [value], "detail": value},
        {"op": "zoom", "arg": [1000, 1300]},
        {"op": "hide", "arg": "cuda:0"},
        {"op": "autorange"},
        {"op": "click", "trace": 9, "customdata": first},
        {"op": "reveal", "values": [9_000]},
    ]
    out = run_js(tmp_path, view, commands)
    expanded, selected, zoomed, hidden, reset, collapsed, revealed = out
    assert expanded["state"]["expanded"] == [first] and expanded["tensors"] > 0 and "group" in expanded["html"]
    assert selected["ringed"] == 1 and "written by" in selected["details"][0] and "#" in selected["details"][1]
    lanes = len(view.memory.arenas)
    assert out[0]["memory"][2 * lanes]["visible"] is not False and out[0]["notes"][0].startswith("aggregated: 5,000")
    assert zoomed["notes"][0].startswith("showing ") and zoomed["memory"][0]["n"] > 0
    assert zoomed["memory"][2 * lanes]["visible"] is False
    assert zoomed["outlined"] == 1  # the selected block outlined
    assert min(hidden["groupOpacity"] or [1]) == 1  # cpu-led groups stay
    assert reset["notes"][0].startswith("aggregated: 5,000")
    assert collapsed["state"]["expanded"] == [] and collapsed["tensors"] == 0
    ov = python_fold(view, [])
    ov.reveal([9_000])
    assert revealed["state"]["expanded"] == ov.expanded and ["v", 9_000] in revealed["nodes"]
    assert revealed["ringed"] == 1
