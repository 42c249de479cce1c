// A widget's what-if refers to the app payload the page drew the original from, instead of carrying the original's
// tables again (explorer.views.payload.whatif whatif_payload base=): A's `lod` and `devices` (and with an ETRecord
// its context) are each {"$base": path into that payload}, and the payload's "$base" lists where they are. The
// original never changes for a widget (the kernel keeps it as it first sent it), so the page keeps it decoded once
// per model: the app payload it decoded when the widget opened, or, when it has none (a widget opened with moves, a
// view made later), the one the kernel sends on request ({type: "base"}, answered with it as one binary buffer).
import {decodePayload} from "./model.js";

/** the key of a reference, and of the list of where they are */
export const BASE = "$base";

/** @typedef {(string | number)[]} Path */

/** `data` with every reference its "$base" lists replaced by what it names in `base` (a key `base` lacks: null),
 * in place: the payload the app draws (what explorer.views.payload.whatif.resolve_base gives in Python).
 * @param {any} data @param {any} base @returns {any} */
export function resolveBase(data, base) {
  const slots = /** @type {Path[]} */ (data[BASE] || []);
  for (const slot of slots) {
    let parent = data;
    for (let k = 0; k < slot.length - 1; k++) parent = parent[slot[k]];
    const last = slot[slot.length - 1];
    let target = base;
    for (const key of /** @type {Path} */ (parent[last][BASE])) target = target == null ? null : target[key];
    parent[last] = target === undefined ? null : target;
  }
  delete data[BASE];
  return data;
}

/** whether a decoded payload refers to the widget's app payload @param {any} data */
export function refersToBase(data) {
  return !!data && Array.isArray(data[BASE]);
}

/** whether a decoded payload is the widget's app payload (one program: no mode) @param {any} data */
function isApp(data) {
  return !!data && typeof data === "object" && !("mode" in data) && Array.isArray(data.plans);
}

/** @type {WeakMap<object, Promise<any>>} model -> its app payload, decoded */
const BASES = new WeakMap();

/**
 * The widget's app payload, per model: kept when the page decodes it (`keep`), asked of the kernel when a what-if
 * needs it and none is kept (`of`). `decode`: how the answer's buffer is decoded (the page's decodePayload).
 * @param {{on(event: string, cb: (...args: any[]) => void): void, off(event: string, cb: (...args: any[]) => void): void,
 *          send(content: unknown): void}} model
 * @param {(packed: DataView) => Promise<any>} [decode]
 */
export function basePayload(model, decode = decodePayload) {
  return {
    /** remember `data` (decoded) as the model's app payload when it is one @param {any} data */
    keep(data) { if (isApp(data)) BASES.set(model, Promise.resolve(data)); },
    /** the model's app payload: the one kept, else the kernel's answer to {type: "base"} @returns {Promise<any>} */
    of() {
      let known = BASES.get(model);
      if (!known) {
        known = new Promise((resolve, reject) => {
          const onMessage = (/** @type {{type?: string} | null} */ msg, /** @type {DataView[]} */ buffers) => {
            if (!msg || msg.type !== "base" || !buffers || !buffers.length) return;
            model.off("msg:custom", onMessage);
            decode(buffers[0]).then(resolve, reject);
          };
          model.on("msg:custom", onMessage);
          model.send({type: "base"});
        });
        BASES.set(model, known);
      }
      return known;
    },
  };
}
