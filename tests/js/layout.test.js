// The layered layout (explorer/frontend/layout/layout.js): ranks respect edges, no two nodes share a place, edges run
// through one point per layer, deterministic, no crossings where a drawing without any exists.
import test from "node:test";
import assert from "node:assert/strict";
import {layered} from "../../explorer/frontend/layout/layout.js";

function check(count, src, dst, L) {
  for (let q = 0; q < src.length; q++) {
    const s = src[q], d = dst[q];
    if (s === d) { assert.equal(L.paths[q], null); continue; }
    const lo = Math.min(s, d), hi = Math.max(s, d);
    assert.ok(L.rank[hi] - L.rank[lo] >= 1, `edge ${q} spans no layer`);
    const p = L.paths[q];
    assert.deepEqual([p[0], p[1], p[p.length - 2], p[p.length - 1]], [L.x[s], L.rank[s], L.x[d], L.rank[d]]);
    for (let k = 2; k < p.length; k += 2) assert.equal(Math.abs(p[k + 1] - p[k - 1]), 1, `edge ${q} skips a layer`);
  }
  const seen = new Set();
  for (let v = 0; v < count; v++) {
    const at = L.rank[v] + ":" + L.x[v];
    assert.ok(!seen.has(at), `node ${v} shares a place`);
    seen.add(at);
  }
  const rows = new Map();  // order agrees with x within each layer
  for (let v = 0; v < count; v++) { if (!rows.has(L.rank[v])) rows.set(L.rank[v], []); rows.get(L.rank[v]).push(v); }
  for (const vs of rows.values()) {
    const byOrder = vs.slice().sort((a, b) => L.order[a] - L.order[b]), byX = vs.slice().sort((a, b) => L.x[a] - L.x[b]);
    assert.deepEqual(byOrder, byX);
  }
}

function crossings(L) {  // strict inversions of the pieces between neighbouring layers (shared ends never cross)
  const pieces = new Map();
  for (const p of L.paths) {
    if (!p) continue;
    for (let k = 0; k + 2 < p.length; k += 2) {
      const top = p[k + 1] < p[k + 3] ? [p[k], p[k + 2]] : [p[k + 2], p[k]], y = Math.min(p[k + 1], p[k + 3]);
      if (!pieces.has(y)) pieces.set(y, []);
      pieces.get(y).push(top);
    }
  }
  let total = 0;
  for (const ps of pieces.values())
    for (let i = 0; i < ps.length; i++)
      for (let j = 0; j < ps.length; j++)
        if (ps[i][0] < ps[j][0] && ps[i][1] > ps[j][1]) total++;
  return total;
}

function random(seed) { let s = seed; return () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; }; }

test("a chain is one straight column, one node per layer", () => {
  const n = 500, src = [], dst = [];
  for (let i = 0; i + 1 < n; i++) { src.push(i); dst.push(i + 1); }
  const L = layered(n, src, dst);
  check(n, src, dst, L);
  assert.equal(L.layers, n);
  assert.equal(new Set(L.x).size, 1);
  assert.deepEqual(Array.from(L.rank), Array.from({length: n}, (_, i) => i));
});

test("a tree has no crossings and its edges are one layer long", () => {
  const n = 400, src = [], dst = [], r = random(3);
  for (let v = 1; v < n; v++) { src.push(Math.floor(r() * v)); dst.push(v); }
  const L = layered(n, src, dst);
  check(n, src, dst, L);
  assert.equal(crossings(L), 0);
  for (let q = 0; q < src.length; q++) assert.equal(L.rank[dst[q]] - L.rank[src[q]], 1);
});

test("network simplex: a source sits just above its first reader, not in a top row", () => {
  // nodes in run order: a weight (0) and an input (1) come before the chain 2 -> 3 -> ... -> 11 that reads
  // them (0 at 10; 1 at 6 and 11)
  const src = [2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 1], dst = [3, 4, 5, 6, 7, 8, 9, 10, 11, 10, 6, 11];
  const L = layered(12, src, dst, {weight: [4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1, 1]});
  check(12, src, dst, L);
  assert.equal(L.rank[0], L.rank[10] - 1);
  assert.equal(L.rank[1], L.rank[6] - 1);
  assert.equal(L.rank[2], 0);
  assert.equal(L.paths[11].length, 2 * (L.rank[11] - L.rank[1] + 1));  // a long edge bends through every layer
});

test("network simplex shortens what longest-path ranking stretches", () => {
  // chain 0 -> 1 -> 2 -> 3 -> 5, and 1 -> 4 (weight 8) -> 5: longest path puts 4 right above 5 (cost 17);
  // the optimum puts it right below 1 (cost 4 + 8 + 2)
  const src = [0, 1, 2, 3, 1, 4], dst = [1, 2, 3, 5, 4, 5], w = [1, 1, 1, 1, 8, 1];
  const L = layered(6, src, dst, {weight: w});
  check(6, src, dst, L);
  assert.equal(L.rank[4] - L.rank[1], 1);
  let cost = 0;
  for (let q = 0; q < src.length; q++) cost += w[q] * (L.rank[dst[q]] - L.rank[src[q]]);
  assert.equal(cost, 4 + 8 + 2);
});

test("edges against the node order are reversed for ranking and drawn back to front", () => {
  // 0 -> 1 -> 2 -> 3, and 3 writes back into 1 (state): 3 -> 1
  const src = [0, 1, 2, 3], dst = [1, 2, 3, 1];
  const L = layered(4, src, dst);
  check(4, src, dst, L);
  assert.deepEqual(Array.from(L.rank), [0, 1, 2, 3]);
  const back = L.paths[3];
  assert.deepEqual([back[1], back[back.length - 1]], [3, 1]);  // from 3 up to 1
});

test("random DAGs: every invariant, deterministic, parallel edges and loops", () => {
  const r = random(11), n = 800, src = [], dst = [];
  for (let v = 3; v < n; v++) for (let k = 0; k < 2; k++) { src.push(Math.max(0, v - 1 - Math.floor(r() * 12))); dst.push(v); }
  src.push(5, 5, 7); dst.push(9, 9, 7);  // a duplicate and a loop
  const L = layered(n, src, dst), again = layered(n, src, dst);
  check(n, src, dst, L);
  assert.deepEqual(Array.from(L.x), Array.from(again.x));
  assert.deepEqual(Array.from(L.order), Array.from(again.order));
  assert.deepEqual(L.paths[src.length - 3], L.paths[src.length - 2]);
});

test("components sit side by side; a device key keeps equal keys together", () => {
  // two separate fans 0 -> 1..4 and 5 -> 6..9; in the first fan keys alternate
  const src = [0, 0, 0, 0, 5, 5, 5, 5], dst = [1, 2, 3, 4, 6, 7, 8, 9];
  const key = [0, 0, 1, 0, 1, 2, 2, 2, 2, 2];  // fan children 1..4 keyed 0 1 0 1
  const L = layered(10, src, dst, {key: key});
  check(10, src, dst, L);
  const left = [0, 1, 2, 3, 4].map((v) => L.x[v]), right = [5, 6, 7, 8, 9].map((v) => L.x[v]);
  assert.ok(Math.max(...left) < Math.min(...right));
  const row = [1, 2, 3, 4].sort((a, b) => L.order[a] - L.order[b]).map((v) => key[v]);
  let changes = 0;
  for (let k = 1; k < row.length; k++) if (row[k] !== row[k - 1]) changes++;
  assert.equal(changes, 1);
});

test("node widths keep wide nodes apart", () => {
  const src = [0, 0, 0], dst = [1, 2, 3], width = [1, 3, 1, 3];
  const L = layered(4, src, dst, {width: width});
  check(4, src, dst, L);
  const row = [1, 2, 3].sort((a, b) => L.x[a] - L.x[b]);
  for (let k = 1; k < row.length; k++) assert.ok(L.x[row[k]] - L.x[row[k - 1]] >= (width[row[k]] + width[row[k - 1]]) / 2 - 1e-9);
});

test("two hubs with 30 readers each, interleaved in node order, end up uncrossed", () => {
  const src = [], dst = [];
  for (let k = 0; k < 60; k++) { src.push(k % 2); dst.push(2 + k); }
  const L = layered(62, src, dst);
  check(62, src, dst, L);
  assert.equal(crossings(L), 0);
});
