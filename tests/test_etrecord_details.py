"""An ETRecord's context drawn by the app (docs/etrecord.md "Where it shows"): on the real exports of
tests/fixtures/etrecord/, the level-of-detail modules (explorer/frontend/lod/*.js) run under Node on the payload
``app_payload`` sends, and every instruction executorch's ETRecord maps is described as the Python join
(``program.etrecord``) describes it: module breadcrumb, source line, stack, the nodes before lowering and, for a
delegate call, every node it holds; a tensor names its writer's module and line; the op's hover carries a
short line; the search box finds instructions by module path and source file. The diff shows each side's own
context. Node is required (CI installs it); tests/test_etrecord_details_browser.py clicks the same in Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app_js import with_plotly

import explorer
from explorer import frontend
from explorer.analysis.context import source_frame
from explorer.analysis.diff.compare import diff
from explorer.views.state.diff import diff_plan_view
from explorer.views.payload.diff import diff_payload
from explorer.views.payload.embed import to_json
from explorer.views.payload.app import app_payload

NODE = shutil.which("node")
FRONTEND = Path(frontend.__file__).parent
D = Path(__file__).parent / "fixtures" / "etrecord"

# lodPlan over a plan payload with a stand-in Plotly (data and layout as plain objects), every group open so each
# op is drawn with its own hover; prints per instruction its details, per tensor its details, the ops' hover
# texts by instruction, and the search box's answer for each query; or (diff) the same through diffLod's sides
HARNESS = r"""
import fs from "node:fs";
import {lodPlan} from "LOD";
import {search} from "SEARCH";
import {diffLod} from "DIFF";
import {planFigures} from "FIGURES";
STAND_IN_PLOTLY
const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const clone = (o) => JSON.parse(JSON.stringify(o));
if (input.diff) {  // the diff's own path: diffLod runs a lodPlan per side
  const P = input.plan, fig = () => ({data: [], layout: {}, style: {}}), mem = fig;  // diffLod draws each side's skeletons
  const none = {set: () => {}};
  const D = diffLod(P, {graphs: {a: fig("a"), b: fig("b")}, memories: {a: mem("a"), b: mem("b")}, overlays: {a: none, b: none},
                        memoryOverlays: {a: none, b: none}, config: {}, select: () => {}, details: {innerHTML: ""},
                        names: {a: "A", b: "B"}});
  const out = {};
  for (const s of ["a", "b"]) out[s] = Array.from({length: P.sides[s].lod.m}, (_, i) => D.side(s).instrDetails(i));
  out.found = Object.fromEntries(input.queries.map((q) => [q, D.find(q).instructions]));
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}
const P = input.plan;
const FIG = planFigures(P.lod);  // the skeletons the app draws first (app/app.js)
const graph = {data: clone(FIG.graph.data), layout: clone(FIG.graph.layout)};
const memory = {data: clone(FIG.memory.data), layout: clone(FIG.memory.layout)};
const host = {graph, memory, state: {values: [], instructions: []}, config: {}, shown: () => ({}), html: () => {},
              select: () => {}, findings: () => [], expanded: () => {}, rings: () => {}, outlines: () => {}, moved: () => {}};
const L = lodPlan(P, host);
L.setExpanded(P.lod.groups.start.map((_, g) => g).filter((g) => g > 0));
const ops = graph.data[P.lod.trace.ops], hover = {};
(ops.customdata || []).forEach((i, k) => { hover[i] = ops.hovertext[k]; });
const labels = L.labels(), m = P.lod.m;
const found = {};
for (const q of input.queries) found[q] = search({labels, nValues: P.nValues, nInstructions: P.nInstructions, context: P.context}, q).instructions;
process.stdout.write(JSON.stringify({
  instr: Array.from({length: m}, (_, i) => L.instrDetails(i)),
  value: Object.fromEntries(input.values.map((v) => [v, L.valueDetails(v)])), hover, found}));
"""


def run(tmp_path: Path, plan: dict, *, values=(), queries=(), diff=False) -> dict:
    assert NODE, "node is needed for the app's tests (CI installs it)"
    code = with_plotly(HARNESS)
    for key, name in (("LOD", "lod/plan.js"), ("SEARCH", "shell/search.js"), ("DIFF", "diff/sides.js"), ("FIGURES", "lod/figures.js")):
        code = code.replace(f'"{key}"', json.dumps((FRONTEND / name).as_uri()))
    (tmp_path / "h.mjs").write_text(code, encoding="utf-8")
    (tmp_path / "in.json").write_text(to_json({"plan": plan, "diff": diff, "values": list(values), "queries": list(queries)}),
                                      encoding="utf-8")
    done = subprocess.run([NODE, str(tmp_path / "h.mjs"), str(tmp_path / "in.json")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def fields(html: str) -> dict[str, str]:
    return dict(re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", html, flags=re.S))


def text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def crumbs(ic) -> str:
    """What the breadcrumb must read: the model by its class, then each module as 'path (Class)'."""
    return " \u203a ".join(f.type_name if not f.path else f"{f.path} ({f.type_name})" for f in ic.module)


def joined(name: str):
    return explorer.load(D / f"{name}.pte", etrecord=D / f"{name}.etrecord")


def check_plan(out: dict, program, plan_name: str) -> int:
    """Every mapped instruction's details and hover say what the Python join says; returns how many."""
    ctx, plan = program.etrecord.plan(plan_name), program.plan(plan_name)
    checked = 0
    for i, html in enumerate(out["instr"]):
        ic, f = ctx.at(i), fields(html)
        if ic is None or not ic.nodes:
            assert "module" not in f and "holds" not in f, i
            continue
        checked += 1
        # nodes a pass made (a quantize op, a training step's update) may have no module or stack: no row then
        assert (text(f["module"]) if "module" in f else "") == crumbs(ic), i
        src = f"{ic.source.file}:{ic.source.line} in {ic.source.function}" if ic.source else ""
        assert (text(f["source"]) if "source" in f else "") == src, i
        stack = text(f.get("model stack", ""))
        assert stack.startswith(f"{len(ic.stack)} frame") if ic.stack else not stack, i
        assert all(f"{fr.file}:{fr.line} in {fr.function}" in stack for fr in ic.stack), i
        if plan.instructions[i].kind == "DelegateCall":
            held = text(f["holds"])
            assert held.startswith(f"{ic.backend} holds {len(ic.nodes)} node"), i
            for node in ic.nodes[:12]:  # each with its op, module and line
                assert node.name in held and node.op in held, (i, node.name)
                assert not node.modules or (node.modules[-1].path or node.modules[-1].type_name) in held, (i, node.name)
            assert (f"\u2026 and {len(ic.nodes) - 12} more" in held) == (len(ic.nodes) > 12), i
        else:
            before = text(f["before lowering"])  # the first 12 nodes (a handle can name many), then a count
            assert all(node.name in before and node.op in before for node in ic.nodes[:12]), i
            assert (f"\u2026 and {len(ic.nodes) - 12} more" in before) == (len(ic.nodes) > 12), i
        if out["hover"] is None:  # the diff's sides: hover not read
            continue
        # the op's hover: module's last components and the source's file:line
        line = out["hover"][str(i)].split("<br>")[-1] if ic.source or ic.module else ""
        assert not ic.source or f"{ic.source.file.rsplit('/', 1)[-1]}:{ic.source.line}" in line, (i, line)
        assert not ic.module or ic.module[-1].type_name in line, (i, line)
        assert ic.source or ic.module or out["hover"][str(i)].count("<br>") == 2, i
    return checked


@pytest.mark.parametrize("name", ["net", "net_xnnpack", "split_xnnpack", "two_methods"])
def test_every_mapped_instruction_is_described_as_the_join_says(tmp_path, name):
    program = joined(name)
    payload = app_payload(program, findings=[])
    total = 0
    for k, plan in enumerate(program.plans):
        P = payload["plans"][k]
        (tmp_path / plan.name).mkdir()
        out = run(tmp_path / plan.name, P, values=[t.index for t in plan.tensors])
        total += check_plan(out, program, plan.name)
        ctx = program.etrecord.plan(plan.name)
        said = 0
        for v, html in out["value"].items():  # a tensor: the module and line of its writer, else of its first reader
            f = fields(html)
            writers = [int(w) for w in re.findall(r"#(\d+)", f.get("written by", ""))]
            readers = [int(w) for w in re.findall(r"#(\d+)", f.get("read by", ""))]
            key = "made in" if writers else "used in"
            mapped = [i for i in (writers or readers) if ctx.at(i) is not None and (ctx.at(i).module or ctx.at(i).source)]
            assert (key in f) == bool(mapped), (plan.name, v)
            if mapped:
                said += 1
                ic, got = ctx.at(mapped[0]), text(f[key])
                assert f"(#{mapped[0]})" in got and (not ic.source or f"{ic.source.file}:{ic.source.line}" in got), (v, got)
                assert not ic.module or (ic.module[-1].path or ic.module[-1].type_name) in got, (v, got)
        assert said >= len(plan.tensors) // 2, (said, len(plan.tensors))
    assert total >= 2


def test_net_breadcrumb_reads_as_the_model_is_written(tmp_path):
    program = joined("net")
    out = run(tmp_path, app_payload(program, findings=[])["plans"][0])
    f = fields(out["instr"][1])  # addmm of layers.0.lin
    assert text(f["module"]) == "Net \u203a layers.0 (Block) \u203a layers.0.lin (Linear)"
    assert text(f["source"]) == "scripts/make_etrecord_fixtures.py:62 in forward"
    assert "aten.addmm.default" in f["before lowering"] and "aten.permute_copy.default" in f["before lowering"]
    assert "<details class='dx-ctx-stack'>" in f["model stack"] and "return self.act(self.lin(x))" in f["model stack"]
    assert out["hover"]["1"].endswith("<br>layers.0.lin (Linear)  \u00b7  make_etrecord_fixtures.py:62")


def test_a_delegate_names_every_node_it_holds(tmp_path):
    program = joined("net_xnnpack")
    out = run(tmp_path, app_payload(program, findings=[])["plans"][0])
    held = text(fields(out["instr"][1])["holds"])
    assert held.startswith("XnnpackBackend holds 8 nodes of the model")
    for path in ("layers.0.lin (Linear)", "layers.0.act (ReLU)", "layers.1.lin (Linear)", "head (Linear)"):
        assert path in held, path
    assert "aten.linear.default" in held and "layers.0.lin (Linear) \u00b7 make_etrecord_fixtures.py:62" in held


@pytest.mark.parametrize("name", ["net", "split_xnnpack"])
def test_search_finds_instructions_by_module_path_and_source_file(tmp_path, name):
    program = joined(name)
    plan = program.plans[0]
    ctx = program.etrecord.plan(plan.name)
    paths = sorted({f.path for i in range(len(plan.instructions)) if ctx.at(i) for n in ctx.at(i).nodes for f in n.modules
                    if f.path})
    files = ["make_etrecord_fixtures.py:62", "fixtures.py"]
    out = run(tmp_path, app_payload(program, findings=[])["plans"][0], queries=paths + files)
    for q in paths + files:
        want = []
        for i in range(len(plan.instructions)):
            ic = ctx.at(i)
            if ic is None:
                continue
            mods = [f.path for f in ic.module] + [f.path for n in ic.nodes for f in n.modules]
            srcs = [f"{s.file}:{s.line}" for s in [ic.source] + [source_frame(n.stack)
                                                                 for n in ic.nodes] if s is not None]
            if any(q.lower() in p.lower() for p in mods + srcs) or q.lower() in plan.instructions[i].label.lower():
                want.append(i)
        assert out["found"][q] == want and want, q


def test_the_diff_shows_each_sides_own_context(tmp_path):
    pa, pb = joined("net"), joined("net_xnnpack")
    result = diff(pa, pb)
    views = {p.plan: diff_plan_view(result, pa, pb, p.plan) for p in result.plans}
    P = diff_payload(result, views, programs=(pa, pb))["plans"][0]
    assert P["lod"] and P["contexts"]["a"] and P["contexts"]["b"]
    out = run(tmp_path, P, diff=True, queries=["layers.1.act"])
    a, b = ({"instr": out[s], "hover": None} for s in "ab")
    assert check_plan(a, pa, "forward") == len(pa.plan("forward").instructions)
    assert check_plan(b, pb, "forward") == 2
    assert "holds" in fields(b["instr"][1]) and "holds" not in fields(a["instr"][1])
    assert out["found"]["layers.1.act"] == {"a": [5], "b": [1]}

def test_a_side_without_an_etrecord_has_no_context_rows(tmp_path):
    pa, pb = joined("net"), explorer.load(D / "net_xnnpack.pte")
    result = diff(pa, pb)
    views = {p.plan: diff_plan_view(result, pa, pb, p.plan) for p in result.plans}
    P = diff_payload(result, views, programs=(pa, pb))["plans"][0]
    assert P["contexts"]["b"] is None
    out = run(tmp_path, P, diff=True)
    assert all("module" not in fields(h) and "holds" not in fields(h) for h in out["b"])
    assert sum("module" in fields(h) for h in out["a"]) == len(pa.plan("forward").instructions)
