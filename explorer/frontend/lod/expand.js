import {countText} from "../util/format.js";

// Which groups of a plan's graph are expanded (lod/graph.js draws them): the rules of
// explorer.views.state.overview.Overview (expand, collapse, reveal), on the view state's `expanded` list only —
// nothing here folds, lays out or draws. Both are checked on one table of cases, tests/fixtures/shared/fold_cases.json
// (tests/js/fold.test.js here, tests/test_fold_cases.py in Python); tests/test_lod_js.py runs them side by side.
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */

/** group g lies inside group outer (or is it) @param {LodBase} B @param {number} outer @param {number} g */
export function inside(B, outer, g) {
  const G = B.G;
  return G.start[outer] <= G.start[g] && G.stop[g] <= G.stop[outer] && B.depthOf(g) >= B.depthOf(outer);
}

/** g and the groups inside it closed @param {LodBase} B @param {LodState} S @param {number} g */
export function dropGroup(B, S, g) { S.expanded = S.expanded.filter((e) => !inside(B, g, e)); }

/** Overview.collapse, and Overview.collapse_all when g is null: the groups closed, the note cleared
 * @param {LodBase} B @param {LodState} S @param {number | null} g */
export function collapseGroup(B, S, g) {
  if (g === null) S.expanded = [];
  else dropGroup(B, S, g);
  S.note = "";
}

/** Overview.expand: the groups on g's path opened; groups opened before are closed to stay within
 * limits.visible, and S.note says which @param {LodBase} B @param {LodState} S @param {number} g */
export function openGroup(B, S, g) {
  const {G, L} = B, d = B.depthOf(g), p = B.path(G.start[g]).filter((q) => B.depthOf(q) <= d), closed = /** @type {string[]} */ ([]);
  S.note = "";
  p.forEach((q) => { if (S.expanded.indexOf(q) < 0) S.expanded.push(q); });
  while (B.visibleNodes(new Set(S.expanded)) > L.limits.visible) {
    const victim = S.expanded.find((e) => p.indexOf(e) < 0);
    if (victim === undefined) break;
    dropGroup(B, S, victim); closed.push(G.label[victim]);
  }
  if (closed.length) S.note = "collapsed " + closed.join(", ") + " to draw at most " + countText(L.limits.visible) + " nodes";
}

/** Overview.reveal: the groups holding these values and instructions (the first four) opened. Returns the
 * instructions they were asked by (`anchors`, the first one the view centres on) and the groups opened (none: all
 * were drawn already) @param {LodBase} B @param {LodState} S @param {number[]} values @param {number[]} instructions */
export function revealGroups(B, S, values, instructions) {
  const {n, m, home} = B;
  const anchors = values.filter((v) => v >= 0 && v < n && home[v] >= 0).map((v) => home[v])
    .concat(instructions.filter((i) => i >= 0 && i < m));
  const opened = /** @type {number[]} */ ([]);
  anchors.slice(0, 4).forEach((i) => {  // i is folded when a group on its path is not expanded
    const p = B.path(i);
    if (p.some((q) => S.expanded.indexOf(q) < 0)) { openGroup(B, S, p[p.length - 1]); opened.push(p[p.length - 1]); }
  });
  return {anchors, opened};
}
