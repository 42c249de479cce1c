// Layered drawing of a directed graph, the method of graphviz dot (Gansner, Koutsofios, North, Vo: "A
// Technique for Drawing Directed Graphs", 1993), written for 10k+ nodes in the browser: typed arrays,
// iterative DFS only (no recursion: dagre's recursive DFS overflows the stack at ~8k nodes).
//
//   1. cycles: an edge pointing backward in the given node order (state written back) is reversed;
//   2. ranks: network simplex (minimise sum weight * length over edges, each at least minlen long) from a
//      feasible tight tree over longest-path ranks, with incremental cut values (low/lim postorder numbers);
//   3. long edges: one virtual node per layer they pass;
//   4. order within layers, per weakly connected component (then side by side): weighted-median sweeps down
//      and up plus dot's transpose step from two first orders, keeping the best by crossings; a per-node key
//      (the device) keeps equal keys together when crossings allow;
//   5. x: Brandes-Koepf (as dagre): four median alignments balanced, long edges and chains straight; weights
//      and outputs then move beside the node they connect to.
//
// The only copy: every graph the app draws is laid out here (tests/test_analysis_layout.py checks its properties
// under node on real exports and built graphs); the measurements against dot are in docs/layout.md.

const SEARCH = 30;         // negative cut values looked at before choosing the most negative (dot's Search_size)
const ORDER_SWEEPS = 24;   // median sweeps at most (dot's MaxIter)
const ORDER_PATIENCE = 8;  // ... stopping after this many without fewer crossings (dot's MinQuit)
const TRANSPOSE_PASSES = 8;

/** @typedef {ArrayLike<number>} Nums */
/**
 * layered()'s options, all optional: per edge weight and minimum length; per node a key (an integer, -1: none) and a
 * width in slots (default 1); the width of virtual nodes (default 0.5).
 * @typedef {{weight?: Nums, minlen?: Nums, key?: Nums, width?: Nums, virtualWidth?: number}} LayoutOptions
 */
/**
 * A layout: per node its layer (rank, 0 at the top), x and position in its layer (virtual nodes counted); how many
 * layers; per edge its polyline [x0, y0, x1, y1, ...] (y = rank) or null (a loop); how many virtual nodes.
 * @typedef {{rank: Int32Array, x: Float64Array, order: Int32Array, layers: number, paths: (number[] | null)[], virtual: number}} Layout
 */
/** @typedef {ReturnType<typeof mergeEdges>} Merged  the merged edges, lower node first, with CSR incidence */
/** @typedef {ReturnType<typeof addVirtual>} Layered  real and virtual nodes, chains of long edges, CSR layers */
/** @typedef {ReturnType<typeof makeScratch>} Scratch  placeX's working arrays */

// Lay out `count` nodes and the edges src[q] -> dst[q] (options: LayoutOptions). Returns a Layout: rank (layer,
// 0 at the top) and x per node, order = position in its layer (virtual nodes included), how many layers, per edge
// its polyline from src to dst as [x0, y0, x1, y1, ...] (y = rank; one point per layer passed) or null for an
// edge from a node to itself, and how many virtual nodes the long edges took.
/** @param {number} count @param {Nums} src @param {Nums} dst @param {LayoutOptions} [options] @returns {Layout} */
export function layered(count, src, dst, options) {
  const opts = options || {};
  const g = mergeEdges(count, src, dst, opts.weight, opts.minlen);
  const ranked = networkSimplex(count, g), rank = ranked.rank;
  const vg = addVirtual(count, g, rank, opts);
  // each weakly connected component is ordered and placed on its own, then they sit side by side
  const members = ranked.compNodes.map((nodes) => nodes.slice().sort((p, q) => rank[p] - rank[q] || p - q));
  for (let e = 0; e < g.m; e++) {
    const chain = vg.chain[e], c = ranked.comp[g.a[e]];
    for (let k = 1; k + 1 < chain.length; k++) members[c].push(chain[k]);
  }
  const x = new Float64Array(vg.count), rows = /** @type {number[]} */ ([]);
  let offset = 0;
  for (let c = 0; c < members.length; c++) {
    const layers = orderLayers(vg, members[c]);
    placeX(vg, layers, x);
    let lo = Infinity, hi = -Infinity;
    for (const v of members[c]) { if (x[v] < lo) lo = x[v]; if (x[v] > hi) hi = x[v]; }
    for (const v of members[c]) x[v] += offset - lo;
    offset += hi - lo + 1;
    for (let r = 0; r < layers.length; r++) {
      if (rows.length <= r) rows.push(0);
      for (const v of layers[r]) vg.pos[v] = rows[r]++;
    }
  }
  const paths = /** @type {(number[] | null)[]} */ (new Array(src.length).fill(null));
  for (let q = 0; q < src.length; q++) {
    const e = g.of[q];
    if (e < 0) continue;
    const chain = vg.chain[e], pts = /** @type {number[]} */ ([]);
    for (let k = 0; k < chain.length; k++) pts.push(x[chain[k]], vg.rank[chain[k]]);
    if (g.flipped[q]) {  // back to src -> dst
      const rev = /** @type {number[]} */ ([]);
      for (let k = pts.length - 2; k >= 0; k -= 2) rev.push(pts[k], pts[k + 1]);
      paths[q] = rev;
    } else paths[q] = pts;
  }
  const order = new Int32Array(count), xs = new Float64Array(count);
  for (let v = 0; v < count; v++) { order[v] = vg.pos[v]; xs[v] = x[v]; }
  return {rank: rank, x: xs, order: order, layers: rows.length, paths: paths, virtual: vg.count - count};
}

// Every edge from the lower to the higher node number (a backward edge is reversed), loops dropped, parallel
// edges merged (weights summed, the longest minlen kept); incidence lists in CSR form.
/** @param {number} count @param {Nums} src @param {Nums} dst @param {Nums} [weight] @param {Nums} [minlen] */
function mergeEdges(count, src, dst, weight, minlen) {
  const E = src.length, of = new Int32Array(E).fill(-1), flipped = new Uint8Array(E), seen = /** @type {Map<number, number>} */ (new Map());
  const a = /** @type {number[]} */ ([]), b = /** @type {number[]} */ ([]), w = /** @type {number[]} */ ([]), ml = /** @type {number[]} */ ([]);
  for (let q = 0; q < E; q++) {
    let s = src[q], d = dst[q];
    if (s === d) continue;
    if (s > d) { flipped[q] = 1; const t = s; s = d; d = t; }
    const key = s * count + d, wq = weight ? weight[q] : 1, mq = minlen ? minlen[q] : 1;
    let e = seen.get(key);
    if (e === undefined) { e = a.length; seen.set(key, e); a.push(s); b.push(d); w.push(wq); ml.push(mq); }
    else { w[e] += wq; if (mq > ml[e]) ml[e] = mq; }
    of[q] = e;
  }
  const m = a.length, start = new Int32Array(count + 1), inc = new Int32Array(2 * m);
  for (let e = 0; e < m; e++) { start[a[e] + 1]++; start[b[e] + 1]++; }
  for (let v = 0; v < count; v++) start[v + 1] += start[v];
  const fill = start.slice(0, count);
  for (let e = 0; e < m; e++) { inc[fill[a[e]]++] = e; inc[fill[b[e]]++] = e; }
  return {m: m, a: Int32Array.from(a), b: Int32Array.from(b), w: Float64Array.from(w), ml: Int32Array.from(ml),
          start: start, inc: inc, of: of, flipped: flipped};
}

// -- ranking ------------------------------------------------------------------------------------------

// long-function: network simplex (Gansner et al. 1993, section 2) is one loop over a feasible tree held in a dozen
// typed arrays (tree edges, cut values, low/lim numbering, slack): its steps read and write them all in turn, and
// as separate functions each would take most of them; the steps are marked in order inside.
/** @param {number} count @param {Merged} g */
function networkSimplex(count, g) {
  const {m, a, b, w, ml, start, inc} = g;
  const rank = new Int32Array(count);
  // longest path from the sinks: every edge goes to a higher node number, so descending order is topological
  for (let v = count - 1; v >= 0; v--) {
    let r = 0, any = false;
    for (let k = start[v]; k < start[v + 1]; k++) {
      const e = inc[k];
      if (a[e] !== v) continue;
      const c = rank[b[e]] - ml[e];
      if (!any || c < r) { r = c; any = true; }
    }
    rank[v] = r;
  }
  const slack = (/** @type {number} */ e) => rank[b[e]] - rank[a[e]] - ml[e];
  const comp = new Int32Array(count).fill(-1), compNodes = /** @type {number[][]} */ ([]), compEdges = /** @type {number[][]} */ ([]);
  const stack = new Int32Array(Math.max(count, 1));
  for (let s = 0; s < count; s++) {  // weakly connected components, each gets its own tree
    if (comp[s] >= 0) continue;
    const c = compNodes.length, nodes = /** @type {number[]} */ ([]);
    let top = 0;
    stack[top++] = s; comp[s] = c;
    while (top) {
      const v = stack[--top];
      nodes.push(v);
      for (let k = start[v]; k < start[v + 1]; k++) {
        const e = inc[k], o = a[e] === v ? b[e] : a[e];
        if (comp[o] < 0) { comp[o] = c; stack[top++] = o; }
      }
    }
    compNodes.push(nodes); compEdges.push([]);
  }
  for (let e = 0; e < m; e++) compEdges[comp[a[e]]].push(e);
  const inTree = new Uint8Array(count), isTree = new Uint8Array(m);
  const tight = (/** @type {number} */ v0, /** @type {number[]} */ members) => {  // grow the tree from v0 along tight edges
    let top = 0;
    stack[top++] = v0;
    while (top) {
      const v = stack[--top];
      for (let k = start[v]; k < start[v + 1]; k++) {
        const e = inc[k], o = a[e] === v ? b[e] : a[e];
        if (!inTree[o] && slack(e) === 0) { inTree[o] = 1; isTree[e] = 1; members.push(o); stack[top++] = o; }
      }
    }
  };
  // feasible tree: tight edges first; then the incident edge of least slack, made tight by shifting the tree
  for (let c = 0; c < compNodes.length; c++) {
    const nodes = compNodes[c], edges = compEdges[c], members = [nodes[0]];
    inTree[nodes[0]] = 1;
    tight(nodes[0], members);
    while (members.length < nodes.length) {
      let best = -1, bestSlack = 0, added = false;
      for (let k = 0; k < edges.length; k++) {
        const e = edges[k];
        if (inTree[a[e]] === inTree[b[e]]) continue;
        const s = slack(e);
        if (s === 0) {
          const o = inTree[a[e]] ? b[e] : a[e];
          inTree[o] = 1; isTree[e] = 1; members.push(o); tight(o, members); added = true;
        } else if (best < 0 || s < bestSlack) { best = e; bestSlack = s; }
      }
      if (added) continue;
      const delta = inTree[a[best]] ? bestSlack : -bestSlack;
      for (let k = 0; k < members.length; k++) rank[members[k]] += delta;
      const o = inTree[a[best]] ? b[best] : a[best];
      inTree[o] = 1; isTree[best] = 1; members.push(o); tight(o, members);
    }
  }
  // rooted trees: parent, low/lim postorder numbers (one global numbering, a range per tree), cut values
  const parent = new Int32Array(count).fill(-1), pedge = new Int32Array(count).fill(-1);
  const low = new Int32Array(count), lim = new Int32Array(count), atLim = new Int32Array(count);
  const cut = new Float64Array(count), compLow = new Int32Array(compNodes.length);
  const iter = new Int32Array(count), path = new Int32Array(Math.max(count, 1));
  const dfsRange = (/** @type {number} */ root, /** @type {number} */ from) => {  // renumber root's subtree (its parent and parent edge kept) from `from`
    let top = 0, next = from;
    path[top++] = root; iter[root] = start[root]; low[root] = next;
    while (top) {
      const v = path[top - 1];
      let pushed = false;
      while (iter[v] < start[v + 1]) {
        const e = inc[iter[v]++];
        if (!isTree[e] || e === pedge[v]) continue;
        const o = a[e] === v ? b[e] : a[e];
        if (parent[o] === v && pedge[o] === e && low[o] === next) { next = lim[o] + 1; continue; }  // unchanged
        parent[o] = v; pedge[o] = e; low[o] = next; iter[o] = start[o];
        path[top++] = o; pushed = true;
        break;
      }
      if (!pushed) { lim[v] = next; atLim[next] = v; next++; top--; }
    }
    return next;
  };
  const calcCut = (/** @type {number} */ v) => {  // cut value of the tree edge v - parent[v] (dagre's calcCutValue)
    const pe = pedge[v], p = parent[v], vIsTail = a[pe] === v;
    let value = w[pe];
    for (let k = start[v]; k < start[v + 1]; k++) {
      const e = inc[k], out = a[e] === v, o = out ? b[e] : a[e];
      if (o === p) continue;
      const toHead = out === vIsTail;
      value += toHead ? w[e] : -w[e];
      if (isTree[e]) value += toHead ? -cut[o] : cut[o];
    }
    cut[v] = value;
  };
  let next = 0;
  for (let c = 0; c < compNodes.length; c++) {
    const root = compNodes[c][0];
    compLow[c] = next;
    next = dfsRange(root, next);
    for (let l = compLow[c]; l < next; l++) if (atLim[l] !== root) calcCut(atLim[l]);
  }
  // pivots: a tree edge of negative cut value leaves, the least-slack edge across its cut enters
  const maxIter = 20 * count + 100;
  let cursor = 0;
  for (let it = 0; it < maxIter; it++) {
    let leave = -1, found = 0;
    for (let k = 0; k < count && found < SEARCH; k++) {
      const v = (cursor + k) % count;
      if (pedge[v] >= 0 && cut[v] < 0) {
        found++;
        if (leave < 0 || cut[v] < cut[leave]) leave = v;
      }
    }
    if (leave < 0) break;
    cursor = (leave + 1) % count;
    const cv = leave, p = parent[cv], f = pedge[cv], lo = low[cv], hi = lim[cv];
    const tailIn = a[f] === cv;  // tail side = cv's subtree: enter from outside into it; else out of it
    const c = comp[cv], cLo = compLow[c], cHi = compLow[c] + compNodes[c].length - 1;
    let enter = -1, best = 0;
    const consider = (/** @type {number} */ e) => {
      const aIn = lim[a[e]] >= lo && lim[a[e]] <= hi, bIn = lim[b[e]] >= lo && lim[b[e]] <= hi;
      if (aIn === bIn || aIn === tailIn) return;
      const s = slack(e);
      if (enter < 0 || s < best) { enter = e; best = s; }
    };
    const scan = (/** @type {number} */ l0, /** @type {number} */ l1) => {
      for (let l = l0; l <= l1; l++) {
        const v = atLim[l];
        for (let k = start[v]; k < start[v + 1]; k++) if (!isTree[inc[k]]) consider(inc[k]);
      }
    };
    if (hi - lo + 1 <= (cHi - cLo + 1) / 2) scan(lo, hi);
    else { scan(cLo, lo - 1); scan(hi + 1, cHi); }
    // rerank the subtree so the entering edge is tight, then swap the edges in the tree
    const delta = tailIn ? -best : best;
    for (let l = lo; l <= hi; l++) rank[atLim[l]] += delta;
    const xIn = lim[a[enter]] >= lo && lim[a[enter]] <= hi, x = xIn ? a[enter] : b[enter], y = xIn ? b[enter] : a[enter];
    let top2 = y;  // lowest common ancestor of y and the subtree (= of y and p)
    while (!(low[top2] <= lim[cv] && lim[cv] <= lim[top2])) top2 = parent[top2];
    isTree[f] = 0; isTree[enter] = 1;
    // re-hang the subtree: reverse the parent links on the path cv .. x, then x under y
    let u = x, up = y, ue = enter;
    for (;;) {
      const oldP = parent[u], oldE = pedge[u];
      parent[u] = up; pedge[u] = ue;
      if (u === cv) break;
      up = u; ue = oldE; u = oldP;
    }
    // only the two paths up to top2 changed: renumber them (other subtrees keep their numbers), then their cuts
    for (u = cv; u !== top2; u = parent[u]) low[u] = -1;
    for (u = p; u !== top2; u = parent[u]) low[u] = -1;
    dfsRange(top2, low[top2]);
    for (u = cv; u !== top2; u = parent[u]) calcCut(u);
    for (u = p; u !== top2; u = parent[u]) calcCut(u);
  }
  // normalise: each component starts at rank 0
  for (let c = 0; c < compNodes.length; c++) {
    const nodes = compNodes[c];
    let lowest = rank[nodes[0]];
    for (let k = 1; k < nodes.length; k++) if (rank[nodes[k]] < lowest) lowest = rank[nodes[k]];
    for (let k = 0; k < nodes.length; k++) rank[nodes[k]] -= lowest;
  }
  return {rank: rank, comp: comp, compNodes: compNodes};
}

// -- long edges ---------------------------------------------------------------------------------------

// The layered graph: real nodes, then one virtual node per layer each long edge passes; chain[e] lists the
// nodes edge e runs through (top to bottom); up/down: CSR adjacency between neighbouring layers.
/** @param {number} count @param {Merged} g @param {Int32Array} rank @param {LayoutOptions} opts */
function addVirtual(count, g, rank, opts) {
  const {m, a, b, w} = g;
  let total = count;
  for (let e = 0; e < m; e++) total += rank[b[e]] - rank[a[e]] - 1;
  const vr = new Int32Array(total), key = new Int32Array(total).fill(-1), width = new Float64Array(total);
  const vw = opts.virtualWidth === undefined ? 0.5 : opts.virtualWidth;
  for (let v = 0; v < count; v++) {
    vr[v] = rank[v];
    if (opts.key) key[v] = opts.key[v];
    width[v] = opts.width ? opts.width[v] : 1;
  }
  const chain = /** @type {number[][]} */ (new Array(m)), sa = /** @type {number[]} */ ([]), sb = /** @type {number[]} */ ([]);
  const sw = /** @type {number[]} */ ([]);
  let next = count;
  for (let e = 0; e < m; e++) {
    const nodes = [a[e]];
    for (let r = rank[a[e]] + 1; r < rank[b[e]]; r++) { vr[next] = r; width[next] = vw; nodes.push(next++); }
    nodes.push(b[e]);
    chain[e] = nodes;
    for (let k = 0; k + 1 < nodes.length; k++) { sa.push(nodes[k]); sb.push(nodes[k + 1]); sw.push(w[e]); }
  }
  const S = sa.length, upStart = new Int32Array(total + 1), downStart = new Int32Array(total + 1);
  for (let s = 0; s < S; s++) { downStart[sa[s] + 1]++; upStart[sb[s] + 1]++; }
  for (let v = 0; v < total; v++) { downStart[v + 1] += downStart[v]; upStart[v + 1] += upStart[v]; }
  const up = new Int32Array(S), down = new Int32Array(S), upW = new Float64Array(S), downW = new Float64Array(S);
  const fu = upStart.slice(0, total), fd = downStart.slice(0, total);
  for (let s = 0; s < S; s++) {
    down[fd[sa[s]]] = sb[s]; downW[fd[sa[s]]++] = sw[s];
    up[fu[sb[s]]] = sa[s]; upW[fu[sb[s]]++] = sw[s];
  }
  return {count: total, real: count, rank: vr, key: key, width: width, chain: chain, pos: new Int32Array(total),
          seen: new Int32Array(total), stamp: 0, loc: new Int32Array(total),
          upStart: upStart, up: up, upW: upW, downStart: downStart, down: down, downW: downW,
          scratch: /** @type {Scratch | null} */ (null)};
}

// -- order within layers ------------------------------------------------------------------------------

// `members`: one component's nodes, the real ones first by (rank, number); returns its layers in order.
// As dot, two first orders (depth-first from the top, following edges down; from the bottom, following edges
// up), each improved by sweeps; the one with fewer crossings is kept.
/** @param {Layered} vg @param {number[]} members @returns {number[][]} */
function orderLayers(vg, members) {
  const {rank, pos} = vg;
  let depth = 0;
  for (const v of members) if (rank[v] + 1 > depth) depth = rank[v] + 1;
  let best = /** @type {number[][]} */ ([]), bestScore = /** @type {number[] | null} */ (null);
  for (let start = 0; start < 2 && (!bestScore || bestScore[0] > 0 || bestScore[1] > 0); start++) {
    const layers = firstOrder(vg, members, depth, start === 1), score = improve(vg, layers);
    if (!bestScore || better(score, bestScore)) { bestScore = score; best = layers; }
  }
  for (const layer of best) for (let k = 0; k < layer.length; k++) pos[layer[k]] = k;
  transpose(vg, best, false);
  return best;
}

/** @param {number[]} a @param {number[]} b */
function better(a, b) { return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]); }  // fewer crossings, then key changes

/** @param {Layered} vg @param {number[]} members @param {number} depth @param {boolean} fromBottom */
function firstOrder(vg, members, depth, fromBottom) {  // each node at the end of its layer, depth-first
  const {real, rank, pos, seen} = vg, stamp = ++vg.stamp;
  const nbStart = fromBottom ? vg.upStart : vg.downStart, nb = fromBottom ? vg.up : vg.down;
  const layers = /** @type {number[][]} */ ([]), stack = /** @type {number[]} */ ([]);
  for (let r = 0; r < depth; r++) layers.push([]);
  let reals = 0;
  while (reals < members.length && members[reals] < real) reals++;
  for (let i = 0; i < reals; i++) {
    const s = members[fromBottom ? reals - 1 - i : i];
    if (seen[s] === stamp) continue;
    stack.push(s);
    while (stack.length) {
      const v = /** @type {number} */ (stack.pop());
      if (seen[v] === stamp) continue;
      seen[v] = stamp;
      pos[v] = layers[rank[v]].length;
      layers[rank[v]].push(v);
      for (let k = nbStart[v + 1] - 1; k >= nbStart[v]; k--) if (seen[nb[k]] !== stamp) stack.push(nb[k]);
    }
  }
  return layers;
}

// median sweeps down and up with transposes; layers left in the best order (fewest crossings, then fewest key
// changes along the layers); returns [crossings, key changes]
/** @param {Layered} vg @param {number[][]} layers */
function improve(vg, layers) {
  const {pos, upStart, up, downStart, down} = vg, depth = layers.length;
  let best = layers.map((l) => l.slice()), bestScore = [crossings(vg, layers), keyChanges(vg, layers)], calm = 0;
  for (let it = 0; it < ORDER_SWEEPS && (bestScore[0] > 0 || bestScore[1] > 0) && calm < ORDER_PATIENCE; it++) {
    const reverse = it % 4 >= 2;  // as dot: every other pair of sweeps lets equal nodes trade places
    if (it % 2 === 0) for (let r = 1; r < depth; r++) medianSort(vg, layers[r], upStart, up, reverse);
    else for (let r = depth - 2; r >= 0; r--) medianSort(vg, layers[r], downStart, down, reverse);
    transpose(vg, layers, reverse);
    const score = [crossings(vg, layers), keyChanges(vg, layers)];
    if (better(score, bestScore)) { bestScore = score; best = layers.map((l) => l.slice()); calm = 0; } else calm++;
  }
  for (let r = 0; r < depth; r++) {
    layers[r] = best[r];
    for (let k = 0; k < best[r].length; k++) pos[best[r][k]] = k;
  }
  return bestScore;
}

/** @param {Layered} vg @param {number[][]} layers */
function keyChanges(vg, layers) {  // neighbours in a layer with different keys (nodes without a key skipped)
  const key = vg.key;
  let total = 0;
  for (const layer of layers) {
    let last = -1;
    for (const v of layer) {
      if (key[v] < 0) continue;
      if (last >= 0 && key[v] !== last) total++;
      last = key[v];
    }
  }
  return total;
}

/** @type {number[]} */
const MEDIAN_BUF = [];
/** @param {Layered} vg @param {number} v @param {Int32Array} nbStart @param {Int32Array} nb */
function median(vg, v, nbStart, nb) {  // dot's weighted median of the neighbours' positions; -1: none
  const n0 = nbStart[v], len = nbStart[v + 1] - n0, pos = vg.pos;
  if (!len) return -1;
  if (len === 1) return pos[nb[n0]];
  if (len === 2) return (pos[nb[n0]] + pos[nb[n0 + 1]]) / 2;
  const P = MEDIAN_BUF;
  P.length = len;
  for (let k = 0; k < len; k++) P[k] = pos[nb[n0 + k]];
  P.sort((p, q) => p - q);
  const h = len >> 1;
  if (len % 2 === 1) return P[h];
  const left = P[h - 1] - P[0], right = P[len - 1] - P[h];
  if (left + right === 0) return (P[h - 1] + P[h]) / 2;
  return (P[h - 1] * right + P[h] * left) / (left + right);
}

/** @param {Layered} vg @param {number[]} layer @param {Int32Array} nbStart @param {Int32Array} nb @param {boolean} reverse */
function medianSort(vg, layer, nbStart, nb, reverse) {
  // nodes without neighbours keep their place; the others fill the remaining places by median, then key
  const n = layer.length, med = new Float64Array(n), movable = /** @type {number[]} */ ([]);
  for (let k = 0; k < n; k++) { med[k] = median(vg, layer[k], nbStart, nb); if (med[k] >= 0) movable.push(k); }
  const key = vg.key;
  const sorted = movable.slice().sort((p, q) => med[p] - med[q] || keyCmp(key[layer[p]], key[layer[q]]) || (reverse ? q - p : p - q));
  const old = layer.slice();
  for (let k = 0; k < movable.length; k++) layer[movable[k]] = old[sorted[k]];
  for (let k = 0; k < n; k++) vg.pos[layer[k]] = k;
}

/** @param {number} p @param {number} q */
function keyCmp(p, q) { return p === q ? 0 : p < 0 ? 1 : q < 0 ? -1 : p - q; }

/** @param {Layered} vg @param {number} u @param {number} v @param {Int32Array} nbStart @param {Int32Array} nb */
function pairCross(vg, u, v, nbStart, nb) {  // crossings between u's and v's edges to one side, u left of v
  const pos = vg.pos;
  let c = 0;
  for (let i = nbStart[u]; i < nbStart[u + 1]; i++) {
    const pu = pos[nb[i]];
    for (let j = nbStart[v]; j < nbStart[v + 1]; j++) if (pos[nb[j]] < pu) c++;
  }
  return c;
}

/** @param {Int32Array} key @param {number} l @param {number} u @param {number} v @param {number} r */
function breaks(key, l, u, v, r) {  // key changes among l u v r (-1: no key, or no node)
  const d = (/** @type {number} */ p, /** @type {number} */ q) => (p >= 0 && q >= 0 && key[p] >= 0 && key[q] >= 0 && key[p] !== key[q] ? 1 : 0);
  return d(l, u) + d(u, v) + d(v, r);
}

// swap neighbours while that removes crossings (or, at equal crossings, key changes); `reverse`: also swap at
// equal crossings and keys (dot's way out of a plateau; such swaps don't count as progress)
/** @param {Layered} vg @param {number[][]} layers @param {boolean} reverse */
function transpose(vg, layers, reverse) {
  const {upStart, up, downStart, down, pos, key} = vg;
  for (let pass = 0; pass < TRANSPOSE_PASSES; pass++) {
    let improved = false;
    for (const layer of layers) {
      for (let k = 0; k + 1 < layer.length; k++) {
        const u = layer[k], v = layer[k + 1];
        const now = pairCross(vg, u, v, upStart, up) + pairCross(vg, u, v, downStart, down);
        const swapped = pairCross(vg, v, u, upStart, up) + pairCross(vg, v, u, downStart, down);
        if (swapped > now) continue;
        const l = k > 0 ? layer[k - 1] : -1, r = k + 2 < layer.length ? layer[k + 2] : -1;
        const b0 = swapped === now ? breaks(key, l, u, v, r) : 0, b1 = swapped === now ? breaks(key, l, v, u, r) : 0;
        if (swapped < now || b1 < b0 || (reverse && now > 0 && b1 === b0)) {
          layer[k] = v; layer[k + 1] = u; pos[v] = k; pos[u] = k + 1;
          if (swapped < now || b1 < b0) improved = true;
        }
      }
    }
    if (!improved) break;
  }
}

let TREE = new Int32Array(64);
/** @param {Layered} vg @param {number[][]} layers */
function crossings(vg, layers) {  // all crossings between neighbouring layers (accumulator tree, O(E log V))
  const {downStart, down, pos} = vg;
  let total = 0;
  for (let r = 0; r + 1 < layers.length; r++) {
    let size = 1;
    while (size < layers[r + 1].length) size *= 2;
    if (TREE.length < 2 * size) TREE = new Int32Array(4 * size);
    const tree = TREE;
    tree.fill(0, 0, 2 * size);
    const add = (/** @type {number} */ e) => {
      let i = e + size;
      tree[i]++;
      while (i > 1) {
        if (i % 2 === 0) total += tree[i + 1];
        i = i >> 1;
        tree[i]++;
      }
    };
    for (const u of layers[r]) {  // layer r in order; each node's lower ends in increasing order
      const k0 = downStart[u], k1 = downStart[u + 1];
      if (k1 - k0 > 16) {
        const own = [];
        for (let k = k0; k < k1; k++) own.push(pos[down[k]]);
        own.sort((p, q) => p - q).forEach(add);
        continue;
      }
      let last = -1;
      for (let j = k0; j < k1; j++) {
        let e = Infinity;  // the next lower end after `last` (degrees are small: selection, no allocation)
        for (let k = k0; k < k1; k++) { const p = pos[down[k]]; if (p > last && p < e) e = p; }
        let copies = 0;
        for (let k = k0; k < k1; k++) if (pos[down[k]] === e) copies++;
        for (let c = 0; c < copies; c++) add(e);
        j += copies - 1;
        last = e;
      }
    }
  }
  return total;
}

// -- x coordinates ------------------------------------------------------------------------------------

// Brandes & Koepf ("Fast and Simple Horizontal Coordinate Assignment", 2001), as dagre: four alignments of
// each node with a median neighbour among its heaviest edges (up/down x left/right), blocks compacted, the
// alignments lined up with the narrowest and each node put at the mean of its two middle candidates; then
// one order-keeping least-squares pass per layer restores the minimal separation the balancing may break,
// and a second moves the nodes at an end of the dataflow (weights, outputs) beside their neighbours. Long
// edges (inner segments between virtual nodes) win conflicts, so they run straight.
// long-function: the four alignments, their compaction and balancing, and the two least-squares passes share the
// layered graph's arrays and the per-alignment results; the phases follow the paper's order (above) inside.
/** @param {Layered} vg @param {number[][]} layers @param {Float64Array} x */
function placeX(vg, layers, x) {
  const {real, upStart, up, downStart, down, width, pos, loc} = vg;
  const R = layers.length;
  let n = 0;
  for (const layer of layers) n += layer.length;
  if (n === R) { for (const layer of layers) for (const v of layer) x[v] = 0; return; }  // one column: nothing to place
  const S = scratch(vg), at = S.at, nodes = S.nodes, big = vg.count;  // the component's nodes flat, layer r at at[r] .. at[r+1]
  at[0] = 0;
  for (let r = 0; r < R; r++) {
    at[r + 1] = at[r] + layers[r].length;
    for (let k = 0; k < layers[r].length; k++) { nodes[at[r] + k] = layers[r][k]; loc[layers[r][k]] = at[r] + k; }
  }
  const conflict = new Set();  // (upper, lower) pairs of a segment crossing an inner segment
  for (let r = 1; r < R; r++) {
    const layer = layers[r];
    let k0 = 0, scan = 0;
    for (let i = 0; i < layer.length; i++) {
      const v = layer[i];
      let w = -1;
      if (v >= real) for (let k = upStart[v]; k < upStart[v + 1]; k++) if (up[k] >= real) w = up[k];
      const k1 = w >= 0 ? pos[w] : layers[r - 1].length;
      if (w >= 0 || i === layer.length - 1) {
        for (let j = scan; j <= i; j++) {
          const sn = layer[j];
          for (let k = upStart[sn]; k < upStart[sn + 1]; k++) {
            const u = up[k], uPos = pos[u];
            if ((uPos < k0 || k1 < uPos) && !(u >= real && sn >= real)) conflict.add(u * big + sn);
          }
        }
        scan = i + 1;
        k0 = k1;
      }
    }
  }
  const spans = [], ws = [], cands = S.cands;
  const {root, align, p, xs, indeg, topo, es, et, esep, outStart, outE, fill} = S;
  for (let vert = 0; vert < 2; vert++) {
    for (let horiz = 0; horiz < 2; horiz++) {
      const nbStart = vert ? downStart : upStart, nb = vert ? down : up, nbW = vert ? vg.downW : vg.upW;
      for (let r = 0; r < R; r++) for (let l = at[r]; l < at[r + 1]; l++) { root[l] = l; align[l] = l; p[l] = horiz ? at[r + 1] - 1 - l : l - at[r]; }
      for (let j = 0; j < R; j++) {  // vertical alignment, layers in the direction, each in the direction
        const r = vert ? R - 1 - j : j;
        let prevIdx = -1;
        for (let i = 0; i < at[r + 1] - at[r]; i++) {
          const lv = horiz ? at[r + 1] - 1 - i : at[r] + i, v = nodes[lv];
          if (nbStart[v + 1] === nbStart[v]) continue;
          let heaviest = 0;  // the median of the heaviest edges: the main dataflow, not a weight beside it
          for (let k = nbStart[v]; k < nbStart[v + 1]; k++) if (nbW[k] > heaviest) heaviest = nbW[k];
          ws.length = 0;
          for (let k = nbStart[v]; k < nbStart[v + 1]; k++) if (nbW[k] === heaviest) ws.push(loc[nb[k]]);
          const len = ws.length;
          if (len > 1) ws.sort((a, b) => p[a] - p[b]);
          const mp = (len - 1) / 2;
          for (let h = Math.floor(mp); h <= Math.ceil(mp); h++) {
            const w = ws[h], gw = nodes[w];
            const crossed = vert ? conflict.has(v * big + gw) : conflict.has(gw * big + v);
            if (align[lv] === lv && prevIdx < p[w] && !crossed) {
              align[w] = lv;
              align[lv] = root[lv] = root[w];
              prevIdx = p[w];
            }
          }
        }
      }
      // horizontal compaction: blocks (by root) ordered by "left of" edges between neighbours in a layer,
      // placed by longest path, then each pulled right as far as its right neighbours allow
      const E = n - R;
      let q = 0;
      indeg.fill(0, 0, n);
      for (let r = 0; r < R; r++) {
        for (let l = at[r] + 1; l < at[r + 1]; l++) {
          const a = horiz ? l : l - 1, b = horiz ? l - 1 : l;  // a left of b in the direction
          es[q] = root[a]; et[q] = root[b]; esep[q] = (width[nodes[a]] + width[nodes[b]]) / 2; indeg[root[b]]++; q++;
        }
      }
      outStart.fill(0, 0, n + 1);
      for (let e = 0; e < E; e++) outStart[es[e] + 1]++;
      for (let l = 0; l < n; l++) { outStart[l + 1] += outStart[l]; fill[l] = outStart[l]; }
      for (let e = 0; e < E; e++) outE[fill[es[e]]++] = e;
      let tn = 0;
      for (let l = 0; l < n; l++) if (root[l] === l && !indeg[l]) topo[tn++] = l;
      for (let h = 0; h < tn; h++) {
        const b = topo[h];
        for (let k = outStart[b]; k < outStart[b + 1]; k++) if (--indeg[et[outE[k]]] === 0) topo[tn++] = et[outE[k]];
      }
      xs.fill(0, 0, n);
      for (let h = 0; h < tn; h++) {
        const b = topo[h];
        for (let k = outStart[b]; k < outStart[b + 1]; k++) {
          const e = outE[k];
          if (xs[b] + esep[e] > xs[et[e]]) xs[et[e]] = xs[b] + esep[e];
        }
      }
      for (let h = tn - 1; h >= 0; h--) {
        const b = topo[h];
        let lim = Infinity;
        for (let k = outStart[b]; k < outStart[b + 1]; k++) { const e = outE[k]; if (xs[et[e]] - esep[e] < lim) lim = xs[et[e]] - esep[e]; }
        if (lim !== Infinity && lim > xs[b]) xs[b] = lim;
      }
      const c = cands[2 * vert + horiz];
      let lo = Infinity, hi = -Infinity;
      for (let l = 0; l < n; l++) {
        c[l] = horiz ? -xs[root[l]] : xs[root[l]];
        const half = width[nodes[l]] / 2;
        if (c[l] - half < lo) lo = c[l] - half;
        if (c[l] + half > hi) hi = c[l] + half;
      }
      spans.push(hi - lo);
    }
  }
  let narrow = 0;
  for (let j = 1; j < 4; j++) if (spans[j] < spans[narrow]) narrow = j;
  const ext = (/** @type {Float64Array} */ c) => { let lo = Infinity, hi = -Infinity; for (let l = 0; l < n; l++) { if (c[l] < lo) lo = c[l]; if (c[l] > hi) hi = c[l]; } return [lo, hi]; };
  const to = ext(cands[narrow]);
  for (let j = 0; j < 4; j++) {
    const [lo, hi] = ext(cands[j]), delta = j % 2 ? to[1] - hi : to[0] - lo;
    for (let l = 0; l < n; l++) cands[j][l] += delta;
  }
  const four = S.four, target = S.target;
  for (let l = 0; l < n; l++) {
    for (let j = 0; j < 4; j++) four[j] = cands[j][l];
    four.sort();
    target[l] = (four[1] + four[2]) / 2;
  }
  const pull = S.pull, pinned = S.pinned;
  pull.fill(1, 0, n); pinned.fill(0, 0, n);
  for (let r = 0; r < R; r++) isotonic(nodes, at[r], at[r + 1], target, pull, pinned, width, x, S);
  // then a node at one end of the dataflow (a source such as a weight, or a sink) moves next to the median of
  // its neighbours, the others staying where they are: a weight sits beside the op reading it
  const nx = /** @type {number[]} */ ([]), nw = /** @type {number[]} */ ([]);
  for (let l = 0; l < n; l++) {
    const v = nodes[l], ups = upStart[v + 1] - upStart[v], downs = downStart[v + 1] - downStart[v];
    target[l] = x[v];
    pinned[l] = v >= real || (ups > 0 && downs > 0) || ups + downs === 0 ? 1 : 0;
    if (pinned[l]) continue;
    nx.length = 0; nw.length = 0;
    const nbStart = ups ? upStart : downStart, nb = ups ? up : down, nbW = ups ? vg.upW : vg.downW;
    for (let k = nbStart[v]; k < nbStart[v + 1]; k++) { nx.push(x[nb[k]]); nw.push(nbW[k]); }
    target[l] = weightedMedian(nx, nw);
  }
  for (let r = 0; r < R; r++) isotonic(nodes, at[r], at[r + 1], target, pull, pinned, width, x, S);
}

/** working arrays for placeX, made once per layout (a graph has many small components) @param {Layered} vg @returns {Scratch} */
function scratch(vg) {
  if (!vg.scratch) vg.scratch = makeScratch(vg.count + 1);
  return vg.scratch;
}
/** @param {number} N */
function makeScratch(N) {
  const F = () => new Float64Array(N), I = () => new Int32Array(N);
  return {at: I(), nodes: I(), root: I(), align: I(), p: I(), xs: F(), indeg: I(), topo: I(), es: I(), et: I(),
                esep: F(), outStart: I(), outE: I(), fill: I(), cands: [F(), F(), F(), F()], four: new Float64Array(4),
                target: F(), pull: F(), pinned: new Uint8Array(N), c: F(), bw: F(), bs: F(), start: I(), fix: F(),
                fixed: new Uint8Array(N)};
}

/** @param {number[]} xs @param {number[]} ws */
function weightedMedian(xs, ws) {  // the lower weighted median; halfway to the next value at an exact half
  const idx = xs.map((_, k) => k).sort((a, b) => xs[a] - xs[b] || a - b);
  let total = 0, cum = 0;
  for (const w of ws) total += w;
  for (let j = 0; j < idx.length; j++) {
    cum += ws[idx[j]];
    if (2 * cum === total && j + 1 < idx.length) return (xs[idx[j]] + xs[idx[j + 1]]) / 2;
    if (2 * cum >= total) return xs[idx[j]];
  }
  return xs[idx[idx.length - 1]];
}

// x[nodes[k]] for k in lo .. hi (one layer, in order) closest to target[k] (weights pull[k]; a pinned node
// stays at its target) keeping each node (w_k + w_k+1) / 2 right of the one before: with c_k the packed
// offsets, y_k = x_k - c_k must not decrease — pool adjacent violators.
/**
 * @param {Int32Array} nodes @param {number} lo @param {number} hi @param {Float64Array} target @param {Float64Array} pull
 * @param {Uint8Array} pinned @param {Float64Array} width @param {Float64Array} x @param {Scratch} work
 */
function isotonic(nodes, lo, hi, target, pull, pinned, width, x, work) {
  const {c, bw, bs, start, fix, fixed} = work;
  const value = (/** @type {number} */ j) => (fixed[j] ? fix[j] : bs[j] / bw[j]);
  let blocks = 0;
  for (let k = lo; k < hi; k++) {
    c[k] = k === lo ? 0 : c[k - 1] + (width[nodes[k - 1]] + width[nodes[k]]) / 2;
    bw[blocks] = pull[k]; bs[blocks] = pull[k] * (target[k] - c[k]); start[blocks] = k;
    fixed[blocks] = pinned[k]; fix[blocks] = target[k] - c[k]; blocks++;
    while (blocks > 1 && value(blocks - 2) >= value(blocks - 1)) {
      const j = blocks - 2;
      if (!fixed[j] && fixed[j + 1]) { fixed[j] = 1; fix[j] = fix[j + 1]; }
      bw[j] += bw[j + 1]; bs[j] += bs[j + 1]; blocks--;
    }
  }
  for (let j = 0; j < blocks; j++) {
    const y = value(j), end = j + 1 < blocks ? start[j + 1] : hi;
    for (let k = start[j]; k < end; k++) x[nodes[k]] = y + c[k];
  }
}
