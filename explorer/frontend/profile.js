// Run profiles (an ETDump joined to the program, P.profile — explorer/views/profile_payload.py) drawn on the
// app's panels: ops sized by their median time per run (area ∝ time; the device colour stays the op's outline and
// the tensors' fill) with a size scale in the legend, a per-device time bar (shares of the run on each device and
// in copies), time per run of the selected instructions in the details, and the memory map's x axis switched
// between instruction index and measured time (each instruction as wide as its median time, so a long kernel is a
// wide column). Pure functions first (node-tested, tests/js/profile.test.js), then the DOM/plotly glue.
import {arr, esc, h} from "./util.js";

export const SIZE_MIN = 7, SIZE_MAX = 34;  // op marker diameters (px) for no time .. the longest op

// "850 ns", "12.2 µs", "3.40 ms", "1.20 s" (ticks × tickNs nanoseconds); "–" for no value
export function fmtTime(ticks, tickNs = 1) {
  if (ticks === null || ticks === undefined || Number.isNaN(ticks)) return "–";
  const ns = ticks * tickNs, a = Math.abs(ns);
  for (const [unit, scale] of [["s", 1e9], ["ms", 1e6], ["µs", 1e3]]) {
    if (a >= scale) { const v = ns / scale; return (Math.abs(v) < 100 ? Number(v.toPrecision(3)) : Math.round(v)) + " " + unit; }
  }
  return Math.round(ns) + " ns";
}

// up to `count` round values (1, 2, 5 × 10^k) from small to `max`, for the size legend
export function niceTicks(max, count = 3) {
  if (!(max > 0)) return [];
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
export function sizeScale(maxT, lo = SIZE_MIN, hi = SIZE_MAX) {
  return (t) => (t === null || t === undefined || !(maxT > 0)) ? null : lo + (hi - lo) * Math.sqrt(Math.max(0, t) / maxT);
}

// where instruction i starts on the time axis: C[i] = sum of the median times before it (C has m + 1 entries).
// An instruction without a time gets `floor` of the total so it stays visible and clickable.
export function cumulative(median, floorShare = 0.002) {
  const m = median.length;
  let total = 0;
  for (const t of median) total += t > 0 ? t : 0;
  const floor = total * floorShare;
  const C = new Array(m + 1);
  C[0] = 0;
  for (let i = 0; i < m; i++) C[i + 1] = C[i] + Math.max(median[i] > 0 ? median[i] : 0, floor);
  return C;
}

// an x in instruction units (instruction i spans [i - 0.5, i + 0.5]) -> the time axis
export function toTime(C, u) {
  const m = C.length - 1;
  if (m <= 0) return 0;
  const s = Math.min(Math.max(u + 0.5, 0), m), i = Math.min(Math.floor(s), m - 1);
  return C[i] + (s - i) * (C[i + 1] - C[i]);
}

// memory bars (x centre, width, in instruction units) -> the same bars on the time axis
export function mapBars(x, width, C) {
  const X = [], W = [];
  for (let k = 0; k < x.length; k++) {
    const a = toTime(C, x[k] - width[k] / 2), b = toTime(C, x[k] + width[k] / 2);
    X.push((a + b) / 2); W.push(b - a);
  }
  return {x: X, width: W};
}

// the per-device time bar: one segment per bucket (share of the run), then the executor's own time
export function barSegments(prof) {
  const segs = prof.devices.filter((d) => d.share > 0).map((d) => ({name: d.name, color: d.color, share: d.share, median: d.median}));
  const used = segs.reduce((a, s) => a + s.share, 0);
  if (used < 0.999) segs.push({name: "executor", color: "#FFFFFF", share: 1 - used, median: null, rest: true});
  return segs;
}

// time per run of a selection (its instructions summed per run) and its median/min/max over runs
export function selectionTimes(prof, instructions) {
  const ins = instructions.filter((i) => prof.n[i] > 0);
  if (!ins.length) return null;
  let per = null;
  if (prof.perRun) {
    per = prof.perRun.map((row) => {
      let s = 0, any = false;
      for (const i of ins) if (row[i] !== null && row[i] !== undefined) { s += row[i]; any = true; }
      return any ? s : null;
    });
  }
  const vals = (per || []).filter((v) => v !== null).sort((a, b) => a - b);
  const med = vals.length ? (vals.length % 2 ? vals[(vals.length - 1) / 2] : (vals[vals.length / 2 - 1] + vals[vals.length / 2]) / 2)
                          : (ins.length === 1 ? prof.median[ins[0]] : null);
  return {instructions: ins, perRun: per, median: med, min: vals.length ? vals[0] : prof.min[ins[0]],
          max: vals.length ? vals[vals.length - 1] : prof.max[ins[0]], n: vals.length || prof.n[ins[0]]};
}

// -- markup (everything from a file goes through esc) --------------------------------------------------------

export function legendHtml(prof, maxT) {
  const ticks = niceTicks(maxT, 3), scale = sizeScale(maxT);
  const dots = ticks.map((t) => {
    const d = scale(t);
    return `<span class="dx-prof-tick"><svg width="${SIZE_MAX + 2}" height="${SIZE_MAX + 2}" aria-hidden="true">` +
      `<circle cx="${(SIZE_MAX + 2) / 2}" cy="${(SIZE_MAX + 2) / 2}" r="${(d / 2).toFixed(1)}" fill="#F6F8FA" stroke="#1F2328" stroke-width="1.5"/></svg>` +
      `${esc(fmtTime(t, prof.tickNs))}</span>`;
  }).join("");
  return `<div class="dx-prof-legend"><span class="dx-muted">op size = median time per run (area ∝ time; ` +
    `${prof.runs} run${prof.runs === 1 ? "" : "s"}):</span> ${dots}` +
    `<span class="dx-muted"> · ops without a time keep their usual size</span></div>`;
}

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
    `${c.bytes} B, ${esc(fmtTime(c.median, prof.tickNs))}` + (c.bytesPerS ? `, ${esc(rate(c.bytesPerS))}` : "") + `</li>`).join("");
  return `<div class="dx-prof-head"><b>Where the time goes</b> <span class="dx-muted">· run ${esc(fmtTime(prof.run.median, prof.tickNs))} ` +
    `median of ${prof.runs} (${esc(fmtTime(prof.run.min, prof.tickNs))}–${esc(fmtTime(prof.run.max, prof.tickNs))})` +
    (prof.file ? ` · ${esc(prof.file)}` : "") + `</span></div>` +
    `<div class="dx-prof-bar" role="img" aria-label="share of the run per device">${cells}</div>` +
    `<div class="dx-prof-keys">${keys}</div>` + (copies ? `<ul class="dx-prof-copies">${copies}</ul>` : "");
}

function rate(bps) {
  const units = [["GB/s", 1e9], ["MB/s", 1e6], ["kB/s", 1e3]];
  for (const [u, s] of units) if (bps >= s) return (bps / s).toPrecision(3) + " " + u;
  return Math.round(bps) + " B/s";
}

// the details panel's block for a selection: per-run bars (SVG) and median/min/max
export function detailsHtml(prof, instructions) {
  const sel = selectionTimes(prof, instructions);
  if (!sel) {
    return instructions.length ? `<div class="dx-prof-details dx-muted">no time recorded for ${instructions.length === 1 ? "this instruction" : "these instructions"} in the profile</div>` : "";
  }
  const what = sel.instructions.length === 1 ? "time per run" : `time per run (${sel.instructions.length} instructions summed)`;
  let chart = "";
  if (sel.perRun) {
    const W = 240, H = 56, n = sel.perRun.length, max = Math.max(...sel.perRun.filter((v) => v !== null), 1);
    const bw = W / Math.max(n, 1);
    const bars = sel.perRun.map((v, k) => v === null ? "" :
      `<rect x="${(k * bw + 0.5).toFixed(1)}" y="${(H - (H - 2) * v / max).toFixed(1)}" width="${Math.max(bw - 1, 0.5).toFixed(1)}" ` +
      `height="${((H - 2) * v / max).toFixed(1)}" fill="#57606A"><title>run ${k + 1}: ${esc(fmtTime(v, prof.tickNs))}</title></rect>`).join("");
    const my = H - (H - 2) * sel.median / max;
    chart = `<svg class="dx-prof-runs" width="${W}" height="${H + 2}" role="img" aria-label="${esc(what)}">${bars}` +
      `<line x1="0" x2="${W}" y1="${my.toFixed(1)}" y2="${my.toFixed(1)}" stroke="#000" stroke-dasharray="3 2"><title>median</title></line></svg>`;
  }
  return `<div class="dx-prof-details"><h4>${esc(what)}</h4>${chart}<div>median <b>${esc(fmtTime(sel.median, prof.tickNs))}</b> · ` +
    `min ${esc(fmtTime(sel.min, prof.tickNs))} · max ${esc(fmtTime(sel.max, prof.tickNs))} · ${sel.n} run${sel.n === 1 ? "" : "s"}</div></div>`;
}

// -- glue: one plan's profile on the app's panels ----------------------------------------------------------

// host: {graph, memory (plotly divs), T (trace indices), lod (true for the overview), mountTop(el), mountMemoryHead(el)}
export function profileView(P, host) {
  const prof = P.profile, Plotly = globalThis.Plotly;
  let maxT = 0;
  for (const t of prof.median) if (t > maxT) maxT = t;
  const C = cumulative(prof.median);
  let axis = "index";
  const original = {};  // memory traces' instruction-unit geometry and layout, to switch back

  function sizeOps() {
    if (host.lod || !P.graph) return;
    const tr = P.graph.data[host.T.ops], ids = arr(tr.customdata), base = arr(tr.marker.size);
    const scale = sizeScale(maxT);
    const sizes = ids.map((i, k) => { const s = scale(prof.median[i]); return s === null ? (Array.isArray(base) ? base[k] : base) : s; });
    const hover = arr(tr.hovertext).map((text, k) => {
      const i = ids[k];
      return prof.n[i] ? text + `<br>time: ${fmtTime(prof.median[i], prof.tickNs)} median of ${prof.n[i]} run${prof.n[i] === 1 ? "" : "s"} ` +
        `(${fmtTime(prof.min[i], prof.tickNs)}–${fmtTime(prof.max[i], prof.tickNs)})` : text + "<br>time: not recorded";
    });
    Plotly.restyle(host.graph, {"marker.size": [sizes], hovertext: [hover]}, [host.T.ops]);
  }

  function timeMemory(on) {
    if (!P.memory || !P.memory.data.length || host.lod) return;
    const data = P.memory.data, lanes = P.blockDevices ? P.blockDevices.length : 0;
    if (!original.x) {
      original.x = []; original.width = [];
      for (let k = 0; k < lanes; k++) { original.x.push(arr(data[2 * k].x)); original.width.push(arr(data[2 * k].width)); }
      original.shapes = (P.memory.layout.shapes || []).slice();
      original.range = (P.memory.layout.xaxis || {}).range;
    }
    axis = on ? "time" : "index";
    const idx = [], xs = [], ws = [];
    for (let k = 0; k < lanes; k++) {
      const g = on ? mapBars(original.x[k], original.width[k], C) : {x: original.x[k], width: original.width[k]};
      idx.push(2 * k); xs.push(g.x); ws.push(g.width);
    }
    const layout = {shapes: mapShapes(original.shapes), "xaxis.range": on ? [0, C[C.length - 1]] : original.range,
                    "xaxis.title.text": on ? `measured time (median per run, ${fmtTime(C[C.length - 1], prof.tickNs)} in all) →` : "instruction (run order) →",
                    "xaxis.tickformat": on ? "~s" : "d", "xaxis.dtick": on ? null : (P.memory.layout.xaxis || {}).dtick};
    for (let k = 1; k < lanes; k++) layout[`xaxis${k + 1}.range`] = layout["xaxis.range"];
    if (idx.length) Plotly.update(host.memory, {x: xs, width: ws}, layout, idx);
    else Plotly.relayout(host.memory, layout);
    if (host.rehighlight) host.rehighlight();
  }

  // vertical lines at instruction positions (peak, selected instruction) follow the axis
  function mapShapes(shapes) {
    if (axis !== "time") return shapes;
    return shapes.map((s) => (s.type === "line" && typeof s.x0 === "number" && !String(s.xref).includes("domain"))
      ? Object.assign({}, s, {x0: toTime(C, s.x0), x1: toTime(C, s.x1)}) : s);
  }

  // selection outlines come in instruction units from the app: put them on the current axis
  function mapSelection(upd) {
    if (axis !== "time") return upd;
    const out = Object.assign({}, upd);
    out.x = upd.x.map((xs, k) => mapBars(xs, upd.width[k], C).x);
    out.width = upd.x.map((xs, k) => mapBars(xs, upd.width[k], C).width);
    return out;
  }

  const card = h("div", "dx-card dx-prof");
  card.innerHTML = barHtml(prof) + (host.lod ? `<div class="dx-muted">ops are grouped in this overview: expand a group, or select an op, for its time</div>` : legendHtml(prof, maxT));
  if (host.mountTop) host.mountTop(card);
  const toggle = h("span", "dx-prof-axis");
  if (!host.lod && P.memory && P.memory.data.length) {
    toggle.innerHTML = `<span class="dx-muted">x axis:</span> <button type="button" data-axis="index" aria-pressed="true">instruction</button>` +
      `<button type="button" data-axis="time" aria-pressed="false">measured time</button>`;
    toggle.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => {
      timeMemory(b.dataset.axis === "time");
      toggle.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", String(x.dataset.axis === axis)));
    }));
    if (host.mountMemoryHead) host.mountMemoryHead(toggle);
  }
  sizeOps();
  return {
    prof, C,
    axis: () => axis,
    setAxis: (mode) => { timeMemory(mode === "time"); toggle.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", String(x.dataset.axis === axis))); },
    details: (instructions) => detailsHtml(prof, instructions),
    mapSelection, mapShapes,
    remove: () => { card.remove(); toggle.remove(); },
  };
}
