// The report page's stand-in for the widget model, and the packed payload both carry.
import test from "node:test";
import assert from "node:assert/strict";
import {gzipSync} from "node:zlib";
import {PAYLOAD_VERSION, decodePayload, localModel} from "../../explorer/frontend/host/model.js";
import {fillLabels} from "../../explorer/frontend/util/common.js";

test("the stand-in model has the widget model's get / set / on surface", () => {
  const m = localModel({plan: "forward", selected: null});
  const seen = [];
  m.on("change:plan", () => seen.push(m.get("plan")));
  m.set("plan", "encode");
  m.set("selected", {values: [1]});
  m.save_changes();
  assert.deepEqual(seen, ["encode"]);
  assert.deepEqual(m.get("selected"), {values: [1]});
  m.off("change:plan");
  m.set("plan", "forward");
  assert.deepEqual(seen, ["encode"]);
});

// explorer.views.payload.embed.pack's layout: "DXB1", the JSON's length, the JSON (with the version "$v"), padding to 8, the arrays
function packLike(obj, arrays, version = PAYLOAD_VERSION) {
  const blobs = [], table = [];
  let at = 0;
  for (const [path, typed] of arrays) {
    const raw = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength), pad = (8 - raw.length % 8) % 8;
    table.push([path, typed instanceof Int32Array ? "i4" : "f8", at, typed.length]);
    blobs.push(raw, Buffer.alloc(pad));
    at += raw.length + pad;
  }
  const text = Buffer.from(JSON.stringify(Object.assign({}, obj, {$v: version}, table.length ? {$bin: table} : {})), "utf8");
  const head = Buffer.concat([Buffer.from("DXB1"), Buffer.alloc(4), text]);
  head.writeUInt32LE(text.length, 4);
  return gzipSync(Buffer.concat([head, Buffer.alloc((8 - head.length % 8) % 8), ...blobs]));
}

test("payloads decode from base64 text (the page) and from bytes (the widget's binary trait)", async () => {
  const data = {title: "<b>t</b>", plans: [{name: "forward", n: [1, 2, 3]}], s: "\u2028"};
  const packed = packLike(data, []);
  assert.deepEqual(await decodePayload(packed.toString("base64")), data);
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  assert.deepEqual(await decodePayload(view), data);
  assert.deepEqual(await decodePayload(new Uint8Array(packed)), data);
});

test("big integer columns come back in place as plain arrays (int32 and float64)", async () => {
  const data = {title: "é", plans: [{lod: {tensors: {label: ["a"]}}}]};
  const first = Int32Array.from({length: 100}, (_, k) => k - 1), big = Float64Array.from([2 ** 40, 3, -1]);
  const out = await decodePayload(packLike(data, [[["plans", 0, "lod", "tensors", "first"], first], [["big"], big]]));
  assert.ok(Array.isArray(out.plans[0].lod.tensors.first));
  assert.deepEqual(out.plans[0].lod.tensors.first, Array.from(first));
  assert.deepEqual(out.big, [2 ** 40, 3, -1]);
  assert.equal(out.$bin, undefined);
  assert.equal(out.title, "é");
});

test("a payload of another version is refused with a message that says what to do", async () => {
  await assert.rejects(decodePayload(packLike({title: "t"}, [], PAYLOAD_VERSION + 1)),
                       new RegExp(`another version of device-explorer \\(payload version ${PAYLOAD_VERSION + 1}, ` +
                                  `this app reads version ${PAYLOAD_VERSION}\\): make it again`));
  assert.equal((await decodePayload(packLike({title: "t"}, []))).$v, undefined);  // the version is the packing's, not the app's
});

test("a tensor table's labels: the named rows' as sent, every other row's made from its value index", async () => {
  const tensors = {index: [3, 7, 9, 12], named: [0, 1, 0, 1], namedLabels: ["x.weight", "<b>"]};
  const out = await decodePayload(packLike({plans: [{lod: {tensors}}], sides: {a: {lod: {tensors: {index: [0], named: [0],
                                                                                                     namedLabels: []}}}}}, []));
  assert.deepEqual(out.plans[0].lod.tensors.label, ["%3", "x.weight", "%9", "<b>"]);
  assert.equal(out.plans[0].lod.tensors.namedLabels, undefined);
  assert.deepEqual(out.sides.a.lod.tensors.label, ["%0"]);  // every table, wherever it sits (a diff's sides)
  const sent = {index: [1], named: [1], label: ["kept"]};
  fillLabels(sent);  // a table with its labels is left as it is (lod/base.js runs it again)
  assert.deepEqual(sent.label, ["kept"]);
});

test("bytes that are not a payload are refused", async () => {
  await assert.rejects(decodePayload(gzipSync(Buffer.from("{}"))), /not a device-explorer payload/);
});
