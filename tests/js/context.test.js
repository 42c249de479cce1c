// An ETRecord's context (plans[].context, explorer/views/payload/context.py) in the app: the details' rows of an
// instruction and a tensor (lod/details.js), the op's hover line (lod/base.js) and the search box (shell/search.js).
import test from "node:test";
import assert from "node:assert/strict";
import {contextRows, producerRows, moduleCrumbs} from "../../explorer/frontend/lod/details.js";
import {contextHover} from "../../explorer/frontend/lod/text.js";
import {search, contextMatches} from "../../explorer/frontend/shell/search.js";
import {sideContext} from "../../explorer/frontend/diff/sides.js";

// 4 instructions: #0 permute + #1 addmm share one handle (both nodes), #2 relu, #3 a delegate holding 14 nodes
// of model.layers.3 (its nodes: the evil module and 13 more); the model's root class is Net
const EVIL = "<img src=x onerror=alert(1)>";
function ctx() {
  const path = ["", "layers", "layers.0", "layers.0.lin", "layers.0.act", "model.layers.3.attn", EVIL];
  const type = ["__main__.Net", "torch.nn.ModuleList", "m.Block", "torch.nn.modules.linear.Linear",
                "torch.nn.modules.activation.ReLU", "m.Attention", "m.<b>Evil</b>"];
  const parent = [-1, 0, 1, 2, 2, 0, 0];
  const nodes = {name: ["permute", "addmm", "relu"], op: [0, 1, 2], module: [3, 3, 4], source: [0, 0, 1], handle: [1, 1, 2]};
  const index = [0, 1, 0, 1, 2];
  for (let q = 0; q < 14; q++) {
    nodes.name.push(q ? "mm_" + q : "n<script>"); nodes.op.push(q ? 1 : 3); nodes.module.push(q ? 5 : 6);
    nodes.source.push(q ? 2 : 3); nodes.handle.push(10 + q); index.push(3 + q);
  }
  return {file: "m.etrecord", warnings: [], modules: {path, type, parent}, module: [3, 3, 4, 0],
    sources: ["/home/me/model.py:62 in forward", "model.py:63 in forward", "C:\\src\\attn.py:7 in forward", EVIL + ".py:1 in f"],
    source: [0, 0, 1, 2],
    stacks: [["model.py:74 in forward", "    x = layer(x)", "/home/me/model.py:62 in forward", "    return self.lin(x)"]],
    stack: [0, 0, -1, -1], nodes, ops: ["aten.permute_copy.default", "aten.addmm.default", "aten.relu.default", EVIL],
    opNames: ["permute_copy", "addmm", "relu", "evil"], nodeStart: [0, 2, 4, 5, 19], nodeIndex: index,
    backends: ["XnnpackBackend"], backend: [-1, -1, -1, 0]};
}
const rowsOf = (pairs) => Object.fromEntries(pairs);

test("an instruction's module is a breadcrumb following modules.parent, classes without their module", () => {
  const X = ctx(), r = rowsOf(contextRows(X, 1));
  const text = r.module.replace(/<[^>]+>/g, "");
  assert.equal(text, "Net \u203a layers (ModuleList) \u203a layers.0 (Block) \u203a layers.0.lin (Linear)");
  assert.match(r.module, /title='torch\.nn\.modules\.linear\.Linear'/, "the full class on hover");
  assert.equal(r.source, "<span class='dx-code'>/home/me/model.py:62 in forward</span>");
  assert.equal(moduleCrumbs(X, 0).replace(/<[^>]+>/g, ""), "Net");
});

test("the whole stack is folded under its frame count; the nodes before lowering, each with its op", () => {
  const r = rowsOf(contextRows(ctx(), 0));
  assert.match(r["model stack"], /^<details class='dx-ctx-stack'><summary>2 frames<\/summary><div class='dx-trace'>/);
  assert.ok(r["model stack"].includes("model.py:74 in forward\n    x = layer(x)\n/home/me/model.py:62 in forward"));
  const before = r["before lowering"];
  assert.ok(before.includes("aten.permute_copy.default") && before.includes("aten.addmm.default"));
  assert.ok(before.includes(">permute<") && before.includes(">addmm<"));
  assert.ok(!before.includes("layers.0.lin"), "a node in the instruction's own module and line says neither again");
  const relu = rowsOf(contextRows(ctx(), 2));
  assert.equal(relu["before lowering"].indexOf("<ul"), -1, "one node: one line, no list");
  assert.ok(!("model stack" in relu) && !("holds" in relu));
});

test("a delegate call lists every node it holds with op, module and source, capped with 'and N more'", () => {
  const r = rowsOf(contextRows(ctx(), 3));
  assert.ok(!("before lowering" in r));
  assert.ok(r.holds.startsWith("XnnpackBackend holds 14 nodes of the model<ul class='dx-list'>"));
  assert.equal((r.holds.match(/<li>/g) || []).length, 12);
  assert.ok(r.holds.includes("<li class='dx-muted'>\u2026 and 2 more</li>"));
  assert.ok(r.holds.includes("model.layers.3.attn") && r.holds.includes("(Attention)") && r.holds.includes("<span class='dx-code' title='C:\\src\\attn.py:7 in forward'>attn.py:7</span>"),
            "a held node's line short, the whole line on hover");
  assert.equal(r.module.replace(/<[^>]+>/g, ""), "Net", "the module all its nodes share: the model itself");
});

test("names from the ETRecord are escaped everywhere they are shown", () => {
  const X = ctx(), html = contextRows(X, 3).map((p) => p[1]).join("") + producerRows(X, [3])[0][1];
  assert.ok(!/<img|<script|<b>Evil/.test(html), html);
  assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;") && html.includes("n&lt;script&gt;"));
  assert.ok(html.includes("&lt;b&gt;Evil&lt;/b&gt;"));
  X.module[0] = 6;
  assert.ok(!/<img/.test(moduleCrumbs(X, 6)) && !/<img/.test(contextHover(X, 0)));
  assert.ok(contextHover(X, 0).includes("&lt;img"));
});

test("a tensor says the module and line of the first writer (or, unwritten, reader) that has a context", () => {
  const X = ctx();
  X.module[2] = -1; X.source[2] = -1;
  const [[label, html]] = producerRows(X, [2, 1]);
  assert.equal(label, "made in");
  assert.equal(html.replace(/<[^>]+>/g, ""), "layers.0.lin (Linear) \u00b7 /home/me/model.py:62 in forward (#1)");
  assert.deepEqual(producerRows(X, [2]), []);
  assert.deepEqual(producerRows(X, [2], [1]), [], "a written tensor: only its writers count");
  assert.deepEqual(producerRows(X, []), []);
  assert.deepEqual(producerRows(null, [1]), []);
  const [[used, where]] = producerRows(X, [], [2, 3]);  // a weight: the first reader with a context
  assert.equal(used, "used in");
  assert.equal(where.replace(/<[^>]+>/g, ""), "Net \u00b7 C:\\src\\attn.py:7 in forward (#3)");
});

test("without a context there are no rows and no hover line", () => {
  assert.deepEqual(contextRows(undefined, 0), []);
  assert.deepEqual(contextRows(ctx(), 9), []);
  assert.equal(contextHover(undefined, 0), "");
});

test("the hover: the module path's last two components (an index kept with its list), class, file:line", () => {
  const X = ctx();
  assert.equal(contextHover(X, 1), "<br>layers.0.lin (Linear)  \u00b7  model.py:62");
  X.module[1] = 5; X.source[1] = 2;
  assert.equal(contextHover(X, 1), "<br>\u2026layers.3.attn (Attention)  \u00b7  attn.py:7");
  assert.equal(contextHover(X, 3), "<br>Net  \u00b7  attn.py:7");
  X.module[1] = -1;
  assert.equal(contextHover(X, 1), "<br>attn.py:7");
  X.source[1] = -1;
  assert.equal(contextHover(X, 1), "");
});

test("the search box matches module paths and source files, a delegate by the nodes it holds", () => {
  const P = {nValues: 3, nInstructions: 4, labels: {v: {0: "x"}, i: ["aten::permute_copy.out", "aten::addmm.out", "aten::relu.out", "XnnpackBackend"]},
             context: ctx()};
  assert.deepEqual(search(P, "layers.0.lin").instructions, [0, 1]);
  assert.deepEqual(search(P, "layers.0").instructions, [0, 1, 2]);
  assert.deepEqual(search(P, "LAYERS.3").instructions, [3], "a delegate holding nodes of the module");
  assert.deepEqual(search(P, "model.py:63").instructions, [2]);
  assert.deepEqual(search(P, "attn.py").instructions, [3]);
  assert.deepEqual(search(P, "forward").instructions, [], "the function name is not the file");
  assert.deepEqual(search(P, "relu").instructions, [2], "names still match as before");
  const plain = Object.assign({}, P, {context: undefined});
  assert.deepEqual(search(plain, "layers.0").instructions, []);
  assert.deepEqual(Array.from(contextMatches(ctx(), "layers.0.act")), [0, 0, 1, 0]);
});

test("a diff side gets its own context (plans[].contexts.a/b), or none", () => {
  const a = {lod: {}}, b = {lod: {}}, X = ctx();
  const P = {sides: {a, b}, contexts: {a: null, b: X}};
  assert.equal(sideContext(P, "a"), a);
  assert.equal(sideContext(P, "b").context, X);
  assert.equal(sideContext(P, "b").lod, b.lod);
  assert.equal(sideContext({sides: {a, b}}, "b"), b);
});
