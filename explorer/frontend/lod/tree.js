// A plan's group tree (lod/base.js lodBase gathers it): a group's children, the groups holding an instruction, a
// group's depth, and how many nodes a fold with some groups expanded draws.

/** @param {import("../types/payload").LodGroups} G the payload's groups table */
export function groupTree(G) {
  /** @param {number} g */
  function children(g) { return G.children.slice(G.childStart[g], G.childStart[g + 1]); }
  /** the groups holding instruction i, outermost first (the root not included) @param {number} i */
  function path(i) {
    const out = [];
    let g = 0;
    for (;;) {
      const kids = children(g);
      if (!kids.length) return out;
      let pick = kids[0];
      for (let c = 0; c < kids.length; c++) if (G.start[kids[c]] <= i) pick = kids[c];
      g = pick; out.push(g);
    }
  }
  /** how many nodes a fold with these groups expanded draws @param {Set<number>} exp */
  function visibleNodes(exp) {
    let total = 0;
    const stack = [0];
    while (stack.length) {
      const g = /** @type {number} */ (stack.pop()), kids = children(g);
      if (!kids.length) { total += G.nodes[g]; continue; }
      kids.forEach((c) => { if (exp.has(c)) stack.push(c); else total += 1; });
    }
    return total;
  }
  /** @param {number} g */
  function depthOf(g) { let d = 0; while (g > 0) { g = G.parent[g]; d++; } return d; }
  return {children, path, visibleNodes, depthOf};
}
