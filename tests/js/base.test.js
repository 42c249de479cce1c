// A widget's what-if refers to the original's tables in the app payload the page holds (explorer/frontend/host/base.js):
// references resolved in place, the original decoded once per model (kept from the page's first draw, or asked of
// the kernel once when there is none), never again with each move.
import test from "node:test";
import assert from "node:assert/strict";
import {BASE, basePayload, refersToBase, resolveBase} from "../../explorer/frontend/host/base.js";

/** a widget model stand-in: custom messages in (`deliver`), sent ones recorded */
function fakeModel() {
  const handlers = [], sent = [];
  return {
    sent,
    on(event, cb) { if (event === "msg:custom") handlers.push(cb); },
    off(event, cb) { const k = handlers.indexOf(cb); if (k >= 0) handlers.splice(k, 1); },
    send(content) { sent.push(content); },
    deliver(msg, buffers) { for (const cb of handlers.slice()) cb(msg, buffers); },
    listeners: () => handlers.length,
  };
}

const APP = {title: "m.pte", plans: [{name: "forward", lod: {m: 3, n: 4}, devices: [{name: "cpu"}], context: {module: [0]}},
                                   {name: "encode", lod: {m: 1, n: 1}, devices: []}]};
/** a what-if payload as the kernel packs it for the widget: A's tables are references */
function move() {
  return {mode: "diff", plans: [{name: "encode", sides: {a: {summary: "s", devices: {[BASE]: ["plans", 1, "devices"]},
                                                             lod: {[BASE]: ["plans", 1, "lod"]}}, b: {lod: {m: 2}}},
                                 contexts: {a: {[BASE]: ["plans", 1, "context"]}, b: null}}],
          [BASE]: [["plans", 0, "sides", "a", "devices"], ["plans", 0, "sides", "a", "lod"], ["plans", 0, "contexts", "a"]]};
}

test("resolveBase puts the original's tables in place (the same objects), a missing one as null, and drops the list", () => {
  const data = move();
  assert.ok(refersToBase(data) && !refersToBase(APP));
  const out = resolveBase(data, APP);
  assert.equal(out, data);
  assert.equal(out.plans[0].sides.a.lod, APP.plans[1].lod, "the decoded table itself, not a copy");
  assert.equal(out.plans[0].sides.a.devices, APP.plans[1].devices);
  assert.equal(out.plans[0].contexts.a, null, "plan encode of the app payload has no context");
  assert.equal(out.plans[0].sides.a.summary, "s");
  assert.ok(!(BASE in out));
});

test("the app payload decoded when the widget opened is the base: moves resolve without asking or decoding again", async () => {
  const model = fakeModel();
  let decodes = 0;
  const bases = basePayload(model, async () => { decodes++; return APP; });
  bases.keep(APP);
  for (let k = 0; k < 3; k++) {  // three moves
    const got = resolveBase(move(), await bases.of());
    assert.equal(got.plans[0].sides.a.lod, APP.plans[1].lod);
  }
  assert.deepEqual(model.sent, [], "nothing asked of the kernel");
  assert.equal(decodes, 0, "the original is not decoded again");
  bases.keep(move());  // a diff is never the base
  assert.equal(await bases.of(), APP);
});

test("with no app payload decoded (opened with moves) the kernel is asked once, and its answer decoded once", async () => {
  const model = fakeModel();
  let decodes = 0;
  const bases = basePayload(model, async (view) => { decodes++; assert.equal(view.byteLength, 8); return APP; });
  const first = bases.of(), second = bases.of();
  assert.deepEqual(model.sent, [{type: "base"}], "one request for both");
  model.deliver({type: "pair_text", k: 0}, []);  // another message: not the answer
  model.deliver({type: "base"}, [new DataView(new ArrayBuffer(8))]);
  assert.equal(await first, APP);
  assert.equal(await second, APP);
  assert.equal(await bases.of(), APP);
  assert.equal(decodes, 1);
  assert.equal(model.listeners(), 0, "the answer's listener is gone");
  assert.deepEqual(model.sent, [{type: "base"}]);
});

test("each model has its own base", async () => {
  const one = fakeModel(), two = fakeModel();
  basePayload(one).keep(APP);
  basePayload(two).of();
  assert.deepEqual(one.sent, []);
  assert.deepEqual(two.sent, [{type: "base"}]);
  assert.equal(await basePayload(one).of(), APP, "kept per model, not per call");
});
