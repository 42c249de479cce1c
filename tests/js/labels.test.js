// Label placement (explorer/frontend/panels/labels.js): no label box overlaps another or any marker, labels move to
// another side or shorten before they hide, and names stay text.
import test from "node:test";
import assert from "node:assert/strict";
import {abbreviate, crosses, parseParts, placeLabels} from "../../explorer/frontend/panels/labels.js";

const measure = (text, size) => text.length * size * 0.6;
const hits = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
const AREA = [0, 0, 1000, 1000];

function item(x, y, text, extra = {}) {
  return Object.assign({x, y, r: 6, parts: [[text, null]], prio: 1, side: "right", size: 10, id: `${x}:${y}`}, extra);
}
function markersOf(items) { return items.map((it) => ({x: it.x, y: it.y, r: it.r, id: it.id})); }
function assertInside(placed, area = AREA) {
  placed.forEach((a) => assert.ok(a.box[0] >= area[0] && a.box[2] <= area[2] && a.box[1] >= area[1] && a.box[3] <= area[3],
                                  `label box ${a.box.map((v) => v.toFixed(1))} leaves the plot ${area}`));
}
function assertClean(placed, markers) {
  assertInside(placed);
  placed.forEach((a, k) => {
    placed.slice(k + 1).forEach((b) => assert.ok(!hits(a.box, b.box), "labels overlap"));
    markers.forEach((m) => assert.ok(!hits(a.box, [m.x - m.r, m.y - m.r, m.x + m.r, m.y + m.r]), "label covers a marker"));
  });
}

test("a dense grid keeps only labels that fit, none overlapping", () => {
  const items = [];
  for (let i = 0; i < 30; i++) for (let j = 0; j < 30; j++) items.push(item(20 + i * 30, 20 + j * 14, "tensor" + i + "_" + j));
  const placed = placeLabels(items, markersOf(items), AREA, measure);
  assert.ok(placed.length > 0 && placed.length < items.length);
  assertClean(placed, markersOf(items));
});

test("spread out, every node keeps its full label on its preferred side", () => {
  const items = [item(100, 100, "linear"), item(100, 200, "relu", {side: "left"})];
  const placed = placeLabels(items, markersOf(items), AREA, measure);
  assert.equal(placed.length, 2);
  const right = placed.find((p) => p.item.side === "right"), left = placed.find((p) => p.item.side === "left");
  assert.ok(right.box[0] > 100 && left.box[2] < 100);
  assert.deepEqual(right.parts, [["linear", null]]);
});

test("a blocked side moves the label to the other side, then it abbreviates", () => {
  const a = item(300, 100, "a_rather_long_tensor_name"), wall = {x: 330, y: 100, r: 6, id: "wall"};
  const placed = placeLabels([a], markersOf([a]).concat([wall]), AREA, measure);
  assert.equal(placed.length, 1);
  assert.ok(placed[0].box[2] < 300, "went left");
  const walls = [wall, {x: 260, y: 100, r: 6, id: "w2"}, {x: 300, y: 80, r: 6, id: "w3"}, {x: 300, y: 120, r: 6, id: "w4"}];
  const tight = placeLabels([a], markersOf([a]).concat(walls), AREA, measure);
  assert.equal(tight.length, 0, "no room on any side, even abbreviated: hidden");
  const roomy = placeLabels([a], markersOf([a]).concat([{x: 400, y: 100, r: 6, id: "far"}, walls[1], walls[2], walls[3]]), AREA, measure);
  assert.deepEqual(roomy[0].parts, [["a_rather_lo\u2026", null]], "abbreviated to fit on the right");
});

test("higher priority labels win the space", () => {
  const group = item(100, 100, "layers.3", {prio: 4}), tensor = item(100, 100, "x", {id: "t"});
  const placed = placeLabels([tensor, group], [], AREA, measure);
  assert.equal(placed[0].item, group);
});

test("labels outside the plot are not drawn", () => {
  assert.equal(placeLabels([item(-50, 10, "off")], [], AREA, measure).length, 0);
  assert.equal(placeLabels([item(995, 10, "edge")], [], AREA, measure)[0].box[2] < 1000, true, "flipped left");
});

test("labels by the top and bottom edges stay inside the plot, on a side where they fit", () => {
  // a label beside its node is centred on it: by the bottom edge its box would hang past it, by the top edge
  // above it, so it goes above (resp. below) the node instead
  const bottom = item(500, 998, "bottom_edge"), top = item(500, 2, "top_edge");
  const below = placeLabels([bottom], markersOf([bottom]), AREA, measure);
  assert.equal(below.length, 1, "placed");
  assertInside(below);
  assert.ok(below[0].box[3] <= bottom.y - bottom.r, "above its node");
  const above = placeLabels([top], markersOf([top]), AREA, measure);
  assert.equal(above.length, 1, "placed");
  assertInside(above);
  assert.ok(above[0].box[1] >= top.y + top.r, "below its node");
  // a plot that does not start at 0: a row of nodes along each edge of [40, 60, 640, 300]
  const area = [40, 60, 640, 300], row = [];
  for (let i = 0; i < 12; i++) row.push(item(50 + i * 50, 61, "t" + i), item(50 + i * 50, 299, "b" + i));
  const placed = placeLabels(row, markersOf(row), area, measure);
  assert.ok(placed.length >= 12, `${placed.length} of 24 placed`);
  assertInside(placed, area);
});

test("parts: coloured spans become coloured text, entities decode, padding goes", () => {
  assert.deepEqual(parseParts("\u2002layers.3  <span style='color:#0072B2'>\u25a0</span>72% &lt;b&gt;"),
                   [["layers.3  ", null], ["\u25a0", "#0072B2"], ["72% <b>", null]]);
  assert.deepEqual(abbreviate([["layers.31.attention  ", null], ["\u25a0", "#000"]], 8), [["layers.\u2026", null]]);
  assert.equal(abbreviate([["relu", null]], 12), null);
});

test("labels keep clear of boxes floating over the plot", () => {
  const it = item(100, 100, "under_the_minimap");
  const placed = placeLabels([it], markersOf([it]), AREA, measure, 600, [[100, 80, 400, 120]]);
  assert.ok(!placed.length || placed[0].box[2] <= 100 || placed[0].box[1] >= 120, "not under the box");
});

test("labels keep clear of the edges where they can", () => {
  // an edge leaves the node to the right: its label goes to the left instead
  const it = item(300, 100, "clear_of_edges");
  const placed = placeLabels([it], markersOf([it]), AREA, measure, 600, [], {segments: [[300, 100, 600, 100]]});
  assert.equal(placed.length, 1);
  assert.ok(placed[0].box[2] < 300, "went left, off the edge");
  assert.ok(!crosses([300, 100, 600, 100], placed[0].box));
});

test("every mode: a small plan shows every label, clear of edges, further out with a leader where it must", () => {
  // a column of 16 small nodes 6 px apart with an edge down it: beside their nodes only some labels fit (a label is
  // 13 px tall); every label is still placed, none overlapping another or a marker, none crossed by the edge
  const items = [], segments = [[300, 90, 300, 270]];
  for (let k = 0; k < 16; k++) items.push(item(300, 100 + 6 * k, "t" + k, {r: 2}));
  const markers = markersOf(items);
  assert.ok(placeLabels(items, markers, AREA, measure, 600, [], {segments}).length < items.length, "not in the default mode");
  const placed = placeLabels(items, markers, AREA, measure, 600, [], {segments, every: true});
  assert.equal(placed.length, items.length);
  assertClean(placed, markers);
  assert.ok(placed.some((p) => p.leader), "some went further out");
  placed.forEach((p) => {
    assert.ok(segments.every((s) => !crosses(s, p.box)), `label ${p.parts[0][0]} crossed by the edge`);
    assert.deepEqual(p.parts, p.item.parts, "in full");
    if (!p.leader) return;
    const [x0, y0, x1, y1] = p.leader;
    assert.ok(Math.abs(Math.hypot(x0 - p.item.x, y0 - p.item.y) - p.item.r) < 0.01, "the leader starts at its node");
    assert.ok(x1 >= p.box[0] && x1 <= p.box[2] && y1 >= p.box[1] && y1 <= p.box[3], "and ends at its box");
    placed.forEach((o) => { if (o !== p) assert.ok(!crosses(p.leader, o.box), "a leader crosses no other label"); });
  });
});

test("crosses: a segment through, beside and ending at a box", () => {
  assert.equal(crosses([0, 5, 20, 5], [5, 0, 10, 10]), true);
  assert.equal(crosses([0, 15, 20, 15], [5, 0, 10, 10]), false);
  assert.equal(crosses([0, 0, 4, 4], [5, 0, 10, 10]), false);
  assert.equal(crosses([7, 7, 7, 7.5], [5, 0, 10, 10]), true);
});
