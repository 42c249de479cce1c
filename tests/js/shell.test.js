// The shell's sync (explorer/frontend/shell/shell.js syncPlan): plan switching and the model's `plan` / `selected` both
// ways, run over the page's model (host/model.js) with a recording view and stand-ins for the plan selector and search box.
import test from "node:test";
import assert from "node:assert/strict";
import {syncPlan} from "../../explorer/frontend/shell/shell.js";
import {localModel} from "../../explorer/frontend/host/model.js";
import {publisher} from "../../explorer/frontend/shell/frame.js";

/** a control: its value and the listeners the shell put on it; fire() is what a user's pick / typing does */
function control() {
  /** @type {Record<string, function(any): void>} */
  const on = {};
  return {
    value: "",
    addEventListener(/** @type {string} */ type, /** @type {function(any): void} */ fn) { on[type] = fn; },
    fire(/** @type {string} */ type, /** @type {string} */ value) { this.value = value; on[type]({target: {value}}); },
  };
}

/** a view recording what the shell asks of it; its selection is {plan, values} */
function recorder(model) {
  const log = [];
  const view = {
    state: {plan: null}, plots: [], picked: [],
    show(plan, keep) { log.push(["show", plan.name, keep, model.get("plan")]); },
    holds: (sel) => sel.values.length > 0,
    apply(sel) { view.picked = sel.values.slice(); log.push(["apply", sel.values.join()]); },
    clear() { view.picked = []; log.push(["clear"]); model.set("selected", view.selection()); },
    selection: () => ({plan: view.state.plan, values: view.picked.slice()}),
    find(text) { log.push(["find", text]); },
    api: {},
  };
  return {view, log};
}

function setup(initial) {
  const data = {plans: [{name: "forward"}, {name: "decode"}]};
  const model = localModel(initial);
  const {view, log} = recorder(model);
  const plan = control(), box = control();
  const showPlan = syncPlan(data, model, publisher(model), plan, box, () => view);
  return {model, view, log, plan, box, showPlan};
}

test("a plan opens published before it is drawn, with the model's selection when it names something there", () => {
  const {model, view, log, plan, showPlan} = setup({plan: "decode", selected: {plan: "decode", values: [3]}});
  showPlan("decode", true);
  assert.equal(view.state.plan, "decode");
  assert.equal(plan.value, "decode");
  assert.deepEqual(log, [["show", "decode", true, "decode"], ["apply", "3"]]);
  log.length = 0;
  showPlan("forward", false);  // the selection is decode's: the new plan opens cleared
  assert.deepEqual(log, [["show", "forward", false, "forward"], ["clear"]]);
  assert.equal(model.get("plan"), "forward");
  assert.deepEqual(model.get("selected"), {plan: "forward", values: []});
});

test("an unknown plan name opens the first plan", () => {
  const {view, showPlan} = setup({plan: null, selected: null});
  showPlan("missing", true);
  assert.equal(view.state.plan, "forward");
});

test("what the view published is not applied back; a selection from the model is, once", () => {
  const {model, log, showPlan} = setup({plan: "forward", selected: null});
  showPlan("forward", true);
  log.length = 0;
  model.set("selected", {plan: "forward", values: []});  // the echo of the cleared selection
  assert.deepEqual(log, []);
  model.set("selected", {plan: "forward", values: [7]});
  assert.deepEqual(log, [["apply", "7"]]);
});

test("a selection of another plan opens that plan with it applied", () => {
  const {model, view, log, showPlan} = setup({plan: "forward", selected: null});
  showPlan("forward", true);
  log.length = 0;
  model.set("selected", {plan: "decode", values: [2]});
  assert.equal(view.state.plan, "decode");
  assert.deepEqual(log, [["show", "decode", true, "decode"], ["apply", "2"]]);
});

test("the model's plan, the selector and the search box drive the view", () => {
  const {model, log, plan, box, showPlan} = setup({plan: "forward", selected: null});
  showPlan("forward", true);
  log.length = 0;
  model.set("plan", "forward");  // the plan shown: nothing to do
  assert.deepEqual(log, []);
  model.set("plan", "decode");  // from Python: its plan-scoped state is kept
  assert.deepEqual(log[0], ["show", "decode", true, "decode"]);
  log.length = 0;
  plan.fire("change", "forward");  // the user's pick: the plan opens as it first did
  assert.deepEqual(log[0], ["show", "forward", false, "forward"]);
  log.length = 0;
  box.fire("input", "%12");
  assert.deepEqual(log, [["find", "%12"]]);
});
