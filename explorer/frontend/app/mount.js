// The one place a payload becomes an app, for both hosts: the notebook widget (index.js) and the exported report
// (page.js) call mount with their model; the payload's mode picks the view. A program or a diff runs in the
// shell (shell/shell.js) as its mode (app/app.js, diff/diff.js); a data file (.ptd) has no plans and shows its entries table.
import {createApp} from "./app.js";
import {createDiffApp} from "../diff/diff.js";
import {createDataFileApp} from "./datafile.js";

/** mode -> the app that shows it (a payload without a mode is one program) */
const MODES = {diff: createDiffApp, data: createDataFileApp, app: createApp};

/**
 * Draws `data` in `el` over `model`. Returns the app: `mode`, `state`, and the mode's names (`select`, `lod()`...)
 * that tests, benches and the report's links call.
 * @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model
 * @param {import("../types/payload").Payload} data
 * @returns {import("../types/app").MountedApp}
 */
export function mount(el, model, data) {
  const said = /** @type {{mode?: string}} */ (data).mode;  // a one-program payload has none
  const mode = said === "diff" || said === "data" ? said : "app";
  // the mode picks the payload's type (types/payload.d.ts Payload): each app gets its own
  const app = MODES[mode](el, model, /** @type {any} */ (data));
  app.mode = mode;
  return /** @type {import("../types/app").MountedApp} */ (app);
}
