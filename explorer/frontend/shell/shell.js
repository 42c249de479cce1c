// The frame every view runs in: the one-program app (app/app.js) and the diff (diff/diff.js) are modes of it. The shell
// builds the page's skeleton (the mode's head, the controls row with the plan selector and the search box, the
// mode's panels), owns what both do alike — switching plans, the search box, publishing `plan` and `selected` to
// the model and following them back from it (both directions, no echo), the what-if bar, a card under the controls,
// plots that follow their boxes' widths and take the wheel only when clicked (shell/wheel.js) — and leaves a mode
// only its panels: how a plan is drawn, how a selection is applied and read back, how a search is run. The keys
// (host/keys.js) drive it through its controls.
import {h} from "../util/common.js";
import {fillPlans, followWidth, publisher} from "./frame.js";
import {movesView, sidesMovesView} from "./moves.js";
import {wheelGate} from "./wheel.js";

/**
 * The page a mode asks for: markup around the shell's controls row. The details box (`.dx-details`) is in `body`.
 * @typedef {object} Layout
 * @property {string} rootClass classes of the app's root element
 * @property {string} head markup above the controls row
 * @property {string} planClass classes of the plan selector's label ("" none)
 * @property {string} before controls row markup between the plan selector and the search box
 * @property {string} placeholder the search box's placeholder
 * @property {string} after controls row markup after the search box
 * @property {string} body markup below the controls row: the mode's panels and the details box
 */

/**
 * What the shell gives a mode when it starts it.
 * @typedef {object} ShellContext
 * @property {HTMLElement} el the element the app is drawn in
 * @property {(cls: string) => any} $ the skeleton's element of that class
 * @property {HTMLElement} details the details box
 * @property {import("../types/payload").WidgetModel} model
 * @property {(key: string, value: any) => void} publish state the user changed -> the model (no echo)
 * @property {(card: HTMLElement) => void} mountTop puts a card under the controls row (a profile's time bar)
 * @property {ReturnType<typeof movesView> | null} moves the what-if bar (null: the mode has none)
 * @property {(name: string, keep?: boolean) => void} showPlan switches the plan as the selector does
 */

/**
 * What a mode gives the shell: its state and its panels' few verbs.
 * @typedef {object} View
 * @property {{plan: string | null}} state the mode's state; the shell keeps `plan` in it
 * @property {any[]} plots the plotly divs that follow their boxes' widths
 * @property {(plan: any, keep: boolean) => void} show draws a plan (keep: the model's plan-scoped state is this plan's)
 * @property {(sel: any) => boolean} holds the model's selection, found when a plan opens, is to be applied
 * @property {(sel: any) => void} apply applies a selection that came from the model (not published back)
 * @property {() => void} clear empties the selection (published)
 * @property {() => any} selection the selection as the model holds it (the echo check compares it)
 * @property {(text: string) => void} find runs the search box's text
 * @property {() => void} [started] after the first plan is drawn
 * @property {Record<string, any>} api names the app adds to what the shell returns (tests, benches, links)
 */

/**
 * A mode as the shell starts it.
 * @typedef {object} Mode
 * @property {Layout} layout
 * @property {boolean} moves the mode always has the what-if bar (else only with a what-if in the payload)
 * @property {(ctx: ShellContext) => View} start
 */

/** The skeleton: the mode's head, the shell's controls row, the mode's body.
 * @param {HTMLElement} el @param {Layout} L @param {{name: string, label: string}[]} plans */
function skeleton(el, L, plans) {
  el.textContent = "";
  const root = h("div", L.rootClass);
  root.innerHTML = L.head +
    `<div class="dx-controls"><label${L.planClass ? ` class="${L.planClass}"` : ""}>plan <select class="dx-plan"></select></label>` +
    L.before + `<input class="dx-search" type="search" aria-label="search">` + L.after + `</div>` + L.body;
  el.appendChild(root);
  const $ = (/** @type {string} */ cls) => /** @type {any} */ (root.querySelector("." + cls));
  $("dx-search").placeholder = L.placeholder;
  fillPlans($("dx-plan"), plans);
  return $;
}

/**
 * Plan switching and the model's `plan` / `selected` both ways, over a view: the part of the shell with no markup
 * (node tests run it on stand-ins). Returns showPlan.
 * @param {{plans: {name: string}[]}} data
 * @param {import("../types/payload").WidgetModel} model
 * @param {(key: string, value: any) => void} publish
 * @param {{value: string, addEventListener: function(string, function(any): void): void}} planBox the plan selector
 * @param {{addEventListener: function(string, function(any): void): void}} searchBox
 * @param {() => View} view the mode's view (asked when used: it starts after this is wired)
 */
export function syncPlan(data, model, publish, planBox, searchBox, view) {
  /** @param {string} name @param {boolean} [keep] */
  function showPlan(name, keep) {
    const V = view(), P = data.plans.find((p) => p.name === name) || data.plans[0];
    V.state.plan = P.name;
    planBox.value = P.name;
    publish("plan", P.name);  // before it is drawn: the view asks whether the model's plan-scoped state is this plan's
    V.show(P, !!keep);
    const pre = model.get("selected");  // set with the plan (a finding of another plan, a link, Python)
    if (pre && pre.plan === P.name && V.holds(pre)) V.apply(pre);
    else V.clear();
  }
  planBox.addEventListener("change", (e) => showPlan(e.target.value, false));
  searchBox.addEventListener("input", (e) => view().find(e.target.value));
  // state set from Python (the widget), a link or a test -> the panels; what the view published itself is not
  // applied again
  model.on("change:plan", () => { if (model.get("plan") !== view().state.plan) showPlan(model.get("plan"), true); });
  model.on("change:selected", () => {
    const V = view(), sel = model.get("selected");
    if (!sel || JSON.stringify(sel) === JSON.stringify(V.selection())) return;
    if (sel.plan && sel.plan !== V.state.plan) showPlan(sel.plan, true);  // it opens with the selection applied
    else V.apply(sel);
  });
  return showPlan;
}

/**
 * Starts a mode in the shell: the skeleton, the sync, the first plan. Returns the app: `state`, `showPlan` and the
 * mode's own names (`select`, `lod()`, ... what tests and the report's links call).
 * @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model @param {any} data @param {Mode} mode
 */
export function createShell(el, model, data, mode) {
  const $ = skeleton(el, mode.layout, data.plans);
  const publish = publisher(model);
  const controls = $("dx-controls");
  // a report of thousands of plans draws some of them and says so under the plan selector (views/payload/app.py)
  if (data.plansNotDrawn) controls.after(h("p", "dx-muted dx-plans-more", data.plansNotDrawn));
  // the what-if bar under the controls: its moves, undo, the commands, "Move to ▸" in the details
  // (a diff of two programs: a bar per side, each moving in its side's program)
  const mctx = {root: el, model, data, publish, mount: (/** @type {HTMLElement} */ bar) => controls.after(bar)};
  const moves = mode.moves || data.whatif ? movesView(mctx) : data.whatifSides ? sidesMovesView(mctx) : null;
  /** @type {View | null} */
  let V = null;
  const showPlan = syncPlan(data, model, publish, $("dx-plan"), $("dx-search"), () => /** @type {View} */ (V));
  V = mode.start({el, $, details: $("dx-details"), model, publish, moves, showPlan,
                  mountTop: (card) => controls.after(card)});
  followWidth(V.plots);
  wheelGate(V.plots);  // the wheel scrolls the page over a plot not clicked (shell/wheel.js)
  showPlan(model.get("plan") || data.plan, true);
  if (V.started) V.started();
  return Object.assign({state: V.state, showPlan}, V.api);
}
