import {ptext, short, batch} from "../util/common.js";
import {countText} from "../util/format.js";
import {liveProfile} from "../panels/memstrip.js";
import {occupancy, cellAt, cellLines, cellImage, cellPointer} from "../panels/cells.js";
import {fresh, planFigures} from "./figures.js";

// A plan drawn at its level of detail (lod/plan.js), part 4: the memory map. One lane per arena (lod/figures.js draws its
// axes and titles); tensors legible at the current zoom are blocks, the rest exact occupancy bins (panels/cells.js) until
// a zoom leaves few enough to draw. The zoom window is the view state's `win` (lod/base.js LodState).
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {import("../panels/cells.js").Grid} Grid */
/** @typedef {ReturnType<typeof lodMemory>} LodMemory */
/** An x axis other than instructions: `to` maps instruction units to axis units, `from` back (profile/profile.js: measured time).
 * @typedef {{to: (x: number) => number, from: (x: number) => number}} AxisMap */
/** A lane as lane() chooses to draw it: the tensors drawn as blocks, the rest binned (null: none), the lane's note.
 * cut: where blocks end and bins begin along the axis, when they do not interleave.
 * @typedef {{blocks: number[], heat: Grid | null, note: string, cut?: number | null}} Lane */

// A block is drawn when it is at least MIN_PX wide and tall on screen at the current zoom; thinner tensors
// (a 5,000-op chain's one-step activations) are binned, since thousands of 2-px bars only make a pale wash.
// Of the legible ones, the LARGEST biggest (on screen) stay blocks in a binned lane, the rest join the bins.
const MIN_PX = [3, 3], LARGEST = 300;
// A lane of at most this many tensors in view is never binned: a hundred thin bars still read one by one (the
// wash binning avoids is of thousands: a 1k-op program's lane of 278 one-step tensors stays binned).
const ALL_BLOCKS = 100;
/** @type {AxisMap} */
const INSTRUCTIONS = {to: (x) => x, from: (x) => x};

// long-function: not split yet: the lanes' drawing, zoom, hit test and axis share the memory map's window (S.win),
// the lanes' cached blocks and bins and the axis map as closure state; splitting by job needs that state made
// explicit first (as lod/graph.js was split).
/** @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host */
export function lodMemory(B, S, host) {
  const {L, m, DEV, ST, TT, rowOf, errors, tensorHover} = B;
  const AR = L.arenas, nA = AR.length, lim = L.limits.blocks, BINS = L.limits.bins;
  const lanes = planFigures(L).memory.layout;  // axes, titles, arena ends: lod/figures.js
  const baseShapes = /** @type {object[]} */ (lanes.shapes || []).slice();
  const baseAnnotations = /** @type {{y: number}[]} */ (lanes.annotations || []).slice(), titles = baseAnnotations.slice(0, nA);  // titles first
  /** @type {(Grid | null)[]} per lane its binned cells as drawn (panels/cells.js), or null */
  const grids = AR.map(() => null);
  /** @type {number[][][]} per lane its blocks as drawn, [x0, x1, y0, y1] (blockBoxes) */
  const boxes = AR.map(() => []);
  // the lanes' x axis: instructions, or another scale (a run profile's measured time: profile/profile.js); bins, zoom
  // windows and outlines are in axis units
  let X = INSTRUCTIONS;
  let mapped = false;  // the lanes are on another axis than instructions
  // host.marks (a diff: {of(v) -> {color, width} | null, noun}): blocks outlined in their colour, and a binned
  // cell's hover counts the marked tensors it holds, so changes are found in the lanes too
  const marks = host.marks || null;
  /** @param {number} v @returns {{color: string, width: number} | null} */
  function marked(v) { return marks ? marks.of(v) : null; }
  const laneErrors = AR.map((a) => a.rows.filter((v) => errors.has(v)));

  /** the lanes' x axis from now on (null: instructions); the zoom window is reset @param {AxisMap | null} map */
  function setAxis(map) { X = map || INSTRUCTIONS; mapped = !!map; S.win = null; drawMemory(); }
  /** the lanes' axis when it is not instructions, else null */
  function axisMap() { return mapped ? X : null; }
  /** @returns {[number, number]} */
  function fullSpan() { return [X.to(-0.5), X.to(Math.max(m, 1) - 0.5)]; }
  function spanOf() { return S.win || fullSpan(); }
  /** a tensor's lifetime in axis units @param {number} v @returns {[number, number]} */
  function bounds(v) {
    const r = rowOf[v], none = TT.first[r] < 0;
    return [X.to((none ? 0 : TT.first[r]) - 0.5), X.to((none ? Math.max(m, 1) - 1 : TT.last[r]) + 0.5)];
  }
  /** px per instruction and per byte of lane k2 as drawn; before plotly has drawn the lanes (their first draw is one
   * Plotly.react: drawLanes), as the skeleton will lay them out in the div's width (defaults under node) @param {number} k2 */
  function pxScale(k2) {
    const lay = host.memory._fullLayout, w = spanOf(), a = AR[k2], key = k2 ? "yaxis" + (k2 + 1) : "yaxis";
    const M = lanes.margin, dom = lanes[key].domain, width = host.memory.clientWidth;
    const W = lay && lay._size ? lay._size.w : width ? Math.max(1, width - M.l - M.r) : 1200, ax = lay && lay[key];
    const H = ax && ax._length ? ax._length : width ? (lanes.height - M.t - M.b) * (dom[1] - dom[0]) : 120;
    return [W / (w[1] - w[0]), H / (Math.max(a.size, a.high, 1) * 1.06)];
  }
  /** a tensor's [x0, x1, y0, y1] in axis units and bytes @param {number} v */
  function rect(v) {
    const b = bounds(v), r = rowOf[v];
    return [b[0], b[1], TT.off[r], TT.off[r] + Math.max(TT.nbytes[r], 0)];
  }
  /** what lane k2 draws at the current zoom @param {number} k2 @returns {Lane} */
  function lane(k2) {
    const a = AR[k2], w = spanOf(), total = a.rows.length, px = pxScale(k2), big = /** @type {number[]} */ ([]);
    const thin = /** @type {number[]} */ ([]), area = /** @type {Map<number, number>} */ (new Map());
    a.rows.forEach((v) => {
      const b = bounds(v), r = rowOf[v];
      if (!(b[1] > w[0] && b[0] < w[1])) return;
      // its whole extent on screen (one cut by the window's edge is still a legible block); no bytes: drawn thin
      const wide = (b[1] - b[0]) * px[0], tall = TT.nbytes[r] > 0 ? TT.nbytes[r] * px[1] : MIN_PX[1];
      if (wide >= MIN_PX[0] && tall >= MIN_PX[1]) { big.push(v); area.set(v, wide * tall); } else thin.push(v);
    });
    const inView = big.length + thin.length;
    // bins only where drawing every block would be illegible: a lane of at most ALL_BLOCKS tensors in view draws each
    // (a thin one at the least size blockBoxes gives it, still hovered and clicked); binning a 17-tensor plan only
    // hid tensors a reader could have seen
    if ((!thin.length || inView <= ALL_BLOCKS) && inView <= lim) return {blocks: big.concat(thin), heat: null, note: inView < total ? "showing " + countText(inView) + " of " +
      countText(total) + " tensors (#" + countText(Math.round(Math.max(X.from(w[0]), 0))) + " \u2013 #" + countText(Math.round(X.from(w[1]))) + ")" : ""};
    const areaOf = (/** @type {number} */ v) => /** @type {number} */ (area.get(v));
    big.sort((x, y) => areaOf(y) - areaOf(x) || x - y);
    // the LARGEST biggest stay blocks, but never part of a run of equal ones: 300 of 3,000 equal tensors drawn as
    // blocks up to some instruction and binned after it read as a change in the data where there is none
    let cut = Math.min(big.length, LARGEST);
    if (cut < big.length) while (cut > 0 && areaOf(big[cut - 1]) === areaOf(big[cut])) cut--;
    const keep = big.slice(0, cut), drawnSet = new Set(keep);
    laneErrors[k2].forEach((v) => { if (!drawnSet.has(v)) { keep.push(v); drawnSet.add(v); } });
    const rest = thin.concat(big.slice(cut)).filter((v) => !drawnSet.has(v));
    const height = Math.max(a.size, a.high, 1), nx = Math.max(1, Math.min(BINS[0], Math.ceil(w[1] - w[0])));
    const at = splitAt(keep.slice(0, cut), rest), from = at === null ? "" : " (blocks before #" +
      countText(Math.ceil(X.from(at))) + ", bins from it: the dashed line)";
    return {blocks: keep, heat: rest.length ? occupancy(rest, rect, w, height, nx, BINS[1], marks ? marked : undefined) : null,
            note: "aggregated: " + countText(rest.length) + " tensors" + (S.win ? " in view" : "") + " in " + nx + "\u00d7" + BINS[1] +
              " bins" + (cut > 0 ? ", the " + countText(cut) + " largest drawn" + from : "") + " \u2014 zoom in to see tensors",
            cut: at};
  }
  /** where drawn blocks end and binned tensors begin along the axis, when they do not interleave (axis units), else
   * null: the lane marks it, so a change from blocks to bins is not read as a change in the data
   * @param {number[]} blocks @param {number[]} binned @returns {number | null} */
  function splitAt(blocks, binned) {
    if (!blocks.length || !binned.length) return null;
    let end = -Infinity, start = Infinity;
    blocks.forEach((v) => { end = Math.max(end, bounds(v)[1]); });
    binned.forEach((v) => { start = Math.min(start, bounds(v)[0]); });
    // a chain hands over within an instruction: the last block and the first binned tensor may share one
    return X.from(end) - X.from(start) <= 1 ? (end + start) / 2 : null;
  }
  /** a block is at least ~2 px wide and 1.5 px tall @param {number} k2 */
  function minSizes(k2) {
    const w = spanOf();
    return [(w[1] - w[0]) / 600, Math.max(AR[k2].size, AR[k2].high, 1) / 100];
  }
  /** [x0, x1, y0, y1] of each block as drawn: its tensor's rect, minimum sizes included @param {number[]} vals @param {number} k2 */
  function blockBoxes(vals, k2) {
    const mins = minSizes(k2);
    return vals.map((v) => {
      const b = bounds(v), r = rowOf[v], cx = (b[0] + b[1]) / 2, hw = Math.max(b[1] - b[0], mins[0]) / 2;
      return [cx - hw, cx + hw, TT.off[r], TT.off[r] + Math.max(TT.nbytes[r], mins[1])];
    });
  }
  /** whether a block [x0, x1, y0, y1] (px per unit: px) may show a name: plotly shows one inside at 9 px or more
   * (layout.uniformtext), upright or turned, with 3 px padding; a block under ~12 px across or shorter than the name's
   * narrowest glyphs never does @param {number[]} bx @param {number[]} px @param {string} name */
  function roomy(bx, px, name) {
    const w = (bx[1] - bx[0]) * px[0], h = (bx[3] - bx[2]) * px[1], chars = Math.min(String(name).length, 24);
    return Math.min(w, h) >= 12 && Math.max(w, h) >= 6 + 2 * chars;
  }
  /** lane k2's bar trace for these blocks @param {number[]} vals @param {number} k2 @param {number[][]} box blockBoxes(vals, k2) */
  function blockData(vals, k2, box) {
    const a = AR[k2], shown = host.shown(), O = ST.opacity.block;
    const devOf = (/** @type {number} */ v) => DEV[TT.dev[rowOf[v]]], px = pxScale(k2);
    const bad = vals.map((v) => { const r = rowOf[v]; return errors.has(v) || TT.off[r] + Math.max(TT.nbytes[r], 0) > a.size; });
    const pat = vals.map((v) => TT.first[rowOf[v]] < 0 ? "/" : devOf(v).pattern);
    /** @type {Record<string, unknown[]>} */
    const out = {x: box.map((bx) => (bx[0] + bx[1]) / 2), width: box.map((bx) => bx[1] - bx[0]), base: box.map((bx) => bx[2]),
      y: box.map((bx) => bx[3] - bx[2]), customdata: vals, hovertext: vals.map(tensorHover),
      "marker.color": vals.map((v) => devOf(v).color),
      "marker.opacity": vals.map((v) => O[shown[devOf(v).name] === false ? 1 : 0]),
      // an error's red first; else the host's mark (a diff's status colour: the block changed), else a hairline
      "marker.line.color": bad.map((e, k) => { const mk = marked(vals[k]); return e ? ST.error : mk ? mk.color : "white"; }),
      "marker.line.width": bad.map((e, k) => { const mk = marked(vals[k]); return e ? 2.5 : mk ? Math.max(mk.width || 0, 2.5) : 0.6; }),
      // the tensor's name inside its block where it fits (the skeleton's text style and layout.uniformtext
      // hide the rest; the hover says all), in the ink that reads on its device's colour; a block too small for
      // any name gets none (plotly would measure each and hide it: 127 hidden names in a what-if's lane)
      text: vals.map((v, k) => roomy(box[k], px, TT.label[rowOf[v]]) ? ptext(short(TT.label[rowOf[v]], 24)) : ""),
      "textfont.color": vals.map((v) => devOf(v).ink)};
    if (pat.some(Boolean)) out["marker.pattern.shape"] = pat;
    return out;
  }
  /** the lanes' first draw, skeleton and blocks in one Plotly.react (the skeleton alone drawn first, then the blocks,
   * lays out every lane twice); a plan without arenas: its note */
  function drawLanes() {
    if (nA) { drawMemory(true); return; }
    const fig = planFigures(L).memory;
    Plotly.react(host.memory, fresh(fig.data), fresh(fig.layout), host.config);
  }
  /** every lane (what is legible depends on the zoom), notes, selection: one update; nothing for a plan without arenas.
   * first: drawn whole from the skeleton (drawLanes) @param {boolean} [first] */
  function drawMemory(first) {
    const gd = host.memory, notes = /** @type {string[]} */ ([]), cuts = /** @type {(number | null | undefined)[]} */ ([]), shown = host.shown(), b = batch(), images = /** @type {object[]} */ ([]);
    if (!nA || (!gd.data && !first)) return;  // no lanes, or their skeleton not drawn yet (app/app.js draws the first view in stages)
    if (gd.dxCells) gd.dxCells.hide();  // a cell's label from before this draw
    AR.forEach((a, k2) => {
      const ln = lane(k2), dim = ST.opacity.block[1], op = shown[DEV[a.dev].name] === false ? dim : 1, ax = k2 ? String(k2 + 1) : "";
      notes.push(ln.note); cuts.push(ln.cut);
      grids[k2] = ln.heat;
      boxes[k2] = blockBoxes(ln.blocks, k2);
      b.set(2 * k2, blockData(ln.blocks, k2, boxes[k2]));
      if (ln.heat) {  // the cells as one image under the blocks; the pointer finds them by a hit test (panels/cells.js)
        const c = DEV[a.dev].color, rgb = [1, 3, 5].map((q) => parseInt(c.slice(q, q + 2), 16));
        const img = cellImage(ln.heat, rgb, "x" + ax, "y" + ax, op);
        if (img) images.push(img);
      }
    });
    const ann = /** @type {object[]} */ (baseAnnotations.slice()), shapes = baseShapes.slice();
    // a lane's note: a line of its own above the lane's title, outside the plot (lod/figures.js leaves the room), so
    // it never covers a bar and is never cut by the plot's edge
    notes.forEach((t, k2) => {
      if (t) ann.push({text: ptext(t), xref: "paper", yref: "paper", x: 0, y: titles[k2].y, xanchor: "left", yanchor: "bottom",
                       yshift: 16, showarrow: false, font: {size: 11, color: "#57606A"}, name: "aggregated"});
    });
    cuts.forEach((c, k2) => {  // where blocks stop and bins start, on the lane and its axis
      if (c === null || c === undefined) return;
      const ax = k2 ? String(k2 + 1) : "";
      shapes.push({type: "line", xref: "x" + ax, yref: "y" + ax + " domain", x0: c, x1: c, y0: -0.06, y1: 1, layer: "above",
                   line: {color: "#1F2328", width: 1, dash: "dash"}, name: "bins start"});
    });
    const layout = {annotations: ann, shapes: shapes, images: images};
    if (first === true) {
      const fig = b.into(planFigures(L).memory, layout);
      Plotly.react(gd, fig.data, fig.layout, host.config);
    } else b.send(gd, layout);
    memoryHighlight(host.state.values, host.state.instructions);
  }
  /** outlines and instruction lines over the map (panels/rings.js) @param {number[]} values @param {number[]} instructions */
  function memoryHighlight(values, instructions) {
    if (!nA) return;
    const set = new Set(values), rects = /** @type {import("../panels/rings").Items["rects"]} */ ([]), lines = /** @type {{x: number}[]} */ ([]);
    AR.forEach((a, k2) => {
      const ax = k2 ? String(k2 + 1) : "";
      a.rows.filter((v) => set.has(v)).slice(0, 2000).forEach((v) => {
        const rc = rect(v);
        rects.push({x0: rc[0], x1: rc[1], y0: rc[2], y1: rc[3], xaxis: "x" + ax, yaxis: "y" + ax});
      });
    });
    instructions.slice(0, 50).forEach((i) => { if (i >= 0 && i < m) lines.push({x: X.to(i)}); });
    host.outlines({rects: rects, lines: lines});
  }
  /** a zoom or pan of the lanes (plotly_relayout): the new window drawn @param {Record<string, any> | null | undefined} ev */
  function onRelayout(ev) {
    if (!ev) return;
    const keys = Object.keys(ev);
    /** @type {number | null} */ let lo = null;
    /** @type {number | null} */ let hi = null;
    if (!keys.some((k2) => /^xaxis\d*\.autorange$/.test(k2) && ev[k2])) {
      keys.forEach((k2) => {
        if (/^xaxis\d*\.range\[0\]$/.test(k2)) lo = ev[k2];
        if (/^xaxis\d*\.range\[1\]$/.test(k2)) hi = ev[k2];
        if (/^xaxis\d*\.range$/.test(k2)) { lo = ev[k2][0]; hi = ev[k2][1]; }
      });
      if (lo === null || hi === null) return;
    }
    const full = fullSpan();
    /** @type {[number, number] | null} */
    const next = lo === null || hi === null || (lo <= full[0] && hi >= full[1]) ? null : [Math.max(lo, full[0]), Math.min(hi, full[1])];
    if (JSON.stringify(next) === JSON.stringify(S.win)) return;
    S.win = next;
    drawMemory();
  }
  // the pointer over a binned lane (panels/cells.js cellPointer): the cell under it, unless a drawn block is there (its
  // own plotly hover and click); px, py relative to the figure
  /** @param {number} px @param {number} py @returns {import("../panels/cells.js").CellHit | null} */
  function cellUnder(px, py) {
    const lay = host.memory._fullLayout;
    if (!lay) return null;
    for (let k2 = 0; k2 < nA; k2++) {
      const xa = lay[k2 ? "xaxis" + (k2 + 1) : "xaxis"], ya = lay[k2 ? "yaxis" + (k2 + 1) : "yaxis"], grid = grids[k2];
      if (!grid || !xa || !ya || px < xa._offset || px > xa._offset + xa._length || py < ya._offset || py > ya._offset + ya._length) continue;
      const x = xa.p2l(px - xa._offset), y = ya.p2l(py - ya._offset);
      if (blockAt(k2, x, y)) return null;
      const c = cellAt(grid, x, y);
      if (c < 0) return null;
      const step = grid.step;
      const lines = cellLines(grid, c, m, (v) => TT.label[rowOf[v]], (v) => TT.nbytes[rowOf[v]], marks ? marks.noun : "", X.from);
      return {lines: lines, zoom: () => {  // three cells wide around it: a click or two and its tensors are blocks
        Plotly.relayout(host.memory, {"xaxis.range": [lines.centre - 1.5 * step, lines.centre + 1.5 * step]});
      }};
    }
    return null;
  }
  /** a block drawn in lane k2 covers (x, y), as drawn @param {number} k2 @param {number} x @param {number} y */
  function blockAt(k2, x, y) {
    const box = boxes[k2];
    for (let q = 0; q < box.length; q++) if (x >= box[q][0] && x <= box[q][1] && y >= box[q][2] && y <= box[q][3]) return true;
    return false;
  }
  if (typeof document !== "undefined" && host.memory && "addEventListener" in host.memory) cellPointer(host.memory).use(cellUnder);
  /** a click on the lanes: a block selects its tensor @param {{curveNumber: number, customdata?: any}} pt */
  function clickMemory(pt) {
    if (pt.curveNumber < 2 * nA && pt.curveNumber % 2 === 0 && pt.customdata !== undefined) host.select({values: [pt.customdata]});
  }
  /** per lane the bytes live at each instruction, for the overview strip (panels/memstrip.js) @returns {import("../panels/memstrip.js").Lane[]} */
  function laneProfiles() {
    return AR.map((a) => ({color: DEV[a.dev].color, size: Math.max(a.size, a.high, 1), live: liveProfile(a.rows.map((v) => {
      const r = rowOf[v];
      return [TT.first[r], TT.last[r], Math.max(TT.nbytes[r], 0)];
    }), m)}));
  }
  return {drawMemory: () => drawMemory(), drawLanes, memoryHighlight, setAxis, axisMap, onRelayout, clickMemory, lane, laneProfiles};
}
