// The app in two-program mode: the placement diff of A (before) and B (after). Both graphs side by side with
// changes ringed, memory lanes paired, the runtime needs compared; a click on either side (or a memory block)
// selects it and its counterpart. Model state: `plan`, `selected` ({plan, side, values: {a, b},
// instructions: {a, b}}), as explorer.views.diff_prepare.DiffSelection.to_json writes it. Each side is drawn by
// the one-program modules, one per side, with the diff's marks on top (diff_lod.js), at every size; its memory
// maps are each side's own lanes.
import {arr, esc, h} from "./util.js";
import {markCircles, overlay} from "./overlay.js";
import {profileDiffView} from "./profile_diff.js";
import {diffLod} from "./diff_lod.js";
import {labelLayer} from "./labels.js";
import {CONFIG} from "./frame.js";
import {createShell} from "./shell.js";
import {diffLinkOf, sideNode} from "./links.js";

const SIDES = ["a", "b"];

// the two-program page around the shell's controls row (shell.js): the header above; both graphs side by side,
// the details and the runtime needs, both memory maps below
const LAYOUT = {
  rootClass: "dx-app dx-root dx-diff",
  head: `
<div class="dx-header"></div>`,
  planClass: "dx-muted",
  before: "",
  placeholder: "search both sides: name, op, %value, #op",
  after: `<span class="dx-muted dx-only"></span>`,
  body: `
<div class="dx-row">
 <div class="dx-card dx-half"><h3><span class="dx-side-a">A</span><span class="dx-name-a"></span> <span class="dx-muted">(before)</span></h3><div class="dx-graph-a"></div></div>
 <div class="dx-card dx-half"><h3><span class="dx-side-b">B</span><span class="dx-name-b"></span> <span class="dx-muted">(after)</span></h3><div class="dx-graph-b"></div></div>
</div>
<div class="dx-row">
 <div class="dx-card" style="flex:3 1 520px"><h3>Details <span class="dx-muted">— the selection and its counterpart</span></h3><div class="dx-details"></div></div>
 <div class="dx-card" style="flex:2 1 380px"><h3>Runtime needs <span class="dx-muted">— what the runtime must provide, A vs B</span></h3><div class="dx-req"></div></div>
</div>
<div class="dx-row dx-lod-memory">
 <div class="dx-card" style="flex:1 1 100%"><h3><span class="dx-side-a">A</span>memory map <span class="dx-muted dx-sum-a"></span></h3><div class="dx-memory-a"></div></div>
 <div class="dx-card" style="flex:1 1 100%"><h3><span class="dx-side-b">B</span>memory map <span class="dx-muted dx-sum-b"></span></h3><div class="dx-memory-b"></div></div>
</div>`,
};

/** The diff: the shell (shell.js) in this mode; the what-if bar only over a what-if (original vs predicted).
 * @param {HTMLElement} el @param {import("./payload").WidgetModel} model @param {import("./payload").DiffPayload} data */
export function createDiffApp(el, model, data) {
  return createShell(el, model, data, {layout: LAYOUT, moves: false, start: (ctx) => diffView(ctx, data)});
}

/** The mode's panels and verbs (shell.js View).
 * @param {import("./shell").ShellContext} ctx @param {import("./payload").DiffPayload} data
 * @returns {import("./shell").View} */
function diffView(ctx, data) {
  const {$, publish} = ctx;
  $("dx-name-a").textContent = data.nameA;
  $("dx-name-b").textContent = data.nameB;
  $("dx-only").textContent = data.only;
  const G = {a: $("dx-graph-a"), b: $("dx-graph-b")};
  const M = {a: $("dx-memory-a"), b: $("dx-memory-b")};
  const state = {plan: null, side: "", values: {a: [], b: []}, instructions: {a: [], b: []}, query: ""};
  let P = null;
  let D = null;  // both sides (diff_lod.js)
  let PROF = null;  // two run profiles compared on this plan (profile_diff.js)
  const over = {};
  const other = (side) => (side === "a" ? "b" : "a");

  // a what-if (data.whatif: original vs predicted): the shell's bar, and "Move to ▸" under the details
  const MV = ctx.moves;
  function moveBlock(s, kind, x) { return MV ? MV.diffBlock(P, s, kind, x) : ""; }

  function show(plan) {  // the shell switched to `plan` (shell.js)
    if (PROF) { PROF.remove(); PROF = null; }  // puts back what it changed on the previous plan's figures
    P = plan;
    $("dx-header").innerHTML = P.header;  // escaped when built (explorer.views.diff_details)
    $("dx-req").innerHTML = P.requirements;
    if (!over.a) {
      over.a = overlay(G.a); over.b = overlay(G.b);
      over.ma = overlay(M.a); over.mb = overlay(M.b);
    }
    for (const s of SIDES) $("dx-sum-" + s).textContent = "\u00b7 " + P.sides[s].summary;
    D = diffLod(P, {graphs: G, memories: M, overlays: {a: over.a, b: over.b}, memoryOverlays: {a: over.ma, b: over.mb},
                    config: CONFIG, details: $("dx-details"), names: {a: data.nameA, b: data.nameB},
                    select: (sel) => select(sel), drawn: (s) => { if (PROF) PROF.sizeOps(s); }});
    // two run profiles: the runs compared, what got faster or slower (a click selects it on both sides, opening the
    // groups that hold it on a big pair), and time per run in the details
    if (P.profiles) {
      PROF = profileDiffView(P, {graphs: G, T: data.trace, select: (sel) => select(sel, SIDES), mountTop: ctx.mountTop});
      for (const s of SIDES) PROF.sizeOps(s);
    }
    for (const s of SIDES) {  // node labels that fit, as in the one-program app (labels.js); redrawn after every draw
      if (!over["labels" + s] && G[s].on) {
        over["labels" + s] = labelLayer(G[s], arr, undefined, () => markCircles(G[s], over[s].items().marks));
      }
      if (over["labels" + s]) over["labels" + s].draw();
    }
    wire();
  }

  // the model's selection when a plan opens is applied if it names something on either side
  function holds(pre) { return !!(pre.side || SIDES.some((x) => ((pre.values || {})[x] || []).length)); }

  // plotly's event methods exist once a figure is drawn in the div: the divs a plan drew are wired after it
  const wired = new Map();
  function on(gd, event, fn) {
    if (!gd.on) return;
    if (!wired.has(gd)) wired.set(gd, new Set());
    if (wired.get(gd).has(event)) return;
    wired.get(gd).add(event);
    gd.on(event, fn);
  }
  function wire() {
    for (const s of SIDES) {
      on(G[s], "plotly_click", (ev) => {
        D.clickGraph(s, ev.points[0]);
        const T = P.sides[s].lod.trace, pt = ev.points[0];  // a group's details: what moving it would name
        if (MV && (pt.curveNumber === T.groups || pt.curveNumber === T.headers)) {
          $("dx-details").insertAdjacentHTML("beforeend", moveBlock(s, "group", pt.customdata));
        }
      });
      // each side's memory lanes (lod_panels.js)
      on(M[s], "plotly_click", (ev) => D.clickMemory(s, ev.points[0]));
      on(M[s], "plotly_relayout", (ev) => D.onRelayout(s, ev));
    }
  }

  function highlight(reveal) { D.highlight(state, reveal || []); }  // drawn over the figures (overlay.js)

  function details() {
    const box = $("dx-details"), s = state.side || "a";
    const vs = state.values[s], is = state.instructions[s];
    const one = D.details(state);
    if (one) {
      box.innerHTML = one + moveBlock(s, vs.length ? "value" : "instr", vs.length ? vs[0] : is[0]);
      return;
    }
    if (!vs.length && !is.length) { box.innerHTML = data.empty; return; }
    box.innerHTML = "<div class='dx-root dx-diff'><h4>" + (state.query ? "search \u201c" + esc(state.query) + "\u201d" : "selection") + "</h4>" + SIDES.map((x) =>
      "<div><span class='dx-side-" + x + "'>" + x.toUpperCase() + "</span>" +
      esc(state.values[x].slice(0, 60).map((v) => label(x, "v", v)).concat(state.instructions[x].slice(0, 60).map((i) => label(x, "i", i))).join(", ") || "—") +
      (state.values[x].length + state.instructions[x].length > 120 ? " \u2026" : "") +
      "</div>").join("") + "</div>";
  }

  function label(s, kind, x) {  // a value's name (else %N), an instruction's #N and op, for lists
    const L = D.labels(s);
    const name = L && (kind === "v" ? L.v[x] : L.i[x]);
    return kind === "v" ? (name && name !== "%" + x ? name + " (%" + x + ")" : "%" + x) : "#" + x + (name ? " " + name : "");
  }

  function selection() {
    return {plan: state.plan, side: state.side, values: {a: state.values.a.slice(), b: state.values.b.slice()},
            instructions: {a: state.instructions.a.slice(), b: state.instructions.b.slice()}};
  }

  function apply(sel) {  // a whole selection (both sides), as Python sends it: both sides open what it names
    state.side = sel.side || "";
    state.query = sel.query || "";
    state.values = {a: ((sel.values || {}).a || []).slice(), b: ((sel.values || {}).b || []).slice()};
    state.instructions = {a: ((sel.instructions || {}).a || []).slice(), b: ((sel.instructions || {}).b || []).slice()};
    highlight(SIDES); details(); profileDetails();
  }

  function counterpart(s, kind, x) { return D.counterpart(s, kind, x); }

  function find(text) {  // the search box: each side's own matches (explorer/frontend/search.js rules)
    text = text.trim();
    if (!text) { select({side: "", values: [], instructions: []}); return; }
    apply(D.find(text));
    publish("selected", selection());
  }

  function profileDetails() {
    if (PROF) $("dx-details").insertAdjacentHTML("beforeend", PROF.details(state.instructions));
  }

  // sel: {side: "a"|"b", values, instructions} on that side; the other side follows the pairing. reveal: the sides
  // whose folded groups open to show it (default: the other side; a click on a side shows what it hit already)
  function select(sel, reveal) {
    const s = sel.side || "", o = s ? other(s) : "";
    state.side = s;
    state.query = "";
    state.values = {a: [], b: []}; state.instructions = {a: [], b: []};
    if (s) {
      state.values[s] = (sel.values || []).slice();
      state.instructions[s] = (sel.instructions || []).slice();
      state.values[o] = state.values[s].map((v) => counterpart(s, "v", v)).filter((v) => v !== undefined);
      state.instructions[o] = state.instructions[s].map((i) => counterpart(s, "i", i)).filter((i) => i !== undefined);
    }
    highlight(reveal || (o ? [o] : [])); details(); profileDetails();
    publish("selected", selection());
  }

  // api.openLink / hashOf: the report's address (page.js, links.js): "a:%12" / "b:@5" a node of one side (and its
  // counterpart), else a search of both; a selection -> its hash
  return {state, plots: [G.a, G.b, M.a, M.b], show, holds, apply, selection, find, started: wire,
          clear: () => select({side: "", values: [], instructions: []}),
          api: {select, find, profile: () => PROF, lod: () => D,
                openLink(text) {
                  const node = sideNode(text);
                  if (node) select(node, SIDES);
                  else find(text);
                },
                hashOf: (sel, first) => diffLinkOf(sel, state.query, first)}};
}
