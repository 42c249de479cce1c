import {ptext, esc} from "../util/common.js";
import {bytesText} from "../util/format.js";

// A plan's nodes in words (lod/base.js lodBase gathers them): a tensor's and an op's hover texts, a device's name
// and swatch, the kind of a move between two devices, and an ETRecord's context line. Every string from the file
// goes through ptext (plotly) or esc (HTML).
/** @typedef {import("./base.js").Tables} Tables */
/** @typedef {import("./base.js").EdgeKind} EdgeKind */

/** the texts of plan `t`'s nodes @param {Tables} t */
export function planText(t) {
  const {P, L, DEV, TT, F, OPS, rowOf, fstart} = t;
  /** @param {number} d a device table index (-1: none) */
  function devName(d) { return d >= 0 ? DEV[d].name : "?"; }
  /** a device's colour swatch and name, HTML @param {number} d */
  function swatch(d) {
    if (d < 0) return "?";
    return "<span class='dx-sw" + (DEV[d].known ? "" : " dx-unknown") + "' style='background-color:" + DEV[d].color +
      "'></span>" + esc(DEV[d].name);
  }
  /** transfer_kind over device table indices @param {number} a @param {number} b @returns {EdgeKind} */
  function kindOf(a, b) {
    if (a === b || (DEV[a].host && DEV[b].host)) return "same";
    if (DEV[a].host) return "h2d";
    if (DEV[b].host) return "d2h";
    return "d2d";
  }
  /** @param {number} v */
  function tensorHover(v) {
    const r = rowOf[v], lines = ["<b>" + ptext(TT.label[r]) + "</b>" + (TT.named[r] ? "  <span style='color:#6E7781'>%" + v + "</span>" : ""),
      ptext(L.dtypes[TT.dtype[r]]) + " " + TT.shapes[TT.shape[r]] + "  \u00b7  " + ptext(bytesText(TT.nbytes[r])),
      "device <b>" + ptext(devName(TT.dev[r])) + "</b>  \u00b7  " + ptext(TT.storages[TT.storage[r]])];
    if (TT.mem[r] >= 0) lines.push("arena " + TT.mem[r] + "  offset " + TT.off[r] + "  bytes " + (TT.nbytes[r] >= 0 ? TT.nbytes[r] : "?"));
    if (TT.first[r] >= 0) lines.push("alive #" + TT.first[r] + " \u2013 #" + TT.last[r]);
    return lines.join("<br>");
  }
  /** @param {number} i */
  function opHover(i) {
    const kind = L.names.opKinds[OPS.kind[i]], d = OPS.dev[i], reads = [];
    for (let k = fstart[i]; k < fstart[i + 1]; k++) reads.push("%" + F.v[k]);
    return "<b>" + ptext(OPS.opTable[OPS.op[i]][0]) + "</b><br>#" + i + "  \u00b7  " + kind + (d >= 0 ? "  \u00b7  on " + ptext(devName(d)) : "") +
      "<br>tensors " + ptext(reads.join(", ")) + contextHover(P.context, i);
  }
  return {devName, swatch, kindOf, tensorHover, opHover};
}
// The hover's line for an ETRecord's context (plans[].context, views/payload/context.py): where in the model
// instruction i comes from, short: the module path's last two components (an index stays with its list:
// "…layers.3.attn", not "…3.attn"), its class, and the source's file:line. "" without a context.
/** @param {import("../types/payload").ContextPayload | undefined | null} X @param {number} i */
export function contextHover(X, i) {
  if (!X) return "";
  const row = X.module[i], src = X.source[i], parts = [];
  if (row >= 0) {
    const path = X.modules.path[row], type = X.modules.type[row], cls = type.slice(type.lastIndexOf(".") + 1);
    const comps = path ? path.split(".").reduce((/** @type {string[]} */ out, c) => {
      if (/^\d+$/.test(c) && out.length) out[out.length - 1] += "." + c; else out.push(c);
      return out;
    }, []) : [];
    parts.push((comps.length > 2 ? "\u2026" : "") + comps.slice(-2).join(".") + (path ? " (" + cls + ")" : cls));
  }
  if (src >= 0) parts.push(sourceLocation(X.sources[src]));
  return parts.length ? "<br>" + ptext(parts.join("  \u00b7  ")) : "";
}
/** "dir/model.py:62 in forward" -> "model.py:62": a context's source line, short @param {string} text */
export function sourceLocation(text) {
  const cut = text.lastIndexOf(" in "), loc = cut >= 0 ? text.slice(0, cut) : text;
  return loc.slice(Math.max(loc.lastIndexOf("/"), loc.lastIndexOf("\\")) + 1);
}
