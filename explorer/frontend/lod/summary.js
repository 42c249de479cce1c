import {ptext, esc} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";

// What a folded group holds (lod/base.js lodBase gathers it): its device split, its tensors' bytes, its copies —
// from prefix sums over instructions, built once per plan — and whether an error finding names an instruction in it.
/** @typedef {import("./base.js").Tables} Tables */
/** @typedef {import("./base.js").EdgeKind} EdgeKind */
/** @typedef {import("./base.js").CopyKind} CopyKind */
/** @typedef {import("./base.js").GroupSummary} GroupSummary */

/** @param {Tables} t @param {(a: number, b: number) => EdgeKind} kindOf the kind of a move between two devices */
export function groupSums(t, kindOf) {
  const {L, m, DEV, G, TT, rowOf, errorInstrs} = t;
  // -- what a group holds: device split, tensors' bytes, copies (prefix sums over instructions, built once) --
  /** @type {{bytes: Float64Array, cp: Record<CopyKind, Float64Array>, nd: number} | null} */
  let sums = null;
  /** @type {CopyKind[]} */
  const COPIES = ["h2d", "d2h", "d2d"];
  function prefix() {
    if (sums) return sums;
    const nd = DEV.length, bytes = new Float64Array((m + 1) * nd);
    /** @type {Record<CopyKind, Float64Array>} */
    const cp = {h2d: new Float64Array(2 * (m + 1)), d2h: new Float64Array(2 * (m + 1)), d2d: new Float64Array(2 * (m + 1))};
    for (let r = 0; r < TT.home.length; r++) {
      const at = TT.home[r], d = TT.dev[r];
      if (at >= 0 && at < m && d >= 0 && TT.nbytes[r] > 0) bytes[(at + 1) * nd + d] += TT.nbytes[r];
    }
    for (let k = 0; k < L.moving.i.length; k++) {
      const i = L.moving.i[k], kind = kindOf(TT.dev[rowOf[L.moving.s[k]]], TT.dev[rowOf[L.moving.d[k]]]);
      if (kind === "same" || i < 0 || i >= m) continue;
      cp[kind][2 * (i + 1)] += 1; cp[kind][2 * (i + 1) + 1] += Math.max(L.moving.nbytes[k], 0);
    }
    for (let i = 1; i <= m; i++) {
      for (let d = 0; d < nd; d++) bytes[i * nd + d] += bytes[(i - 1) * nd + d];
      COPIES.forEach((kd) => { cp[kd][2 * i] += cp[kd][2 * i - 2]; cp[kd][2 * i + 1] += cp[kd][2 * i - 1]; });
    }
    sums = {bytes: bytes, cp: cp, nd: nd};
    return sums;
  }
  /** @param {number} g @returns {GroupSummary} */
  function groupSummary(g) {
    const S = prefix(), a = G.start[g], b = G.stop[g];
    /** @type {GroupSummary} */
    const out = {ops: [], bytes: [], total: 0, copies: {}};
    let opsum = 0;
    G.devs[g].forEach((c) => { opsum += c; });
    G.devs[g].forEach((c, d) => { if (c) out.ops.push([d, c, c / opsum]); });
    for (let d = 0; d < S.nd; d++) {
      const by = S.bytes[b * S.nd + d] - S.bytes[a * S.nd + d];
      if (by > 0) { out.bytes.push([d, by]); out.total += by; }
    }
    COPIES.forEach((kd) => {
      const c = S.cp[kd][2 * b] - S.cp[kd][2 * a];
      if (c) out.copies[kd] = [c, S.cp[kd][2 * b + 1] - S.cp[kd][2 * a + 1]];
    });
    return out;
  }
  /** "3 h2d (1.5 KB) · 1 d2h (512 B)": plotly text (html false) or HTML @param {GroupSummary["copies"]} cps @param {boolean} html */
  function copyText(cps, html) {
    return COPIES.flatMap((kd) => {
      const c = cps[kd];
      if (!c) return [];
      const t = countText(c[0]) + " " + kd + " (" + bytesText(c[1]) + ")";
      return [html ? esc(t) : ptext(t)];
    }).join(" \u00b7 ");
  }
  /** the group holds an instruction an error finding names (by the tensors it makes) @param {number} g */
  function holdsError(g) {
    for (let q = 0; q < errorInstrs.length; q++) if (errorInstrs[q] >= G.start[g] && errorInstrs[q] < G.stop[g]) return true;
    return false;
  }
  return {groupSummary, copyText, holdsError};
}
