// Run profiles (an ETDump joined to the program, P.profile — explorer/views/payload/profile.py) drawn on the
// app's panels: ops sized by their median time per run (area ∝ time; the device colour stays the op's outline and
// the tensors' fill) with a size scale in the legend, a per-device time bar (shares of the run on each device and
// in copies), time per run of the selected instructions in the details, and the memory map's x axis switched
// between instruction index and measured time (each instruction as wide as its median time, so a long kernel is a
// wide column). Pure functions first (node-tested, tests/js/profile.test.js), then the DOM/plotly glue.
import {arr, esc, h} from "../util/common.js";
import {bytesText, timeText} from "../util/format.js";
import {fresh, planFigures} from "../lod/figures.js";

export const SIZE_MIN = 7;  // op marker diameter (px) for no time
export const SIZE_MAX = 34;  // ... and for the longest op

// "850 ns", "12.2 µs", "3.4 ms", "1.2 s" (ticks × tickNs nanoseconds) as the CLI writes them (util/format.js
// timeText); "–" for no value
/** @typedef {import("../types/payload").ProfilePayload} Profile */
/** @param {number | null | undefined} ticks @param {number | null} [tickNs] @returns {string} */
export function fmtTime(ticks, tickNs = 1) {
  if (ticks === null || ticks === undefined || Number.isNaN(ticks)) return "–";
  return timeText(ticks * (tickNs === null ? 1 : tickNs));
}

// up to `count` round values (1, 2, 5 × 10^k) from small to `max`, for the size legend
/** @param {number} max @param {number} [count] @returns {number[]} */
export function niceTicks(max, count = 3) {
  if (!(max > 0)) return [];
  /** @type {number[]} */
  const out = [];
  let p = Math.pow(10, Math.floor(Math.log10(max)));
  const steps = [5, 2, 1];
  let v = max;
  for (let guard = 0; out.length < count && guard < 40; guard++) {
    let pick = null;
    for (const s of steps) if (s * p <= v) { pick = s * p; break; }
    if (pick === null) { p /= 10; continue; }
    if (!out.length || pick < out[out.length - 1] / 2.5) out.push(pick);
    v = pick / 2.5;
  }
  return out.reverse();
}

// diameter in px for a time: the marker's area grows with time (sqrt), 0 -> SIZE_MIN, maxT -> SIZE_MAX
/** @param {number} maxT @param {number} [lo] @param {number} [hi] @returns {(t: number | null | undefined) => number | null} */
export function sizeScale(maxT, lo = SIZE_MIN, hi = SIZE_MAX) {
  return (t) => (t === null || t === undefined || !(maxT > 0)) ? null : lo + (hi - lo) * Math.sqrt(Math.max(0, t) / maxT);
}

// where instruction i starts on the time axis: C[i] = sum of the median times before it (C has m + 1 entries).
// An instruction without a time gets `floor` of the total so it stays visible and clickable.
/** @param {(number | null)[]} median @param {number} [floorShare] @returns {number[]} */
export function cumulative(median, floorShare = 0.002) {
  const m = median.length;
  let total = 0;
  for (const t of median) total += t !== null && t > 0 ? t : 0;
  const floor = total * floorShare;
  const C = new Array(m + 1);
  C[0] = 0;
  for (let i = 0; i < m; i++) { const t = median[i]; C[i + 1] = C[i] + Math.max(t !== null && t > 0 ? t : 0, floor); }
  return C;
}

// an x in instruction units (instruction i spans [i - 0.5, i + 0.5]) -> the time axis
/** @param {number[]} C @param {number} u @returns {number} */
export function toTime(C, u) {
  const m = C.length - 1;
  if (m <= 0) return 0;
  const s = Math.min(Math.max(u + 0.5, 0), m), i = Math.min(Math.floor(s), m - 1);
  return C[i] + (s - i) * (C[i + 1] - C[i]);
}

// about `count` round tick positions from 0 to `end` on the time axis, labelled as times
/** @param {number} end @param {number | null} [tickNs] @param {number} [count] @returns {{vals: number[], text: string[]}} */
export function timeTicks(end, tickNs = 1, count = 6) {
  if (!(end > 0)) return {vals: [0], text: ["0"]};
  const raw = end / count, p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = /** @type {number} */ ([1, 2, 5, 10].map((s) => s * p).find((s) => s >= raw));
  /** @type {number[]} */
  const vals = [];
  /** @type {string[]} */
  const text = [];
  for (let v = 0; v <= end + step * 1e-9; v += step) { vals.push(v); text.push(v === 0 ? "0" : fmtTime(v, tickNs)); }
  return {vals, text};
}

// memory bars (x centre, width, in instruction units) -> the same bars on the time axis
/** @param {number[]} x @param {number[]} width @param {number[]} C @returns {{x: number[], width: number[]}} */
export function mapBars(x, width, C) {
  /** @type {number[]} */
  const X = [];
  /** @type {number[]} */
  const W = [];
  for (let k = 0; k < x.length; k++) {
    const a = toTime(C, x[k] - width[k] / 2), b = toTime(C, x[k] + width[k] / 2);
    X.push((a + b) / 2); W.push(b - a);
  }
  return {x: X, width: W};
}

// the per-device time bar: one segment per bucket (share of the run), then the executor's own time
/** @typedef {{name: string, color: string, share: number, median: number | null, rest?: boolean}} Segment */
/** @param {Profile} prof @returns {Segment[]} */
export function barSegments(prof) {
  /** @type {Segment[]} */
  const segs = prof.devices.filter((d) => Number(d.share) > 0).map((d) => ({name: d.name, color: d.color, share: Number(d.share), median: d.median}));
  const used = segs.reduce((a, s) => a + s.share, 0);
  if (used < 0.999) segs.push({name: "executor", color: "#FFFFFF", share: 1 - used, median: null, rest: true});
  return segs;
}

// time per run of a selection (its instructions summed per run) and its median/min/max over runs
/** @param {Profile} prof @param {number[]} instructions
 *  @returns {{instructions: number[], perRun: (number | null)[] | null, median: number | null, min: number | null, max: number | null, n: number} | null} */
export function selectionTimes(prof, instructions) {
  const ins = instructions.filter((i) => prof.n[i] > 0);
  if (!ins.length) return null;
  /** @type {(number | null)[] | null} */
  let per = null;
  if (prof.perRun) {
    per = prof.perRun.map((row) => {
      let s = 0, any = false;
      for (const i of ins) { const t = row[i]; if (t !== null && t !== undefined) { s += t; any = true; } }
      return any ? s : null;
    });
  }
  const vals = /** @type {number[]} */ ((per || []).filter((v) => v !== null)).sort((a, b) => a - b);
  const med = vals.length ? (vals.length % 2 ? vals[(vals.length - 1) / 2] : (vals[vals.length / 2 - 1] + vals[vals.length / 2]) / 2)
                          : (ins.length === 1 ? prof.median[ins[0]] : null);
  return {instructions: ins, perRun: per, median: med, min: vals.length ? vals[0] : prof.min[ins[0]],
          max: vals.length ? vals[vals.length - 1] : prof.max[ins[0]], n: vals.length || prof.n[ins[0]]};
}

// -- markup (everything from a file goes through esc) --------------------------------------------------------

/** @param {Profile} prof @param {number} maxT @returns {string} */
export function legendHtml(prof, maxT) {
  const ticks = niceTicks(maxT, 3), scale = sizeScale(maxT);
  const dots = ticks.map((t) => {
    const d = Number(scale(t));
    return `<span class="dx-prof-tick"><svg width="${SIZE_MAX + 2}" height="${SIZE_MAX + 2}" aria-hidden="true">` +
      `<circle cx="${(SIZE_MAX + 2) / 2}" cy="${(SIZE_MAX + 2) / 2}" r="${(d / 2).toFixed(1)}" fill="#F6F8FA" stroke="#1F2328" stroke-width="1.5"/></svg>` +
      `${esc(fmtTime(t, prof.tickNs))}</span>`;
  }).join("");
  return `<div class="dx-prof-legend"><span class="dx-muted">op size = median time per run (area ∝ time; ` +
    `${prof.runs} run${prof.runs === 1 ? "" : "s"}):</span> ${dots}` +
    `<span class="dx-muted"> · ops without a time keep their usual size</span></div>`;
}

/** @param {Profile} prof @returns {string} */
export function barHtml(prof) {
  const segs = barSegments(prof);
  const cells = segs.map((s) => {
    const pct = (100 * s.share).toFixed(1);
    const label = `${s.name}: ${pct}%` + (s.median !== null ? ` (${fmtTime(s.median, prof.tickNs)})` : " (between instructions)");
    const style = `width:${(100 * s.share).toFixed(3)}%;background:${s.rest ? "repeating-linear-gradient(45deg,#fff,#fff 3px,#EEF1F4 3px,#EEF1F4 6px)" : esc(s.color)}`;
    return `<span class="dx-prof-seg${s.rest ? " dx-prof-rest" : ""}" style="${style}" title="${esc(label)}" data-bucket="${esc(s.name)}"></span>`;
  }).join("");
  const keys = segs.map((s) => `<span class="dx-prof-key"><span class="dx-sw" style="background:${s.rest ? "#EEF1F4" : esc(s.color)}"></span>` +
    `${esc(s.name)} <b>${(100 * s.share).toFixed(1)}%</b>${s.median !== null ? " · " + esc(fmtTime(s.median, prof.tickNs)) : ""}</span>`).join("");
  const copies = prof.copies.map((c) => `<li>${esc(c.direction)}: ${c.count} cop${c.count === 1 ? "y" : "ies"} per run, ` +
    `${esc(bytesText(c.bytes))}, ${esc(fmtTime(c.median, prof.tickNs))}` + (c.bytesPerS ? `, ${esc(rate(c.bytesPerS))}` : "") + `</li>`).join("");
  return `<div class="dx-prof-head"><b>Where the time goes</b> <span class="dx-muted">· run ${esc(fmtTime(prof.run.median, prof.tickNs))} ` +
    `median of ${prof.runs} (${esc(fmtTime(prof.run.min, prof.tickNs))}–${esc(fmtTime(prof.run.max, prof.tickNs))})` +
    (prof.file ? ` · ${esc(prof.file)}` : "") + `</span></div>` +
    `<div class="dx-prof-bar" role="img" aria-label="share of the run per device">${cells}</div>` +
    `<div class="dx-prof-keys">${keys}</div>` + (copies ? `<ul class="dx-prof-copies">${copies}</ul>` : "");
}

// a copy's effective rate as the CLI writes it (describe/profile.py): binary units, "160.0 MiB/s"
/** @param {number} bps */
function rate(bps) { return bytesText(Math.floor(bps)) + "/s"; }

// the details panel's block for a selection: per-run bars (SVG) and median/min/max
/** @param {Profile} prof @param {number[]} instructions @returns {string} */
export function detailsHtml(prof, instructions) {
  const sel = selectionTimes(prof, instructions);
  if (!sel) {
    return instructions.length ? `<div class="dx-prof-details dx-muted">no time recorded for ${instructions.length === 1 ? "this instruction" : "these instructions"} in the profile</div>` : "";
  }
  const what = sel.instructions.length === 1 ? "time per run" : `time per run (${sel.instructions.length} instructions summed)`;
  let chart = "";
  if (sel.perRun) {
    const W = 240, H = 56, n = sel.perRun.length, max = Math.max(.../** @type {number[]} */ (sel.perRun.filter((v) => v !== null)), 1);
    const bw = W / Math.max(n, 1);
    const bars = sel.perRun.map((v, k) => v === null ? "" :
      `<rect x="${(k * bw + 0.5).toFixed(1)}" y="${(H - (H - 2) * v / max).toFixed(1)}" width="${Math.max(bw - 1, 0.5).toFixed(1)}" ` +
      `height="${((H - 2) * v / max).toFixed(1)}" fill="#57606A"><title>run ${k + 1}: ${esc(fmtTime(v, prof.tickNs))}</title></rect>`).join("");
    const my = H - (H - 2) * Number(sel.median) / max;
    chart = `<svg class="dx-prof-runs" width="${W}" height="${H + 2}" role="img" aria-label="${esc(what)}">${bars}` +
      `<line x1="0" x2="${W}" y1="${my.toFixed(1)}" y2="${my.toFixed(1)}" stroke="#000" stroke-dasharray="3 2"><title>median</title></line></svg>`;
  }
  const chosen = new Set(sel.instructions);
  const nodes = (prof.nodes || []).filter((d) => chosen.has(d.instruction));
  // a backend that times only the whole call (XNNPACK without its own profiler) still names its nodes, each at 0:
  // said once, never a list of "0 ns"
  const timed = nodes.some((d) => d.median !== null && d.median > 0);
  const nodeHead = timed ? "inside the delegate, as its backend reported (median per run):"
    : "inside the delegate: only the delegate's total is reported (its backend gave these nodes no time of their own)";
  const nodeList = nodes.length ? `<div class="dx-muted dx-prof-inside">${nodeHead}</div><ul class="dx-list">` +
    nodes.slice(0, 30).map((d) => `<li><span class="dx-code">${esc(d.id)}</span>${timed ? " " + esc(fmtTime(d.median, prof.tickNs)) : ""}` +
      (d.node ? ` <span class="dx-muted">(${esc(d.node)})</span>` : "") + `</li>`).join("") +
    (nodes.length > 30 ? `<li class="dx-muted">and ${nodes.length - 30} more</li>` : "") + `</ul>` : "";
  return `<div class="dx-prof-details"><h4>${esc(what)}</h4>${chart}<div>median <b>${esc(fmtTime(sel.median, prof.tickNs))}</b> · ` +
    `min ${esc(fmtTime(sel.min, prof.tickNs))} · max ${esc(fmtTime(sel.max, prof.tickNs))} · ${sel.n} run${sel.n === 1 ? "" : "s"}</div>${nodeList}</div>`;
}

// ops of a graph sized by median time (and their hover text given it); returns a function putting the payload's
// trace object back as it was (plotly keeps the payload's objects as its own)
/** @param {PlotDiv} gd @param {any} trace @param {number} index @param {Profile} prof @param {number} maxT @returns {() => void} */
export function sizeOpsTrace(gd, trace, index, prof, maxT) {
  const saved = {size: trace.marker.size, hovertext: trace.hovertext};
  const ids = arr(trace.customdata), base = arr(saved.size), text = arr(saved.hovertext);
  const scale = sizeScale(maxT);
  const sizes = ids.map((/** @type {number} */ i, /** @type {number} */ k) => { const s = scale(prof.median[i]); return s === null ? (Array.isArray(base) ? base[k] : base) : s; });
  const hover = text.map((/** @type {string} */ t, /** @type {number} */ k) => {
    const i = ids[k];
    return prof.n[i] ? t + `<br>time: ${fmtTime(prof.median[i], prof.tickNs)} median of ${prof.n[i]} run${prof.n[i] === 1 ? "" : "s"} ` +
      `(${fmtTime(prof.min[i], prof.tickNs)}–${fmtTime(prof.max[i], prof.tickNs)})` : t + "<br>time: not recorded";
  });
  globalThis.Plotly.restyle(gd, {"marker.size": [sizes], hovertext: [hover]}, [index]);
  return () => { trace.marker.size = saved.size; trace.hovertext = saved.hovertext; };
}

// an axis position in time units -> instruction units (the inverse of toTime)
/** @param {number[]} C @param {number} t @returns {number} */
export function fromTime(C, t) {
  const m = C.length - 1;
  if (m <= 0) return -0.5;
  let lo = 0, hi = m;  // the last k with C[k] <= t
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (C[mid] <= t) lo = mid; else hi = mid; }
  const w = C[lo + 1] - C[lo];
  return lo - 0.5 + (w > 0 ? Math.min(Math.max((t - C[lo]) / w, 0), 1) : 0);
}

// -- glue: one plan's profile on the app's panels ----------------------------------------------------------

// host: {graph, memory (plotly divs), T (trace indices), setAxis(map | null) (the memory lanes redraw on the
// axis: map.to(x) instruction units -> axis units, map.from the inverse), lanes (how many), rehighlight(),
// mountTop(el), mountMemoryHead(el)}. The app draws every figure from its tables; after each draw of the graph it
// calls sizeOps() so the ops drawn are sized by their time.
/** @param {import("../types/payload").DrawnPlan} P (with its profile) @param {any} host */
export function profileView(P, host) {
  const prof = /** @type {Profile} */ (P.profile), Plotly = globalThis.Plotly;
  let maxT = 0;
  for (const t of prof.median) if (t !== null && t > maxT) maxT = t;
  const C = cumulative(prof.median);
  const lanes = host.lanes || 0;
  const saved = lanes ? /** @type {any} */ (fresh(planFigures(P.lod).memory.layout)) : null;  // the lanes' axes as first drawn
  let axis = "index";

  // vertical lines at instruction positions (peak, selected instruction) follow the axis
  /** @param {any[]} shapes @returns {any[]} */
  function mapShapes(shapes) {
    if (axis !== "time") return shapes;
    return shapes.map((s) => (s.type === "line" && typeof s.x0 === "number" && !String(s.xref).includes("domain"))
      ? Object.assign({}, s, {x0: toTime(C, s.x0), x1: toTime(C, s.x1)}) : s);
  }

  /** @param {boolean} on */
  function timeMemory(on) {
    if (!lanes) return;
    axis = on ? "time" : "index";
    const end = C[C.length - 1], ticks = timeTicks(end, prof.tickNs);
    /** @type {Record<string, unknown>} */
    const layout = {shapes: mapShapes(saved.shapes || [])};
    for (let k = 0; k < lanes; k++) {
      const key = k ? `xaxis${k + 1}` : "xaxis", orig = saved[key] || {};
      layout[key + ".range"] = on ? [0, end] : orig.range;
      layout[key + ".tickmode"] = on ? "array" : orig.tickmode;
      layout[key + ".tickvals"] = on ? ticks.vals : orig.tickvals;
      layout[key + ".ticktext"] = on ? ticks.text : orig.ticktext;
      if (orig.title) layout[key + ".title.text"] = on ? `measured time (median per run, ${fmtTime(end, prof.tickNs)} in all; each instruction as wide as its time) →` : orig.title.text;
    }
    host.setAxis(on ? {to: (/** @type {number} */ x) => toTime(C, x), from: (/** @type {number} */ t) => fromTime(C, t), shapes: mapShapes} : null);
    Plotly.relayout(host.memory, layout);
    if (host.rehighlight) host.rehighlight();
  }

  const card = h("div", "dx-card dx-prof");
  card.innerHTML = barHtml(prof) + legendHtml(prof, maxT);
  if (host.mountTop) host.mountTop(card);
  const toggle = h("span", "dx-prof-axis");
  function press() { toggle.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", String(x.dataset.axis === axis))); }
  if (lanes) {
    toggle.innerHTML = `<span class="dx-muted">x axis:</span> <button type="button" data-axis="index" aria-pressed="true">instruction</button>` +
      `<button type="button" data-axis="time" aria-pressed="false">measured time</button>`;
    toggle.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => { timeMemory(b.dataset.axis === "time"); press(); }));
    if (host.mountMemoryHead) host.mountMemoryHead(toggle);
  }
  return {
    prof, C,
    axis: () => axis,
    setAxis(/** @type {string} */ mode) { timeMemory(mode === "time"); press(); },
    details: (/** @type {number[]} */ instructions) => detailsHtml(prof, instructions),
    // the ops trace as just drawn (customdata: instruction ids), sized by time; a group marker keeps its size
    sizeOps() {
      const gd = host.graph, trace = gd.data && gd.data[host.T.ops];
      if (trace && arr(trace.customdata).length) sizeOpsTrace(gd, trace, host.T.ops, prof, maxT);
    },
    remove() {
      card.remove(); toggle.remove();
      if (axis === "time") host.setAxis(null);
    },
  };
}
