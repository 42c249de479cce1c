// The report page's stand-in for the widget model, and the packed payload both carry.
import test from "node:test";
import assert from "node:assert/strict";
import {gzipSync} from "node:zlib";
import {decodePayload, localModel} from "../../explorer/frontend/model.js";

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

test("payloads decode from base64 text (the page) and from bytes (the widget's binary trait)", async () => {
  const data = {title: "<b>t</b>", plans: [{name: "forward", n: [1, 2, 3]}], s: "\u2028"};
  const packed = gzipSync(Buffer.from(JSON.stringify(data), "utf8"));
  assert.deepEqual(await decodePayload(packed.toString("base64")), data);
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  assert.deepEqual(await decodePayload(view), data);
  assert.deepEqual(await decodePayload(new Uint8Array(packed)), data);
});
