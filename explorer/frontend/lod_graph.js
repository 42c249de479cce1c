import {ptext, esc, short, fmtBytes, num} from "./util.js";
import {READABLE, readableView, centredOn} from "./nav.js";
import {fresh, planFigures} from "./figures.js";

// A big plan (level of detail), part 2: expanding and collapsing groups in place, the overview's traces, boxes,
// headers, focus ranges and selection rings.
/** @param {import("./payload").LodContext} C */
export function lodGraph(C) {
  const {P, host, L, T, m, n, DEV, ST, G, nG, gbase, span, TT, F, OPS, rowOf, written, home, fstart, inputs, outputs,
    errors, errorInstrs, OPSYM, devName, swatch, kindOf, tensorHover, opHover, children, path, visibleNodes, folded,
    depthOf} = C;
  function groupDetails() { return C.groupDetails.apply(null, arguments); }
  function memoryHighlight() { return C.memoryHighlight.apply(null, arguments); }
  function drawMemory() { return C.drawMemory.apply(null, arguments); }
  // -- expand / collapse (explorer.views.overview.Overview) ------------------------------------
  function inside(outer, g) { return G.start[outer] <= G.start[g] && G.stop[g] <= G.stop[outer] && depthOf(g) >= depthOf(outer); }
  function drop(g) { C.s.expanded = C.s.expanded.filter(function (e) { return !inside(g, e); }); }
  function open(g) {  // Overview.expand: the state only
    let d = depthOf(g), p = path(G.start[g]).filter(function (q) { return depthOf(q) <= d; });
    C.s.note = "";
    p.forEach(function (q) { if (C.s.expanded.indexOf(q) < 0) C.s.expanded.push(q); });
    let closed = [];
    while (visibleNodes(new Set(C.s.expanded)) > L.limits.visible) {
      let victim = C.s.expanded.find(function (e) { return p.indexOf(e) < 0; });
      if (victim === undefined) break;
      drop(victim); closed.push(G.label[victim]);
    }
    if (closed.length) C.s.note = "collapsed " + closed.join(", ") + " to draw at most " + num(L.limits.visible) + " nodes";
    C.s.cur = null;
  }
  function expand(g) { open(g); draw(focus(g)); host.html(groupDetails(g)); host.expanded(C.s.expanded); }
  function setExpanded(list) {  // the expanded groups set from outside (the widget's `expanded` trait)
    let want = list.filter(function (g) { return g > 0 && g < nG; });
    if (JSON.stringify(want) === JSON.stringify(C.s.expanded)) return;
    C.s.expanded = []; C.s.note = ""; C.s.cur = null;
    want.forEach(function (g) { open(g); });
    draw(want.length ? focus(want[want.length - 1]) : null, !want.length);
  }
  function collapse(g) {
    if (g === undefined || g === null) { C.s.expanded = []; C.s.note = ""; C.s.cur = null; draw(null, true); host.expanded(C.s.expanded); return; }
    drop(g); C.s.note = ""; C.s.cur = null; draw(focus(g));
    host.html(groupDetails(g)); host.expanded(C.s.expanded);
  }
  function reveal(values, instructions) {
    let anchors = values.filter(function (v) { return v >= 0 && v < n && home[v] >= 0; }).map(function (v) { return home[v]; })
      .concat(instructions.filter(function (i) { return i >= 0 && i < m; }));
    let opened = [];
    anchors.slice(0, 4).forEach(function (i) {
      let p = path(i), f = folded();
      if (p.length && f.nodes[f.instUnit[i]][0] === "g") { open(p[p.length - 1]); opened.push(p[p.length - 1]); }
    });
    if (!opened.length) return;
    // the opened group at a readable scale, centred on the first item asked for: in a group of hundreds of
    // nodes the item may sit far below the group's top
    let view = focus(opened[opened.length - 1]), f = folded(), i0 = anchors[0];
    let q = values.length && values[0] >= 0 && values[0] < n && f.valueUnit[values[0]] >= 0 ? f.valueUnit[values[0]] : f.instUnit[i0];
    if (q !== undefined && q >= 0 && f.nodes[q][0] !== "g") view = centredOn({x: view["xaxis.range"], y: view["yaxis.range"]}, [f.x[q], -f.y[q]]);
    draw(view);
    host.expanded(C.s.expanded);
  }

  // -- drawing ----------------------------------------------------------------------------------
  function segments(f, sel) {  // the edges `sel` as polylines (bends through the layers they pass), null between
    let xs = [], ys = [];
    sel.forEach(function (q) {
      let p = f.paths[q];
      for (let k = 0; k < p.length; k += 2) { xs.push(p[k]); ys.push(-p[k + 1]); }
      xs.push(null); ys.push(null);
    });
    return [xs, ys];
  }
  function along(p, t) {  // the point a fraction t along a polyline's segments: [x, y] in layout units
    let segs = p.length / 2 - 1, at = t * segs, k = Math.min(Math.floor(at), segs - 1), u = at - k;
    return [p[2 * k] + u * (p[2 * k + 2] - p[2 * k]), p[2 * k + 1] + u * (p[2 * k + 3] - p[2 * k + 1])];
  }
  function symbolOf(nd) {
    if (nd[0] === "v") return "circle";
    if (nd[0] === "i") return OPSYM[OPS.kind[nd[1]]];
    return ST.group[G.kind[nd[1]]];
  }
  function holdsError(g) {
    for (let q = 0; q < errorInstrs.length; q++) if (errorInstrs[q] >= G.start[g] && errorInstrs[q] < G.stop[g]) return true;
    return false;
  }
  // -- what a group holds: device split, tensors' bytes, copies (prefix sums over instructions, built once) --
  let sums = null;
  function prefix() {
    if (sums) return sums;
    let nd = DEV.length, bytes = new Float64Array((m + 1) * nd), cp = {h2d: new Float64Array(2 * (m + 1)), d2h: new Float64Array(2 * (m + 1)),
                                                                     d2d: new Float64Array(2 * (m + 1))};
    for (let r = 0; r < TT.home.length; r++) {
      let at = TT.home[r], d = TT.dev[r];
      if (at >= 0 && at < m && d >= 0 && TT.nbytes[r] > 0) bytes[(at + 1) * nd + d] += TT.nbytes[r];
    }
    for (let k = 0; k < L.moving.i.length; k++) {
      let i = L.moving.i[k], kind = kindOf(TT.dev[rowOf[L.moving.s[k]]], TT.dev[rowOf[L.moving.d[k]]]);
      if (kind === "same" || i < 0 || i >= m) continue;
      cp[kind][2 * (i + 1)] += 1; cp[kind][2 * (i + 1) + 1] += Math.max(L.moving.nbytes[k], 0);
    }
    for (let i = 1; i <= m; i++) {
      for (let d = 0; d < nd; d++) bytes[i * nd + d] += bytes[(i - 1) * nd + d];
      ["h2d", "d2h", "d2d"].forEach(function (kd) { cp[kd][2 * i] += cp[kd][2 * i - 2]; cp[kd][2 * i + 1] += cp[kd][2 * i - 1]; });
    }
    sums = {bytes: bytes, cp: cp, nd: nd};
    return sums;
  }
  function summary(g) {  // {ops: [[dev, count, share]], bytes: [[dev, bytes]], total, copies: {h2d: [n, bytes], ...}}
    let S = prefix(), a = G.start[g], b = G.stop[g], ops = [], total = 0, opsum = 0, per = [], copies = {};
    G.devs[g].forEach(function (c) { opsum += c; });
    G.devs[g].forEach(function (c, d) { if (c) ops.push([d, c, c / opsum]); });
    for (let d = 0; d < S.nd; d++) {
      let by = S.bytes[b * S.nd + d] - S.bytes[a * S.nd + d];
      if (by > 0) { per.push([d, by]); total += by; }
    }
    ["h2d", "d2h", "d2d"].forEach(function (kd) {
      let c = S.cp[kd][2 * b] - S.cp[kd][2 * a];
      if (c) copies[kd] = [c, S.cp[kd][2 * b + 1] - S.cp[kd][2 * a + 1]];
    });
    return {ops: ops, bytes: per, total: total, copies: copies};
  }
  function copyText(cps, html) {
    return ["h2d", "d2h", "d2d"].filter(function (kd) { return cps[kd]; }).map(function (kd) {
      let t = num(cps[kd][0]) + " " + kd + " (" + fmtBytes(cps[kd][1]) + ")";
      return html ? esc(t) : ptext(t);
    }).join(" \u00b7 ");
  }
  function mix(g) {  // the label's tail: device split (when several), tensors' bytes, copies
    let S = summary(g), parts = [];
    if (S.ops.length > 1) parts.push(S.ops.map(function (o) {
      return "<span style='color:" + DEV[o[0]].color + "'>\u25a0</span>" + Math.round(100 * o[2]) + "%"; }).join(" "));
    if (S.total) parts.push(ptext(fmtBytes(S.total)));
    let nc = 0;
    Object.keys(S.copies).forEach(function (kd) { nc += S.copies[kd][0]; });
    if (nc) parts.push(num(nc) + " cop" + (nc === 1 ? "y" : "ies"));
    return parts.length ? "  " + parts.join(" \u00b7 ") : "";
  }
  function groupHover(g) {
    let kinds = [], S = summary(g);
    G.kinds[g].forEach(function (c, k2) { if (c) kinds.push(num(c) + " " + L.names.opKinds[k2]); });
    let ops = G.stop[g] - G.start[g];
    let runs = S.ops.map(function (o) { return ptext(DEV[o[0]].name) + " " + num(o[1]) + " (" + Math.round(100 * o[2]) + "%)"; });
    let bytes = S.bytes.map(function (e) { return ptext(DEV[e[0]].name) + " " + ptext(fmtBytes(e[1])); });
    let cps = copyText(S.copies, false);
    return "<b>" + ptext(G.label[g]) + "</b><br>#" + G.start[g] + " \u2013 #" + (G.stop[g] - 1) + " \u00b7 " + num(ops) +
      " ops (" + kinds.join(", ") + ")" + (runs.length ? "<br>runs on " + runs.join(" \u00b7 ") : "") +
      "<br>" + num(G.nodes[g] - ops) + " tensors" + (S.total ? ", " + ptext(fmtBytes(S.total)) + (bytes.length > 1 ? " (" + bytes.join(" \u00b7 ") + ")" : "") : "") +
      (cps ? "<br>copies " + cps : "") + "<br>click to expand";
  }
  function boxes() {
    let f = folded(), out = [];
    let anchor = f.nodes.map(function (nd) { return nd[0] === "i" ? nd[1] : nd[0] === "v" ? home[nd[1]] : G.start[nd[1]]; });
    let done = new Map();
    C.s.expanded.slice().sort(function (a, b) { return depthOf(b) - depthOf(a) || a - b; }).forEach(function (g) {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      anchor.forEach(function (a, p) {
        if (a >= G.start[g] && a < G.stop[g]) {
          x0 = Math.min(x0, f.x[p]); x1 = Math.max(x1, f.x[p]); y0 = Math.min(y0, -f.y[p]); y1 = Math.max(y1, -f.y[p]);
        }
      });
      if (x0 > x1) return;
      x0 -= 0.45; x1 += 0.45; y0 -= 0.45; y1 += 1.45;
      done.forEach(function (b, e) {  // an C.s.expanded group inside: around its box and header
        if (e !== g && G.start[g] <= G.start[e] && G.stop[e] <= G.stop[g]) {
          x0 = Math.min(x0, b[0] - 0.15); x1 = Math.max(x1, b[1] + 0.15); y0 = Math.min(y0, b[2] - 0.15); y1 = Math.max(y1, b[3] + 2);
        }
      });
      done.set(g, [x0, x1, y0, y1]);
    });
    Array.from(done.keys()).sort(function (a, b) { return depthOf(a) - depthOf(b) || a - b; }).forEach(function (g) {
      out.push([g].concat(done.get(g)));
    });
    return out;
  }
  function tint(g, alpha) {
    let c = G.dev[g] >= 0 ? DEV[G.dev[g]].color : "#8C959F";
    return "rgba(" + parseInt(c.slice(1, 3), 16) + "," + parseInt(c.slice(3, 5), 16) + "," + parseInt(c.slice(5, 7), 16) + "," + alpha + ")";
  }
  function statusLines() {  // Overview.status_lines
    let f = folded(), groups = f.nodes.filter(function (nd) { return nd[0] === "g"; }).length, raw = f.nodes.length - groups;
    let tensors = 0;
    for (let r = 0; r < TT.home.length; r++) if (TT.home[r] >= 0) tensors++;
    let unused = TT.home.length - tensors;
    let unusedNote = num(unused) + (unused === 1 ? " tensor that no instruction names is" : " tensors that no instruction names are") +
      " not drawn";
    if (!groups) {  // everything drawn as itself: say only what can be folded, and what is not drawn
      return [nG > 1 ? "every group open (" + num(C.s.expanded.length) + ") \u00b7 \u25be collapses one" : "",
              unused ? unusedNote : ""].filter(Boolean)
        .concat(C.s.note ? [C.s.note] : []);
    }
    return ["overview of " + num(m) + " instructions and " + num(tensors) + " tensors: " + num(groups) + " groups" +
              (raw ? " and " + num(raw) + " single nodes" : "") + " drawn" +
              (unused ? " (" + unusedNote + ")" : ""),
            "click a group to expand it, \u25be to collapse" + (C.s.note ? " \u00b7 " + C.s.note : "")];
  }
  function status() { return statusLines().join(" \u2014 "); }
  function traces() {
    let f = folded(), out = [], kinds = ["same", "h2d", "d2h", "d2d"];
    kinds.forEach(function (kd) {
      let sel = [];
      f.kinds.forEach(function (k2, q) { if (k2 === kd) sel.push(q); });
      let s = segments(f, sel);
      out.push({x: s[0], y: s[1]});
    });
    let tk = [], ok = [], gk = [];
    f.nodes.forEach(function (nd, p) { (nd[0] === "v" ? tk : nd[0] === "i" ? ok : gk).push(p); });
    let shown = host.shown(), O = ST.opacity.tensor;
    let tv = tk.map(function (p) { return f.nodes[p][1]; });
    out.push({x: tk.map(function (p) { return f.x[p]; }), y: tk.map(function (p) { return -f.y[p]; }), customdata: tv,
      hovertext: tv.map(tensorHover), mode: "markers",  // labels: labels.js places those that fit
      text: tv.map(function (v) { return ptext(short(TT.label[rowOf[v]], 22)); }),
      "marker.color": tv.map(function (v) { return DEV[TT.dev[rowOf[v]]].color; }),
      "marker.symbol": tv.map(function (v) { return DEV[TT.dev[rowOf[v]]].symbol; }),
      "marker.opacity": tv.map(function (v) { return O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]; }),
      "marker.line.color": tv.map(function (v) { return errors.has(v) ? ST.error : "white"; }),
      "marker.line.width": tv.map(function (v) { return errors.has(v) ? 3 : 1; })});
    let ops = ok.map(function (p) { return f.nodes[p][1]; });
    out.push({x: ok.map(function (p) { return f.x[p]; }), y: ok.map(function (p) { return -f.y[p]; }), customdata: ops,
      hovertext: ops.map(opHover), mode: "markers",
      text: ops.map(function (i) { return ptext(short(OPS.opTable[OPS.op[i]][1], 24)); }),
      "marker.symbol": ops.map(function (i) { return OPSYM[OPS.kind[i]]; }),
      "marker.size": ops.map(function (i) { return ST.op[L.names.opKinds[OPS.kind[i]]].size; }),
      "marker.line.color": ops.map(function (i) { return OPS.dev[i] >= 0 ? DEV[OPS.dev[i]].color : "#1F2328"; })});
    out.push({x: [], y: []}, {x: [], y: [], "marker.symbol": []});  // selection: drawn by highlight()
    let gids = gk.map(function (p) { return f.nodes[p][1]; });
    out.push({x: gk.map(function (p) { return f.x[p]; }), y: gk.map(function (p) { return -f.y[p]; }), customdata: gids,
      hovertext: gids.map(groupHover), mode: "markers",
      text: gids.map(function (g) { return ptext(short(G.label[g], 40)) + mix(g); }),
      "marker.symbol": gids.map(function (g) { return ST.group[G.kind[g]]; }),
      "marker.size": gids.map(groupSize),
      "marker.color": gids.map(function (g) { return G.dev[g] >= 0 ? DEV[G.dev[g]].color : "#D0D7DE"; }),
      "marker.opacity": gids.map(function (g) { return O[G.dev[g] >= 0 && shown[DEV[G.dev[g]].name] === false ? 1 : 0]; }),
      "marker.line.color": gids.map(function (g) { return holdsError(g) ? ST.error : "#1F2328"; }),
      "marker.line.width": gids.map(function (g) { return holdsError(g) ? 3 : 1.2; })});
    let bx = boxes();
    out.push({x: bx.map(function (b) { return b[1]; }), y: bx.map(function (b) { return b[4] - 0.45; }),
      customdata: bx.map(function (b) { return b[0]; }),
      hovertext: bx.map(function (b) { return "<b>" + ptext(G.label[b[0]]) + "</b><br>click to collapse"; }),
      mode: "markers", text: bx.map(function (b) { return ptext(short(G.label[b[0]], 40)); })});
    let isGroup = f.nodes.map(function (nd) { return nd[0] === "g"; }), cx = [], cy = [], ch = [];
    let taken = new Set();  // a crossing's dot never sits on a node: it would take the click meant for a group
    f.nodes.forEach(function (_, p) { taken.add(Math.round(f.x[p] * 2) + ":" + Math.round(f.y[p] * 2)); });
    f.edges.forEach(function (e, q) {
      if (!isGroup[e[0]] && !isGroup[e[1]]) return;
      let spot = [0.5, 0.3, 0.7].map(function (t) { return along(f.paths[q], t); })
        .find(function (s) { return !taken.has(Math.round(s[0] * 2) + ":" + Math.round(s[1] * 2)); });
      if (!spot) return;  // what crosses is in both ends' hover and details
      taken.add(Math.round(spot[0] * 2) + ":" + Math.round(spot[1] * 2));
      cx.push(spot[0]); cy.push(-spot[1]);
      let t = f.tensors[q], d = f.devs[q];
      ch.push(num(t) + " tensor" + (t !== 1 ? "s" : "") + " \u00b7 " + ptext(fmtBytes(f.bytes[q])) +
        (d >= 0 ? " on " + ptext(DEV[d].name) : " on several devices") +
        (f.kinds[q] !== "same" ? " \u00b7 " + ST.edge[f.kinds[q]].label : ""));
    });
    out.push({x: cx, y: cy, hovertext: ch});
    if (host.paint) host.paint(out);  // the app recolours the nodes (overlay_view.js: an overlay picked)
    return out;
  }
  function layoutNow() {
    return {shapes: boxes().map(function (b) {
      return {type: "rect", xref: "x", yref: "y", x0: b[1], x1: b[2], y0: b[3], y1: b[4], layer: "below",
              line: {color: tint(b[0], 0.55), width: 1, dash: "dot"}, fillcolor: tint(b[0], 0.06), name: "group " + b[0]};
    }), "annotations[0].text": statusLines().map(ptext).join("<br>")};
  }
  function plotSize() {  // the plot area in px (a default under node, where nothing is drawn)
    let sz = host.graph._fullLayout && host.graph._fullLayout._size;
    return sz ? {w: sz.w, h: sz.h} : {w: 900, h: 560};
  }
  function nodePoints(x0, x1, y0, y1) {
    let f = folded(), out = [];
    f.x.forEach(function (x, p) { let y = -f.y[p]; if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push([x, y]); });
    return out;
  }
  function focus(g) {  // an expanded group's box (its top first) at a readable scale (nav.js)
    let bx = boxes().find(function (b) { return b[0] === g; });
    if (!bx) {
      let f = folded(), p = f.index.get("g" + g);
      if (p === undefined) return homeView();
      let v0 = readableView({x0: f.x[p] - 2, x1: f.x[p] + 2, y0: -f.y[p] - 2, y1: -f.y[p] + 2}, plotSize(), {padRight: 3});
      return {"xaxis.range": v0.x, "yaxis.range": v0.y};
    }
    let v = readableView({x0: bx[1], x1: bx[2], y0: bx[3], y1: bx[4]}, plotSize(),
                         {pad: 0.3, padRight: 3, minY: rowPx(), nodes: nodePoints(bx[1], bx[2], bx[3], bx[4])});
    return {"xaxis.range": v.x, "yaxis.range": v.y};
  }
  function groupSize(g) { return 14 + 3 * Math.log10(Math.max(G.stop[g] - G.start[g], 1)); }
  function rowPx() {  // px a layer needs: the biggest group marker drawn, and a gap, so neighbours never touch
    let most = 0;
    folded().nodes.forEach(function (nd) { if (nd[0] === "g") most = Math.max(most, groupSize(nd[1])); });
    return Math.max(READABLE.y, Math.ceil(most * 1.25) + 4);
  }
  function homeView() {  // the view a big plan opens at: its top, at a readable scale, room for group labels
    let f = folded(), lo = Infinity, hi = -Infinity, depth = 0;
    f.x.forEach(function (x) { lo = Math.min(lo, x); hi = Math.max(hi, x); });
    f.y.forEach(function (y) { depth = Math.max(depth, y + 1); });
    if (lo > hi) { lo = 0; hi = 0; }
    let v = readableView({x0: lo, x1: hi, y0: -(Math.max(depth, 1) - 1), y1: 0}, plotSize(),
                         // room on the right for a folded group's label (long: name, device split, bytes); a graph of
                         // single nodes needs only its own labels' room, so it opens at a larger, more legible scale
                         {pad: 0.5, padRight: f.nodes.some(function (nd) { return nd[0] === "g"; }) ? 3.5 : 1,
                          minY: rowPx(), nodes: f.x.map(function (x, p) { return [x, -f.y[p]]; })});
    return {"xaxis.range": v.x, "yaxis.range": v.y};
  }
  let baseData = fresh(planFigures(L).graph.data);  // the skeleton figures.js builds from the tables
  function setPath(obj, dotted, value) {
    let keys = dotted.split("."), o = obj;
    for (let q = 0; q < keys.length - 1; q++) { if (!o[keys[q]] || typeof o[keys[q]] !== "object") o[keys[q]] = {}; o = o[keys[q]]; }
    o[keys[keys.length - 1]] = value;
  }
  function draw(ranges, reset) {  // one Plotly.react with every trace rebuilt, then the view's ranges
    let gd = host.graph, data = JSON.parse(JSON.stringify(baseData));
    traces().forEach(function (t, q) { Object.keys(t).forEach(function (key) { setPath(data[q], key, t[key]); }); });
    let lay = Object.assign({}, gd.layout), now = layoutNow();
    lay.shapes = now.shapes;
    let depth = 0;
    folded().y.forEach(function (y) { depth = Math.max(depth, y + 1); });
    lay.height = Math.round(Math.min(720, Math.max(380, 22 * Math.min(depth, L.limits.focus) + 110)));  // graph._layout
    lay.annotations = (gd.layout.annotations || []).map(function (a, q) { return q ? a : Object.assign({}, a, {text: now["annotations[0].text"]}); });
    Plotly.react(gd, data, lay, host.config);
    if (reset) Plotly.relayout(gd, homeView());
    else if (ranges) Plotly.relayout(gd, ranges);
    if (host.drawn) host.drawn();  // what the app draws over a fresh figure: open delegates, a profile's op sizes
    highlight(host.state.values, host.state.instructions);
  }
  function unitPositions(values, instructions) {
    let f = folded(), out = [];
    values.forEach(function (v) { if (v >= 0 && v < n && f.valueUnit[v] >= 0) out.push(f.valueUnit[v]); });
    instructions.forEach(function (i) { if (i >= 0 && i < m) out.push(f.instUnit[i]); });
    return Array.from(new Set(out));
  }
  function highlight(values, instructions) {
    let f = folded(), chosen = unitPositions(values, instructions), set = new Set(chosen), sel = [];
    f.edges.forEach(function (e, q) { if (set.has(e[0]) || set.has(e[1])) sel.push(q); });
    let s = segments(f, sel);  // drawn over the figure (overlay.js), not by restyling it
    // host.place: where the app moved a point after drawing (an open delegate pushes the graph below it down)
    const place = host.place || function (x, y) { return [x, y]; };
    const lines = host.placeLines ? host.placeLines(s[0], s[1]) : s;
    host.rings({edges: [{xs: lines[0], ys: lines[1]}],
                rings: chosen.map(function (p) { const at = place(f.x[p], -f.y[p]); return {x: at[0], y: at[1], symbol: symbolOf(f.nodes[p])}; })});
    memoryHighlight(values, instructions);
  }

  function clickGraph(pt) {
    if (pt.curveNumber === T.groups) expand(pt.customdata);
    else if (pt.curveNumber === T.crossings) {  // over a group's body after all: that group
      let f = folded(), g = f.nodes.findIndex(function (nd, p) { return nd[0] === "g" && Math.abs(f.x[p] - pt.x) < 0.3 && Math.abs(-f.y[p] - pt.y) < 0.3; });
      if (g >= 0) expand(f.nodes[g][1]);
    }
    else if (pt.curveNumber === T.headers) collapse(pt.customdata);
    else if (pt.curveNumber === T.tensors) host.select({values: [pt.customdata]});
    else if (pt.curveNumber === T.ops) host.select({instructions: [pt.customdata]});
  }
  function devices() {
    let shown = host.shown(), O = ST.opacity.tensor, f = folded();
    let tv = [], gv = [];
    f.nodes.forEach(function (nd) { if (nd[0] === "v") tv.push(nd[1]); else if (nd[0] === "g") gv.push(nd[1]); });
    Plotly.restyle(host.graph, {"marker.opacity": [tv.map(function (v) { return O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]; }),
                                                   gv.map(function (g) { return O[G.dev[g] >= 0 && shown[DEV[G.dev[g]].name] === false ? 1 : 0]; })]},
                   [T.tensors, T.groups]);
    if (L.arenas.length) drawMemory(true);
  }
  function labels() {
    let v = {};
    TT.index.forEach(function (idx, r) { v[idx] = TT.label[r]; });
    return {v: v, i: OPS.op.map(function (k2) { return OPS.opTable[k2][0]; })};
  }
  Object.assign(C, {setExpanded: setExpanded, expand: expand, collapse: collapse, reveal: reveal, highlight: highlight, holdsError: holdsError,
    clickGraph: clickGraph, devices: devices, labels: labels, draw: draw, boxes: boxes, status: status,
    groupSummary: summary, copyText: copyText});
}
