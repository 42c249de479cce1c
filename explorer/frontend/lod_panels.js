import {ptext, esc, short, fmtBytes, num, batch} from "./util.js";
import {liveProfile} from "./memstrip.js";
import {occupancy, cellAt, cellLines, cellImage, cellPointer} from "./cells.js";
import {sourceLocation} from "./lod_base.js";
import {planFigures} from "./figures.js";

// A big plan (level of detail), part 3: details of a tensor, an op or a group written from the tables,
// and the memory map's lanes, exact occupancy bins and zoom.
/** @param {import("./payload").LodContext} C */
export function lodPanels(C) {
  const {P, host, L, T, m, n, DEV, ST, G, nG, gbase, span, TT, F, OPS, rowOf, written, home, fstart, inputs, outputs,
    errors, errorInstrs, OPSYM, devName, swatch, kindOf, tensorHover, opHover, children, path, visibleNodes, folded,
    depthOf} = C;
  function holdsError() { return C.holdsError.apply(null, arguments); }
  // -- details ----------------------------------------------------------------------------------
  function ul(items) {
    let more = items.length > 40 ? "<li class='dx-muted'>\u2026 and " + (items.length - 40) + " more</li>" : "";
    return "<ul class='dx-list'>" + items.slice(0, 40).map(function (t) { return "<li>" + t + "</li>"; }).join("") + more + "</ul>";
  }
  // host.detailRows (overlay_view.js): rows the app adds to a node's details, e.g. an overlay's number
  function extra(kind, index) { return host.detailRows ? host.detailRows(kind, index) : []; }
  function rows(pairs) {
    return "<table class='dx-kv'>" + pairs.map(function (p) { return "<tr><td>" + p[0] + "</td><td>" + p[1] + "</td></tr>"; }).join("") + "</table>";
  }
  function instrRef(i) { return "<span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(OPS.opTable[OPS.op[i]][0]) + "</span>"; }
  function valueRef(v) {
    const r = v >= 0 && v < n ? rowOf[v] : -1;
    if (v < 0 || v >= n) return "<span class='dx-muted'>%" + v + " (points nowhere)</span>";
    if (r < 0) return "<span class='dx-muted'>%" + v + " " + esc(L.valueKinds[L.valueKind[v]] || "?") + "</span>";
    return swatch(TT.dev[r]) + " <b>" + esc(TT.label[r]) + "</b>" + (TT.named[r] ? " <span class='dx-muted'>%" + v + "</span>" : "");
  }
  // tensors of the same arena whose bytes overlap v's (row r): [value, shares its lifetime too]
  function sharers(v, r) {
    const lo = TT.off[r], hi = lo + Math.max(TT.nbytes[r], 0), out = [];
    if (TT.mem[r] < 0 || hi <= lo) return out;
    const arena = L.arenas.find((a) => a.id === TT.mem[r]);
    for (const u of arena ? arena.rows : []) {
      const q = rowOf[u];
      if (u === v || q < 0 || TT.mem[q] !== TT.mem[r]) continue;
      const a = TT.off[q], b = a + Math.max(TT.nbytes[q], 0);
      if (a < hi && b > lo) out.push([u, TT.first[q] >= 0 && TT.first[r] >= 0 && TT.first[q] <= TT.last[r] && TT.first[r] <= TT.last[q]]);
    }
    return out;
  }
  function sharerRef(e) {
    const q = rowOf[e[0]];
    return valueRef(e[0]) + " <span class='dx-muted'>[" + TT.off[q] + ", " + (TT.off[q] + Math.max(TT.nbytes[q], 0)) + ")" +
      (TT.first[q] >= 0 ? " alive #" + TT.first[q] + " \u2013 #" + TT.last[q] : "") + "</span>" +
      (e[1] ? " <span class='dx-badge dx-error'>alive at the same time</span>" : "");
  }
  function stackOf(i) {
    const k = OPS.stack ? OPS.stack[i] : -1;
    return k >= 0 ? "<div class='dx-trace'>" + L.ops.stacks[k].map(esc).join("\n") + "</div>" : "";
  }
  function findingsAbout(values, instructions) {
    return host.findings().filter(function (fd) {
      return fd.plan === P.name && (fd.values.some(function (v) { return values.indexOf(v) >= 0; }) ||
                                    fd.instructions.some(function (i) { return instructions.indexOf(i) >= 0; }));
    }).map(function (fd) { return esc(fd.label); });
  }
  function valueDetails(v) {
    let r = rowOf[v];
    if (r < 0) return "<div class='dx-root'><h4>%" + v + "</h4></div>";
    let out = [["dtype", esc(L.dtypes[TT.dtype[r]])], ["shape", esc(TT.shapes[TT.shape[r]])], ["bytes", esc(fmtBytes(TT.nbytes[r]))],
               ["device", swatch(TT.dev[r])], ["storage", esc(TT.storages[TT.storage[r]])]];
    if (TT.mem[r] >= 0) {
      let arena = L.arenas.find(function (a) { return a.id === TT.mem[r]; }), text = "arena " + TT.mem[r];
      if (arena) {
        text += " on " + swatch(arena.dev) + " (" + esc(fmtBytes(arena.size)) + ")";
        if (arena.dev !== TT.dev[r]) text += " <span class='dx-badge dx-error'>device differs from the tensor's</span>";
      } else text += " <span class='dx-badge dx-error'>no such arena</span>";
      out.push(["arena", text], ["bytes at", "[" + TT.off[r] + ", " + (TT.nbytes[r] >= 0 ? TT.off[r] + TT.nbytes[r] : "?") + ")"]);
    } else {
      out.push(["lives", esc({constant: "constant (in the file)", runtime: "supplied at run time", external: "external (.ptd)"}[TT.storages[TT.storage[r]]] || TT.storages[TT.storage[r]])]);
    }
    const shared = sharers(v, r);
    if (shared.length) out.push(["shares bytes with", ul(shared.map(sharerRef))]);
    if (TT.first[r] >= 0) out.push(["alive", "#" + TT.first[r] + " \u2013 #" + TT.last[r]]);
    if (TT.dyns[TT.dyn[r]] !== "static") out.push(["dynamism", esc(TT.dyns[TT.dyn[r]])]);
    out.push(["dim order", esc(TT.dimOrders[TT.dimOrder[r]])]);
    let role = [inputs.has(v) ? "plan input" : "", outputs.has(v) ? "plan output" : ""].filter(Boolean);
    if (role.length) out.push(["role", role.join(" \u00b7 ")]);
    let prod = [], cons = [];
    for (let k2 = 0; k2 < F.v.length; k2++) if (F.v[k2] === v) (F.w[k2] ? prod : cons).push(F.i[k2]);
    if (prod.length) out.push(["written by", ul(prod.map(instrRef))]);
    if (cons.length) out.push(["read by", ul(cons.map(instrRef))]);
    out.push(...producerRows(P.context, prod, cons));
    let fs = findingsAbout([v], []);
    if (fs.length) out.push(["findings", ul(fs)]);
    out.unshift(...extra("value", v));  // first: what the user picked to look at
    return "<div class='dx-root'><h4>" + swatch(TT.dev[r]) + " " + esc(TT.label[r]) +
      (TT.named[r] ? " <span class='dx-muted'>%" + v + "</span>" : "") + "</h4>" + rows(out) + "</div>";
  }
  function instrDetails(i) {
    if (i < 0 || i >= m) return "<div class='dx-root'><h4>#" + i + "</h4><span class='dx-muted'>no such instruction</span></div>";
    let out = [["kind", esc(OPS.opTable[OPS.op[i]][2]) + " \u00b7 " + L.names.opKinds[OPS.kind[i]]], ["chain", String(OPS.chain[i])]];
    let d = L.delegateOf[i];
    if (d >= 0 && d < L.delegates.length) {
      const D = L.delegates[d];
      out.push(["delegate", "<span class='dx-code'>" + esc(D.id) + "</span> \u00b7 blob " + esc(D.location) + " #" + D.dataIndex +
                (D.size === null || D.size === undefined ? "" : " " + esc(fmtBytes(D.size)))]);
      if (L.delegates[d].specs.length) out.push(["compile specs", ul(L.delegates[d].specs.map(function (s) {
        return "<span class='dx-code'>" + esc(s[0]) + " = " + esc(s[1]) + "</span>"; }))]);
    }
    for (let k2 = 0; k2 < L.moving.i.length; k2++) if (L.moving.i[k2] === i) {
      let a = TT.dev[rowOf[L.moving.s[k2]]], b = TT.dev[rowOf[L.moving.d[k2]]], kind = kindOf(a, b);
      if (kind !== "same") out.push(["moves", swatch(a) + " \u2192 " + swatch(b) + " \u00b7 " + esc(fmtBytes(L.moving.nbytes[k2])) + " (" + kind + ")"]);
    }
    let reads = [], writes = [];
    for (let k2 = fstart[i]; k2 < fstart[i + 1]; k2++) (F.w[k2] ? writes : reads).push(F.v[k2]);
    if (reads.length) out.push(["reads", ul(reads.map(valueRef))]);
    if (writes.length) out.push(["writes", ul(writes.map(valueRef))]);
    const args = [], wrote = new Set(writes);  // every argument, with its role (a non-tensor is read)
    for (let k2 = OPS.argStart[i]; k2 < OPS.argStart[i + 1]; k2++) {
      const a = OPS.args[k2];
      args.push("%" + a + " <span class='dx-muted'>" + (wrote.has(a) ? "written" : "read") + "</span>");
    }
    out.push(["args", "<span class='dx-code'>" + args.join(", ") + "</span>"]);
    const stack = stackOf(i);
    if (stack) out.push(["stack", stack]);
    out.push(...contextRows(P.context, i));
    let fs = findingsAbout([], [i]);
    if (fs.length) out.push(["findings", ul(fs)]);
    out.unshift(...extra("instr", i));  // first: what the user picked to look at
    return "<div class='dx-root'><h4><span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(OPS.opTable[OPS.op[i]][0]) +
      "</span></h4>" + rows(out) + "</div>";
  }
  function groupDetails(g) {
    let f = folded(), ops = G.stop[g] - G.start[g], kinds = [], S = C.groupSummary(g);
    G.kinds[g].forEach(function (c, k2) { if (c) kinds.push(num(c) + " " + L.names.opKinds[k2]); });
    let devs = S.ops.map(function (o) { return swatch(o[0]) + " " + num(o[1]) + " (" + Math.round(100 * o[2]) + "%)"; });
    let bytes = S.bytes.map(function (e) { return swatch(e[0]) + " " + esc(fmtBytes(e[1])); });
    let out = [["instructions", "#" + G.start[g] + " \u2013 #" + (G.stop[g] - 1) + " (" + num(ops) + ")"], ["ops", kinds.join(", ")],
               ["runs on", devs.join(" \u00b7 ") || "\u2013"], ["tensors", num(G.nodes[g] - ops) + " made or first used here" +
                (S.total ? " \u00b7 " + esc(fmtBytes(S.total)) + (bytes.length > 1 ? " (" + bytes.join(" \u00b7 ") + ")" : "") : "")],
               ["copies", C.copyText(S.copies, true) || "none"]];
    let p = f.index.get("g" + g);
    if (p !== undefined) {
      let ti = 0, bi = 0, to = 0, bo = 0;
      f.edges.forEach(function (e, q) {
        if (e[1] === p) { ti += f.tensors[q]; bi += f.bytes[q]; }
        if (e[0] === p) { to += f.tensors[q]; bo += f.bytes[q]; }
      });
      out.push(["in", num(ti) + " tensors \u00b7 " + esc(fmtBytes(bi))], ["out", num(to) + " tensors \u00b7 " + esc(fmtBytes(bo))]);
    }
    if (holdsError(g)) out.push(["findings", "<span class='dx-badge dx-error'>holds a value an error finding names</span>"]);
    out.unshift(...extra("group", g));  // first: what the user picked to look at
    let state = C.s.expanded.indexOf(g) >= 0 ? "expanded \u2014 click \u25be to collapse" : "click it in the graph to expand";
    return "<div class='dx-root'><h4>" + esc(G.label[g]) + " <span class='dx-muted'>" + esc(G.kind[g]) + " group</span></h4>" +
      rows(out) + "<span class='dx-muted'>" + state + "</span></div>";
  }

  // -- memory (explorer.views.memory_lod, frontend/figures.js) ------------------------------------------
  let AR = L.arenas, nA = AR.length, lim = L.limits.blocks, BINS = L.limits.bins;
  let lanes = planFigures(L).memory.layout;  // axes, titles, arena ends: figures.js
  let baseShapes = (lanes.shapes || []).slice();
  let baseAnnotations = (lanes.annotations || []).slice(), titles = baseAnnotations.slice(0, nA);  // titles first
  let grids = AR.map(function () { return null; });  // per lane its binned cells as drawn (cells.js), or null
  let boxes = AR.map(function () { return []; });  // per lane its blocks as drawn, [x0, x1, y0, y1] (blockBoxes)
  let drawn = AR.map(function (a) { return a.rows.length > lim ? a.rows.filter(function (v) { return errors.has(v); }) : a.rows; });
  // the lanes' x axis: instructions, or another scale (a run profile's measured time: profile.js) given as
  // X.to (instruction units -> axis units) and X.from; bins, zoom windows and outlines are in axis units
  /** @type {{to: function(number): number, from: function(number): number}} */
  let X = {to: function (x) { return x; }, from: function (x) { return x; }};
  let mapped = false;  // the lanes are on another axis than instructions
  function setAxis(map) { X = map || {to: function (x) { return x; }, from: function (x) { return x; }}; mapped = !!map; C.s.win = null; drawMemory(); }
  function axisMap() { return mapped ? X : null; }
  function fullSpan() { return [X.to(-0.5), X.to(Math.max(m, 1) - 0.5)]; }
  function spanOf() { return C.s.win || fullSpan(); }
  function bounds(v) {
    let r = rowOf[v], none = TT.first[r] < 0;
    return [X.to((none ? 0 : TT.first[r]) - 0.5), X.to((none ? Math.max(m, 1) - 1 : TT.last[r]) + 0.5)];
  }
  // A block is drawn when it is at least MIN_PX wide and tall on screen at the current zoom; thinner tensors
  // (a 5,000-op chain's one-step activations) are binned, since thousands of 2-px bars only make a pale wash.
  // Of the legible ones, the LARGEST biggest (on screen) stay blocks in a binned lane, the rest join the bins.
  let MIN_PX = [3, 3], LARGEST = 300;
  // host.marks (a diff: {of(v) -> {color, width} | null, noun}): blocks outlined in their colour, and a binned
  // cell's hover counts the marked tensors it holds, so changes are found in the lanes too
  let marks = host.marks || null;
  function marked(v) { return marks ? marks.of(v) : null; }
  let laneErrors = AR.map(function (a) { return a.rows.filter(function (v) { return errors.has(v); }); });
  function pxScale(k2) {  // px per instruction and per byte of lane k2 as drawn (defaults under node)
    let lay = host.memory._fullLayout, w = spanOf(), a = AR[k2];
    let W = lay && lay._size ? lay._size.w : 1200, ax = lay && lay[k2 ? "yaxis" + (k2 + 1) : "yaxis"];
    let H = ax && ax._length ? ax._length : 120;
    return [W / (w[1] - w[0]), H / (Math.max(a.size, a.high, 1) * 1.06)];
  }
  function rect(v) {  // a tensor's [x0, x1, y0, y1] in instructions and bytes
    let b = bounds(v), r = rowOf[v];
    return [b[0], b[1], TT.off[r], TT.off[r] + Math.max(TT.nbytes[r], 0)];
  }
  function lane(k2) {
    let a = AR[k2], w = spanOf(), total = a.rows.length, px = pxScale(k2), big = [], thin = [], area = new Map();
    a.rows.forEach(function (v) {
      let b = bounds(v), r = rowOf[v];
      if (!(b[1] > w[0] && b[0] < w[1])) return;
      // its whole extent on screen (one cut by the window's edge is still a legible block); no bytes: drawn thin
      let wide = (b[1] - b[0]) * px[0], tall = TT.nbytes[r] > 0 ? TT.nbytes[r] * px[1] : MIN_PX[1];
      if (wide >= MIN_PX[0] && tall >= MIN_PX[1]) { big.push(v); area.set(v, wide * tall); } else thin.push(v);
    });
    let inView = big.length + thin.length;
    if (!thin.length && inView <= lim) return {blocks: big, heat: null, note: inView < total ? "showing " + num(inView) + " of " +
      num(total) + " tensors (#" + num(Math.round(Math.max(X.from(w[0]), 0))) + " \u2013 #" + num(Math.round(X.from(w[1]))) + ")" : ""};
    big.sort(function (x, y) { return area.get(y) - area.get(x) || x - y; });
    let keep = big.slice(0, LARGEST), rest = thin.concat(big.slice(LARGEST)), drawnSet = new Set(keep);
    laneErrors[k2].forEach(function (v) { if (!drawnSet.has(v)) { keep.push(v); drawnSet.add(v); } });
    rest = rest.filter(function (v) { return !drawnSet.has(v); });
    let height = Math.max(a.size, a.high, 1), nx = Math.max(1, Math.min(BINS[0], Math.ceil(w[1] - w[0])));
    let shown = Math.min(big.length, LARGEST);
    return {blocks: keep, heat: rest.length ? occupancy(rest, rect, w, height, nx, BINS[1], marks ? marked : null) : null,
            note: "aggregated: " + num(rest.length) + " tensors" + (C.s.win ? " in view" : "") + " in " + nx + "\u00d7" + BINS[1] +
              " bins" + (shown > 0 ? ", the " + num(shown) + " largest drawn" : "") + " \u2014 zoom in to see tensors"};
  }
  function minSizes(k2) {  // a block is at least ~2 px wide and 1.5 px tall (explorer.views.memory.MIN_WIDTH / MIN_HEIGHT)
    let w = spanOf();
    return [(w[1] - w[0]) / 600, Math.max(AR[k2].size, AR[k2].high, 1) / 100];
  }
  function blockBoxes(vals, k2) {  // [x0, x1, y0, y1] of each block as drawn: its tensor's rect, minimum sizes included
    let mins = minSizes(k2);
    return vals.map(function (v) {
      let b = bounds(v), r = rowOf[v], cx = (b[0] + b[1]) / 2, hw = Math.max(b[1] - b[0], mins[0]) / 2;
      return [cx - hw, cx + hw, TT.off[r], TT.off[r] + Math.max(TT.nbytes[r], mins[1])];
    });
  }
  function blockData(vals, k2, box) {  // box: blockBoxes(vals, k2)
    let a = AR[k2];
    let shown = host.shown(), O = ST.opacity.block;
    let bad = vals.map(function (v) { let r = rowOf[v]; return errors.has(v) || TT.off[r] + Math.max(TT.nbytes[r], 0) > a.size; });
    let pat = vals.map(function (v) { return TT.first[rowOf[v]] < 0 ? "/" : DEV[TT.dev[rowOf[v]]].pattern; });
    let out = {x: [], width: [], base: [], y: [], customdata: vals, hovertext: vals.map(tensorHover),
      "marker.color": vals.map(function (v) { return DEV[TT.dev[rowOf[v]]].color; }),
      "marker.opacity": vals.map(function (v) { return O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]; }),
      // an error's red first; else the host's mark (a diff's status colour: the block changed), else a hairline
      "marker.line.color": bad.map(function (e, k) { let mk = marked(vals[k]); return e ? ST.error : mk ? mk.color : "white"; }),
      "marker.line.width": bad.map(function (e, k) { let mk = marked(vals[k]); return e ? 2.5 : mk ? Math.max(mk.width || 0, 2.5) : 0.6; }),
      // the tensor's name inside its block where it fits (the skeleton's text style and layout.uniformtext
      // hide the rest; the hover says all), in the ink that reads on its device's colour
      text: vals.map(function (v) { return ptext(short(TT.label[rowOf[v]], 24)); }),
      "textfont.color": vals.map(function (v) { return DEV[TT.dev[rowOf[v]]].ink; })};
    if (pat.some(Boolean)) out["marker.pattern.shape"] = pat;
    box.forEach(function (bx) {
      out.x.push((bx[0] + bx[1]) / 2); out.width.push(bx[1] - bx[0]); out.base.push(bx[2]); out.y.push(bx[3] - bx[2]);
    });
    return out;
  }
  function drawMemory() {  // every lane (what is legible depends on the zoom), notes, selection: one update
    let gd = host.memory, notes = [], shown = host.shown(), b = batch(), images = [];
    if (gd.dxCells) gd.dxCells.hide();  // a cell's label from before this draw
    AR.forEach(function (a, k2) {
      let ln = lane(k2), dim = ST.opacity.block[1], op = shown[DEV[a.dev].name] === false ? dim : 1, ax = k2 ? String(k2 + 1) : "";
      notes.push(ln.note);
      drawn[k2] = ln.blocks;
      grids[k2] = ln.heat;
      boxes[k2] = blockBoxes(ln.blocks, k2);
      b.set(2 * k2, blockData(ln.blocks, k2, boxes[k2]));
      if (ln.heat) {  // the cells as one image under the blocks; the pointer finds them by a hit test (cells.js)
        let c = DEV[a.dev].color, rgb = [1, 3, 5].map(function (q) { return parseInt(c.slice(q, q + 2), 16); });
        let img = cellImage(ln.heat, rgb, "x" + ax, "y" + ax, op);
        if (img) images.push(img);
      }
    });
    let ann = baseAnnotations.slice();
    notes.forEach(function (t, k2) {
      ann.push({text: ptext(t), xref: "paper", yref: "paper", x: 1, y: titles[k2].y, xanchor: "right", yanchor: "top", yshift: -4,
                showarrow: false, font: {size: 11, color: "#1F2328"}, bgcolor: "rgba(255,255,255,0.85)", name: "aggregated"});
    });
    b.send(gd, {annotations: ann, shapes: baseShapes.slice(), images: images});
    memoryHighlight(host.state.values, host.state.instructions);
  }
  function memoryHighlight(values, instructions) {  // outlines and instruction lines over the map (overlay.js)
    if (!nA) return;
    let set = new Set(values), rects = [], lines = [];
    AR.forEach(function (a, k2) {
      let ax = k2 ? String(k2 + 1) : "";
      a.rows.filter(function (v) { return set.has(v); }).slice(0, 2000).forEach(function (v) {
        let rc = rect(v);
        rects.push({x0: rc[0], x1: rc[1], y0: rc[2], y1: rc[3], xaxis: "x" + ax, yaxis: "y" + ax});
      });
    });
    instructions.slice(0, 50).forEach(function (i) { if (i >= 0 && i < m) lines.push({x: X.to(i)}); });
    host.outlines({rects: rects, lines: lines});
  }
  function onRelayout(ev) {
    if (!ev) return;
    const keys = Object.keys(ev);
    /** @type {any} */ let lo = null;
    /** @type {any} */ let hi = null;
    if (keys.some(function (k2) { return /^xaxis\d*\.autorange$/.test(k2) && ev[k2]; })) { lo = null; hi = null; }
    else {
      keys.forEach(function (k2) {
        let a = /^xaxis\d*\.range\[0\]$/.test(k2), b = /^xaxis\d*\.range\[1\]$/.test(k2), c = /^xaxis\d*\.range$/.test(k2);
        if (a) lo = ev[k2]; if (b) hi = ev[k2]; if (c) { lo = ev[k2][0]; hi = ev[k2][1]; }
      });
      if (lo === null || hi === null) return;
    }
    let full = fullSpan(), next = lo === null || (lo <= full[0] && hi >= full[1]) ? null : [Math.max(lo, full[0]), Math.min(hi, full[1])];
    if (JSON.stringify(next) === JSON.stringify(C.s.win)) return;
    C.s.win = next;
    drawMemory();
  }
  // the pointer over a binned lane (cells.js cellPointer): the cell under it, unless a drawn block is there (its
  // own plotly hover and click); px, py relative to the figure
  function cellUnder(px, py) {
    let lay = host.memory._fullLayout;
    if (!lay) return null;
    for (let k2 = 0; k2 < nA; k2++) {
      let xa = lay[k2 ? "xaxis" + (k2 + 1) : "xaxis"], ya = lay[k2 ? "yaxis" + (k2 + 1) : "yaxis"], grid = grids[k2];
      if (!grid || !xa || !ya || px < xa._offset || px > xa._offset + xa._length || py < ya._offset || py > ya._offset + ya._length) continue;
      let x = xa.p2l(px - xa._offset), y = ya.p2l(py - ya._offset);
      if (blockAt(k2, x, y)) return null;
      let c = cellAt(grid, x, y);
      if (c < 0) return null;
      let lines = cellLines(grid, c, m, function (v) { return TT.label[rowOf[v]]; }, function (v) { return TT.nbytes[rowOf[v]]; },
                            marks ? marks.noun : "", X.from);
      return {lines: lines, zoom: function () {  // three cells wide around it: a click or two and its tensors are blocks
        Plotly.relayout(host.memory, {"xaxis.range": [lines.centre - 1.5 * grid.step, lines.centre + 1.5 * grid.step]});
      }};
    }
    return null;
  }
  function blockAt(k2, x, y) {  // a block drawn in lane k2 covers (x, y), as drawn
    let box = boxes[k2];
    for (let q = 0; q < box.length; q++) if (x >= box[q][0] && x <= box[q][1] && y >= box[q][2] && y <= box[q][3]) return true;
    return false;
  }
  if (typeof document !== "undefined" && host.memory && host.memory.addEventListener) cellPointer(host.memory).use(cellUnder);
  function clickMemory(pt) {
    if (pt.curveNumber < 2 * nA && pt.curveNumber % 2 === 0 && pt.customdata !== undefined) host.select({values: [pt.customdata]});
  }
  function laneProfiles() {  // per lane the bytes live at each instruction, for the overview strip (memstrip.js)
    return AR.map(function (a) {
      return {color: DEV[a.dev].color, size: Math.max(a.size, a.high, 1), live: liveProfile(a.rows.map(function (v) {
        let r = rowOf[v]; return [TT.first[r], TT.last[r], Math.max(TT.nbytes[r], 0)]; }), m)};
    });
  }
  Object.assign(C, {laneProfiles: laneProfiles, valueDetails: valueDetails, instrDetails: instrDetails, groupDetails: groupDetails,
    drawMemory: drawMemory, memoryHighlight: memoryHighlight, setAxis: setAxis, axisMap: axisMap, onRelayout: onRelayout, clickMemory: clickMemory,
    lane: lane});
}

// -- an ETRecord's context (plans[].context, views/context_payload.py; docs/etrecord.md) --------------
// Pure functions of the context's columns, so node tests run them on a payload. Every string is the ETRecord's
// (made visible in Python) and reaches the page through esc.
const CAP = 12;  // nodes listed before "and N more"
function className(type) { return type.slice(type.lastIndexOf(".") + 1); }
function moduleName(X, row) {  // "layers.0.lin (Linear)"; the model itself by its class: "Net"
  const path = X.modules.path[row], type = X.modules.type[row];
  return "<span title='" + esc(type) + "'>" + (path ? "<span class='dx-code'>" + esc(path) + "</span> <span class='dx-muted'>(" +
    esc(className(type)) + ")</span>" : esc(className(type))) + "</span>";
}
// a module row's stack, outermost first, following modules.parent: "Net › layers.0 (Block) › layers.0.lin (Linear)"
export function moduleCrumbs(X, row) {
  const chain = [];
  for (let r = row; r >= 0 && chain.length <= X.modules.parent.length; r = X.modules.parent[r]) chain.unshift(r);
  return "<span class='dx-crumbs'>" + chain.map((r) => moduleName(X, r)).join(" <span class='dx-muted'>\u203a</span> ") + "</span>";
}
function sourceText(X, k) { return "<span class='dx-code'>" + esc(X.sources[k]) + "</span>"; }
function sourceShort(X, k) {  // a listed node's line: "model.py:62", the whole "dir/model.py:62 in forward" on hover
  return "<span class='dx-code' title='" + esc(X.sources[k]) + "'>" + esc(sourceLocation(X.sources[k])) + "</span>";
}
// an original graph node (a row of nodes): its op before lowering and name, and — when asked, or when they
// differ from the instruction's — its module and source line
function nodeLine(X, q, i, full) {
  const N = X.nodes, mod = N.module[q], src = N.source[q], out = ["<span class='dx-code'>" + esc(X.ops[N.op[q]]) + "</span> <span class='dx-muted'>" +
    esc(N.name[q]) + "</span>"];
  if (mod >= 0 && (full || mod !== X.module[i])) out.push(moduleName(X, mod));
  if (src >= 0 && (full || src !== X.source[i])) out.push(sourceShort(X, src));
  return out.join(" \u00b7 ");
}
function capped(items) {
  const more = items.length > CAP ? "<li class='dx-muted'>\u2026 and " + (items.length - CAP) + " more</li>" : "";
  return "<ul class='dx-list'>" + items.slice(0, CAP).map((t) => "<li>" + t + "</li>").join("") + more + "</ul>";
}
// the details' rows for instruction i: module breadcrumb, source line, the whole stack (folded), the original
// nodes (a delegate call: every node it holds, with module and source); [] without a context
export function contextRows(X, i) {
  if (!X || i < 0 || i >= X.module.length) return [];
  const out = [], nodes = [], delegate = X.backend[i] >= 0;
  if (X.module[i] >= 0) out.push(["module", moduleCrumbs(X, X.module[i])]);
  if (X.source[i] >= 0) out.push(["source", sourceText(X, X.source[i])]);
  for (let k = X.nodeStart[i]; k < X.nodeStart[i + 1]; k++) nodes.push(nodeLine(X, X.nodeIndex[k], i, delegate));
  if (delegate) out.push(["holds", esc(X.backends[X.backend[i]]) + " holds " + nodes.length + " node" + (nodes.length === 1 ? "" : "s") +
    " of the model" + capped(nodes)]);
  else if (nodes.length) out.push(["before lowering", nodes.length === 1 ? nodes[0] : capped(nodes)]);
  if (X.stack[i] >= 0) {
    const lines = X.stacks[X.stack[i]], frames = lines.filter((l) => !/^ {4}/.test(l)).length;
    out.push(["model stack", "<details class='dx-ctx-stack'><summary>" + frames + " frame" + (frames === 1 ? "" : "s") +
      "</summary><div class='dx-trace'>" + lines.map(esc).join("\n") + "</div></details>"]);
  }
  return out;
}
// a tensor's row: the module and source line of the first instruction writing it that has a context ("made
// in"); for one nothing writes (a weight, an input), of the first reading it ("used in": layers.0.lin's weight)
export function producerRows(X, writers, readers) {
  if (!X) return [];
  const has = (w) => w >= 0 && w < X.module.length && (X.module[w] >= 0 || X.source[w] >= 0);
  const i = writers.length ? writers.find(has) : (readers || []).find(has);
  if (i === undefined) return [];
  const parts = [X.module[i] >= 0 ? moduleName(X, X.module[i]) : "", X.source[i] >= 0 ? sourceText(X, X.source[i]) : ""];
  return [[writers.length ? "made in" : "used in", parts.filter(Boolean).join(" \u00b7 ") + " <span class='dx-muted'>(#" + i + ")</span>"]];
}
