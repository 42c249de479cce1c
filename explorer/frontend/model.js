// The page's stand-in for the widget model: the same get / set / on / save_changes surface over plain state,
// so the exported report runs the app exactly as the notebook widget does (only nobody listens in Python).
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

// The payload: JSON, gzip-compressed, as bytes (the widget's binary trait) or base64 text (the report page);
// decompressed with the browser's own DecompressionStream.
export async function decodePayload(packed) {
  let bytes = packed;
  if (typeof packed === "string") {
    const bin = atob(packed);
    bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  } else if (packed instanceof DataView) {
    bytes = new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength);
  } else if (packed instanceof ArrayBuffer) {
    bytes = new Uint8Array(packed);
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
