"""The diff page's own script: linked selection across the two programs, details, plan switch.

It mirrors the diff widget (``explorer/widget_diff.py``) over the data :mod:`.diff_report` embeds:
a click on side A (or B) selects that tensor/op and, through the embedded pairing, its counterpart;
both graphs draw the selection in their ``TRACE`` overlay slots, both memory lanes outline the
blocks, and the details panel shows the pair's precomputed HTML. Text from the files reaches the
page only as HTML escaped in Python, or through ``textContent``. ``window.dxDiff`` exposes
``select``/``state``/``showPlan`` for tests.
"""

SCRIPT = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("dx-data").textContent);
  var T = DATA.trace;
  var $ = function (id) { return document.getElementById(id); };
  var G = {a: $("dx-graph-a"), b: $("dx-graph-b")}, memoryDiv = $("dx-memory");
  var state = {plan: null, side: "", values: {a: [], b: []}, instructions: {a: [], b: []}};
  var P = null, nodes = {a: {}, b: {}}, blocks = [];
  var CONFIG = {displaylogo: false, responsive: true, scrollZoom: true,
                modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"]};
  var TYPED = {f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
               u2: Uint16Array, i4: Int32Array, u4: Uint32Array};
  function arr(a) {  // plotly's {dtype, bdata} (base64 numpy) or a plain list
    if (!a) return [];
    if (!a.bdata) return a;
    var bin = atob(a.bdata), bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    return Array.from(new TYPED[a.dtype](bytes.buffer));
  }
  function other(side) { return side === "a" ? "b" : "a"; }

  function showPlan(name) {
    P = DATA.plans[0];
    DATA.plans.forEach(function (p) { if (p.name === name) P = p; });
    state.plan = P.name;
    $("dx-plan").value = P.name;
    $("dx-header").innerHTML = P.header;
    $("dx-req").innerHTML = P.requirements;
    ["a", "b"].forEach(function (s) {
      Plotly.react(G[s], P.graphs[s].data, P.graphs[s].layout, CONFIG);
      nodes[s] = {};
      [["v", T.tensors], ["i", T.ops]].forEach(function (kt) {
        var tr = P.graphs[s].data[kt[1]], ids = arr(tr.customdata), xs = arr(tr.x), ys = arr(tr.y);
        for (var k = 0; k < ids.length; k++) nodes[s][kt[0] + ids[k]] = [xs[k], ys[k]];
      });
    });
    Plotly.react(memoryDiv, P.memory.data, P.memory.layout, CONFIG);
    blocks = P.lanes.map(function (lane) {
      var tr = P.memory.data[lane.blocks];
      return {side: lane.side, x: arr(tr.x), width: arr(tr.width), base: arr(tr.base), y: arr(tr.y),
              customdata: arr(tr.customdata)};
    });
    select({side: "", values: [], instructions: []});
  }

  function highlightGraph(s) {
    var vs = {}, is = {}, hx = [], hy = [], sym = [], ex = [], ey = [];
    state.values[s].forEach(function (v) { vs[v] = true; var p = nodes[s]["v" + v];
      if (p) { hx.push(p[0]); hy.push(p[1]); sym.push("circle-open"); } });
    state.instructions[s].forEach(function (i) { is[i] = true; var p = nodes[s]["i" + i];
      if (p) { hx.push(p[0]); hy.push(p[1]); sym.push((P.opSymbols[s][i] || "square") + "-open"); } });
    P.edges[s].forEach(function (e) {
      var hit = (e[0] === "v" ? vs[e[1]] : is[e[1]]) || (e[2] === "v" ? vs[e[3]] : is[e[3]]);
      var a = nodes[s][e[0] + e[1]], b = nodes[s][e[2] + e[3]];
      if (hit && a && b) { ex.push(a[0], b[0], null); ey.push(a[1], b[1], null); }
    });
    Plotly.restyle(G[s], {x: [ex], y: [ey]}, [T.hl_edges]);
    Plotly.restyle(G[s], {x: [hx], y: [hy], "marker.symbol": [sym]}, [T.hl_nodes]);
  }

  function highlightMemory() {
    var chosen = {a: {}, b: {}};
    ["a", "b"].forEach(function (s) { state.values[s].forEach(function (v) { chosen[s][v] = true; }); });
    blocks.forEach(function (tr, k) {
      var keep = [];
      for (var j = 0; j < tr.customdata.length; j++) if (chosen[tr.side][tr.customdata[j]]) keep.push(j);
      var pick = function (xs) { return keep.map(function (j) { return xs[j]; }); };
      Plotly.restyle(memoryDiv, {x: [pick(tr.x)], width: [pick(tr.width)], base: [pick(tr.base)], y: [pick(tr.y)],
                                 customdata: [pick(tr.customdata)]}, [P.lanes[k].select]);
    });
  }

  function escapeText(s) { var d = document.createElement("div"); d.textContent = s; return d.innerHTML; }

  function details() {
    var box = $("dx-details"), s = state.side || "a";
    var vs = state.values[s], is = state.instructions[s];
    if (vs.length === 1 && !is.length && P.vd[s][vs[0]] !== undefined) { box.innerHTML = P.texts[P.vd[s][vs[0]]]; return; }
    if (is.length === 1 && !vs.length && P.id[s][is[0]] !== undefined) { box.innerHTML = P.texts[P.id[s][is[0]]]; return; }
    if (!vs.length && !is.length) { box.innerHTML = DATA.empty; return; }
    box.innerHTML = "<div class='dx-root dx-diff'><h4>selection</h4>" +
      ["a", "b"].map(function (x) { return "<div><span class='dx-side-" + x + "'>" + x.toUpperCase() + "</span>" +
        escapeText(state.values[x].map(function (v) { return "%" + v; }).concat(
          state.instructions[x].map(function (i) { return "#" + i; })).join(", ") || "—") + "</div>"; }).join("") + "</div>";
  }

  // sel: {side: "a"|"b", values: [...], instructions: [...]} on that side; the other side follows the pairing
  function select(sel) {
    var s = sel.side || "", o = s ? other(s) : "";
    state.side = s;
    state.values = {a: [], b: []}; state.instructions = {a: [], b: []};
    if (s) {
      state.values[s] = (sel.values || []).slice();
      state.instructions[s] = (sel.instructions || []).slice();
      state.values[o] = state.values[s].map(function (v) { return P.pairs[s][v]; })
        .filter(function (v) { return v !== undefined; });
      state.instructions[o] = state.instructions[s].map(function (i) { return P.ipairs[s][i]; })
        .filter(function (i) { return i !== undefined; });
    }
    highlightGraph("a"); highlightGraph("b"); highlightMemory(); details();
  }

  function wire() {
    ["a", "b"].forEach(function (s) {
      G[s].on("plotly_click", function (ev) {
        var pt = ev.points[0];
        if (pt.curveNumber === T.tensors) select({side: s, values: [pt.customdata]});
        else if (pt.curveNumber === T.ops) select({side: s, instructions: [pt.customdata]});
      });
    });
    memoryDiv.on("plotly_click", function (ev) {
      var pt = ev.points[0], lane = null;
      P.lanes.forEach(function (l) { if (l.blocks === pt.curveNumber && l.memory_id !== null) lane = l; });
      if (lane && pt.customdata !== undefined) select({side: lane.side, values: [pt.customdata]});
    });
  }

  $("dx-plan").addEventListener("change", function (e) { showPlan(e.target.value); });
  showPlan(DATA.plan);
  wire();
  var pre = DATA.selected;
  if (pre && pre.plan === state.plan && pre.side) {
    select({side: pre.side, values: pre.values[pre.side], instructions: pre.instructions[pre.side]});
  }
  window.dxDiff = {select: select, state: state, showPlan: showPlan};
})();
"""
