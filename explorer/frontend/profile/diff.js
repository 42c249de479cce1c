// Two run profiles on the diff view (P.profiles = {a, b}, P.profileDiff — explorer/views/payload/profile.py):
// both graphs' ops sized by time on ONE scale (so the same size means the same time on both sides; not on a big
// pair, whose overviews draw groups), the two runs
// as device time bars drawn to one time scale (a faster run is a shorter bar), per device A -> B, the paired
// instructions that got faster or slower (click one to select it on both graphs), and time per run of A's and
// B's side of a selection in the details.
import {arr, esc, h} from "../util/common.js";
import {detailsHtml, fmtTime, legendHtml, sizeOpsTrace} from "./profile.js";

// one bar per side, widths in % of the slower run, segments per device bucket
/** @typedef {import("../types/payload").ProfilePayload} Profile */
/** @typedef {{width: number, segs: {name: string, color: string | null, width: number}[]}} RunBar */
/** @param {Profile} profA @param {Profile} profB @returns {{a: RunBar, b: RunBar}} */
export function runBars(profA, profB) {
  const runA = profA.run.median || 0, runB = profB.run.median || 0, top = Math.max(runA, runB) || 1;
  const bar = (/** @type {Profile} */ prof, /** @type {number} */ run) => {
    /** @type {RunBar["segs"]} */
    const segs = prof.devices.filter((d) => Number(d.median) > 0).map((d) => ({name: d.name, color: d.color, width: 100 * Number(d.median) / top}));
    const used = segs.reduce((a, s) => a + s.width, 0), whole = 100 * run / top;
    if (whole > used + 0.05) segs.push({name: "executor", color: null, width: whole - used});
    return {width: whole, segs};
  };
  return {a: bar(profA, runA), b: bar(profB, runB)};
}

// "+12.0 µs (×1.50)" / "−3.1 µs (×0.80)"
/** @param {number | null | undefined} a @param {number | null | undefined} b @param {number | null} [tickNs] @returns {string} */
export function deltaText(a, b, tickNs = 1) {
  if (a === null || b === null || a === undefined || b === undefined) return a === null || a === undefined ? "only in B" : "only in A";
  const d = b - a, sign = d > 0 ? "+" : d < 0 ? "−" : "±";
  return sign + fmtTime(Math.abs(d), tickNs) + (a > 0 ? ` (×${(b / a).toFixed(2)})` : "");
}

/** @param {string} side @param {string} label @param {RunBar} bar @param {number} tickNs @param {number | null} run */
function barRow(side, label, bar, tickNs, run) {
  const cells = bar.segs.map((s) => `<span class="dx-prof-seg${s.color ? "" : " dx-prof-rest"}" data-bucket="${esc(s.name)}" ` +
    `style="width:${(100 * s.width / Math.max(bar.width, 1e-9)).toFixed(3)}%;background:${s.color ? esc(s.color) :
      "repeating-linear-gradient(45deg,#fff,#fff 3px,#EEF1F4 3px,#EEF1F4 6px)"}" title="${esc(s.name)}"></span>`).join("");
  return `<div class="dx-prof-diffrow"><span class="dx-side-${side}">${side.toUpperCase()}</span>` +
    `<span class="dx-prof-bar" style="width:${bar.width.toFixed(2)}%" role="img" aria-label="${esc(label)}">${cells}</span>` +
    `<span class="dx-muted">${esc(fmtTime(run, tickNs))}</span></div>`;
}

/** @typedef {{profiles: import("../types/payload").Sides<Profile>, profileDiff: import("../types/payload").ProfileDiffPayload}} Profiled */
/** @param {Profiled} P @param {number} [limit] @returns {string} */
export function diffCardHtml(P, limit = 8) {
  const A = P.profiles.a, B = P.profiles.b, D = P.profileDiff, t = A.tickNs || 1;
  const bars = runBars(A, B);
  const devices = D.devices.map((d) => `<li>${esc(d.device)}: ${esc(fmtTime(d.a, t))} → ${esc(fmtTime(d.b, t))} ` +
    `<b class="${Number(d.delta) > 0 ? "dx-slower" : Number(d.delta) < 0 ? "dx-faster" : ""}">${esc(deltaText(d.a, d.b, t))}</b></li>`).join("");
  const rows = D.instructions.filter((r) => r.delta).slice(0, limit).map((r, k) => `<li><button type="button" class="dx-prof-change" data-k="${k}">` +
    `<b class="${Number(r.delta) > 0 ? "dx-slower" : "dx-faster"}">${esc(deltaText(r.a_median, r.b_median, t))}</b> ` +
    `<span class="dx-code">${esc(r.label)}</span> <span class="dx-muted">${r.a === null ? "" : "A#" + r.a}${r.a !== null && r.b !== null ? " → " : ""}` +
    `${r.b === null ? "" : "B#" + r.b}</span></button></li>`).join("");
  return `<div class="dx-prof-head"><b>Where the time goes, A → B</b> <span class="dx-muted">· run ${esc(fmtTime(A.run.median, t))} → ` +
    `${esc(fmtTime(B.run.median, t))} (median of ${A.runs} and ${B.runs} runs; bars on one time scale)</span></div>` +
    barRow("a", "A's run by device", bars.a, t, A.run.median) + barRow("b", "B's run by device", bars.b, t, B.run.median) +
    `<ul class="dx-prof-copies">${devices}</ul>` +
    (rows ? `<div class="dx-muted">what changed most (click to select):</div><ol class="dx-prof-changes">${rows}</ol>` : "");
}

// host: {graphs: {a, b} (plotly divs), T, select(sel), mountTop(el)}. The app calls sizeOps(side) after each draw
// of a side's graph: the ops drawn as themselves are sized by their time, on one scale for A and B.
/** @param {Partial<Profiled>} plan (a diff plan with both profiles) @param {any} host */
export function profileDiffView(plan, host) {
  const P = /** @type {Profiled} */ (plan), A = P.profiles.a, B = P.profiles.b;
  let maxT = 0;
  for (const prof of [A, B]) for (const v of prof.median) if (v !== null && v > maxT) maxT = v;
  const card = h("div", "dx-card dx-prof dx-prof-diff");
  card.innerHTML = diffCardHtml(P) +
    legendHtml(A, maxT).replace("op size = median time per run", "op size = median time per run, one scale for A and B");
  const changed = P.profileDiff.instructions.filter((r) => r.delta);
  /** @type {NodeListOf<HTMLButtonElement>} */ (card.querySelectorAll(".dx-prof-change")).forEach((b) => b.addEventListener("click", () => {
    const r = changed[Number(b.dataset.k)];
    host.select(r.a !== null ? {side: "a", values: [], instructions: [r.a]} : {side: "b", values: [], instructions: [r.b]});
  }));
  if (host.mountTop) host.mountTop(card);
  return {
    details(/** @type {Record<string, number[]>} */ instructions) {
      /** @type {string[]} */
      const parts = [];
      /** @type {[string, Profile][]} */
      const sides = [["a", A], ["b", B]];
      for (const [side, prof] of sides) {
        const html = detailsHtml(prof, instructions[side] || []);
        if (html) parts.push(`<div class="dx-prof-side"><span class="dx-side-${side}">${side.toUpperCase()}</span>${html}</div>`);
      }
      return parts.length ? `<div class="dx-prof-sides">${parts.join("")}</div>` : "";
    },
    sizeOps(/** @type {string} */ side) {
      const gd = host.graphs[side], trace = gd.data && gd.data[host.T.ops];
      if (trace && arr(trace.customdata).length) sizeOpsTrace(gd, trace, host.T.ops, side === "a" ? A : B, maxT);
    },
    remove() { card.remove(); },
  };
}
