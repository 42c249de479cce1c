"""The report page's own script: linked selection, details, findings, device filter, search, plans.

It mirrors the widget (``explorer/widget.py``) over the data ``report.py`` embeds: the same trace
order (``TRACE``), the same selection rules (``selection.py``), the same overlays (``graph_highlight``
and ``memory_highlight``). Text from the file reaches the page only through ``textContent`` or as
HTML escaped in Python. ``window.dxReport`` exposes ``select``/``state`` for tests.
"""

SCRIPT = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("dx-data").textContent);
  var T = DATA.trace;
  var $ = function (id) { return document.getElementById(id); };
  var graphDiv = $("dx-graph"), memoryDiv = $("dx-memory");
  var state = {plan: null, values: [], instructions: [], finding: null, query: "", shown: {}};
  var P = null;  // the current plan's payload
  var LOD = null;  // for a big plan: its overview / binned memory map (report_lod_js.py)
  var host = {graph: graphDiv, memory: memoryDiv, state: state, config: null,
              shown: function () { return state.shown; }, select: function (sel) { select(sel); },
              html: function (h) { $("dx-details").innerHTML = h; }, findings: function () { return DATA.findings; }};
  var CONFIG = {displaylogo: false, responsive: true, scrollZoom: true,
                modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"]};

  // plotly's Python side ships numpy arrays as {dtype, bdata} (base64); figures keep them so in .data
  var TYPED = {f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
               u2: Uint16Array, i4: Int32Array, u4: Uint32Array};
  function arr(a) {
    if (!a) return [];
    if (!a.bdata) return a;
    var bin = atob(a.bdata), bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    return Array.from(new TYPED[a.dtype](bytes.buffer));
  }

  function planByName(name) {
    for (var k = 0; k < DATA.plans.length; k++) if (DATA.plans[k].name === name) return DATA.plans[k];
    return DATA.plans[0];
  }

  function showPlan(name) {
    P = planByName(name);
    state.plan = P.name;
    $("dx-plan").value = P.name;
    $("dx-summary").textContent = "· " + P.summary;
    $("dx-totals").innerHTML = P.totals;
    Plotly.react(graphDiv, P.graph.data, P.graph.layout, CONFIG);
    Plotly.react(memoryDiv, P.memory.data, P.memory.layout, CONFIG);
    state.baseShapes = (P.memory.layout.shapes || []).slice();
    LOD = null;
    if (P.lod) {
      host.config = CONFIG;
      LOD = window.dxLodPlan(P, host);
      if (!P.labels) P.labels = LOD.labels();
    } else indexNodes();
    state.shown = {};
    var box = $("dx-devices");
    box.textContent = "";
    P.devices.forEach(function (pair) {
      var d = pair[0];
      state.shown[d] = true;
      var b = document.createElement("button"), dot = document.createElement("span");
      dot.className = "dx-sw"; dot.style.backgroundColor = pair[1];
      b.className = "dx-dev"; b.type = "button"; b.appendChild(dot); b.appendChild(document.createTextNode(d));
      b.setAttribute("aria-pressed", "true");
      b.title = "show tensors on " + d;
      b.addEventListener("click", function () {
        state.shown[d] = !state.shown[d];
        b.setAttribute("aria-pressed", String(state.shown[d]));
        applyDevices();
      });
      box.appendChild(b);
    });
    select({values: [], instructions: []});
  }

  function applyDevices() {
    if (LOD) { LOD.devices(); return; }
    var O = DATA.opacity;
    var op = P.tensorDevices.map(function (d) { return O.tensor[state.shown[d] ? 0 : 1]; });
    Plotly.restyle(graphDiv, {"marker.opacity": [op]}, [T.tensors]);
    P.blockDevices.forEach(function (devs, k) {
      Plotly.restyle(memoryDiv, {"marker.opacity": [devs.map(function (d) { return O.block[state.shown[d] ? 0 : 1]; })]}, [2 * k]);
    });
  }

  var nodes = {};  // "v3" / "i7" -> [x, y], rebuilt per plan
  function indexNodes() {
    nodes = {};
    [["v", T.tensors], ["i", T.ops]].forEach(function (kt) {
      var tr = P.graph.data[kt[1]], ids = arr(tr.customdata), xs = arr(tr.x), ys = arr(tr.y);
      for (var k = 0; k < ids.length; k++) nodes[kt[0] + ids[k]] = [xs[k], ys[k]];
    });
    state.blocks = P.memory.data.filter(function (_, k) { return k % 2 === 0 && k < 2 * P.blockDevices.length; })
      .map(function (tr) { return {x: arr(tr.x), width: arr(tr.width), base: arr(tr.base), y: arr(tr.y),
                                   customdata: arr(tr.customdata)}; });
  }
  function nodePos(kind, index) { return nodes[kind + index] || null; }

  function highlight() {
    if (LOD) { LOD.highlight(state.values, state.instructions); return; }
    var vs = {}, is = {};
    state.values.forEach(function (v) { vs[v] = true; });
    state.instructions.forEach(function (i) { is[i] = true; });
    var hx = [], hy = [], sym = [], ex = [], ey = [];
    state.values.forEach(function (v) {
      var p = nodePos("v", v); if (p) { hx.push(p[0]); hy.push(p[1]); sym.push("circle-open"); }
    });
    state.instructions.forEach(function (i) {
      var p = nodePos("i", i); if (p) { hx.push(p[0]); hy.push(p[1]); sym.push((P.opSymbols[i] || "square") + "-open"); }
    });
    P.edges.forEach(function (e) {
      var hit = (e[0] === "v" ? vs[e[1]] : is[e[1]]) || (e[2] === "v" ? vs[e[3]] : is[e[3]]);
      if (!hit) return;
      var a = nodePos(e[0], e[1]), b = nodePos(e[2], e[3]);
      if (a && b) { ex.push(a[0], b[0], null); ey.push(a[1], b[1], null); }
    });
    Plotly.restyle(graphDiv, {x: [ex], y: [ey]}, [T.hl_edges]);
    Plotly.restyle(graphDiv, {x: [hx], y: [hy], "marker.symbol": [sym]}, [T.hl_nodes]);
    state.blocks.forEach(function (tr, k) {
      var keep = [];
      for (var j = 0; j < tr.customdata.length; j++) if (vs[tr.customdata[j]]) keep.push(j);
      var pick = function (arr) { return keep.map(function (j) { return arr[j]; }); };
      Plotly.restyle(memoryDiv, {x: [pick(tr.x)], width: [pick(tr.width)], base: [pick(tr.base)],
                                 y: [pick(tr.y)], customdata: [pick(tr.customdata)]}, [2 * k + 1]);
    });
    if (P.blockDevices.length) {
      var shapes = state.baseShapes.slice();
      state.instructions.forEach(function (i) {
        if (i >= 0 && i < P.nInstructions) shapes.push({type: "line", xref: "x", yref: "paper", x0: i, x1: i, y0: 0, y1: 1,
                                                        line: {color: "#000000", width: 2}, name: "selected instruction"});
      });
      Plotly.relayout(memoryDiv, {shapes: shapes});
    }
  }

  function listHtml(title, items) {
    return "<tr><td>" + title + "</td><td><ul class='dx-list'>" + items.join("") + "</ul></td></tr>";
  }

  function escapeText(s) {
    var d = document.createElement("div"); d.textContent = s; return d.innerHTML;
  }

  function details() {
    var box = $("dx-details");
    if (state.finding !== null) { box.innerHTML = P.findingDetails[state.finding] || ""; return; }
    if (LOD && state.finding === null && state.values.length + state.instructions.length === 1) {
      box.innerHTML = state.values.length ? LOD.valueDetails(state.values[0]) : LOD.instrDetails(state.instructions[0]);
      return;
    }
    if (state.values.length === 1 && !state.instructions.length && P.details.v[state.values[0]] !== undefined) {
      box.innerHTML = P.details.v[state.values[0]]; return;
    }
    if (state.instructions.length === 1 && !state.values.length) { box.innerHTML = P.details.i[state.instructions[0]] || ""; return; }
    if (!state.values.length && !state.instructions.length) {
      box.innerHTML = (state.query ? "<h4>search “" + escapeText(state.query) + "”: nothing found</h4>" : "") +
        "<span class='dx-muted'>Click a tensor, an op, a memory block or a finding to see its details.</span>";
      return;
    }
    var rows = [];
    if (state.values.length) rows.push(listHtml(state.values.length + " values", state.values.slice(0, 40).map(function (v) {
      return "<li><b>" + escapeText(P.labels.v[v] || ("%" + v)) + "</b></li>"; })));
    if (state.instructions.length) rows.push(listHtml(state.instructions.length + " ops", state.instructions.slice(0, 40).map(function (i) {
      return "<li><span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + escapeText(P.labels.i[i]) + "</span></li>"; })));
    box.innerHTML = "<h4>" + (state.query ? "search “" + escapeText(state.query) + "”" : "selection") + "</h4>" +
      "<table class='dx-kv'>" + rows.join("") + "</table>";
  }

  function markFinding() {
    var items = $("dx-findings").querySelectorAll("button");
    for (var k = 0; k < items.length; k++) items[k].setAttribute("aria-current", String(String(k) === String(state.finding)));
  }

  function select(sel) {
    state.values = sel.values || []; state.instructions = sel.instructions || [];
    state.finding = sel.finding === undefined ? null : sel.finding; state.query = sel.query || "";
    highlight(); details(); markFinding();
  }

  function search(text) {
    text = text.trim();
    if (!text) return {values: [], instructions: []};
    var m = /^([%#]?)(\d+)$/.exec(text);
    if (m) {
      var n = parseInt(m[2], 10);
      if (m[1] === "#") return {values: [], instructions: n < P.nInstructions ? [n] : [], query: text};
      return {values: P.labels.v[n] !== undefined ? [n] : [], instructions: [], query: text};
    }
    var needle = text.toLowerCase(), values = [], instructions = [];
    Object.keys(P.labels.v).forEach(function (k) { if (P.labels.v[k].toLowerCase().indexOf(needle) >= 0) values.push(+k); });
    P.labels.i.forEach(function (l, i) { if (l.toLowerCase().indexOf(needle) >= 0) instructions.push(i); });
    return {values: values, instructions: instructions, query: text};
  }

  function wireClicks() {
    graphDiv.on("plotly_click", function (ev) {
      var pt = ev.points[0];
      if (LOD) { LOD.clickGraph(pt); return; }
      if (pt.curveNumber === T.tensors) select({values: [pt.customdata]});
      else if (pt.curveNumber === T.ops) select({instructions: [pt.customdata]});
    });
    memoryDiv.on("plotly_relayout", function (ev) { if (LOD) LOD.onRelayout(ev); });
    memoryDiv.on("plotly_click", function (ev) {
      var pt = ev.points[0];
      if (LOD) { LOD.clickMemory(pt); return; }
      if (pt.curveNumber % 2 === 0 && pt.customdata !== undefined) select({values: [pt.customdata]});
    });
  }

  var list = $("dx-findings");
  DATA.findings.forEach(function (f, k) {
    var li = document.createElement("li"), b = document.createElement("button");
    b.type = "button"; b.textContent = f.label; b.className = "dx-sev-" + f.severity;
    b.addEventListener("click", function () {
      if (f.plan !== state.plan) showPlan(f.plan);
      select({values: f.values, instructions: f.instructions, finding: String(k)});
      if (LOD) LOD.reveal(f.values, f.instructions);  // open the groups holding what it names
    });
    li.appendChild(b); list.appendChild(li);
  });
  if (!DATA.findings.length) { var li = document.createElement("li"); li.className = "dx-muted"; li.textContent = "no findings"; list.appendChild(li); }

  $("dx-plan").addEventListener("change", function (e) { showPlan(e.target.value); });
  $("dx-search").addEventListener("input", function (e) { select(search(e.target.value)); });

  showPlan(DATA.plan);
  wireClicks();
  if (DATA.selected && DATA.selected.plan === state.plan) select(DATA.selected);
  window.dxReport = {select: select, state: state, showPlan: showPlan, lod: function () { return LOD; }};
})();
"""
