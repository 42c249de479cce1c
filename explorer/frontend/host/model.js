import {fillLabels} from "../util/common.js";

// The page's stand-in for the widget model: the same get / set / on / save_changes surface over plain state,
// so the exported report runs the app exactly as the notebook widget does (only nobody listens in Python).
/** @param {Record<string, unknown>} initial @returns {import("../types/payload").WidgetModel} */
export function localModel(initial) {
  const state = Object.assign({}, initial), handlers = new Map();
  return {
    get: (key) => state[key],
    set(key, value) {
      state[key] = value;
      for (const cb of handlers.get("change:" + key) || []) cb();
    },
    on(event, cb) {
      if (!handlers.has(event)) handlers.set(event, []);
      handlers.get(event).push(cb);
    },
    off(event) { handlers.delete(event); },
    save_changes() {},
    send() {},
  };
}

// The payload: gzip-compressed, as bytes (the widget's binary trait) or base64 text (the report page);
// decompressed with the browser's own DecompressionStream. Inside: "DXB1", the JSON's length, the JSON, then
// its big integer columns as little-endian int32 / float64 arrays (read in the machine's order: little-endian on
// every platform browsers run on), put back at the paths "$bin" names
// (explorer.views.payload.embed.pack: a 100k-value plan's tables are ~9 MB as JSON text, ~1 MB of arrays).
/** @param {string | DataView | ArrayBuffer | Uint8Array} packed @returns {Promise<any>} */
export async function decodePayload(packed) {
  /** @type {Uint8Array} */
  let bytes;
  if (typeof packed === "string") {
    const bin = atob(packed);
    bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  } else if (packed instanceof DataView) {
    bytes = new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength);
  } else if (packed instanceof ArrayBuffer) {
    bytes = new Uint8Array(packed);
  } else {
    bytes = packed;
  }
  const stream = new Blob([/** @type {BlobPart} */ (bytes)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return unpackPayload(await new Response(stream).arrayBuffer());
}

// The payload contract this app reads (explorer.views.payload.embed.PAYLOAD_VERSION, written as "$v"): a payload of another
// version would be misread, so it is refused with a message saying so
export const PAYLOAD_VERSION = 2;

/** @type {Record<string, Int32ArrayConstructor | Float64ArrayConstructor>} */
const ARRAYS = {i4: Int32Array, f8: Float64Array};

// a typed array as a plain one (the app maps columns to strings and arrays); a loop, as Array.from's
// iterator protocol is ~10x slower on 100k items
/** @param {ArrayLike<number>} typed @returns {number[]} */
function plain(typed) {
  const out = [];
  for (let k = 0; k < typed.length; k++) out.push(typed[k]);
  return out;
}

// the decompressed bytes -> the payload, its binary arrays back in place as plain arrays
/** @param {ArrayBuffer} buf @returns {any} */
export function unpackPayload(buf) {
  const u8 = new Uint8Array(buf), view = new DataView(buf);
  if (u8.length < 8 || String.fromCharCode(u8[0], u8[1], u8[2], u8[3]) !== "DXB1") throw new Error("not a device-explorer payload");
  const n = view.getUint32(4, true), obj = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + n)));
  if (obj.$v !== PAYLOAD_VERSION) {
    throw new Error(`this view was made by another version of device-explorer (payload version ${obj.$v}, this app reads ` +
                    `version ${PAYLOAD_VERSION}): make it again with the installed version`);
  }
  delete obj.$v;
  const base = 8 + n + ((8 - (8 + n) % 8) % 8);
  for (const [path, dtype, offset, count] of obj.$bin || []) {
    let target = obj;
    for (let k = 0; k < path.length - 1; k++) target = target[path[k]];
    target[path[path.length - 1]] = plain(new ARRAYS[dtype](buf, base + offset, count));
  }
  delete obj.$bin;
  fillLabels(obj);
  return obj;
}
