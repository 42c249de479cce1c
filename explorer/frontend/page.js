// An exported report (one program or a diff): the app over the data embedded in the page (no kernel, no network).
import {mount} from "./app/mount.js";
import {decodePayload, localModel} from "./host/model.js";
import {parseLink} from "./host/links.js";
import {bindKeys, keysHint} from "./host/keys.js";

/** An exported report: the app over the page's embedded payload (`#dx-data`), drawn into `#dx-app`.
 * @returns {Promise<unknown>} the app (also `window.dxReport` / `window.dxDiff`) */
export async function startPage() {
  performance.mark("dx:start");  // performance marks: bench/bench_view.py reads where the time goes
  // the page's two elements (views/html/report.py writes both)
  const packed = String(/** @type {HTMLElement} */ (document.getElementById("dx-data")).textContent).trim();
  const el = /** @type {HTMLElement} */ (document.getElementById("dx-app"));
  /** @type {import("./types/payload").Payload} */
  let data;
  try {
    data = await decodePayload(packed);
  } catch (e) {  // a payload this app cannot read (another version): say so on the page, not only in the console
    el.textContent = String(e instanceof Error ? e.message : e);
    el.className = "dx-root dx-failed";
    document.body.dataset.ready = "error";
    throw e;
  }
  performance.mark("dx:data");
  await new Promise((resolve) => { setTimeout(resolve, 0); });  // the app is drawn in a task of its own, after the decode's
  // "?overlay=NAME" picks the overlay the nodes are coloured by ("?overlay=" the device colours); the page writes
  // it back when the user picks one, so a link carries the colouring with the selection
  const query = new URLSearchParams(window.location.search), overlay = query.get("overlay");
  const shown = "plans" in data ? data : null;  // a program or a diff (a data file has no plans)
  const model = localModel({plan: shown ? shown.plan : undefined, selected: shown ? shown.selected : undefined,
                            devices: [], expanded: null, ...(overlay === null ? {} : {shown_overlay: overlay})});
  const app = mount(el, model, data);
  performance.mark("dx:mounted");
  if (app.mode === "diff") window.dxDiff = app;  // tests and benches read the app's state
  else window.dxReport = app;
  if (app.mode !== "data" && shown) followLinks(app, model, shown);
  if ("overlays" in data && data.overlays) followOverlay(model, data.overlays.shown || "");
  if (shown) {  // the frame's keys, over the whole page (a data file has no controls)
    bindKeys(el, {page: true});
    const hint = document.createElement("p");
    hint.className = "dx-root dx-muted dx-keys";
    hint.textContent = keysHint(shown.plans.length);
    el.appendChild(hint);
  }
  if ("drawn" in app && app.drawn) await app.drawn();  // every stage of the first view drawn (app/app.js: one task each)
  performance.mark("dx:drawn");
  document.body.dataset.ready = "1";
  return app;
}

// the address's hash selects (host/links.js: which plan, and the text the mode opens: app.openLink) and every selection
// writes it back (app.hashOf; replaceState: no history entry per click)
/** @param {import("./types/app").ShellApp} app @param {import("./types/payload").WidgetModel} model
 * @param {{plans: {name: string}[]}} data */
function followLinks(app, model, data) {
  const names = data.plans.map((p) => p.name), first = names[0];
  function open() {
    const link = parseLink(window.location.hash, names);
    if (!link.text) return;
    if (link.plan && link.plan !== app.state.plan) app.showPlan(link.plan);
    app.openLink(link.text);
  }
  open();
  window.addEventListener("hashchange", open);
  model.on("change:selected", () => {
    const hash = app.hashOf(model.get("selected") || {}, first);
    if (hash !== window.location.hash.replace(/^#/, "")) {
      window.history.replaceState(null, "", hash ? "#" + hash : window.location.pathname + window.location.search);
    }
  });
}

// the overlay picked -> "?overlay=NAME" in the address (none when it is the one the report opens with)
/** @param {import("./types/payload").WidgetModel} model @param {string} opening */
function followOverlay(model, opening) {
  model.on("change:shown_overlay", () => {
    const name = model.get("shown_overlay") || "", url = new URL(window.location.href);
    if (name === opening) url.searchParams.delete("overlay");
    else url.searchParams.set("overlay", name);
    if (url.href !== window.location.href) window.history.replaceState(null, "", url.href);
  });
}
