// The notebook widget's front end (anywidget): the app over the widget's model. plotly.js comes from the
// kernel once per page (a custom message answered with the vendored file as a binary buffer), not once per
// widget; the payload is a gzip-compressed binary trait.
import {mount} from "./app/mount.js";
import {decodePayload} from "./host/model.js";
import {basePayload, refersToBase, resolveBase} from "./host/base.js";
import {bindKeys} from "./host/keys.js";

/** plotly.js, once per page: from the kernel, or the page's own.
 * @param {import("./types/payload").WidgetModel} model @returns {Promise<any>} */
function ensurePlotly(model) {
  if (globalThis.Plotly) return Promise.resolve(globalThis.Plotly);
  if (!globalThis.__dxPlotly) {
    globalThis.__dxPlotly = new Promise((resolve) => {
      const onMessage = (/** @type {{type?: string} | null} */ msg, /** @type {DataView[]} */ buffers) => {
        if (!msg || msg.type !== "plotly") return;
        model.off("msg:custom", onMessage);
        const view = buffers[0], bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        const script = document.createElement("script"), amd = globalThis.define;
        globalThis.define = undefined;  // plotly's UMD wrapper must set window.Plotly, not register with an AMD loader
        script.textContent = new TextDecoder().decode(bytes);
        document.head.appendChild(script);
        globalThis.define = amd;
        resolve(globalThis.Plotly);
      };
      model.on("msg:custom", onMessage);
      model.send({type: "plotly"});
    });
  }
  return globalThis.__dxPlotly;
}

// A page whose widget state was saved (`jupyter nbconvert --to html`, a notebook viewer) has no kernel to
// answer the plotly request. Bundling plotly.js (1.2 MB) into every saved notebook's state to cover that case
// was rejected (docs/frontend.md, "Hosts"): after NO_KERNEL_MS without an answer the widget says in one line
// what it needs, and still draws if a busy kernel answers later.
const NO_KERNEL_MS = 6000;
export const NO_KERNEL_TEXT = "This view needs a live Python kernel (it gets plotly.js from it). Run the notebook, " +
  "or save an offline report: ex.save_html(\"report.html\") or device-explorer show FILE.pte";

// The height the host lets the widget use: the nearest ancestor (across shadow roots) with a max-height in
// pixels, or none. marimo's editor caps an output at ~610 px; the app is ~1,600 px tall.
/** @param {HTMLElement} el @returns {number | null} */
function availableHeight(el) {
  /** @type {Element | null | undefined} */
  let node = el.parentElement || hostOf(el);
  for (let depth = 0; node && depth < 40; depth++) {
    const max = parseFloat(getComputedStyle(node).maxHeight);
    if (Number.isFinite(max) && max > 0) return max;
    node = node.parentElement || hostOf(node) || null;
  }
  return null;
}

// the element a shadow root hangs from (el is inside one), else undefined
/** @param {Element} el @returns {Element | undefined} */
function hostOf(el) {
  return el.getRootNode && /** @type {ShadowRoot} */ (el.getRootNode()).host;
}

// Inside a capped output, or one given a height (the widget's `height` trait: `Explorer(..., height=500)`), an app taller
// than that box is laid out for it (app/fit.js: the one-program app's compact layout, the graph and the memory map side
// by side, each as tall as the box leaves it) and scrolls in its own box of that height instead of being cut by the host:
// the controls row stays at the box's top (sticky, style.css .dx-fit) while what is under the plots scrolls.
/** @param {HTMLElement & {dxApp?: import("./types/app").MountedApp}} el @param {number} wanted the trait's height in px (0: none) */
function fitHost(el, wanted) {
  const cap = availableHeight(el), host = cap === null ? null : Math.floor(cap) - 4;
  const limit = wanted > 0 ? (host === null ? wanted : Math.min(wanted, host)) : host;
  const app = el.dxApp && "fit" in el.dxApp && typeof el.dxApp.fit === "function" ? el.dxApp.fit : null;
  el.classList.remove("dx-fit");
  el.style.maxHeight = "";
  if (app) app(null);  // measured as tall as it is
  if (limit !== null && el.scrollHeight > limit) {
    el.classList.add("dx-fit");
    el.style.maxHeight = `${limit}px`;
    if (app) app(limit);
  }
}

// The app's view of the widget model: every handler it registers is remembered, so a re-render (a new payload: a
// what-if's diff, or the original again) drops the old app's handlers with its plots. `rename` maps the app's keys
// to the widget's: the what-if diff keeps its selection in `_whatif_selected` (the widget's `selected` is a
// selection of the original program).
/** @param {import("./types/payload").WidgetModel} model @param {Record<string, string>} rename
 * @returns {import("./types/payload").WidgetModel & {dispose(): void}} */
function scopedModel(model, rename) {
  const key = (/** @type {string} */ k) => rename[k] || k;
  const event = (/** @type {string} */ e) => (e.startsWith("change:") ? "change:" + key(e.slice(7)) : e);
  /** @type {[string, function(...any): void][]} */
  const handlers = [];
  return {
    get: (/** @type {string} */ k) => model.get(key(k)),
    set: (/** @type {string} */ k, /** @type {unknown} */ v) => model.set(key(k), v),
    on(/** @type {string} */ e, /** @type {function(...any): void} */ cb) { handlers.push([event(e), cb]); model.on(event(e), cb); },
    off(/** @type {string} */ e, /** @type {function(...any): void} */ cb) { model.off(event(e), cb); },
    save_changes: () => model.save_changes(),
    send: (/** @type {unknown} */ content) => model.send(content),
    dispose() { for (const [e, cb] of handlers) model.off(e, cb); handlers.length = 0; },
  };
}

// The kernel behind the widget is gone (a restart, a shutdown): the widget manager marks the model's comm not live
// ("comm_live_update"; ipywidgets sets comm_live false for every model when the kernel restarts) or closes it
// ("comm:close"). The output stays on the page, so it says so — a click there reaches no Python any more.
export const DISCONNECTED_TEXT = "disconnected — re-run the cell (the kernel that drew this view is gone: " +
  "what you select here no longer reaches Python)";

/** the banner over a stale output, once @param {HTMLElement} el */
export function markDisconnected(el) {
  el.classList.add("dx-stale");
  el.dataset.disconnected = "1";
  if (el.querySelector(":scope > .dx-disconnected")) return;
  const banner = document.createElement("div");
  banner.className = "dx-root dx-disconnected";
  banner.setAttribute("role", "status");
  banner.textContent = DISCONNECTED_TEXT;
  el.prepend(banner);
}

/** @param {HTMLElement} el */
function purge(el) {
  for (const gd of el.querySelectorAll(".js-plotly-plot")) globalThis.Plotly.purge(gd);
}

/**
 * anywidget's entry: the app drawn in the widget's output, redrawn on a new payload; returns the clean-up.
 * @param {{model: import("./types/payload").WidgetModel, el: HTMLElement & {dxApp?: import("./types/app").MountedApp}}} ctx
 * @returns {Promise<() => void>}
 */
export async function render({model, el}) {
  el.classList.add("dx-explorer");
  const waiting = document.createElement("div");
  waiting.className = "dx-root dx-loading";
  waiting.textContent = "drawing…";
  el.appendChild(waiting);
  const timer = setTimeout(() => {
    waiting.classList.add("dx-no-kernel");
    waiting.textContent = NO_KERNEL_TEXT;
  }, NO_KERNEL_MS);
  /** @type {ReturnType<typeof scopedModel> | null} */
  let scope = null;
  let drawing = 0;
  // the payload as the app draws it: a what-if's references to the original's tables resolved (host/base.js: the
  // original decoded once, not again with every move)
  const bases = basePayload(model);
  /** @param {DataView} packed @returns {Promise<import("./types/payload").Payload>} */
  const decoded = (packed) => decodePayload(packed).then((data) => {
    if (refersToBase(data)) return bases.of().then((base) => resolveBase(data, base));
    bases.keep(data);
    return data;
  });
  // the payload -> a fresh app in `el`: the old one's plots purged and its model handlers dropped first
  /** @param {Promise<import("./types/payload").Payload>} decoding */
  async function draw(decoding) {
    const ticket = ++drawing;
    let data;
    try {
      data = await decoding;
    } catch (e) {  // a payload this front end cannot read (another version): say so in the output
      if (ticket !== drawing) return;
      purge(el);
      el.textContent = String(e instanceof Error ? e.message : e);
      el.classList.add("dx-root", "dx-failed");
      return;
    }
    if (ticket !== drawing) return;  // a newer payload came while this one was decoded
    performance.mark("dx:data");  // bench/bench_whatif_widget.py reads where a move's time goes
    el.style.minHeight = el.offsetHeight + "px";  // the notebook keeps its scroll while the new app is built
    purge(el);
    if (scope) scope.dispose();
    el.textContent = "";
    scope = scopedModel(model, "mode" in data && data.mode === "diff" && data.whatif ? {selected: "_whatif_selected"} : {});
    const app = mount(el, scope, data);
    performance.mark("dx:mounted");  // its first stage drawn: a diff's graphs with their marks, what the first view shows
    if ("drawn" in app && app.drawn) await app.drawn();  // every stage of its first view drawn (app/app.js: one task each)
    if (ticket !== drawing) return;  // a newer payload is drawn over it meanwhile
    el.dxApp = app;
    performance.mark("dx:drawn");
    el.dataset.drawn = String(ticket);  // tests wait for a re-render by it
    requestAnimationFrame(() => { el.style.minHeight = ""; fitHost(el, Number(model.get("height")) || 0); });
  }
  const first = decoded(model.get("_payload"));  // decoded while plotly.js arrives
  await ensurePlotly(model);
  clearTimeout(timer);
  await draw(first);
  const unbindKeys = bindKeys(el);  // the frame's keys (host/keys.js), while the focus is inside this output
  // a new payload (ex.moves changed: the what-if diff, or the original again) is drawn in the same output
  const onPayload = () => { draw(decoded(model.get("_payload"))); };
  model.on("change:_payload", onPayload);
  const gone = () => { markDisconnected(el); };
  model.on("comm_live_update", gone);  // after the first render the comm only ever goes from live to not
  model.on("comm:close", gone);
  const onHeight = () => { fitHost(el, Number(model.get("height")) || 0); };
  model.on("change:height", onHeight);
  return () => {
    model.off("change:_payload", onPayload);
    model.off("comm_live_update", gone);
    model.off("comm:close", gone);
    model.off("change:height", onHeight);
    unbindKeys();
    if (scope) scope.dispose();
    purge(el);
  };
}

export default {render};
